"""The Chinese edition's widget panels in a real browser, with what the learner reads checked to be Chinese.

test_notebooks_in_browser.py runs every English notebook (Run All, every control moved three times) and
``ZH_NOTEBOOKS`` there (zh/01, Run All). The other Chinese notebooks (``notebooks/zh/*.ipynb``) share their code
cells with the English ones byte for byte; what differs on screen is the language. So each is checked here cheaply,
on the same JupyterLab server and Chromium (session fixtures of conftest.py), in one JupyterLab page loaded once
(``zh_lab_page``): each notebook is opened in it with JupyterLab's own ``docmanager:open`` command (the app is
exposed as ``window.jupyterapp``, lab_server.py), and closed (its cleared outputs discarded) before its kernel is
shut down, which saves loading the whole JupyterLab app once per notebook (3-5 s on a busy 2-core machine).

1. opened (its own kernel, started while the notebook before was tested, ``KernelsAhead``), outputs cleared; its
   heading anchors compared with scripts/i18n.py's rule (as for zh/01);
2. only the setup cell, the panel cells and the earlier cells they read run (``cell_selection.panel_cells``, the
   rule ``PANEL_CELLS_ONLY`` applies to 07), one by one; the same cell checks as the English run (every chosen cell
   ran, in order, no error output, every panel rendered with a figure, no other cell ran);
3. the texts of every panel (descriptions, options, buttons, HTML lines; ``zh_labels.PANEL_TEXTS_JS``) are read
   at the defaults and again after the moves: a text the zh catalogs (``zh_labels.CATALOGS``: i18n/zh_CN/helpers.po
   and figures.po) translate but the page shows in English fails the test; English texts the catalogs have no entry
   for are listed in the report (``_artifacts/zh-labels.md``), not failed; every panel must show a Chinese text;
4. one control per panel (the first slider, else dropdown, toggle buttons, radio, checkbox, toggle button) is moved
   once: the panel's figure must change (a new PNG) and the control show its new value (nb_driver.exercise);
5. the kernel is shut down and the notebook file must be unchanged on disk.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import warnings
from pathlib import Path

import nbformat
import pytest
from browser_config import ARTIFACTS, MODES, NB_DIR
from cell_selection import left_out_problems, panel_cells, runnable
from nb_driver import PAGE_JS, NotebookDriver
from test_notebooks_in_browser import ZH_NOTEBOOKS, check_cells, expectations, heading_anchors_problems, report_name
from zh_labels import PANEL_TEXTS_JS, check_panel_texts

pytestmark = pytest.mark.browser

#: Chinese notebooks checked here: every one not run whole by test_notebooks_in_browser.py.
ZH_PANEL_NOTEBOOKS = [p for p in sorted((NB_DIR / "zh").glob("[0-9]*.ipynb")) if p not in ZH_NOTEBOOKS]

#: Which control of a panel is moved, by kind, first kind present wins (buttons are not picked: a reset button at
#: the defaults need not change the figure).
MOVE_ORDER = ("slider", "dropdown", "toggle-buttons", "radio", "checkbox", "toggle-button")


def pick_controls(controls: list[dict]) -> tuple[dict[int, dict], list[int]]:
    """One control per panel cell (``MOVE_ORDER``, then page order), and the panel cells with none movable."""
    by_cell: dict[int, list[dict]] = {}
    for c in controls:
        by_cell.setdefault(c["cell"], []).append(c)
    picked, none = {}, []
    for cell, ctls in sorted(by_cell.items()):
        usable = [c for c in ctls if c["kind"] in MOVE_ORDER and not c.get("disabled")]
        if not usable:
            none.append(cell)
            continue
        picked[cell] = min(usable, key=lambda c: (MOVE_ORDER.index(c["kind"]), c["id"]))
    return picked, none


#: In the loaded JupyterLab page: close every document in the main area (the notebook tested before; its cleared
#: outputs are discarded, nothing is saved), then open ``path`` with the Notebook factory.
OPEN_JS = """async (path) => {
  const app = window.jupyterapp;
  for (const w of Array.from(app.shell.widgets('main'))) {
    if (w.context && w.context.model) w.context.model.dirty = false;
    w.dispose();
  }
  if (path) await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
}"""

#: The notebook at ``path`` is the one shown, rendered, and its kernel idle.
OPENED_JS = """(path) => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(w && w.context && w.context.path === path && k && k.status === 'idle' && __pe.cells().length
            && __pe.idle());
}"""


#: Third-party modules every notebook imports first (torch alone takes 1.7 s): imported in a kernel started ahead.
#: Not the course's own package (``helpers``): its import order stays the notebook's.
WARM_UP_MODULES = ("torch", "matplotlib.pyplot", "ipywidgets")


class KernelsAhead:
    """Each notebook's kernel started while the one before is tested (a session created through the REST API, which
    JupyterLab joins when it opens the notebook: the kernel's start-up overlaps the previous notebook's waits on the
    page; its heavy third-party imports too, ``WARM_UP_MODULES``), and shut down in the background once its notebook
    is closed. Errors are kept for the fixture's end."""

    def __init__(self, lab, order: list[Path]) -> None:
        self.lab = lab
        self.order = [p.relative_to(lab.root_dir).as_posix() for p in order]
        self.kernel = {p.relative_to(lab.root_dir).as_posix(): kernel_name(p) for p in order}
        self.started: set[str] = set()
        self.threads: list[threading.Thread] = []
        self.errors: list[str] = []  # shutdown failures: fail the fixture's end
        self.notes: list[str] = []  # warm-up failures (the cells import what they need): warnings

    def start(self, rel: str) -> None:
        if rel in self.started:
            return
        self.started.add(rel)
        body = {"path": rel, "type": "notebook", "name": Path(rel).name, "kernel": {"name": self.kernel[rel]}}
        kid = self.lab.api("POST", "api/sessions", body)["kernel"]["id"]
        t = threading.Thread(target=self._warm_up, args=(rel, kid), name=f"warm-up {rel}", daemon=True)
        t.start()
        self.threads.append(t)

    def _warm_up(self, rel: str, kid: str) -> None:
        """Import ``WARM_UP_MODULES`` in the kernel started ahead, silently (no execution count, no output, no name
        bound): the notebook's own imports then find them loaded; its cells run as they are."""
        from jupyter_client import BlockingKernelClient

        conn = self.lab.runtime_dir / f"kernel-{kid}.json"
        kc = None
        try:
            deadline = time.monotonic() + 60
            while not conn.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            kc = BlockingKernelClient(connection_file=str(conn))
            kc.load_connection_file()
            # no heartbeat channel: under load a missed beat is taken for a dead kernel; the reply (or timeout) tells
            kc.start_channels(stdin=False, hb=False, control=False)
            kc.wait_for_ready(timeout=60)
            code = "; ".join(f"__import__({m!r})" for m in WARM_UP_MODULES)
            reply = kc.execute_interactive(code, silent=True, store_history=False, timeout=120)
            if reply["content"]["status"] != "ok":
                self.notes.append(f"{rel}: warm-up imports failed: {reply['content'].get('evalue')!r}")
        except Exception as e:  # noqa: BLE001 - a warning at the fixture's end: the notebook's cells import anyway
            self.notes.append(f"{rel}: warm-up of the kernel started ahead failed: {e!r}")
        finally:
            if kc is not None:
                kc.stop_channels()

    def start_next(self, rel: str) -> None:
        i = self.order.index(rel) if rel in self.order else len(self.order)
        if i + 1 < len(self.order):
            self.start(self.order[i + 1])

    def shutdown(self, rel: str) -> None:
        def run() -> None:
            try:
                self.lab.shutdown_session(rel)
            except Exception as e:  # noqa: BLE001 - reported at the fixture's end
                self.errors.append(f"{rel}: could not shut the notebook's kernel down: {e!r}")

        t = threading.Thread(target=run, name=f"shutdown {rel}", daemon=True)
        t.start()
        self.threads.append(t)

    def join(self, timeout: float = 60) -> list[str]:
        for t in self.threads:
            t.join(timeout)
        return self.errors + [f"{t.name}: still running after {timeout:.0f} s" for t in self.threads if t.is_alive()]


def kernel_name(nb_path: Path) -> str:
    spec = nbformat.read(nb_path, as_version=4).metadata.get("kernelspec", {})
    return spec.get("name") or "python3"


@pytest.fixture(scope="module")
def zh_lab_page(request, labs, chromium):
    """One JupyterLab page (own browser context, fresh workspace) for every notebook of this module, and the
    kernels started ahead (``KernelsAhead``; only for the notebooks selected in this run)."""
    lab = labs(MODES[0])  # the panels' texts do not depend on the code path: one run, on the first mode's server
    selected = [
        it.callspec.params["nb_path"]
        for it in request.session.items
        if getattr(it, "originalname", "") == "test_zh_panels_in_browser" and hasattr(it, "callspec")
    ]
    kernels = KernelsAhead(lab, selected)
    if kernels.order:
        kernels.start(kernels.order[0])  # starts while the page loads
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)[:300]))
        page.add_init_script(PAGE_JS)
        t0 = time.perf_counter()
        page.goto(lab.url("lab/workspaces/pe-zh-panels") + "&reset")
        page.wait_for_function("() => window.jupyterapp && window.__pe", timeout=120_000)
        page.evaluate("() => window.jupyterapp.restored.then(() => true)")
        yield {
            "page": page,
            "lab": lab,
            "errors": errors,
            "kernels": kernels,
            "app_load_s": round(time.perf_counter() - t0, 2),
        }
    finally:
        context.close()
        left = kernels.join()
        for note in kernels.notes:
            warnings.warn(note, stacklevel=1)
        assert not left, f"kernels of the Chinese notebooks: {left}"


def clear_in_page(page) -> None:
    """What NotebookDriver.clear_outputs does from the menus (View > Expand All Code, Edit > Clear Outputs of All
    Cells), through the same commands called directly (no menu to open: faster)."""
    page.evaluate(
        """async () => { const c = window.jupyterapp.commands;
             await c.execute('notebook:show-all-cell-code'); await c.execute('notebook:clear-all-cell-outputs'); }"""
    )
    page.wait_for_function(
        "() => { const s = __pe.runState(); return s.nNum === 0 && s.nStar === 0 && "
        "document.querySelectorAll('.jp-Notebook .jp-OutputArea-output img').length === 0; }",
        timeout=30_000,
    )


def open_in_page(page, rel: str, timeout_ms: float = 120_000) -> float:
    """Open notebook ``rel`` in the loaded page (closing the one before); seconds until its kernel is idle."""
    t0 = time.perf_counter()
    page.evaluate(OPEN_JS, rel)
    page.wait_for_function(OPENED_JS, arg=rel, timeout=timeout_ms)
    return time.perf_counter() - t0


@pytest.mark.skipif(not ZH_PANEL_NOTEBOOKS, reason=f"no notebooks in {NB_DIR / 'zh'}")
@pytest.mark.parametrize("nb_path", ZH_PANEL_NOTEBOOKS, ids=[report_name(p) for p in ZH_PANEL_NOTEBOOKS])
def test_zh_panels_in_browser(nb_path: Path, zh_lab_page, chromium, browser_report):
    t_start = time.perf_counter()
    mode = MODES[0]
    lab, page, page_errors = zh_lab_page["lab"], zh_lab_page["page"], zh_lab_page["errors"]
    n_errors = len(page_errors)
    name = report_name(nb_path) + (f" [{mode}]" if mode else "")
    rel = nb_path.relative_to(lab.root_dir).as_posix()
    digest = hashlib.sha256(nb_path.read_bytes()).hexdigest()
    nb = nbformat.read(nb_path, as_version=4)
    expect = expectations(nb_path)
    chosen = panel_cells(nb)
    panels = [i for i in chosen if expect[i]["widget"]]
    browser_report.browser_version = chromium.version
    problems: list[str] = []
    entry: dict = {"notebook": rel, "mode": mode, "controls": [], "problems": problems, "cells_run": chosen}
    app_load_s = zh_lab_page.pop("app_load_s", None)  # the first notebook's row carries the page's load
    if app_load_s is not None:
        entry["app_load_s"] = app_load_s
    try:
        if not panels:
            problems.append("no cell of the committed notebook stored a widget panel (re-run the notebook?)")
        kernels = zh_lab_page["kernels"]
        kernels.start(rel)  # (if not started ahead)
        kernels.start_next(rel)
        d = NotebookDriver(page, lab, rel, timeout_s=float(os.environ.get("PE_BROWSER_RUN_TIMEOUT", 600)))
        entry["load_to_idle_s"] = round(open_in_page(page, rel), 2)
        n_sessions = sum(1 for x in lab.api("GET", "api/sessions") if x.get("path") == rel)
        if n_sessions != 1:
            problems.append(f"{n_sessions} kernel sessions for the notebook, 1 expected (the one started ahead)")
        phases = entry["phases_s"] = {}
        tp = time.perf_counter()
        problems += heading_anchors_problems(page, nb_path)
        clear_in_page(page)
        phases["anchors+clear"], tp = round(time.perf_counter() - tp, 2), time.perf_counter()
        raises = {i for i, e in enumerate(expect) if "raises-exception" in e["tags"]}
        run_s, run_state = d.run_cells(chosen, raises)
        entry["run_all_s"] = round(run_s, 2)
        census = d.census()
        problems += check_cells(census, expect, run_state, chosen)
        problems += left_out_problems(nb, chosen, census)
        entry["code_cells"] = sum(1 for c in nb.cells if runnable(c))
        entry["images"] = sum(c["nImg"] for c in census)
        entry["widget_cells"] = sum(1 for c in census if c["nWidgetViews"])

        phases["run+census"], tp = round(time.perf_counter() - tp, 2), time.perf_counter()
        texts = page.evaluate(PANEL_TEXTS_JS, panels)
        picked, unmovable = pick_controls(d.controls())
        problems += [f"cell {c}: no control the test can move (kinds {MOVE_ORDER})" for c in unmovable]
        problems += [f"cell {c}: panel shows no control" for c in panels if c not in picked and c not in unmovable]
        for cell, ctl in sorted(picked.items()):
            res = d.exercise(ctl, steps=1)
            entry["controls"].append(res.report_row())
            problems += [f"cell {cell}, {res.kind} {res.label!r}: {p}" for p in res.problems]
        phases["texts+moves"], tp = round(time.perf_counter() - tp, 2), time.perf_counter()
        texts += page.evaluate(PANEL_TEXTS_JS, panels)
        problems += check_panel_texts(name, texts, panels, ARTIFACTS / "zh-labels.md")
        for c, e in zip(d.census(), expect, strict=False):
            if e["code"] and c["stderr"] and "raises-exception" not in e["tags"]:
                msg = f"cell {c['i']} shows an error/stderr output: {c['stderr'][0][-600:].strip()!r}"
                if not any(msg in p for p in problems):
                    problems.append(f"after moving the controls, {msg}")
    finally:
        try:
            page.evaluate(OPEN_JS, None)  # close it (outputs discarded) before its kernel goes
        except Exception as e:  # noqa: BLE001 - reported
            problems.append(f"could not close the notebook in the page: {e!r}")
        zh_lab_page["kernels"].shutdown(rel)  # in the background; its errors fail the fixture's end
        entry["page_errors"] = page_errors[n_errors:]
        entry["wall_s"] = round(time.perf_counter() - t_start, 1)
        if hashlib.sha256(nb_path.read_bytes()).hexdigest() != digest:
            problems.append("the notebook file on disk changed during the browser run")
        browser_report.add(name, entry)

    assert not problems, f"{name}: {len(problems)} problem(s) in the browser:\n- " + "\n- ".join(problems)
