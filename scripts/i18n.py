"""Translation catalogs of the Chinese edition (gettext ``.po``, read and written with polib), and the build.

One catalog per English notebook, ``i18n/zh_CN/<notebook>.po``; one entry per markdown cell, the cell's English
source as ``msgid``. ``extract`` brings every catalog up to date with its notebook the way gettext's ``msgmerge``
does: an unchanged cell keeps its translation; a changed cell's entry keeps the old translation but is flagged
*fuzzy* (with the old English as ``previous_msgid``) so it is never silently reused; a new cell is untranslated;
an entry whose cell is gone becomes obsolete. Every catalog is also a *compendium* for the others (``msgmerge
--compendium``): a cell moved unchanged to another notebook takes its translation along (exact msgid only), and
the obsolete copy left behind is dropped once its text is a live cell again.

``build`` writes ``notebooks/zh/<same name>.ipynb``: the English notebook with every markdown cell replaced by its
translation; code cells, outputs, metadata and cell ids are the English notebook's bytes, except two things
(:func:`zh_code_cell`): the setup cell gets one line that switches the language to Chinese
(``helpers.i18n.ZH_SETUP_LINE``), and each printed line is translated by ``helpers.i18n.translate_line``, the
function a Chinese run prints with, so a Chinese notebook's stored outputs are what it prints. The package's own
messages (domain ``helpers``: exercise feedback...) are marked ``_()`` in the code, extracted with Babel into
``i18n/zh_CN/helpers.po`` by ``extract`` and compiled to ``helpers/locale/zh_CN/LC_MESSAGES/helpers.mo`` by
``build``. Figure and widget texts that the notebooks' own code writes (titles, legends, dropdown options) are
translated at run time (``helpers.i18n.figure_text``) from ``i18n/zh_CN/figures.po``, whose entries ``extract`` takes
from the record of a Chinese run (``scripts/zh_share.py record``), compiled to ``figures.mo`` by ``build``. Links are
rewritten so they work from ``notebooks/zh/`` (see :func:`rewrite_target`). ``check`` verifies all of it (see
i18n/README.md), and that no string catalog uses a term variant the glossary refuses.

    python scripts/i18n.py extract [NAME ...]        # update catalogs from the English notebooks (and helpers.po)
    python scripts/i18n.py build [--allow-incomplete] # write notebooks/zh/ (and helpers/locale/.../helpers.mo)
    python scripts/i18n.py check [--catalog NAME]     # every problem, one line each; exit 1 if any
"""

from __future__ import annotations

import argparse
import difflib
import functools
import hashlib
import html
import json
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from helpers.i18n import (  # noqa: E402  (the run time's own translation)
    NUMBER,
    ZH_SETUP_LINE,
    clear_translation_caches,
    line_template,
    markdown_pieces,
    translate_line,
    translate_markdown,
)

NOTEBOOKS = ROOT / "notebooks"
CATALOGS = ROOT / "i18n" / "zh_CN"
ZH_DIR_NAME = "zh"
FUZZY_MATCH = 0.6  # difflib ratio above which a changed cell inherits the old translation, flagged fuzzy

METADATA = {
    "Project-Id-Version": "pe-course",
    "Language": "zh_CN",
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=1; plural=0;",
}

#: First line of a cell shown in English because its entry is untranslated / fuzzy (``build --allow-incomplete``).
FALLBACK_NOTE = {
    "untranslated": "> *（本单元尚未译成中文，以下是英文原文。）*",
    "fuzzy": "> *（本单元的英文原文已修改，译文待更新，以下是英文原文。）*",
}


@dataclass
class Paths:
    """Where the English notebooks, the catalogs and the Chinese notebooks live (tests point them at copies)."""

    notebooks: Path = NOTEBOOKS
    catalogs: Path = CATALOGS
    out: Path | None = None  # the Chinese notebooks; default notebooks/zh

    @property
    def zh(self) -> Path:
        return self.out if self.out is not None else self.notebooks / ZH_DIR_NAME

    def catalog(self, notebook: Path) -> Path:
        return self.catalogs / f"{notebook.stem}.po"

    def glossary(self) -> Path:
        return self.catalogs / "glossary.tsv"


DEFAULT = Paths()


# ----------------------------------------------------------------------------------------------- notebooks
def english_notebooks(paths: Paths = DEFAULT) -> list[Path]:
    """The English chapter notebooks (``notebooks/NN*.ipynb``), in course order."""
    return sorted(p for p in paths.notebooks.glob("[0-9][0-9]*.ipynb"))


def read_notebook(path: Path) -> dict:
    """The parsed notebook (cached while the file is unchanged; callers must not modify it)."""
    st = path.stat()
    return _read_notebook(str(path.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _read_notebook(path: str, mtime_ns: int, size: int) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def dump_notebook(nb: dict) -> str:
    """The notebook as nbformat writes it (the English notebooks round-trip to their own bytes)."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def cell_source(cell: dict) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def markdown_cells(notebook: Path) -> list[tuple[int, str]]:
    """(cell index, source) of every non-empty markdown cell."""
    out = []
    for index, cell in enumerate(read_notebook(notebook)["cells"]):
        source = cell_source(cell)
        if cell["cell_type"] == "markdown" and source.strip():
            out.append((index, source))
    return out


def catalog_path(notebook: Path, paths: Paths = DEFAULT) -> Path:
    return paths.catalog(notebook)


def load_catalog(path: Path) -> polib.POFile:
    return polib.pofile(str(path), wrapwidth=0) if path.exists() else polib.POFile(wrapwidth=0)


def usable(entry: polib.POEntry) -> bool:
    """A translation the build may use: translated, not fuzzy, not obsolete."""
    return bool(entry.msgstr) and "fuzzy" not in entry.flags and not entry.obsolete


# ----------------------------------------------------------------------------------------------- extract
def closest_translation(source: str, translated: dict, threshold: float):
    """The translated entry whose msgid is most similar to ``source`` (difflib ratio above ``threshold``), or None:
    a changed text inherits its old translation, marked fuzzy, for the translator to review."""
    best, ratio = None, threshold
    for msgid, candidate in translated.items():
        r = difflib.SequenceMatcher(None, msgid, source, autojunk=False).ratio()
        if r > ratio:
            best, ratio = candidate, r
    return best


def merge(notebook: Path, old: polib.POFile, compendium: dict[str, str], live: set[str]) -> polib.POFile:
    """``notebook``'s catalog brought up to date (msgmerge semantics, see the module docstring).

    ``compendium``: msgid -> a usable translation from any catalog (exact match only); ``live``: every markdown
    cell's text in every notebook (an obsolete entry whose text is live somewhere is dropped: it has moved).
    """
    translated = {e.msgid: e for e in old if not e.obsolete and e.msgstr}
    new = polib.POFile(wrapwidth=0)
    new.metadata = {**METADATA, **{k: v for k, v in old.metadata.items() if k not in METADATA}}
    seen: dict[str, polib.POEntry] = {}
    for index, source in markdown_cells(notebook):
        if source in seen:  # the same text twice: one entry, two occurrences
            seen[source].occurrences.append((notebook.name, str(index)))
            continue
        entry = polib.POEntry(msgid=source, msgstr="", occurrences=[(notebook.name, str(index))])
        if source in translated:  # unchanged: everything the translator wrote is kept
            kept = translated[source]
            entry.msgstr, entry.flags, entry.tcomment = kept.msgstr, list(kept.flags), kept.tcomment
            entry.previous_msgid = kept.previous_msgid
        elif source in compendium:  # moved here unchanged from another notebook
            entry.msgstr = compendium[source]
        else:
            best = closest_translation(source, translated, FUZZY_MATCH)
            if best is not None:
                entry.msgstr, entry.tcomment = best.msgstr, best.tcomment
                entry.flags = ["fuzzy"]
                entry.previous_msgid = best.msgid
        seen[source] = entry
        new.append(entry)
    for e in old:
        if e.msgid and e.msgid not in seen and e.msgstr and e.msgid not in live:
            e.obsolete = True
            new.append(e)
    return new


def extract_all(books: list[Path], paths: Paths = DEFAULT, write: bool = True) -> dict[Path, polib.POFile]:
    """Bring the catalogs of ``books`` up to date; every catalog in ``paths.catalogs`` serves as compendium.

    Returns {catalog path: new catalog}; writes them when ``write``.
    """
    every = english_notebooks(paths)
    olds = {b: load_catalog(paths.catalog(b)) for b in every}
    compendium: dict[str, str] = {}
    for b in every:  # course order: the first usable translation of a text wins
        for e in olds[b]:
            if e.msgstr and "fuzzy" not in e.flags:
                compendium.setdefault(e.msgid, e.msgstr)
    live = {source for b in every for _, source in markdown_cells(b)}
    out = {}
    for book in books:
        po = merge(book, olds[book], compendium, live)
        path = paths.catalog(book)
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            po.save(str(path))
        out[path] = po
    return out


def extract(notebook: Path, paths: Paths = DEFAULT) -> polib.POFile:
    """Bring ``notebook``'s catalog up to date (the other catalogs are its compendium); returns it."""
    return extract_all([notebook], paths)[paths.catalog(notebook)]


# ----------------------------------------------------------------------------------------------- package strings
#: The package's own messages (domain "helpers"): marked in the code with ``_()``, ``N_()``, ``pgettext()`` and
#: ``pN_()`` (helpers/i18n.py), extracted with Babel, translated here, compiled to the .mo the package ships.
PACKAGE_CATALOG = "helpers.po"
PACKAGE_MO = ROOT / "helpers" / "locale" / "zh_CN" / "LC_MESSAGES" / "helpers.mo"
BABEL_KEYWORDS = {"_": None, "N_": None, "pgettext": ((1, "c"), 2), "pN_": ((1, "c"), 2)}


def package_sources(root: Path = ROOT) -> list[Path]:
    """The package's modules that mark strings (they import from helpers.i18n), helpers/i18n.py excluded."""
    return sorted(
        p
        for p in (root / "helpers").rglob("*.py")
        if p.name != "i18n.py" and "helpers.i18n import" in p.read_text(encoding="utf-8")
    )


def extract_package_strings(root: Path = ROOT) -> dict[tuple[str | None, str], list[str]]:
    """(context, message) -> the files marking it, in source order, by Babel's Python extractor."""
    from babel.messages.extract import extract_from_file

    found: dict[tuple[str | None, str], list[str]] = {}
    for path in package_sources(root):
        rel = path.relative_to(root).as_posix()
        for _lineno, message, _comments, context in extract_from_file("python", path, keywords=BABEL_KEYWORDS):
            where = found.setdefault((context, message), [])
            if rel not in where:
                where.append(rel)
    return found


def merge_package_catalog(old: polib.POFile, found: dict[tuple[str | None, str], list[str]]) -> polib.POFile:
    """The package catalog brought up to date with the marked strings (msgmerge semantics, as :func:`merge`:
    kept, fuzzy with the old English as previous msgid, new and untranslated, or obsolete)."""
    kept = {(e.msgctxt, e.msgid): e for e in old if not e.obsolete and e.msgstr}
    new = polib.POFile(wrapwidth=0)
    new.metadata = {**METADATA, **{k: v for k, v in old.metadata.items() if k not in METADATA}}
    for (context, message), files in found.items():
        entry = polib.POEntry(msgid=message, msgstr="", msgctxt=context, occurrences=[(f, "") for f in files])
        if (context, message) in kept:
            k = kept[(context, message)]
            entry.msgstr, entry.flags, entry.tcomment, entry.previous_msgid = (
                k.msgstr, list(k.flags), k.tcomment, k.previous_msgid)  # fmt: skip
        else:
            best, ratio = None, FUZZY_MATCH
            for (ctx, msgid), candidate in kept.items():
                r = difflib.SequenceMatcher(None, msgid, message, autojunk=False).ratio()
                if ctx == context and r > ratio and (ctx, msgid) not in found:
                    best, ratio = candidate, r
            if best is not None:
                entry.msgstr, entry.flags, entry.previous_msgid = best.msgstr, ["fuzzy"], best.msgid
        new.append(entry)
    for e in old:
        if e.msgid and (e.msgctxt, e.msgid) not in found and e.msgstr:
            e.obsolete = True
            new.append(e)
    return new


def compile_mo(po: polib.POFile) -> bytes:
    """The .mo of a catalog: its usable entries only (fuzzy, untranslated and obsolete left out, as msgfmt does);
    the same bytes for the same catalog (no date or tool version written into it)."""
    usable_only = polib.POFile(wrapwidth=0)
    usable_only.metadata = dict(po.metadata)
    for e in po:
        if usable(e):
            usable_only.append(e)
    return usable_only.to_binary()


def check_package_catalog(paths: Paths = DEFAULT) -> list[Problem]:
    """The package catalog is complete (every marked string translated, none fuzzy), current with the code, its
    translations keep the fields of their English ({name}, {n}), and the shipped .mo is its compilation."""
    path = paths.catalogs / PACKAGE_CATALOG
    name = PACKAGE_CATALOG
    if not path.exists():
        return [Problem(name, None, kind="current", what="missing: run `python scripts/i18n.py extract`")]
    po = load_catalog(path)
    out = []
    for e in po:
        if e.obsolete:
            continue
        label = f"{e.msgid!r}" + (f" (context {e.msgctxt!r})" if e.msgctxt else "")
        if not e.msgstr:
            out.append(Problem(name, None, f"untranslated: {label}", "complete"))
        elif "fuzzy" in e.flags:
            out.append(Problem(name, None, f"fuzzy: {label}", "complete"))
        elif _format_fields(e.msgid) != _format_fields(e.msgstr):
            out.append(Problem(name, None, f"fields differ from the English: {label}", "invariant"))
    fresh = merge_package_catalog(po, extract_package_strings(ROOT))
    if str(fresh) != path.read_text(encoding="utf-8"):
        out.append(Problem(name, None, kind="current", what="not current with the code: run `python scripts/i18n.py extract`"))  # fmt: skip
    if not PACKAGE_MO.exists() or PACKAGE_MO.read_bytes() != compile_mo(po):
        out.append(Problem(name, None, kind="build", what=f"{PACKAGE_MO.relative_to(ROOT)} is not its compilation: run `python scripts/i18n.py build`"))  # fmt: skip
    return out


def _format_fields(template: str) -> list[str]:
    import string

    return sorted(name for _, name, _, _ in string.Formatter().parse(template) if name is not None)


def write_mo_files(paths: Paths = DEFAULT) -> None:
    """Compile the package catalog into the .mo the package ships (first: the build translates outputs with it)."""
    PACKAGE_MO.parent.mkdir(parents=True, exist_ok=True)
    PACKAGE_MO.write_bytes(compile_mo(load_catalog(paths.catalogs / PACKAGE_CATALOG)))
    OUTPUTS_MO.write_bytes(compile_mo(load_catalog(paths.catalogs / OUTPUTS_CATALOG)))
    FIGURES_MO.write_bytes(compile_mo(load_catalog(paths.catalogs / FIGURES_CATALOG)))
    clear_translation_caches()


# ----------------------------------------------------------------------------------------------- printed lines
#: Lines that notebook cells print (stdout): one catalog for all notebooks, an entry per line *template*
#: (helpers.i18n.line_template: numbers -> {0}, {1}...), its occurrences the notebook cells that print it.
OUTPUTS_CATALOG = "outputs.po"
OUTPUTS_MO = ROOT / "helpers" / "locale" / "zh_CN" / "LC_MESSAGES" / "outputs.mo"
#: A changed printed line inherits the translation of a template at least this similar, flagged fuzzy (higher than
#: for cells: table rows and lines of numbers look alike).
OUTPUT_FUZZY_MATCH = 0.85
#: A printed line is extracted when it has at least this many words, or else (:func:`is_text`) at least
#: :data:`MIN_PROSE_WORDS` prose words, or when it is a table row with a word.
MIN_WORDS = 6
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
#: The notebooks whose printed lines are all translated: ``check`` fails on an untranslated line of these, and only
#: reports (a note, not a problem) the English lines of the others. Add a notebook once its lines are translated.
OUTPUTS_TRANSLATED = {
    "01_position_blindness",
    "02_sinusoidal",
    "03_learned",
    "04_rope",
    "05_length_extension",
    "05b_extension_lab",
    "06_score_biases",
    "07_real_model",
    "08_modern_models",
    "09_position_2026",
}


def printed_lines(book: Path) -> list[tuple[int, str]]:
    """(cell index, line) of every non-empty line the notebook's code cells print (stored stdout)."""
    out = []
    for index, cell in enumerate(read_notebook(book)["cells"]):
        if cell["cell_type"] != "code":
            continue
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream" and o.get("name") == "stdout":
                out += [
                    (index, line.rstrip()) for line in cell_source({"source": o["text"]}).splitlines() if line.strip()
                ]
    return out


#: A shorter line (at least :data:`MIN_COMMON_WORDS` words) is extracted too when its template is printed by at least
#: :data:`COMMON_IN` notebooks ("section 3: all checks passed").
MIN_COMMON_WORDS = 3
COMMON_IN = 3


def common_templates(notebooks: Path) -> frozenset[str]:
    """Templates of lines with at least :data:`MIN_COMMON_WORDS` words printed by at least :data:`COMMON_IN` of the
    English notebooks in ``notebooks``."""
    books = tuple((str(b), b.stat().st_mtime_ns) for b in sorted(notebooks.glob("[0-9][0-9]*.ipynb")))
    return _common_templates(books)


@functools.lru_cache(maxsize=8)
def _common_templates(books: tuple[tuple[str, int], ...]) -> frozenset[str]:
    seen: dict[str, set[str]] = {}
    for path, _ in books:
        for _, line in printed_lines(Path(path)):
            if len(WORD.findall(line)) >= MIN_COMMON_WORDS:
                seen.setdefault(line_template(line)[0], set()).add(path)
    return frozenset(t for t, where in seen.items() if len(where) >= COMMON_IN)


#: Shorter printed text is extracted when it reads as text: at least this many distinct prose words (a name such as
#: irope_family, a symbol and a number are not prose, so "irope_family (robust, 10 of 10 seeds):" has three words,
#: two of them prose, and "bucket 31: distances 113..∞" two); a table row (columns apart by 2+ spaces) needs one,
#: so a table's header and its word cells are translated together (a row of names only keeps them: msgstr = msgid).
#: Code lines, quoted strings and bracketed lists do not count.
MIN_PROSE_WORDS = 2
#: Quoted strings, code spans and bracketed lists: values, not words.
_VALUES = re.compile(r"`[^`]*`|'[^'\n]*'|\"[^\"\n]*\"|\[[^\]\n]*\]|\{[^}\n]*\}")
#: A name: letters/digits joined by ``_`` or ``.`` (irope_family, d_model, torch.float32).
_NAME = re.compile(r"[A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+")
#: A prose word: two or more letters, not part of a name (single letters are symbols: s, L, t).
_PROSE_WORD = re.compile(r"(?<![A-Za-z0-9_'’])[A-Za-z][A-Za-z'’-]+")
#: Python's constants print as words but are values.
_CONSTANTS = {"true", "false", "none"}
#: A printed line of code (a comment, a statement keyword, an assignment from a name or call).
_CODE_LINE = re.compile(
    r"^\s*(?:#|(?:if|for|def|return|class|import|from|elif|else|while|with)\b)"
    r"|^\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[A-Za-z_][\w.]*\s*(?:\(|$)"
)
_COLUMNS = re.compile(r"\S {2,}\S")


def text_words(line: str, markdown: bool = False) -> set[str]:
    """The distinct prose words of ``line``, lower-cased; none for a printed line of code (a ``markdown`` piece is
    never code: ``#`` opens a heading there)."""
    if not markdown and _CODE_LINE.match(line):
        return set()
    return {w.lower() for w in _PROSE_WORD.findall(_NAME.sub(" ", _VALUES.sub(" ", line)))} - _CONSTANTS


def is_text(line: str) -> bool:
    """A line shorter than :data:`MIN_WORDS` words that still reads as text (:data:`MIN_PROSE_WORDS`)."""
    prose = text_words(line)
    if _COLUMNS.search(line.strip()):
        return len(prose) >= 1
    return len(prose) >= MIN_PROSE_WORDS


def is_sentence(line: str, common: frozenset[str] = frozenset()) -> bool:
    """A line to translate: at least :data:`MIN_WORDS` words, text (:func:`is_text`) or a template in ``common``
    (:func:`common_templates`), and not one of the package's own messages (those are in helpers.po)."""
    from helpers.i18n import _translate_message

    long_enough = len(WORD.findall(line)) >= MIN_WORDS or is_text(line) or line_template(line)[0] in common
    return long_enough and _translate_message(line, "zh_CN") is None


def displayed_pieces(book: Path) -> list[tuple[int, str]]:
    """(cell index, piece) of the Markdown the notebook's cells display (stored ``text/markdown`` outputs, split by
    :func:`helpers.i18n.markdown_pieces`) that holds a prose word: table cells and lines, translated whole."""
    from helpers.i18n import _translate_message

    out = []
    for index, cell in enumerate(read_notebook(book)["cells"]):
        for o in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            text = o.get("data", {}).get("text/markdown")
            if text is not None:
                pieces = markdown_pieces(cell_source({"source": text}))
                out += [
                    (index, p)
                    for p in pieces
                    if text_words(p, markdown=True) and _translate_message(p, "zh_CN") is None
                ]
    return out


#: Printed lines that a Chinese run prints differently *before* translation, because the Chinese edition registers
#: a CJK font for its figures (helpers.plots._style.follow_language): English line -> the Chinese run's English line.
#: Notebook 01's font probe finds Noto Sans CJK SC in a Chinese run. The build prints the right-hand line (then
#: translated), and the printed-lines catalog has an entry for it.
ZH_RUN_LINES = {
    "No CJK font installed: tick labels read like 'cat (māo)'": "Chinese tick labels drawn with: Noto Sans CJK SC",
}


def output_templates(book: Path) -> dict[str, list[int]]:
    """template -> the cells printing it, for every sentence line of ``book`` (in notebook order); a line a Chinese
    run prints differently (:data:`ZH_RUN_LINES`) is taken in its Chinese run's form."""
    found: dict[str, list[int]] = {}
    common = common_templates(book.parent)
    for index, line in printed_lines(book):
        line = ZH_RUN_LINES.get(line, line)
        if is_sentence(line, common):
            cells = found.setdefault(line_template(line)[0], [])
            if index not in cells:
                cells.append(index)
    for index, piece in displayed_pieces(book):
        cells = found.setdefault(line_template(piece)[0], [])
        if index not in cells:
            cells.append(index)
    return found


def merge_outputs_catalog(old: polib.POFile, extracted: dict[str, dict[str, list[int]]]) -> polib.POFile:
    """The printed-lines catalog with the notebooks of ``extracted`` ({notebook file name: templates}) brought up
    to date; every other notebook's occurrences are kept as they are. An entry no notebook prints any more becomes
    obsolete (translated) or is dropped (untranslated); a new template is added untranslated, or fuzzy with the
    translation of a close template (msgmerge semantics)."""
    new = polib.POFile(wrapwidth=0)
    new.metadata = {**METADATA, **{k: v for k, v in old.metadata.items() if k not in METADATA}}
    entries: dict[str, polib.POEntry] = {}
    for e in old:
        if e.obsolete:
            continue
        kept = [(f, c) for f, c in e.occurrences if f not in extracted]
        entries[e.msgid] = polib.POEntry(msgid=e.msgid, msgstr=e.msgstr, flags=list(e.flags), tcomment=e.tcomment,
                                         previous_msgid=e.previous_msgid, occurrences=kept)  # fmt: skip
    translated = {e.msgid: e for e in old if not e.obsolete and e.msgstr}
    for name, templates in extracted.items():
        for template, cells in templates.items():
            if template not in entries:
                entry = polib.POEntry(msgid=template, msgstr="", occurrences=[])
                best = closest_translation(template, translated, OUTPUT_FUZZY_MATCH)
                if best is not None:
                    entry.msgstr, entry.flags, entry.previous_msgid = best.msgstr, ["fuzzy"], best.msgid
                entries[template] = entry
            entries[template].occurrences += [(name, str(c)) for c in cells]
    for e in entries.values():
        e.occurrences = sorted(e.occurrences, key=lambda o: (o[0], int(o[1])))  # the same file whatever the order
        if e.occurrences:
            new.append(e)
        elif e.msgstr:
            e.obsolete = True
            new.append(e)
    for e in old:
        if e.obsolete and e.msgid not in entries:
            new.append(e)
    return new


def update_outputs_catalog(books: list[Path], paths: Paths = DEFAULT) -> polib.POFile:
    path = paths.catalogs / OUTPUTS_CATALOG
    po = merge_outputs_catalog(load_catalog(path), {b.name: output_templates(b) for b in books})
    po.save(str(path))
    return po


def _numbered_fields(template: str) -> list[str]:
    import string

    return sorted(name for _, name, _, _ in string.Formatter().parse(template) if name is not None)


def check_outputs_catalog(paths: Paths = DEFAULT) -> tuple[list[Problem], list[str]]:
    """(problems, notes). For each notebook of :data:`OUTPUTS_TRANSLATED`: the catalog is current with its stored
    outputs and every template it prints is translated (not fuzzy) with the same numbered fields. For the others a
    note says how many of their printed sentence lines are still English. And outputs.mo is the catalog compiled."""
    path = paths.catalogs / OUTPUTS_CATALOG
    po = load_catalog(path)
    usable_ids = {e.msgid for e in po if usable(e)}
    problems, notes = [], []
    for e in po:
        if usable(e) and _numbered_fields(e.msgid) != _numbered_fields(e.msgstr):
            problems.append(
                Problem(OUTPUTS_CATALOG, None, f"numbers differ from the English: {e.msgid!r}", "invariant")
            )
    for book in english_notebooks(paths):
        templates = output_templates(book)
        if book.stem in OUTPUTS_TRANSLATED:
            occurrences = {(e.msgid, f, c) for e in po if not e.obsolete for f, c in e.occurrences if f == book.name}
            wanted = {(t, book.name, str(c)) for t, cells in templates.items() for c in cells}
            if occurrences != wanted:
                problems.append(Problem(book.name, None, kind="current", what=f"{OUTPUTS_CATALOG} is not current with its printed lines: run `python scripts/i18n.py extract {book.stem}`"))  # fmt: skip
            for t, cells in templates.items():
                if t not in usable_ids:
                    problems.append(
                        Problem(book.name, cells[0], f"printed line untranslated or fuzzy: {t!r}", "complete")
                    )
        else:
            common = common_templates(book.parent)
            lines = [line for _, line in printed_lines(book) if is_sentence(line, common)]
            lines += [piece for _, piece in displayed_pieces(book)]
            left = sum(line_template(line)[0] not in usable_ids for line in lines)
            if left:
                notes.append(f"{book.name}: {left} of {len(lines)} printed sentence lines still English (not in OUTPUTS_TRANSLATED)")  # fmt: skip
    if not OUTPUTS_MO.exists() or OUTPUTS_MO.read_bytes() != compile_mo(po):
        problems.append(Problem(OUTPUTS_CATALOG, None, kind="build", what=f"{OUTPUTS_MO.relative_to(ROOT)} is not its compilation: run `python scripts/i18n.py build`"))  # fmt: skip
    return problems, notes


# ----------------------------------------------------------------------------------------------- figure texts
#: Figure and widget texts written by the notebooks' own code (titles, legends, dropdown options): one catalog for all
#: notebooks (domain "figures", helpers.i18n.figure_text), an entry per text *template* (numbers -> {0}, {1}...), its
#: occurrences the notebook cells that show it. Taken from the record of a Chinese run (scripts/zh_share.py record:
#: each shown text with the English it came from), since these strings live in code no extractor can mark.
FIGURES_CATALOG = "figures.po"
FIGURES_MO = ROOT / "helpers" / "locale" / "zh_CN" / "LC_MESSAGES" / "figures.mo"
SCREEN_RECORD = "screen_texts.json"
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
MATH_COMMAND = re.compile(r"\\[A-Za-z]+")


def text_language(text: str) -> str:
    """ "zh" (a CJK character), "neutral" (no English word of two or more letters) or "en"."""
    if CJK.search(text):
        return "zh"
    words = MATH_COMMAND.sub(" ", text)  # a tick label "$\\mathdefault{10^{3}}$" is a number, not a word
    return "en" if ENGLISH_WORD.search(words) else "neutral"


def needs_figure_entry(source: str) -> bool:
    """A recorded figure or widget text that the figures catalog must cover: English words (a LaTeX command is not
    one), no Chinese (:func:`text_language`), and not one of the package's own figure texts
    (``pgettext("figure", ...)``, in helpers.po)."""
    from helpers.i18n import translation

    if text_language(source) != "en":
        return False
    return translation("zh_CN").pgettext("figure", source) == source


def recorded_figure_texts(paths: Paths = DEFAULT) -> dict[str, dict[str, list[int]]]:
    """{notebook file name: {template: cells}} of every English text the record of a Chinese run shows in a figure or
    a widget (its ``sources``: the English each shown text came from; an older record's ``texts``)."""
    path = paths.catalogs / SCREEN_RECORD
    record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    out: dict[str, dict[str, list[int]]] = {}
    for stem, cells in sorted(record.items()):
        found = out.setdefault(f"{stem}.ipynb", {})
        for cell, items in sorted(cells.items(), key=lambda kv: int(kv[0])):
            for item in items:
                for source in item.get("sources", item["texts"]):
                    if source.strip() and needs_figure_entry(source):
                        where = found.setdefault(line_template(source)[0], [])
                        if int(cell) not in where:
                            where.append(int(cell))
    return out


def update_figures_catalog(paths: Paths = DEFAULT) -> polib.POFile:
    path = paths.catalogs / FIGURES_CATALOG
    po = merge_outputs_catalog(load_catalog(path), recorded_figure_texts(paths))
    po.save(str(path))
    return po


def check_figures_catalog(paths: Paths = DEFAULT) -> list[Problem]:
    """The figures catalog is current with the record, every recorded English figure or widget text has a usable
    translation with the same numbered fields (a text kept in English has itself as msgstr, on purpose), and
    figures.mo is the catalog compiled."""
    path = paths.catalogs / FIGURES_CATALOG
    po = load_catalog(path)
    problems = []
    recorded = recorded_figure_texts(paths)
    if str(merge_outputs_catalog(po, recorded)) != (path.read_text(encoding="utf-8") if path.exists() else ""):
        problems.append(Problem(FIGURES_CATALOG, None, kind="current", what=f"not current with {SCREEN_RECORD}: run `python scripts/i18n.py extract`"))  # fmt: skip
    usable_ids = {e.msgid for e in po if usable(e)}
    for name, templates in recorded.items():
        for template, cells in templates.items():
            if template not in usable_ids:
                problems.append(Problem(name, cells[0], f"figure or widget text untranslated or fuzzy: {template!r}", "complete"))  # fmt: skip
    for e in po:
        if usable(e) and _numbered_fields(e.msgid) != _numbered_fields(e.msgstr):
            problems.append(Problem(FIGURES_CATALOG, None, f"numbers differ from the English: {e.msgid!r}", "invariant"))  # fmt: skip
    if not FIGURES_MO.exists() or FIGURES_MO.read_bytes() != compile_mo(po):
        problems.append(Problem(FIGURES_CATALOG, None, kind="build", what=f"{FIGURES_MO.relative_to(ROOT)} is not its compilation: run `python scripts/i18n.py build`"))  # fmt: skip
    return problems


def check_string_catalog_terms(paths: Paths = DEFAULT) -> list[Problem]:
    """One term per glossary entry in the strings a run shows too: no translation in the package's messages, the
    printed lines or the figure texts uses a variant the glossary refuses (:func:`check_variants`)."""
    variants = read_glossary_variants(paths.glossary())
    out = []
    for name in (PACKAGE_CATALOG, OUTPUTS_CATALOG, FIGURES_CATALOG):
        for e in load_catalog(paths.catalogs / name):
            if e.msgstr and not e.obsolete:
                out += [Problem(name, None, f"{w} (in {e.msgid!r})", "terminology") for w in check_variants(e.msgstr, variants)]  # fmt: skip
    return out


def update_package_catalog(paths: Paths = DEFAULT) -> polib.POFile:
    path = paths.catalogs / PACKAGE_CATALOG
    po = merge_package_catalog(load_catalog(path), extract_package_strings(ROOT))
    po.save(str(path))
    return po


# ----------------------------------------------------------------------------------------------- markdown
FENCE = re.compile(r"^ {0,3}(```+|~~~+)[^\n]*\n.*?^ {0,3}\1[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
DISPLAY_MATH = re.compile(r"(?<!\\)\$\$.+?(?<!\\)\$\$", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(?:\\.|[^$\\])+?\$", re.S)
LINK = re.compile(r"!?\[(?P<text>(?:[^\[\]]|\[[^\]]*\])*)\]\((?P<target><[^>\n]*>|[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
HTML_ATTR = re.compile(r"""(?P<attr>\b(?:href|src))=(?P<q>["'])(?P<target>[^"']+)(?P=q)""")
HTML_ID = re.compile(r"""<a\b[^>]*\b(?:id|name)=["']([^"']+)["']""")
BARE_URL = re.compile(r"(?<![(<\"'])https?://[^\s)<>\]\"']+")
ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M)
#: A number: helpers.i18n.NUMBER (see i18n/README.md), the pattern the printed-line templates use too.


@dataclass
class Parsed:
    """A markdown cell cut into what a translation must keep verbatim and the prose around it."""

    code: list[str] = field(default_factory=list)  # fenced blocks and inline code spans, with their backticks
    math: list[str] = field(default_factory=list)  # $...$ and $$...$$ spans, with their dollars
    links: list[str] = field(default_factory=list)  # link targets: [..](t), ![..](t), href/src="t", bare URLs
    prose: str = ""  # the text with all of the above blanked out (same length, spaces)


def protected_spans(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of fenced code, code spans, display and inline math, in that priority, non-overlapping."""
    masked = text
    spans = []
    for kind, pattern in (("code", FENCE), ("code", CODE_SPAN), ("math", DISPLAY_MATH), ("math", INLINE_MATH)):
        for m in pattern.finditer(masked):
            spans.append((kind, m.start(), m.end()))
        for _, s, e in spans:
            masked = masked[:s] + "\0" * (e - s) + masked[e:]
    return sorted(spans, key=lambda t: t[1])


def blank(text: str, spans) -> str:
    chars = list(text)
    for s, e in spans:
        for i in range(s, e):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def parse(text: str) -> Parsed:
    spans = protected_spans(text)
    p = Parsed()
    for kind, s, e in spans:
        (p.code if kind == "code" else p.math).append(text[s:e])
    outside = blank(text, [(s, e) for _, s, e in spans])
    cut = [(s, e) for _, s, e in spans]
    for m in LINK.finditer(outside):
        target = m.group("target")
        p.links.append(target[1:-1] if target.startswith("<") else target)
        cut.append((m.start("target"), m.end("target")))
    for m in HTML_ATTR.finditer(outside):
        p.links.append(m.group("target"))
        cut.append((m.start("target"), m.end("target")))
    rest = blank(text, cut)
    for m in BARE_URL.finditer(rest):
        p.links.append(m.group(0))
        cut.append((m.start(), m.end()))
    p.prose = blank(text, cut)
    return p


def numbers(text: str) -> list[str]:
    """The numbers of ``text`` (pattern :data:`NUMBER`), in order."""
    return NUMBER.findall(text)


def headings(text: str) -> list[tuple[int, str]]:
    """(level, raw text) of the ATX headings (``## ...``) of a markdown cell, outside fenced code."""
    outside = blank(text, [(m.start(), m.end()) for m in FENCE.finditer(text)])
    return [(len(m.group(1)), text[m.start(2) : m.end(2)]) for m in ATX.finditer(outside)]


def heading_text(raw: str) -> str:
    """What the rendered heading's ``textContent`` is: inline markup removed, math left as typed (JupyterLab
    takes the anchor before MathJax typesets), entities and backslash escapes resolved."""
    out, pos = [], 0
    for kind, s, e in protected_spans(raw):
        out.append(_strip_inline(raw[pos:s]))
        seg = raw[s:e]
        out.append(seg if kind == "math" else seg.strip("`").strip() if seg.strip("`").strip() else seg)
        pos = e
    out.append(_strip_inline(raw[pos:]))
    return "".join(out).strip()


def _strip_inline(s: str) -> str:
    s = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"<[^>]+>", "", s)
    s = re.sub(r"(\*\*|__)(.+?)\1", r"\2", s)
    s = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", s)
    s = re.sub(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])", r"\1", s)
    s = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", s)
    return html.unescape(s)


def anchor_id(raw_heading: str) -> str | None:
    """JupyterLab 4's heading id (``@jupyterlab/rendermime`` ``createHeaderId``): the heading's textContent with
    every space replaced by ``-`` (case, punctuation and CJK kept). A link ``#<id>`` scrolls to it.

    None for a heading with LaTeX: its textContent is MathJax's rendering (``$\\sqrt{d_k}$`` gives ``dk``, seen in
    the browser test), which is not reproduced here, so such a heading cannot be the target of a checked link.
    """
    if any(kind == "math" for kind, _, _ in protected_spans(raw_heading)):
        return None
    return heading_text(raw_heading).replace(" ", "-")


def heading_anchors(text: str) -> list[str | None]:
    """The anchor of each heading of a cell, in order (None: a heading with LaTeX, see :func:`anchor_id`)."""
    return [anchor_id(h) for _, h in headings(text)]


def cell_anchors(text: str) -> list[str]:
    """Every anchor a link can name in this cell: headings' (without LaTeX) and ``<a id=…>``/``<a name=…>``."""
    return [a for a in heading_anchors(text) if a is not None] + HTML_ID.findall(text)


def github_slug(raw_heading: str) -> str:
    """GitHub's anchor of a heading in a .md file: lower case, punctuation but '-' and '_' dropped, spaces -> '-'."""
    text = heading_text(raw_heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


# ----------------------------------------------------------------------------------------------- links
NOTEBOOK_URL = re.compile(
    r"^(https://(?:colab\.research\.google\.com/github|github\.com)/[^\s]*?/)notebooks/(?=[^/]+\.ipynb)"
)


def rewrite_target(target: str, here: str, anchors: dict[str, dict[str, str]], chapters: set[str]) -> str:
    """A link target of notebook ``here`` (a file name) as it must read in the Chinese notebook.

    * ``#frag``: the same heading's anchor in the Chinese notebook;
    * ``04_rope.ipynb#frag`` (a chapter): unchanged path (so it opens the Chinese notebook next to this one),
      anchor mapped the same way;
    * Colab / GitHub URLs of ``…/notebooks/NN_x.ipynb``: ``…/notebooks/zh/NN_x.ipynb``;
    * any other relative path (``../docs/…``, ``../README.md``): one more ``../``;
    * anything else (web URLs, ``mailto:``): unchanged.
    """
    if target.startswith("#"):
        return "#" + anchors.get(here, {}).get(target[1:], target[1:])
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return NOTEBOOK_URL.sub(rf"\g<1>notebooks/{ZH_DIR_NAME}/", target)
    path, sep, frag = target.partition("#")
    if path in chapters:
        return path + (sep + anchors.get(path, {}).get(frag, frag) if sep else "")
    if path.startswith("/"):
        return target
    return "../" + target


def rewrite_links(text: str, here: str, anchors: dict[str, dict[str, str]], chapters: set[str]) -> str:
    """``text`` with every link target (outside code and math) rewritten by :func:`rewrite_target`."""
    spans = protected_spans(text)
    outside = blank(text, [(s, e) for _, s, e in spans])
    edits = []
    for m in LINK.finditer(outside):
        t = m.group("target")
        inner, s, e = (
            (t[1:-1], m.start("target") + 1, m.end("target") - 1) if t.startswith("<") else (t, *m.span("target"))
        )
        edits.append((s, e, rewrite_target(inner, here, anchors, chapters)))
    for m in HTML_ATTR.finditer(outside):
        edits.append((m.start("target"), m.end("target"), rewrite_target(m.group("target"), here, anchors, chapters)))
    taken = blank(outside, [(s, e) for s, e, _ in edits])
    for m in BARE_URL.finditer(taken):
        edits.append((m.start(), m.end(), rewrite_target(m.group(0), here, anchors, chapters)))
    for s, e, new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text


# ----------------------------------------------------------------------------------------------- build
class IncompleteCatalog(Exception):
    pass


@dataclass
class Chapter:
    book: Path
    nb: dict
    po: polib.POFile
    #: cell index -> (text to show, None) or (English text, "untranslated"/"fuzzy")
    cells: dict[int, tuple[str, str | None]]

    def counts(self) -> dict[str, int]:
        out = {"untranslated": 0, "fuzzy": 0}
        for _, why in self.cells.values():
            if why:
                out[why] += 1
        return out


def load_chapter(book: Path, paths: Paths = DEFAULT) -> Chapter:
    path = paths.catalog(book)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no catalog for {book.name}; run `python scripts/i18n.py extract {book.stem}`")
    po = load_catalog(path)
    entries = {e.msgid: e for e in po if not e.obsolete}
    nb = read_notebook(book)
    cells = {}
    for index, cell in enumerate(nb["cells"]):
        source = cell_source(cell)
        if cell["cell_type"] != "markdown" or not source.strip():
            continue
        e = entries.get(source)
        if e is not None and usable(e):
            cells[index] = (e.msgstr, None)
        else:
            cells[index] = (source, "fuzzy" if e is not None and e.msgstr else "untranslated")
    return Chapter(book, nb, po, cells)


def setup_index(nb: dict) -> int | None:
    """Index of the notebook's first code cell (the Colab setup cell), None without code cells."""
    return next((i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"), None)


def zh_lines(text: str) -> str:
    """Printed text with every line translated by :func:`helpers.i18n.translate_line` (what a Chinese run prints;
    a line the Chinese run prints differently first replaced, :data:`ZH_RUN_LINES`)."""
    return "".join(
        translate_line(ZH_RUN_LINES.get(line.rstrip("\n"), line.rstrip("\n")), "zh_CN")
        + ("\n" if line.endswith("\n") else "")
        for line in text.splitlines(keepends=True)
    )


def zh_code_cell(cell: dict, is_setup: bool) -> dict:
    """A code cell as the Chinese notebook has it: the English cell, its printed lines (stdout) and displayed
    Markdown translated, a figure text it shows as its result translated (:func:`zh_text_repr`), and, in the setup
    cell only, one line appended that switches the language (:data:`helpers.i18n.ZH_SETUP_LINE`).
    Any other cell is returned as it is."""
    if cell["cell_type"] != "code":
        return cell
    cell = json.loads(json.dumps(cell))
    if is_setup:
        source = cell_source(cell).rstrip("\n") + "\n" + ZH_SETUP_LINE
        cell["source"] = source.splitlines(keepends=True)
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            text = zh_lines(cell_source({"source": out["text"]}))
            out["text"] = text.splitlines(keepends=True) if isinstance(out["text"], list) else text
        markdown = out.get("data", {}).get("text/markdown")
        if markdown is not None:
            text = translate_markdown(cell_source({"source": markdown}), "zh_CN")
            out["data"]["text/markdown"] = text.splitlines(keepends=True) if isinstance(markdown, list) else text
        plain = out.get("data", {}).get("text/plain")
        if plain is not None and out.get("output_type") == "execute_result":
            text = zh_text_repr(cell_source({"source": plain}))
            out["data"]["text/plain"] = text.splitlines(keepends=True) if isinstance(plain, list) else text
    return cell


#: The result a cell shows when its last line sets a figure text (``ax.set_ylabel(...)``): matplotlib's repr of
#: the Text artist, ``Text(x, y, 'string')``.
TEXT_REPR = re.compile(r"(?P<head>Text\([^,]*, [^,]*, )(?P<string>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)")


def zh_text_repr(text: str) -> str:
    """A cell's result as a Chinese run shows it: a figure text's repr (:data:`TEXT_REPR`) holds the string
    translated as the run translates it when it is set (helpers.i18n.figure_text); any other result unchanged."""
    import ast

    from helpers.i18n import figure_text

    m = TEXT_REPR.fullmatch(text)
    if m is None:
        return text
    return f"{m['head']}{figure_text(ast.literal_eval(m['string']), 'zh_CN')!r})"


# ----------------------------------------------------------------------------------------------- figures
#: Output metadata key of a figure drawn by a Chinese run: the SHA-256 of the English figure (image/png) it replaces.
ZH_IMAGE_KEY = "zh_image_of"


def image_hash(png) -> str:
    """SHA-256 of a stored image/png (base64 text, or a list of its lines)."""
    return hashlib.sha256("".join(png).encode("ascii") if isinstance(png, list) else png.encode("ascii")).hexdigest()


def image_outputs(cell: dict) -> list[dict]:
    """The outputs of a code cell that show a figure (image/png), in order."""
    return [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]


def with_zh_images(cell: dict, english: dict, executed: dict | None, committed: dict | None) -> dict:
    """``cell`` (the Chinese notebook's code cell, built from ``english``) with each figure drawn by a Chinese run.

    Figures are pixels the build cannot translate: a Chinese run draws them (its figure text in Chinese). The k-th
    figure of ``executed`` (the cell of a Chinese notebook just executed, ``build --images-from``) is taken when it has
    as many figures as ``english``; else the committed Chinese notebook's, kept while it was drawn from the same
    English figure (its :data:`ZH_IMAGE_KEY`, the English image's hash); else the English figure stays. A taken
    figure carries the hash of the English one it replaces, so a changed English figure drops it."""
    shown = image_outputs(cell)
    if not shown:
        return cell
    hashes = [image_hash(o["data"]["image/png"]) for o in image_outputs(english)]
    fresh = image_outputs(executed) if executed is not None else []
    kept = image_outputs(committed) if committed is not None else []
    for k, out in enumerate(shown):
        png = None
        if len(fresh) == len(shown):
            png = fresh[k]["data"]["image/png"]
        elif len(kept) == len(shown) and kept[k].get("metadata", {}).get(ZH_IMAGE_KEY) == hashes[k]:
            png = kept[k]["data"]["image/png"]
        if png is not None:
            out["data"]["image/png"] = png
            out.setdefault("metadata", {})[ZH_IMAGE_KEY] = hashes[k]
    return cell


def english_images(cell: dict, english: dict) -> dict:
    """A Chinese code cell with its Chinese-run figures back to the English ones they replace (checked by hash):
    what :func:`check_code_identical` compares. A figure whose hash is not the English figure's stays as it is (and
    the comparison then fails)."""
    cell = json.loads(json.dumps(cell))
    theirs = image_outputs(english)
    mine = image_outputs(cell)
    for out, en in zip(mine, theirs, strict=False) if len(mine) == len(theirs) else ():
        meta = out.get("metadata", {})
        if meta.get(ZH_IMAGE_KEY) == image_hash(en["data"]["image/png"]):
            out["data"]["image/png"] = en["data"]["image/png"]
            del meta[ZH_IMAGE_KEY]
    return cell


def anchor_map(ch: Chapter) -> dict[str, str]:
    """English heading anchor -> the shown (Chinese) heading's anchor, heading by heading within each cell."""
    out = {}
    for index, (shown, _) in ch.cells.items():
        english = heading_anchors(cell_source(ch.nb["cells"][index]))
        for en, zh in zip(english, heading_anchors(shown), strict=False):
            if en is not None and zh is not None:
                out.setdefault(en, zh)
    return out


def build_all(
    paths: Paths = DEFAULT, allow_incomplete: bool = False, write: bool = True, images_from: Path | None = None
) -> dict[Path, str]:
    """{Chinese notebook path: its text}. Refuses (IncompleteCatalog) on an untranslated or fuzzy entry unless
    ``allow_incomplete`` (then the English cell is shown, its first line a note saying so). Figures: drawn by a
    Chinese run (:func:`with_zh_images`), from the executed Chinese notebooks in ``images_from`` (same file names)
    or kept from the committed Chinese notebooks."""
    chapters = [load_chapter(b, paths) for b in english_notebooks(paths)]
    if not allow_incomplete:
        bad = [(paths.catalog(c.book), c.counts()) for c in chapters if any(c.counts().values())]
        if bad:
            lines = [f"{p.relative_to(p.parents[2]) if len(p.parents) > 2 else p}: {n['untranslated']} untranslated, "
                     f"{n['fuzzy']} fuzzy" for p, n in bad]  # fmt: skip
            raise IncompleteCatalog(
                "refusing to build from incomplete catalogs:\n  " + "\n  ".join(lines) + "\n(list them: python "
                "scripts/i18n.py check --catalog NAME; or build --allow-incomplete to show those cells in English)"
            )
    anchors = {c.book.name: anchor_map(c) for c in chapters}
    names = {c.book.name for c in chapters}
    out = {}
    for c in chapters:
        nb = json.loads(json.dumps(c.nb))
        for index, (shown, why) in c.cells.items():
            text = rewrite_links(shown, c.book.name, anchors, names)
            if why:
                text = FALLBACK_NOTE[why] + "\n\n" + text
            nb["cells"][index]["source"] = text.splitlines(keepends=True)
        nb["cells"] = [zh_code_cell(cell, i == setup_index(nb)) for i, cell in enumerate(nb["cells"])]
        runs = [_cells_of(d / c.book.name, len(nb["cells"])) for d in (images_from, paths.zh) if d is not None]
        executed, committed = (runs if images_from is not None else [None, *runs])[:2]
        nb["cells"] = [
            with_zh_images(cell, c.nb["cells"][i], executed and executed[i], committed and committed[i])
            if cell["cell_type"] == "code"
            else cell
            for i, cell in enumerate(nb["cells"])
        ]
        out[paths.zh / c.book.name] = dump_notebook(nb)
    if write:
        paths.zh.mkdir(parents=True, exist_ok=True)
        for path, text in out.items():
            path.write_text(text, encoding="utf-8")
    return out


def _cells_of(path: Path, n_cells: int) -> list[dict] | None:
    """The cells of the notebook at ``path`` when it exists and has ``n_cells`` cells (else None: no figure from it)."""
    if not path.exists():
        return None
    cells = read_notebook(path)["cells"]
    return cells if len(cells) == n_cells else None


# ----------------------------------------------------------------------------------------------- checks
@dataclass
class Problem:
    """One offending thing; ``kind`` is complete, current, glossary, terminology, invariant, typography, code,
    build or link."""

    notebook: str
    cell: int | None
    what: str
    kind: str = "complete"

    def __str__(self) -> str:
        where = f"{self.notebook} cell {self.cell}" if self.cell is not None else self.notebook
        return f"{where}: {self.what}"


def read_glossary(path: Path) -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    return [(r[0].strip(), r[1].strip()) for r in rows]


def glossary_pattern(term: str) -> re.Pattern:
    """Whole word, case-insensitive, any whitespace between words, plural -s/-es allowed."""
    words = r"\s+".join(re.escape(w) for w in term.split())
    return re.compile(rf"(?<![A-Za-z0-9_-]){words}(?:s|es)?(?![A-Za-z0-9_-])", re.I)


def glossary_terms_used(prose: str, glossary: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The glossary rows whose English term occurs in ``prose``; a match inside a longer term's match (the
    'embedding' of 'rotary position embedding') does not count."""
    found, taken = [], []
    for en, zh in sorted(glossary, key=lambda r: -len(r[0])):
        hit = False
        for m in glossary_pattern(en).finditer(prose):
            if not any(s < m.end() and m.start() < e for s, e in taken):
                taken.append(m.span())
                hit = True
        if hit:
            found.append((en, zh))
    return found


def check_glossary(english: str, translation: str, glossary) -> list[str]:
    return [
        f"glossary: {en!r} must be rendered {zh!r}"
        for en, zh in glossary_terms_used(parse(english).prose, glossary)
        if zh not in translation
    ]


def read_glossary_variants(path: Path) -> list[tuple[str, str, list[str]]]:
    """(english, chinese, variants) of every glossary row with a fourth field: the other renderings of the term
    (``; ``-separated) that no catalog may use, so that each entry has one term across the edition."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    return [
        (r[0].strip(), r[1].strip(), [v.strip() for v in r[3].split(";")]) for r in rows if len(r) > 3 and r[3].strip()
    ]


def _term_pattern(term: str) -> re.Pattern:
    """A Chinese term as written; one in Latin letters (nat, NTK-Aware 插值) as whole words, case-insensitive."""
    if term.isascii() or re.match(r"[A-Za-z]", term):
        return re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(term)}(?![A-Za-z0-9_-])", re.I)
    return re.compile(re.escape(term))


GLOSS_REACH = 12  # a full-width parenthesis opening this many characters after the term glosses it


def check_variants(translation: str, rows) -> list[str]:
    """Every other rendering of a glossary entry in ``translation``'s prose (code, LaTeX and URLs excluded). A
    variant inside the term's own occurrence (单元 in 单元格) or inside a parenthetical gloss opening right after
    the term (缩放因子 $s$（源章节称“扩展倍数”）, nat（奈特）) is allowed."""
    prose = parse(translation).prose
    out = []
    for en, zh, variants in rows:
        allowed = []
        for m in _term_pattern(zh).finditer(prose):
            allowed.append(m.span())
            opening = prose.find("（", m.end(), m.end() + GLOSS_REACH)
            closing = prose.find("）", opening)
            if opening >= 0 and closing >= 0:
                allowed.append((opening, closing + 1))
        for variant in variants:
            for m in _term_pattern(variant).finditer(prose):
                if not any(s <= m.start() and m.end() <= e for s, e in allowed):
                    out.append(f"terminology: {m.group(0)!r} is a variant of glossary entry {en!r}: write {zh!r}")
                    break
    return out


SOFT_BREAK_CONTEXT = 8


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _quote_depth(line: str) -> tuple[int, str]:
    """(blockquote depth, the line's text after its quote markers and indentation)."""
    m = re.match(r"[ \t]*((?:>[ \t]*)*)", line)
    return m.group(1).count(">"), line[m.end() :]


def soft_break_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each soft line break of markdown ``text`` between two wide (CJK) characters: the newline
    with the next line's indentation and quote markers. Browsers, JupyterLab and GitHub render such a break as a
    space inside a Chinese sentence. Not counted: the end of a heading or table row, a break inside code or
    LaTeX, a line that opens a blockquote (it is not a continuation)."""
    protected = [(s, e) for _, s, e in protected_spans(text)]
    out, offset = [], 0
    lines = text.split("\n")
    for here, after in zip(lines, lines[1:], strict=False):
        newline = offset + len(here)
        offset = newline + 1
        depth_here, body_here = _quote_depth(here)
        depth_after, body_after = _quote_depth(after)
        if not (body_here and body_after and _wide(body_here[-1]) and _wide(body_after[0])):
            continue
        if depth_here != depth_after or body_here.startswith(("#", "|")) or any(s <= newline < e for s, e in protected):
            continue
        out.append((newline, offset + len(after) - len(body_after)))
    return out


def soft_breaks(text: str) -> list[str]:
    """:func:`soft_break_spans` of ``text``, each shown with its context."""
    return [
        f"line break between {text[max(0, s - SOFT_BREAK_CONTEXT) : s]!r} and {text[e : e + SOFT_BREAK_CONTEXT]!r} "
        "renders as a space: join the lines"
        for s, e in soft_break_spans(text)
    ]


def check_invariants(english: str, translation: str) -> list[str]:
    """What of ``english`` is missing from ``translation``: numbers, code spans, LaTeX spans, link targets,
    heading structure."""
    en, zh = parse(english), parse(translation)
    out = []
    for kind, items in (("inline code", en.code), ("LaTeX", en.math)):
        for item in dict.fromkeys(items):
            if item not in translation:
                out.append(f"{kind} {item!r} missing")
    for target in dict.fromkeys(en.links):
        if target not in zh.links:
            out.append(f"link target {target!r} missing")
    have = set(numbers(translation))
    for n in dict.fromkeys(numbers(en.prose)):
        if n not in have:
            out.append(f"number {n!r} missing")
    levels_en = [lvl for lvl, _ in headings(english)]
    levels_zh = [lvl for lvl, _ in headings(translation)]
    if levels_en != levels_zh:
        out.append(f"headings: English has levels {levels_en}, the translation {levels_zh} (same headings, same order)")
    return out


def check_catalog(book: Path, paths: Paths = DEFAULT, glossary=None) -> list[Problem]:
    """(c), (d), (e) for one catalog: complete, current, glossary, invariants."""
    path = paths.catalog(book)
    name = book.name
    if not path.exists():
        return [
            Problem(
                name,
                None,
                kind="current",
                what=f"no catalog {path.name}: run `python scripts/i18n.py extract {book.stem}`",
            )
        ]
    glossary = read_glossary(paths.glossary()) if glossary is None else glossary
    variants = read_glossary_variants(paths.glossary())
    po = load_catalog(path)
    out = []
    first_cell = {}
    for index, source in markdown_cells(book):
        first_cell.setdefault(source, index)
    live_everywhere = {s for b in english_notebooks(paths) for _, s in markdown_cells(b)}
    for e in po:
        cell = first_cell.get(e.msgid)
        if e.obsolete:
            if e.msgid in live_everywhere:
                out.append(
                    Problem(
                        name, cell, kind="complete", what="obsolete entry whose text is a current cell: run extract"
                    )
                )
            continue
        if not e.msgstr:
            out.append(Problem(name, cell, "untranslated", "complete"))
            continue
        if "fuzzy" in e.flags:
            diff = "" if e.previous_msgid is None else " (English changed; see #| msgid for the old text)"
            out.append(Problem(name, cell, kind="complete", what="fuzzy: check the translation against the new English, then remove the "
                               "fuzzy flag" + diff))  # fmt: skip
        out += [Problem(name, cell, w, "invariant") for w in check_invariants(e.msgid, e.msgstr)]
        out += [Problem(name, cell, w, "glossary") for w in check_glossary(e.msgid, e.msgstr, glossary)]
        out += [Problem(name, cell, w, "terminology") for w in check_variants(e.msgstr, variants)]
        out += [Problem(name, cell, w, "typography") for w in soft_breaks(e.msgstr)]
    fresh = extract_all([book], paths, write=False)[path]
    if str(fresh) != path.read_text(encoding="utf-8"):
        out.append(Problem(name, None, kind="current", what=f"{path.name} is not current with {name}: run `python scripts/i18n.py extract "
                           f"{book.stem}` (changed, new or removed cells)"))  # fmt: skip
    return out


def check_code_identical(book: Path, zh: Path) -> list[Problem]:
    """(a) every cell of the Chinese notebook but the markdown sources equals the English one, byte for byte,
    except the two things :func:`zh_code_cell` changes: the setup cell's one added line, and printed lines that a
    catalog entry translates (helpers.i18n.translate_line, the function a Chinese run prints with). And figures:
    an image a Chinese run drew (its figure text in Chinese, pixels no catalog entry can map) is accepted only in
    place of the English image whose hash it carries (:func:`english_images`, :func:`with_zh_images`)."""
    if not zh.exists():
        return [Problem(zh.name, None, kind="build", what=f"{zh} missing: run `python scripts/i18n.py build`")]
    en_nb, zh_nb = read_notebook(book), read_notebook(zh)
    out = []
    if {k: v for k, v in en_nb.items() if k != "cells"} != {k: v for k, v in zh_nb.items() if k != "cells"}:
        out.append(
            Problem(f"zh/{zh.name}", None, kind="code", what="notebook metadata differs from the English notebook")
        )
    if len(en_nb["cells"]) != len(zh_nb["cells"]):
        return out + [
            Problem(f"zh/{zh.name}", None, kind="code", what="number of cells differs from the English notebook")
        ]
    setup = setup_index(en_nb)
    for i, (a, b) in enumerate(zip(en_nb["cells"], zh_nb["cells"], strict=True)):
        if b["cell_type"] == "code":  # figures drawn by a Chinese run: compared as the English figure they replace
            b = english_images(b, a)
        a = zh_code_cell(a, i == setup)
        if a["cell_type"] == "markdown" and b["cell_type"] == "markdown":
            a, b = {k: v for k, v in a.items() if k != "source"}, {k: v for k, v in b.items() if k != "source"}
        if dump_notebook(a) != dump_notebook(b):
            out.append(
                Problem(
                    f"zh/{zh.name}",
                    i,
                    kind="code",
                    what="differs from the English cell (code, outputs, metadata or id)",
                )
            )
    return out


def check_links(paths: Paths = DEFAULT) -> list[Problem]:
    """Every link and anchor of every Chinese notebook resolves (files on disk, notebook heading anchors by
    JupyterLab's rule, .md anchors by GitHub's, the repository's own Colab/GitHub URLs)."""
    zh_books = sorted(paths.zh.glob("*.ipynb"))
    ids = {p.resolve(): {a for c in read_notebook(p)["cells"] if c["cell_type"] == "markdown"
                         for a in cell_anchors(cell_source(c))} for p in zh_books}  # fmt: skip
    repo = paths.notebooks.parent
    out = []
    for p in zh_books:
        for i, cell in enumerate(read_notebook(p)["cells"]):
            if cell["cell_type"] != "markdown":
                continue
            for target in parse(cell_source(cell)).links:
                why = _unresolved(target, p, ids, repo)
                if why:
                    out.append(Problem(f"zh/{p.name}", i, kind="link", what=f"link {target!r}: {why}"))
    return out


def _anchors_of(file: Path, ids: dict) -> set[str]:
    if file.resolve() in ids:
        return ids[file.resolve()]
    if file.suffix == ".ipynb":
        return {
            a
            for c in read_notebook(file)["cells"]
            if c["cell_type"] == "markdown"
            for a in cell_anchors(cell_source(c))
        }
    text = file.read_text(encoding="utf-8", errors="replace")
    return {github_slug(h) for _, h in headings(text)} | set(HTML_ID.findall(text))


def _unresolved(target: str, here: Path, ids: dict, repo: Path) -> str | None:
    url = re.match(r"^https://(?:colab\.research\.google\.com/github|github\.com)/[^/]+/[^/]+/blob/[^/]+/(.+)$", target)
    if url:
        return None if (repo / url.group(1)).exists() else f"{url.group(1)} is not a file of the repository"
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return None  # web URLs are not fetched
    path, _, frag = target.partition("#")
    file = (here.parent / path) if path else here
    if not file.exists():
        return f"{file.relative_to(repo) if file.resolve().is_relative_to(repo.resolve()) else file} does not exist"
    if frag and file.is_file() and frag not in _anchors_of(file, ids):
        return f"no heading with anchor #{frag} in {file.name}"
    return None


def check_all(paths: Paths = DEFAULT, catalog: str | None = None) -> list[Problem]:
    books = english_notebooks(paths)
    if catalog is not None:
        books = [b for b in books if b.stem == catalog]
    glossary = read_glossary(paths.glossary())
    out = []
    for book in books:
        out += check_catalog(book, paths, glossary)
    if catalog is None:
        out += check_package_catalog(paths)
        out += check_figures_catalog(paths)
        out += check_string_catalog_terms(paths)
        problems, notes = check_outputs_catalog(paths)
        out += problems
        for note in notes:
            print("note:", note, file=sys.stderr)
        for book in books:
            out += check_code_identical(book, paths.zh / book.name)
        fresh = build_all(paths, allow_incomplete=True, write=False)
        committed = set(paths.zh.glob("*.ipynb"))
        for path, text in fresh.items():
            if path.exists() and path.read_text(encoding="utf-8") != text:
                out.append(
                    Problem(
                        f"zh/{path.name}",
                        None,
                        kind="build",
                        what="not what a fresh build gives: run `python scripts/i18n.py build`",
                    )
                )
        for extra in committed - set(fresh):
            out.append(Problem(f"zh/{extra.name}", None, kind="build", what="has no English notebook: delete it"))
        out += check_links(paths)
        readme = paths.notebooks.parent / "README.zh-CN.md"
        if readme.exists():
            out += [
                Problem(readme.name, None, w, "typography") for w in soft_breaks(readme.read_text(encoding="utf-8"))
            ]
    return out


# ----------------------------------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_extract = sub.add_parser("extract", help="update the catalogs from the English notebooks")
    p_extract.add_argument("names", nargs="*", help="notebook stems (default: all)")
    p_build = sub.add_parser("build", help="write notebooks/zh/ from the English notebooks and the catalogs")
    p_build.add_argument("--allow-incomplete", action="store_true",
                         help="show untranslated/fuzzy cells in English (marked) instead of refusing")  # fmt: skip
    p_build.add_argument("--images-from", type=Path, metavar="DIR",
                         help="take the figures from these executed Chinese notebooks (python scripts/zh_share.py "
                              "record --keep DIR)")  # fmt: skip
    p_check = sub.add_parser("check", help="report every problem of the catalogs and the Chinese notebooks")
    p_check.add_argument(
        "--catalog", metavar="NAME", help="check one catalog only (complete, current, glossary, invariants)"
    )
    args = parser.parse_args(argv)
    books = english_notebooks()
    by_stem = {b.stem: b for b in books}
    if args.command == "extract":
        unknown = [n for n in args.names if n not in by_stem]
        if unknown:
            parser.error(f"names: unknown notebook(s) {unknown}; allowed: {sorted(by_stem)}")
        chosen = [by_stem[n] for n in args.names] if args.names else books
        po = update_outputs_catalog(chosen)
        print(f"i18n/zh_CN/{OUTPUTS_CATALOG}: {len(po)} entries, {len(po.untranslated_entries())} untranslated, {len(po.fuzzy_entries())} fuzzy")  # fmt: skip
        po = update_figures_catalog()
        print(f"i18n/zh_CN/{FIGURES_CATALOG}: {len(po)} entries, {len(po.untranslated_entries())} untranslated, {len(po.fuzzy_entries())} fuzzy")  # fmt: skip
        po = update_package_catalog()
        print(f"i18n/zh_CN/{PACKAGE_CATALOG}: {len(po)} entries, {len(po.untranslated_entries())} untranslated, {len(po.fuzzy_entries())} fuzzy")  # fmt: skip
        for path, po in extract_all(chosen).items():
            print(
                f"{path.relative_to(ROOT)}: {len(po)} entries, {len(po.untranslated_entries())} untranslated, {len(po.fuzzy_entries())} fuzzy"
            )
        return 0
    if args.command == "build":
        write_mo_files()
        try:
            if args.images_from is not None and not args.images_from.is_dir():
                parser.error(f"--images-from: {args.images_from} is not a directory")
            out = build_all(allow_incomplete=args.allow_incomplete, images_from=args.images_from)
        except (IncompleteCatalog, FileNotFoundError) as e:
            print(e, file=sys.stderr)
            return 1
        print(
            f"wrote {PACKAGE_MO.name}, {OUTPUTS_MO.name}, {FIGURES_MO.name} and {len(out)} notebooks to {DEFAULT.zh.relative_to(ROOT)}/"
        )
        return 0
    if args.catalog is not None and args.catalog not in by_stem:
        parser.error(f"--catalog: unknown catalog {args.catalog!r}; allowed: {sorted(by_stem)}")
    problems = check_all(catalog=args.catalog)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
