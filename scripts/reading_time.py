"""Each notebook's honest reading time, counted from the notebook itself (what its title cell should state).

    python scripts/reading_time.py                       # every notebook in notebooks/
    python scripts/reading_time.py notebooks/02_sinusoidal.ipynb

The counting method (the README states it once; title cells state only the result):

* **prose**: the words of every markdown cell at ``WORDS_PER_MINUTE`` (100) words a minute. A word is a
  whitespace-separated token with at least one letter or digit (so table rules, dashes and lone operators do not
  count; an inline formula counts as its tokens). CJK characters (Chinese, Japanese kana, Korean) are not separated
  by spaces: each counts as ``CJK_WORDS_PER_CHARACTER`` (half) a word, since a Chinese word is about two
  characters (reading-time conventions read CJK at about twice as many characters a minute as words).
* **printed words**: the words of what code cells print and display (stdout, and of each displayed output its
  ``text/markdown``, else ``text/html`` without tags, else ``text/plain`` unless the output is a figure or a widget
  or a bare ``<... object>`` repr), counted like prose, except in cells whose outputs are hidden
  (``metadata.jupyter.outputs_hidden``: solutions). A generated table or list is read like text.
* **+1 minute per visible code cell** (a code cell without ``metadata.jupyter.source_hidden``: collapsed checks and
  solutions are not read on the way through).
* **+2 minutes per figure or slider panel**: a code cell, visible or collapsed, whose committed outputs contain an
  image (``image/png``, ``image/svg+xml``, ``image/jpeg``) or a widget view
  (``application/vnd.jupyter.widget-view+json``). One cell counts once, however many images it shows.
* **+5 minutes per exercise**: a markdown line that opens an exercise, i.e. a header or bold lead starting with
  "Exercise N" (``### Exercise 2: ...``, ``**Exercise 2.** ...``), or a bold number ``**2.**`` inside a section
  headed "Exercises". The exercise's own prose and code cells are counted as above as well.
* **optional**: everything in a section whose header says "Appendix" or "optional" (up to the next header of the
  same or a higher level) is counted separately, by the same rules, as the optional minutes.

Both totals are rounded to the nearest 5 minutes (at least 5 when there is anything to count). The title cell states
them as ``**Time:** about N min (+M optional)`` (``(+M optional)`` only when the notebook has an optional part);
``tests/test_reading_time.py`` checks that wording against this count.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS_PER_MINUTE = 100
CJK_WORDS_PER_CHARACTER = 0.5
MINUTES_PER_CODE_CELL = 1
MINUTES_PER_FIGURE = 2
MINUTES_PER_EXERCISE = 5

FIGURE_MIMES = ("image/png", "image/svg+xml", "image/jpeg", "application/vnd.jupyter.widget-view+json")
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
HEADER = re.compile(r"^(#{1,6})\s+(.*)$")
OPTIONAL_HEADER = re.compile(r"\b(appendix|appendices|optional)\b", re.IGNORECASE)
EXERCISES_HEADER = re.compile(r"\bexercises\b", re.IGNORECASE)
EXERCISE_LINE = re.compile(r"^\s*(?:#{1,6}\s*|\*\*)\s*Exercise\s+\d+\b", re.IGNORECASE)
NUMBERED_EXERCISE_LINE = re.compile(r"^\s*\*\*\d+\.\*\*")
CODE_FENCE = re.compile(r"```.*?```", re.DOTALL)
HTML_TAG = re.compile(r"<[^>]+>")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
HAS_WORD = re.compile(r"[^\W_]")  # a letter or digit (any script)
BARE_REPR = re.compile(r"^<[^<>]*(object|Figure)[^<>]*>$", re.DOTALL)


@dataclass
class Part:
    """The counts of one part of a notebook (core or optional) and its minutes."""

    words: float = 0.0
    output_words: float = 0.0
    code_cells: int = 0
    figures: int = 0
    exercises: int = 0

    @property
    def minutes(self) -> float:
        return (
            (self.words + self.output_words) / WORDS_PER_MINUTE
            + MINUTES_PER_CODE_CELL * self.code_cells
            + MINUTES_PER_FIGURE * self.figures
            + MINUTES_PER_EXERCISE * self.exercises
        )

    @property
    def rounded(self) -> int:
        return round_to_5(self.minutes)


@dataclass
class ReadingTime:
    """A notebook's core and optional parts."""

    name: str
    core: Part = field(default_factory=Part)
    optional: Part = field(default_factory=Part)


def round_to_5(minutes: float) -> int:
    """Nearest multiple of 5 (halves up); at least 5 when ``minutes`` > 0, 0 when there is nothing."""
    if minutes <= 0:
        return 0
    return max(5, int(minutes / 5 + 0.5) * 5)


def prose_words(markdown: str) -> float:
    """Words of a markdown text: tokens with a letter or digit, plus half a word per CJK character.

    CJK characters are removed before the tokens are counted, so "路痴 (has no sense" is 1 + 4 words.
    """
    text = CODE_FENCE.sub(" ", markdown)
    text = HTML_TAG.sub(" ", text)
    text = LINK_TARGET.sub("]", text)  # [the text](url) reads as "the text"
    cjk = len(CJK.findall(text))
    text = CJK.sub(" ", text)
    tokens = sum(1 for token in text.split() if HAS_WORD.search(token))
    return tokens + CJK_WORDS_PER_CHARACTER * cjk


def source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def is_visible_code(cell: dict) -> bool:
    return cell.get("cell_type") == "code" and not cell.get("metadata", {}).get("jupyter", {}).get("source_hidden")


def shows_figure(cell: dict) -> bool:
    """Whether a code cell's committed outputs show an image or a widget view (a figure or a slider panel)."""
    if cell.get("cell_type") != "code":
        return False
    return any(mime in out.get("data", {}) for out in cell.get("outputs", []) for mime in FIGURE_MIMES)


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def printed_words(cell: dict) -> float:
    """Words a learner reads in a code cell's committed outputs (see the module docstring); 0 when they are hidden."""
    if cell.get("cell_type") != "code" or cell.get("metadata", {}).get("jupyter", {}).get("outputs_hidden"):
        return 0.0
    words = 0.0
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            if out.get("name") == "stdout":
                words += prose_words(_text(out.get("text", "")))
            continue
        data = out.get("data", {})
        if "text/markdown" in data:
            words += prose_words(_text(data["text/markdown"]))
        elif "text/html" in data:
            words += prose_words(_text(data["text/html"]))
        elif "text/plain" in data and not any(mime in data for mime in FIGURE_MIMES):
            plain = _text(data["text/plain"])
            if not BARE_REPR.match(plain.strip()):
                words += prose_words(plain)
    return words


def count_notebook(path: Path) -> ReadingTime:
    """Count one notebook (see the module docstring for the rules)."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    result = ReadingTime(Path(path).name)
    optional_level = None  # header level that opened the current optional section, or None
    exercises_level = None  # header level of the current "Exercises" section, or None
    for cell in nb["cells"]:
        if cell.get("cell_type") == "markdown":
            # A cell may hold several headers: split it at each, so each piece is counted in its own section.
            piece: list[str] = []
            for line in source(cell).splitlines():
                match = HEADER.match(line)
                if match:
                    part = result.optional if optional_level is not None else result.core
                    part.words += prose_words("\n".join(piece))
                    piece = []
                    level, title = len(match.group(1)), match.group(2)
                    if optional_level is not None and level <= optional_level:
                        optional_level = None
                    if exercises_level is not None and level <= exercises_level:
                        exercises_level = None
                    if optional_level is None and OPTIONAL_HEADER.search(title):
                        optional_level = level
                    if exercises_level is None and EXERCISES_HEADER.search(title):
                        exercises_level = level
                part = result.optional if optional_level is not None else result.core
                if EXERCISE_LINE.match(line) or (exercises_level is not None and NUMBERED_EXERCISE_LINE.match(line)):
                    part.exercises += 1
                piece.append(line)
            part = result.optional if optional_level is not None else result.core
            part.words += prose_words("\n".join(piece))
        elif cell.get("cell_type") == "code":
            part = result.optional if optional_level is not None else result.core
            part.code_cells += is_visible_code(cell)
            part.output_words += printed_words(cell)
            part.figures += shows_figure(cell)
    return result


def stated_format(result: ReadingTime) -> str:
    """What the title cell should say, e.g. '**Time:** about 85 min (+20 optional)'."""
    text = f"**Time:** about {result.core.rounded} min"
    if result.optional.rounded:
        text += f" (+{result.optional.rounded} optional)"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to count (default: notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        if not path.is_file() or path.suffix != ".ipynb":
            parser.error(f"notebooks: {str(path)!r} is not a notebook file (expected an existing .ipynb)")
    header = (
        f"{'notebook':32} {'words':>6} {'print':>6} {'code':>5} {'figs':>5} {'ex':>3} {'core':>5} {'opt':>4}  "
        "optional part"
    )
    print(header)
    for path in paths:
        r = count_notebook(path)
        c, o = r.core, r.optional
        opt = (
            f"{o.words:.0f} + {o.output_words:.0f} printed words, {o.code_cells} code, {o.figures} figs, "
            f"{o.exercises} ex"
            if o.minutes
            else "-"
        )
        print(
            f"{r.name:32} {c.words:6.0f} {c.output_words:6.0f} {c.code_cells:5d} {c.figures:5d} {c.exercises:3d} "
            f"{c.rounded:5d} {o.rounded:4d}  {opt}"
        )
        print(f"{'':32} state: {stated_format(r)}  (unrounded {c.minutes:.1f} + {o.minutes:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
