"""Every course notebook, clicked through in a real browser (JupyterLab 4 + headless Chromium).

For each ``notebooks/[0-9]*.ipynb`` (whatever exists when the suite runs) the test:

1. opens it in the session's JupyterLab (see conftest.py / lab_server.py) and waits for the kernel;
2. clears the stored outputs (so every prompt and image checked below comes from this run), shows hidden
   inputs, and clicks Run > Run All Cells in the menu; waits until every code cell shows ``[n]`` and the
   kernel is idle;
3. asserts: every code cell ran, in order; no cell shows an error or stderr output unless it is tagged
   ``raises-exception`` (and those do show one); every image loaded; every cell that stored a plot shows at
   least as many plots; every widget cell rendered its widget, with a figure, without an "Error displaying
   widget";
4. screenshots the main interactive figure (the widget panel with the most controls, at its defaults);
5. moves every control of every panel (slider: 3 key presses, ArrowRight or PageUp for fine sliders;
   dropdown/toggle buttons/radio: choose other options; checkbox/toggle button: click twice; button: click
   twice). Each move must put a *new* PNG on the page (different image data) and the control must show
   the new value (slider readout = new value, the chosen option selected, the box ticked...). The time
   from the event to the new figure is measured in the page;
6. shuts the notebook's kernel down and checks that the notebook file on disk was not modified.

Speed is measured, not asserted: the figures go to tests/browser/_artifacts/browser-report.md (and to
docs/ with PE_BROWSER_UPDATE_DOCS=1, see scripts/screenshots.py).
"""

from __future__ import annotations

import hashlib
import io
import os
import time
from pathlib import Path

import nbformat
import pytest
from browser_config import ARTIFACTS, NB_DIR
from nb_driver import PAGE_JS, PANEL, NotebookDriver

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted(NB_DIR.glob("[0-9]*.ipynb"))
SCREENSHOT_MAX_BYTES = 150_000

#: Known notebook problems, reported in the final report: {(notebook stem, substring of the problem): reason}.
#: A listed problem turns the test into an xfail; if it no longer happens the test FAILS (strict), so the
#: entry must then be removed.
KNOWN_FAILURES: dict[tuple[str, str], str] = {}


def expectations(nb_path: Path) -> list[dict]:
    nb = nbformat.read(nb_path, as_version=4)
    cells = []
    for c in nb.cells:
        outs = c.get("outputs", []) if c.cell_type == "code" else []
        cells.append(
            {
                "code": c.cell_type == "code",
                "tags": list(c.metadata.get("tags", [])),
                "n_png": sum(1 for o in outs if "image/png" in o.get("data", {})),
                "widget": any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outs),
                "executed": c.get("execution_count") is not None if c.cell_type == "code" else False,
            }
        )
    return cells


def finish_screenshot(path: Path, limit: int = SCREENSHOT_MAX_BYTES, margin: int = 8) -> None:
    """Trim the empty right/bottom part of the output area, and keep the PNG small (palette PNG if the
    RGB one is over ``limit``)."""
    from PIL import Image, ImageChops

    img = Image.open(path).convert("RGB")
    bg = Image.new("RGB", img.size, img.getpixel((img.width - 1, img.height - 1)))
    box = ImageChops.difference(img, bg).getbbox()
    if box:
        img = img.crop((0, 0, min(img.width, box[2] + margin), min(img.height, box[3] + margin)))
    img.save(path, format="PNG", optimize=True)
    if path.stat().st_size <= limit:
        return
    for colors in (256, 128, 64):
        buf = io.BytesIO()
        img.quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(buf, format="PNG", optimize=True)
        if buf.tell() <= limit:
            break
    path.write_bytes(buf.getvalue())


def check_cells(census: list[dict], expect: list[dict], run_state: dict) -> list[str]:
    problems = []
    if len(census) != len(expect):
        return [f"page shows {len(census)} cells, the file has {len(expect)}"]
    counts = []
    for c, e in zip(census, expect, strict=True):
        if not e["code"]:
            continue
        where = f"cell {c['i']}"
        raises = "raises-exception" in e["tags"]
        if not c["prompt"].startswith("[") or not c["prompt"].rstrip(":").strip("[]").isdigit():
            problems.append(f"{where} did not run (prompt {c['prompt']!r})")
        else:
            counts.append(int(c["prompt"].rstrip(":").strip("[]")))
        if c["stderr"] and not raises:
            problems.append(f"{where} shows an error/stderr output: {c['stderr'][0][-600:].strip()!r}")
        if raises and not c["stderr"]:
            problems.append(f"{where} is tagged raises-exception but shows no error")
        if c["nBroken"]:
            problems.append(f"{where}: {c['nBroken']} image(s) failed to load")
        static_imgs = c["nImg"] - c["nWidgetImg"]
        if static_imgs < e["n_png"]:
            problems.append(f"{where}: {static_imgs} plot(s) shown, the committed notebook has {e['n_png']}")
        if e["widget"]:
            if c["nWidgetViews"] == 0:
                problems.append(f"{where}: widget not rendered")
            elif c["nWidgetImg"] == 0:
                problems.append(f"{where}: widget rendered without a figure")
        if c["widgetError"]:
            problems.append(f"{where}: 'Error displaying widget' / widget still loading")
    if counts and counts != list(range(1, len(counts) + 1)):
        problems.append(f"execution counts are not 1..n in order: {counts}")
    if run_state["nNum"] != run_state["nCode"]:
        problems.append(f"only {run_state['nNum']} of {run_state['nCode']} code cells ran")
    return problems


def split_known(name: str, problems: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(unexpected problems, known ones that happened, known ones that did NOT happen)."""
    known = {k: v for k, v in KNOWN_FAILURES.items() if k[0] == name}
    hit, unexpected = set(), []
    for p in problems:
        keys = [k for k in known if k[1] in p]
        if keys:
            hit.update(keys)
        else:
            unexpected.append(p)
    return unexpected, [f"{k[1]}: {known[k]}" for k in hit], [k[1] for k in known if k not in hit]


@pytest.mark.skipif(not NOTEBOOKS, reason=f"no notebooks/[0-9]*.ipynb in {NB_DIR}")
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_in_browser(nb_path: Path, lab, chromium, browser_report):
    t_start = time.perf_counter()
    name = nb_path.stem
    rel = nb_path.relative_to(lab.root_dir).as_posix()
    digest = hashlib.sha256(nb_path.read_bytes()).hexdigest()
    expect = expectations(nb_path)
    browser_report.browser_version = chromium.version
    (ARTIFACTS / "img").mkdir(parents=True, exist_ok=True)

    context = chromium.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    page_errors: list[str] = []
    problems: list[str] = []
    entry: dict = {"notebook": rel, "controls": [], "problems": problems}
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: page_errors.append(str(e)[:300]))
        page.add_init_script(PAGE_JS)
        d = NotebookDriver(page, lab, rel, timeout_s=float(os.environ.get("PE_BROWSER_RUN_TIMEOUT", 600)))

        entry["load_to_idle_s"] = round(d.open(), 2)
        d.clear_outputs()
        run_s, run_state = d.run_all({i for i, e in enumerate(expect) if "raises-exception" in e["tags"]})
        entry["run_all_s"] = round(run_s, 2)
        census = d.census()
        problems += check_cells(census, expect, run_state)
        entry["code_cells"] = run_state["nCode"]
        entry["images"] = sum(c["nImg"] for c in census)
        entry["widget_cells"] = sum(1 for c in census if c["nWidgetViews"])

        controls = d.controls()
        per_cell: dict[int, int] = {}
        for c in controls:
            per_cell[c["cell"]] = per_cell.get(c["cell"], 0) + 1
        if per_cell:  # main interactive figure: the panel with the most controls (first one on ties)
            main = max(per_cell, key=lambda i: (per_cell[i], -i))
            shot = ARTIFACTS / "img" / f"{name}.png"
            view = page.locator(f"{PANEL} .jp-Notebook .jp-Cell").nth(main)
            view.locator(".jp-OutputArea-output > .jupyter-widgets").first.screenshot(path=str(shot))
            finish_screenshot(shot)
            entry["screenshot_file"] = str(shot)
            entry["screenshot_cell"] = main
            entry["screenshot_bytes"] = shot.stat().st_size

        for ctl in controls:
            res = d.exercise(ctl)
            entry["controls"].append(
                {
                    "cell": res.cell,
                    "kind": res.kind,
                    "label": res.label,
                    "actions": res.actions,
                    "latencies_ms": res.latencies_ms,
                    "median_ms": None if not res.latencies_ms else round(res.median_ms, 1),
                    "worst_ms": None if not res.latencies_ms else round(res.worst_ms, 1),
                }
            )
            problems += [f"cell {res.cell}, {res.kind} {res.label!r}: {p}" for p in res.problems]
        # moving the controls must not have produced an error anywhere
        for c, e in zip(d.census(), expect, strict=False):
            if e["code"] and c["stderr"] and "raises-exception" not in e["tags"]:
                msg = f"cell {c['i']} shows an error/stderr output: {c['stderr'][0][-600:].strip()!r}"
                if msg not in problems:
                    problems.append(f"after moving the controls, {msg}")
    finally:
        context.close()
        try:
            lab.shutdown_session(rel)
        except Exception as e:  # noqa: BLE001 - reported, and the server's stop() still shuts every kernel down
            problems.append(f"could not shut the notebook's kernel down: {e!r}")
        entry["page_errors"] = page_errors
        entry["wall_s"] = round(time.perf_counter() - t_start, 1)
        if hashlib.sha256(nb_path.read_bytes()).hexdigest() != digest:
            by_lab = any(f.lstrip("/") == rel for f in lab.saved_files())
            problems.append(
                "the notebook file on disk changed during the browser run "
                + (
                    "(JupyterLab saved it!)"
                    if by_lab
                    else "(not by JupyterLab: its log shows no save; edited meanwhile?)"
                )
            )
        browser_report.add(name, entry)

    unexpected, known_hit, known_missing = split_known(name, problems)
    assert not unexpected, f"{name}: {len(unexpected)} problem(s) in the browser:\n- " + "\n- ".join(unexpected)
    assert not known_missing, (
        f"{name}: known failure(s) no longer happen, remove them from KNOWN_FAILURES: {known_missing}"
    )
    if known_hit:
        pytest.xfail("; ".join(known_hit))
