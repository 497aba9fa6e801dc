"""What a learner reads on a Chinese notebook's widget panels, checked against the zh catalogs.

``PANEL_TEXTS_JS`` reads, in the page, every visible text of the widgets of the given cells: descriptions (the
label left of a slider/dropdown, a checkbox's text), the options of dropdowns, toggle buttons and radio buttons,
button captions, and the lines of HTML/Label widgets. ``classify`` sorts each text:

* ``chinese``: it contains a CJK ideograph;
* ``neutral``: no Latin letter either (numbers, symbols: ``2×L``, ``0.50``);
* ``english_translated``: English that is exactly an entry of the catalogs a widget's text comes from at run time
  (``CATALOGS``: i18n/zh_CN/helpers.po, without context or in the ``figure`` context, and figures.po; its
  placeholders ``{name}``/``{0}``/``%s`` standing for any text) whose translation differs: the catalog translates
  it, the page shows it in English -- a failure (a string not marked for translation where it is made, or a stale
  compiled catalog);
* ``english_uncatalogued``: English the catalogs have no entry for (not yet translated: listed in the report, not
  failed; model and method names such as ``RoPE`` stay English by design).

Parsed with polib (requirements-dev.txt), the ``.po`` sources, not the compiled ``.mo``: a catalog entry that the
compiled catalog lacks shows in English and fails.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from browser_config import ROOT

#: The zh catalogs a widget's text is translated from at run time (helpers/i18n.py): ``_()`` and the widget
#: construction callback's ``figure_text`` (helpers.po without context or in the ``figure`` context, then figures.po).
CATALOGS = tuple(ROOT / "i18n" / "zh_CN" / f for f in ("helpers.po", "figures.po"))
#: Contexts that are not on screen in a widget: words a learner may type as an answer.
IGNORED_CONTEXTS = frozenset({"answer"})

#: CJK ideographs (unified + extension A + compatibility): what makes a text Chinese.
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN = re.compile(r"[A-Za-z]")

#: Texts of the widgets in the given cells (indices into the notebook's cells), only what is rendered (display not
#: none). One record per text: {cell, kind, text}.
PANEL_TEXTS_JS = r"""
(cellIdx) => {
  const Q = (root, sel) => Array.from(root.querySelectorAll(sel));
  const cells = __pe.cells();
  const shown = (el) => el.getClientRects().length > 0;
  const norm = (t) => (t || '').replace(/[\u200b\u00a0]/g, ' ').replace(/\s+/g, ' ').trim();
  const out = [];
  const add = (cell, kind, t) => { t = norm(t); if (t) out.push({cell, kind, text: t}); };
  for (const ci of cellIdx) {
    const c = cells[ci];
    if (!c) continue;
    const views = Q(c, '.jp-OutputArea-output > .jupyter-widgets');
    for (const v of views) {
      Q(v, '.widget-label, .widget-label-basic').filter(shown).forEach(l => add(ci, 'label', l.textContent));
      Q(v, 'select option').forEach(o => add(ci, 'option', o.textContent));
      Q(v, '.widget-toggle-buttons button, .widget-radio-box label').filter(shown)
        .forEach(b => add(ci, 'option', b.textContent));
      Q(v, 'button').filter(b => shown(b) && !b.closest('.widget-toggle-buttons'))
        .forEach(b => add(ci, 'button', b.textContent || b.title));
      Q(v, '.widget-html-content, .widget-htmlmath-content').filter(shown)
        .forEach(h => (h.innerText || '').split('\n').forEach(line => add(ci, 'html', line)));
    }
  }
  return out;
}
"""


@dataclass(frozen=True)
class Entry:
    msgid: str
    msgstr: str
    pattern: re.Pattern
    msgctxt: str | None = None
    catalog: str = ""


def _template_regex(msgid: str, number_fields: bool = False) -> re.Pattern | None:
    """A regex matching ``msgid`` with its fields filled; None when it has no literal letters (a bare ``{name}``
    would match every text). A field stands for any text, or, with ``number_fields`` (figures.po: its templates are
    printed texts with each number replaced by ``{0}``, ``{1}``..., helpers.i18n.line_template), for one number."""
    from helpers.i18n import NUMBER

    try:
        parts = list(string.Formatter().parse(msgid))
    except ValueError:  # braces that are not a format string
        parts = [(msgid, None, None, None)]
    rx, literal = "", ""
    for lit, field, _spec, _conv in parts:
        for piece in re.split(r"(%(?:\(\w+\))?[-+ #0]*\d*(?:\.\d+)?[sdifgeEr])", lit):
            if re.fullmatch(r"%(?:\(\w+\))?[-+ #0]*\d*(?:\.\d+)?[sdifgeEr]", piece):
                rx += ".+?"
            else:
                rx += r"\s+".join(re.escape(w) for w in re.split(r"\s+", piece))
                literal += piece
        if field is not None:
            rx += f"(?:{NUMBER.pattern})" if number_fields and field.isdigit() else ".+?"
    if not LATIN.search(literal):
        return None
    return re.compile(rx, re.S)


@cache
def translated_entries(po_paths: tuple[Path, ...] = CATALOGS) -> tuple[Entry, ...]:
    """The catalogs' entries whose translation differs from the English (polib; fuzzy ones and the ``answer``
    context, words a learner types, do not count)."""
    import polib

    out = []
    for po_path in po_paths:
        if not po_path.exists():
            raise FileNotFoundError(f"zh catalog of widget texts: {po_path} does not exist; allowed: {CATALOGS}")
        for e in polib.pofile(str(po_path)):
            if e.obsolete or "fuzzy" in e.flags or not e.translated() or e.msgctxt in IGNORED_CONTEXTS:
                continue
            pairs = [(e.msgid, e.msgstr)] if not e.msgid_plural else [
                (e.msgid, e.msgstr_plural.get(0, "")), (e.msgid_plural, e.msgstr_plural.get(0, ""))
            ]  # fmt: skip
            for mid, mstr in pairs:
                if not mstr or mstr == mid:
                    continue
                rx = _template_regex(mid, number_fields=po_path.name == "figures.po")
                if rx is not None:
                    out.append(Entry(mid, mstr, rx, e.msgctxt, po_path.name))
    return tuple(out)


def catalog_match(text: str, entries: tuple[Entry, ...]) -> Entry | None:
    """The first translated entry whose English ``text`` is (fields filled in), or None."""
    for e in entries:
        if e.pattern.fullmatch(text):
            return e
    return None


def classify(text: str, entries: tuple[Entry, ...]) -> tuple[str, Entry | None]:
    """``chinese`` / ``neutral`` / ``english_translated`` (a failure) / ``english_uncatalogued`` (listed)."""
    if CJK.search(text):
        return "chinese", None
    if not LATIN.search(text):
        return "neutral", None
    e = catalog_match(text, entries)
    return ("english_translated", e) if e else ("english_uncatalogued", None)


def label_report(texts: list[dict], entries: tuple[Entry, ...] | None = None) -> dict:
    """Sort the page's widget texts (records of ``PANEL_TEXTS_JS``): counts per class, the failures (English
    shown for a catalog-translated string) and the English texts the catalog lacks (unique, in page order)."""
    entries = translated_entries() if entries is None else entries
    counts = {"chinese": 0, "neutral": 0, "english_translated": 0, "english_uncatalogued": 0}
    problems, uncatalogued, seen = [], [], set()
    for t in texts:
        cls, e = classify(t["text"], entries)
        counts[cls] += 1
        key = (t["kind"], t["text"])
        if key in seen:
            continue
        seen.add(key)
        if cls == "english_translated":
            problems.append(
                f"cell {t['cell']}: {t['kind']} {t['text']!r} is shown in English, but {e.catalog}"
                + (f" (context {e.msgctxt!r})" if e.msgctxt else "")
                + f" translates {e.msgid!r} as {e.msgstr!r}"
            )
        elif cls == "english_uncatalogued":
            uncatalogued.append(f"cell {t['cell']} {t['kind']}: {t['text']}")
    return {"counts": counts, "problems": problems, "uncatalogued": uncatalogued}


#: Per notebook (report name): the last ``label_report`` (and its panel cells), for ``write_label_report``.
RECORDED: dict[str, dict] = {}


def check_panel_texts(name: str, texts: list[dict], panels: list[int], out: Path | None = None) -> list[str]:
    """The problems of a Chinese notebook's panel texts (``PANEL_TEXTS_JS`` records of the cells ``panels``):
    English shown for a string the catalog translates, or a panel with no Chinese text at all. Records the report
    and rewrites ``out`` (Markdown: counts, and the English texts the catalog lacks)."""
    rep = label_report(texts)
    zh_cells = {t["cell"] for t in texts if CJK.search(t["text"])}
    problems = rep["problems"] + [
        f"cell {c}: the panel shows no Chinese text at all" for c in panels if c not in zh_cells
    ]
    RECORDED[name] = rep
    if out is not None:
        write_label_report(out)
    return problems


def write_label_report(path: Path) -> None:
    lines = [
        "# Chinese notebooks: the texts of their widget panels",
        "",
        "Written by tests/browser (zh_labels.py): every text of the panels (descriptions, options, buttons, HTML lines)",
        "read at the defaults and after the moves. Chinese = contains a CJK ideograph; neutral = no Latin letter;",
        "English the catalogs translate = a failure; English not in them = listed below.",
        "",
        "| notebook | Chinese | neutral | English, catalog translates it (fails) | English, not in the catalog |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in sorted(RECORDED.items()):
        c = r["counts"]
        lines.append(
            f"| {name} | {c['chinese']} | {c['neutral']} | {c['english_translated']} | {c['english_uncatalogued']} |"
        )
    for name, r in sorted(RECORDED.items()):
        if r["uncatalogued"]:
            lines += ["", f"## {name}: English not in the catalog", ""] + [f"- {u}" for u in r["uncatalogued"]]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
