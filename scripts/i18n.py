"""Translation catalogs of the Chinese edition (gettext ``.po``, read and written with polib).

One catalog per English notebook, ``i18n/zh_CN/<notebook>.po``; one entry per markdown cell, the cell's English
source as ``msgid``. ``extract`` brings every catalog up to date with its notebook the way gettext's ``msgmerge``
does: an unchanged cell keeps its translation; a changed cell's entry keeps the old translation but is flagged
*fuzzy* (with the old English as ``previous_msgid``) so it is never silently reused; a new cell is untranslated;
an entry whose cell is gone becomes obsolete.

    python scripts/i18n.py extract            # all notebooks
    python scripts/i18n.py extract 04_rope    # one
"""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CATALOGS = ROOT / "i18n" / "zh_CN"
FUZZY_MATCH = 0.6  # difflib ratio above which a changed cell inherits the old translation, flagged fuzzy

METADATA = {
    "Project-Id-Version": "pe-course",
    "Language": "zh_CN",
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=1; plural=0;",
}


def english_notebooks() -> list[Path]:
    """The English chapter notebooks (``notebooks/NN*.ipynb``), in course order."""
    return sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]*.ipynb"))


def markdown_cells(notebook: Path) -> list[tuple[int, str]]:
    """(cell index, source) of every non-empty markdown cell."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    out = []
    for index, cell in enumerate(cells):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and source.strip():
            out.append((index, source))
    return out


def catalog_path(notebook: Path) -> Path:
    return CATALOGS / f"{notebook.stem}.po"


def extract(notebook: Path) -> polib.POFile:
    """Bring ``notebook``'s catalog up to date (msgmerge semantics, see the module docstring); returns it."""
    path = catalog_path(notebook)
    old = polib.pofile(str(path), wrapwidth=0) if path.exists() else polib.POFile(wrapwidth=0)
    translated = {e.msgid: e for e in old if not e.obsolete and e.msgstr}
    new = polib.POFile(wrapwidth=0)
    new.metadata = {**METADATA, **{k: v for k, v in old.metadata.items() if k not in METADATA}}
    seen: dict[str, polib.POEntry] = {}
    for index, source in markdown_cells(notebook):
        if source in seen:  # the same text twice: one entry, two occurrences
            seen[source].occurrences.append((notebook.name, str(index)))
            continue
        entry = polib.POEntry(msgid=source, msgstr="", occurrences=[(notebook.name, str(index))])
        if source in translated:
            entry.msgstr = translated[source].msgstr
            entry.flags = list(translated[source].flags)
        else:
            best, ratio = None, FUZZY_MATCH
            for msgid, candidate in translated.items():
                r = difflib.SequenceMatcher(None, msgid, source, autojunk=False).ratio()
                if r > ratio:
                    best, ratio = candidate, r
            if best is not None:
                entry.msgstr = best.msgstr
                entry.flags = ["fuzzy"]
                entry.previous_msgid = best.msgid
        seen[source] = entry
        new.append(entry)
    for e in old:
        if e.msgid and e.msgid not in seen and e.msgstr:
            e.obsolete = True
            new.append(e)
    path.parent.mkdir(parents=True, exist_ok=True)
    new.save(str(path))
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_extract = sub.add_parser("extract", help="update the catalogs from the English notebooks")
    p_extract.add_argument("names", nargs="*", help="notebook stems (default: all)")
    args = parser.parse_args(argv)
    books = english_notebooks()
    if args.names:
        by_stem = {b.stem: b for b in books}
        unknown = [n for n in args.names if n not in by_stem]
        if unknown:
            parser.error(f"names: unknown notebook(s) {unknown}; allowed: {sorted(by_stem)}")
        books = [by_stem[n] for n in args.names]
    for book in books:
        po = extract(book)
        print(f"{catalog_path(book).relative_to(ROOT)}: {len(po)} entries, {len(po.untranslated_entries())} untranslated, {len(po.fuzzy_entries())} fuzzy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
