"""A learner's text speaks about the subject, never about how, when, on what machine or budget the course was made.

Scanned in every notebook (found by glob): markdown cells, the comments of code cells and their string literals (what
cells print), collapsed cells included (a learner can open them), and the text outputs committed with the cells (what
the helpers printed). Each pattern in ``PROCESS_TALK`` names one kind of talk about the making of the course; the
patterns are narrow on purpose, so that the subject's own words pass: "KV-cache budget", "memory budget", "ran out of
memory on their 32 GB GPU" (a paper's figure), "flash-attention issue #352" (an upstream thread, with its ``#``),
"when this machine has a font" (the learner's machine). Run times on a 2-core laptop and memory are the subject too;
*when* and *at what load* the course's own runs were made are not.

Also: nbval's markers are cell tags (``nbval-ignore-output``, ``nbval-skip``, ``nbval-check-output``,
``raises-exception``), never ``# NBVAL_...`` comments in a learner's cell. nbval 0.11 reads those tags
(``nbval.plugin.metadata_tags``: each comment marker lower-cased with ``-`` for ``_``, plus ``raises-exception``);
a test below runs nbval on a toy notebook to show that the tags and ``tests/nbval_sanitize.cfg`` work.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]

# What is not the subject (each: what it is, the pattern; case-insensitive).
_BUDGET_OK = r"(?<!KV-cache )(?<!KV cache )(?<!cache )(?<!memory )(?<!context )(?<!token )(?<!parameter )(?<!error )"
PROCESS_TALK: dict[str, str] = {
    "the course's machine": r"\bthis project'?s\b[^.\n]{0,20}\bmachine\b|\b(?:the|a|this) (?:shared|test) "
    r"(?:\d-core )?machine\b|\bthe machine is shared\b|\bthis machine'?s speed\b",
    "the course's own runs": r"\bthe course'?s own runs?\b|\bour (?:own )?(?:runs|measurements|machine)\b",
    "running out of time": r"\bran out of time\b|\brunning out of time\b",
    "load average": r"\bload average\b|\bwhile it was quiet\b|\bon a quiet machine\b",
    "when runs were made": r"\b\d{1,2}:\d{2} UTC\b|\b20\d\d-[01]\d-[0-3]\d(?:T\d\d)?\b",
    "the course's issues": r"\bissues?\s+\d+\b|\b(?:this|the) (?:chapter|notebook|course|project)'?s issue\b"
    r"|\bfiled (?:with|as|in) (?:this|the|an?) [\w' ]{0,20}issue\b",
    "nbval (a test tool, not the lesson)": r"\bnbval\b|\b(?:is|are) not compared\b(?! with)",
    "a time a table 'is allowed'": r"\b(?:minutes|seconds|hours|time)\b[^.\n]{0,60}\b(?:is|are) allowed\b",
    "sessions": r"\bsessions?\b",
    "budgets": _BUDGET_OK + r"(?<!--)\b(?:a |the |this |our |its |within |\d+ ?[MG]B )?budget\b",
}
_COMPILED = {what: re.compile(pattern, re.IGNORECASE) for what, pattern in PROCESS_TALK.items()}
NBVAL_COMMENT = re.compile(r"^\s*#\s*(NBVAL_\w+|PYTEST_VALIDATE_\w+)", re.MULTILINE)
TAG_FOR = {
    "NBVAL_IGNORE_OUTPUT": "nbval-ignore-output",
    "NBVAL_SKIP": "nbval-skip",
    "NBVAL_CHECK_OUTPUT": "nbval-check-output",
    "NBVAL_RAISES_EXCEPTION": "raises-exception",
}


def code_texts(source: str) -> list[tuple[str, str]]:
    """The comments and string literals of a code cell, as ("comment" | "string", text)."""
    python = TransformerManager().transform_cell(source)
    found = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(python).readline):
            if tok.type == tokenize.COMMENT:
                found.append(("comment", tok.string))
    except (tokenize.TokenError, IndentationError):
        found.append(("comment", source))  # cannot tokenize: scan the whole cell
    try:
        tree = ast.parse(python)
    except SyntaxError:
        return found + [("string", source)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(("string", node.value))
    return found


def output_texts(cell) -> list[str]:
    texts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            texts.append(out.get("text", ""))
        elif "data" in out:
            texts.extend(out["data"].get(mime, "") for mime in ("text/plain", "text/markdown", "text/html"))
    return ["".join(t) if isinstance(t, list) else t for t in texts]


def learner_texts(nb) -> list[tuple[int, str, str]]:
    """(cell index, kind, text) for everything a learner reads in ``nb``."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            found.append((index, "markdown", cell.source))
        elif cell.cell_type == "code":
            found.extend((index, kind, text) for kind, text in code_texts(cell.source))
            found.extend((index, "output", text) for text in output_texts(cell))
    return found


def process_talk(text: str) -> list[tuple[str, str]]:
    """(what, the words with some context) for every match of ``PROCESS_TALK`` in ``text``."""
    hits = []
    for what, pattern in _COMPILED.items():
        for m in pattern.finditer(text):
            start, end = max(0, m.start() - 40), min(len(text), m.end() + 30)
            hits.append((what, " ".join(text[start:end].split())))
    return hits


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_no_talk_about_how_the_course_was_made(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    hits = list(
        dict.fromkeys(  # one line per place, however often a string repeats in a cell
            f"cell {index} ({kind}), {what}: …{context}…"
            for index, kind, text in learner_texts(nb)
            for what, context in process_talk(text)
        )
    )
    assert not hits, (
        f"{nb_path.name}: {len(hits)} place(s) speak about how the course was made, not about the subject "
        "(say what a learner's run costs on a 2-core laptop, or drop it):\n  " + "\n  ".join(hits)
    )


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_no_nbval_comment_markers(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    found = [
        f"cell {index}: `# {m.group(1)}`: delete the comment, tag the cell `{TAG_FOR.get(m.group(1), '?')}`"
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for m in NBVAL_COMMENT.finditer(cell.source)
    ]
    assert not found, f"{nb_path.name}: nbval comment markers in a learner's code:\n  " + "\n  ".join(found)


@pytest.mark.parametrize(
    "text",
    [
        "Measured on this project's 2-core machine while it was quiet",
        "the course's own runs were made at night",
        "its training grid ran out of time",
        "at a load average of 5",
        "runs finished after 07:00 UTC",
        "as issue 12 asks",
        "(filed with this chapter's issue)",
        "so nbval does not compare it",
        "depends on the fonts installed, so this output is not compared.",
        "more than the 90 minutes the whole table is allowed",
        "the chapter's first session ran beside other work",
        "stored in float16 to fit the lab's 25 MB budget",
        "within the time budget",
        "On the test machine there was none.",
        "about 2.2 hours at this machine's speed",
    ],
)
def test_process_talk_is_found(text):
    assert process_talk(text), text


@pytest.mark.parametrize(
    "text",
    [
        "the KV-cache budget of a long prompt",
        "a memory budget of 16 GB",
        "it ran out of memory on their 32 GB GPU",
        "the maintainer's answer in flash-attention issue #352",
        "Tick labels show the Chinese tokens when this machine has a font that can draw them",
        "On a 2-core laptop a 16k loss run takes about two minutes and peaks at 1.9 GB",
        "Each key is allowed to attend to earlier positions only",
        "the token budget of the context window",
        "a scale-3 result, so it is not compared with the s = 2 rows",
        "`--budget-minutes` stops starting new runs after that many minutes",
    ],
)
def test_subject_matter_is_not_flagged(text):
    assert not process_talk(text), process_talk(text)


def test_comments_and_strings_are_scanned_not_identifiers():
    src = "%matplotlib inline\nsession_count = 3  # nbval ignores this\nprint('load average', f'{x} 07:00 UTC')\n"
    texts = code_texts(src)
    assert ("comment", "# nbval ignores this") in texts
    assert ("string", "load average") in texts and any("07:00 UTC" in t for _, t in texts)
    assert not any("session_count" in t for _, t in texts)


def test_nbval_reads_the_cell_tags_and_the_sanitize_config(tmp_path):
    """nbval 0.11 on a toy notebook: tagged cells are ignored or skipped, the sanitize config's patterns apply.

    The same notebook without the tags fails, so the pass is the tags' doing.
    """
    import nbval.plugin

    assert {"nbval-ignore-output", "nbval-skip", "nbval-check-output", "raises-exception"} <= set(
        nbval.plugin.metadata_tags
    )
    patterns = nbval.plugin.get_sanitize_patterns((ROOT / "tests" / "nbval_sanitize.cfg").read_text())
    assert len(patterns) >= 2 and all(re.compile(regex) for regex, _ in patterns)

    def toy(tagged: bool) -> Path:
        nb = nbformat.v4.new_notebook()
        stream = lambda text: [nbformat.v4.new_output("stream", name="stdout", text=text)]  # noqa: E731
        nb.cells = [
            nbformat.v4.new_code_cell(
                "import random; print(random.random())",
                execution_count=1,
                outputs=stream("0.5\n"),
                metadata={"tags": ["nbval-ignore-output"] if tagged else []},
            ),
            nbformat.v4.new_code_cell(
                "raise SystemExit(1)", execution_count=2, metadata={"tags": ["nbval-skip"] if tagged else []}
            ),
            nbformat.v4.new_code_cell(
                "print(hex(id(object())), '12.5 ms elapsed')", execution_count=3, outputs=stream("0x1 3 s elapsed\n")
            ),
        ]
        path = tmp_path / f"toy_{'tagged' if tagged else 'plain'}.ipynb"
        nbformat.write(nb, path)
        return path

    def nbval(path: Path) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "pytest", "-q", "-c", str(tmp_path / "none.ini"), "-p", "no:cacheprovider",
               "--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
               str(path)]  # fmt: skip
        (tmp_path / "none.ini").write_text("[pytest]\n")
        return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)

    tagged = nbval(toy(tagged=True))
    assert tagged.returncode == 0, tagged.stdout[-3000:]
    plain = nbval(toy(tagged=False))
    assert plain.returncode != 0, "nbval passed the untagged toy notebook: the test proves nothing"
