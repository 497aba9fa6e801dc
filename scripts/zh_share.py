"""How much of a learner's non-code screen is Chinese in each notebook of the Chinese edition, by display rows.

The method of the Chinese edition's review (``shared/reviews/chinese-edition.md`` §6), with widget labels and figure
text counted as rows instead of as fixed blocks:

* **Rows.** Markdown cells (a fenced code block in one counts as code) and printed output (stdout,
  ``text/markdown``, ``text/plain`` results) are wrapped at :data:`COLUMNS` columns, a CJK character two columns
  wide; a blank line is no row. Cells whose source is collapsed
  (``jupyter.source_hidden``: the checks cells, the solutions) show no source rows; collapsed outputs
  (``jupyter.outputs_hidden``: the solutions) no output rows.
* **Figures and widget panels** count one row per text they show: every text a figure draws (title, axis labels,
  tick labels, legend entries, colorbar label, annotations, as :func:`figure_texts` reads them), and every widget's
  description, option labels and label/HTML text (:func:`widget_texts`). These texts come from one run of every
  Chinese notebook (``record``: a kernel with a recorder installed from an IPython startup file; nothing of the
  notebooks changes), stored in :data:`RECORD`, so ``measure`` runs no notebook.
* **Language of a row.** Chinese if it has a CJK character; *neutral* if it has no English word of two or more
  letters (numbers, symbols, maths, tick labels such as ``1,024`` or ``10⁴``); English otherwise. Code cells' rows
  are code. The share is Chinese / (Chinese + English) over the non-code rows; neutral rows are reported apart.

    python scripts/zh_share.py record [NN_name ...]   # run the zh notebooks once, store their figure and widget texts
    python scripts/zh_share.py measure                 # the table, from the stored notebooks and the record
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from helpers.i18n import display_width  # noqa: E402
from i18n import cell_source, read_notebook, text_language  # noqa: E402

ZH = ROOT / "notebooks" / "zh"
#: The stored texts of one Chinese run: {notebook: {cell index: [{"kind": "figure"|"widget", "texts": [...]}]}}; an
#: item whose texts were translated at run time (helpers.i18n.figure_text) also has "sources": the English of each.
RECORD = ROOT / "i18n" / "zh_CN" / "screen_texts.json"
COLUMNS = 100


# ----------------------------------------------------------------------------------------------- rows
def display_rows(line: str) -> int:
    """Rows one line of text takes at :data:`COLUMNS` columns (a blank line: none)."""
    if not line.strip():
        return 0
    return max(1, -(-display_width(line.rstrip()) // COLUMNS))


def markdown_lines(text: str) -> list[str]:
    """The lines a markdown cell shows: fenced code, HTML tags, LaTeX delimiters and link targets do not change the
    language of a line; an image line counts as a row."""
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets are not shown
    text = re.sub(r"<[^>]+>", "", text)
    return text.splitlines()


FENCE = re.compile(r"^ {0,3}(```|~~~)")


def split_fenced(lines: list[str]) -> tuple[list[str], list[str]]:
    """(prose lines, code lines) of a markdown cell: a fenced code block, its fences included, is code."""
    prose, code, inside = [], [], False
    for line in lines:
        fence = FENCE.match(line) is not None
        (code if inside or fence else prose).append(line)
        if fence:
            inside = not inside
    return prose, code


def hidden(cell: dict, part: str) -> bool:
    """Is the cell's ``part`` ("source" or "outputs") collapsed in JupyterLab (``jupyter.<part>_hidden``)?"""
    return bool(cell.get("metadata", {}).get("jupyter", {}).get(f"{part}_hidden"))


def output_texts(cell: dict) -> list[str]:
    """Lines of the text outputs of a code cell (stdout, markdown, plain results; not images or widgets)."""
    lines: list[str] = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            lines += cell_source({"source": out["text"]}).splitlines()
        data = out.get("data", {})
        if "application/vnd.jupyter.widget-view+json" in data or "image/png" in data:
            continue  # counted from the record
        if "text/markdown" in data:
            lines += markdown_lines(cell_source({"source": data["text/markdown"]}))
        elif "text/plain" in data:
            lines += cell_source({"source": data["text/plain"]}).splitlines()
    return lines


def count(rows: dict[str, int], kind: str, lines, per_line_rows: bool = True) -> None:
    for line in lines:
        n = display_rows(line) if per_line_rows else (1 if line.strip() else 0)
        if n:
            key = "code" if kind == "code" else text_language(line)
            rows[key] = rows.get(key, 0) + n


def notebook_rows(path: Path, record: dict[str, list[dict]]) -> dict[str, int]:
    """{"zh", "en", "neutral", "code", "figure_zh", "figure_en", "widget_zh", "widget_en": rows} of one notebook."""
    rows: dict[str, int] = {}
    for index, cell in enumerate(read_notebook(path)["cells"]):
        if cell["cell_type"] == "markdown":
            if not hidden(cell, "source"):
                prose, code = split_fenced(markdown_lines(cell_source(cell)))
                count(rows, "text", prose)
                count(rows, "code", code)
            continue
        if cell["cell_type"] != "code":
            continue
        if not hidden(cell, "source"):
            count(rows, "code", cell_source(cell).splitlines())
        if hidden(cell, "outputs"):
            continue
        count(rows, "text", output_texts(cell))
        for shown in record.get(str(index), []):
            texts = [t for t in shown["texts"] if t.strip()]
            count(rows, "text", texts, per_line_rows=False)
            for t in texts:
                key = f"{shown['kind']}_{text_language(t)}"
                rows[key] = rows.get(key, 0) + 1
    return rows


def measure(record_path: Path = RECORD) -> list[tuple[str, dict[str, int]]]:
    record = json.loads(record_path.read_text(encoding="utf-8")) if record_path.exists() else {}
    return [(p.stem, notebook_rows(p, record.get(p.stem, {}))) for p in sorted(ZH.glob("[0-9]*.ipynb"))]


def share(rows: dict[str, int]) -> float:
    zh, en = rows.get("zh", 0), rows.get("en", 0)
    return zh / (zh + en) if zh + en else 0.0


def table(results, recorded: set[str]) -> str:
    head = "| notebook | Chinese share of non-code rows | Chinese | English | neutral | code | figure texts zh/en | widget texts zh/en |"  # noqa: E501
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for name, r in results:
        note = "" if name in recorded else " (no record: figures and widgets not counted)"
        lines.append(
            f"| {name}{note} | {100 * share(r):.0f} % | {r.get('zh', 0)} | {r.get('en', 0)} | {r.get('neutral', 0)} | "
            f"{r.get('code', 0)} | {r.get('figure_zh', 0)}/{r.get('figure_en', 0)} | "
            f"{r.get('widget_zh', 0)}/{r.get('widget_en', 0)} |"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- record
#: The IPython startup file the recording kernel runs: it records the texts of every figure a cell displays
#: (wrapping the canvas's print_figure, which inline display calls) and the labels of every widget a cell makes.
RECORDER = textwrap.dedent(
    """
    import json, os, re
    import matplotlib.backend_bases as _bb
    import matplotlib.text as _mt

    _OUT = os.environ["ZH_SHARE_RECORD"]


    def _record(kind, texts):
        ip = get_ipython()
        try:  # the English each shown text was translated from at run time (helpers.i18n.figure_text)
            from helpers.i18n import figure_source
        except ImportError:
            figure_source = str
        item = {"count": ip.execution_count, "kind": kind, "texts": texts, "sources": [figure_source(t) for t in texts]}
        with open(_OUT, "a", encoding="utf-8") as f:
            f.write(json.dumps(item, ensure_ascii=False) + "\\n")


    _print_figure = _bb.FigureCanvasBase.print_figure


    def _print_figure_recorded(self, *args, **kwargs):
        result = _print_figure(self, *args, **kwargs)  # drawn first: tick labels exist only once a figure is drawn
        fig = self.figure
        texts = [t.get_text() for t in fig.findobj(_mt.Text) if t.get_visible() and t.get_text().strip()]
        _record("figure", texts)
        return result


    _bb.FigureCanvasBase.print_figure = _print_figure_recorded
    _seen = set()


    def _widget_texts(w):
        out = []
        if getattr(w, "description", ""):
            out.append(w.description)
        out += [str(label) for label in getattr(w, "_options_labels", ()) or ()]
        if type(w).__name__ in ("Label", "HTML", "HTMLMath"):
            out += [line for line in re.sub(r"<[^>]+>", "\\n", str(w.value)).splitlines() if line.strip()]
        return out


    def _after_cell(result):
        try:
            from ipywidgets.widgets.widget import _instances
        except ImportError:
            return
        texts = []
        for key, w in list(_instances.items()):
            if key not in _seen:
                _seen.add(key)
                texts += _widget_texts(w)
        if texts:
            _record("widget", texts)


    get_ipython().events.register("post_run_cell", _after_cell)
    """
)


def record(names: list[str], record_path: Path = RECORD, timeout: int = 600, keep: Path | None = None) -> None:
    """Run the Chinese notebooks ``names`` (default: all) once with the recorder; store their texts in the record.
    ``keep``: a directory to write the executed notebooks to (their figures drawn in Chinese: ``scripts/i18n.py
    build --images-from`` takes them)."""
    import nbformat
    from nbexec import run_notebook

    stored = json.loads(record_path.read_text(encoding="utf-8")) if record_path.exists() else {}
    paths = [ZH / f"{n}.ipynb" for n in names] if names else sorted(ZH.glob("[0-9]*.ipynb"))
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="zh-share-") as tmp:
            startup = Path(tmp) / "ipython" / "profile_default" / "startup"
            startup.mkdir(parents=True)
            (startup / "00-record.py").write_text(RECORDER, encoding="utf-8")
            log = Path(tmp) / "texts.jsonl"
            env = {**os.environ, "IPYTHONDIR": str(Path(tmp) / "ipython"), "ZH_SHARE_RECORD": str(log)}
            nb = nbformat.read(path, as_version=4)
            executed = run_notebook(nb, name=path.name, cwd=path.parent, kernel_env=env, cell_timeout=timeout)
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                nbformat.write(executed, keep / path.name)
            code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
            cells: dict[str, list[dict]] = {}
            for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
                item = json.loads(line)
                index = code_cells[item["count"] - 1]  # the n-th cell run is the n-th code cell (top to bottom)
                shown = {"kind": item["kind"], "texts": item["texts"]}
                if item.get("sources", item["texts"]) != item["texts"]:  # only where a text was translated at run time
                    shown["sources"] = item["sources"]
                cells.setdefault(str(index), []).append(shown)
        stored[path.stem] = cells
        record_path.write_text(
            json.dumps(stored, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        print(f"{path.name}: {sum(len(v) for v in cells.values())} figures and widget groups recorded", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run the zh notebooks once and store their figure and widget texts")
    rec.add_argument("notebooks", nargs="*", help="NN_name of the notebooks (default: all)")
    rec.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (default: 600)")
    rec.add_argument("--keep", type=Path, help="write the executed notebooks to this directory")
    sub.add_parser("measure", help="the share of Chinese rows per zh notebook")
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.notebooks, timeout=args.timeout, keep=args.keep)
        return 0
    results = measure()
    recorded = set(json.loads(RECORD.read_text(encoding="utf-8"))) if RECORD.exists() else set()
    print(table(results, recorded))
    return 0


if __name__ == "__main__":
    sys.exit(main())
