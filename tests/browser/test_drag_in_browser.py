"""A mouse drag of a slider redraws the figure while the handle moves (real browser, JupyterLab + headless Chromium).

test_notebooks_in_browser.py moves every control with key presses: one value per press, each waited for. Nothing
there shows that a figure follows the *mouse*: with ``continuous_update=False`` a drag sends one value, at release,
and every key-press check still passes. This test opens notebooks/05_length_extension.ipynb, runs only the cells the
YaRN panel needs (setup, imports, the ``yarn_panel()`` cell), then drags the handle of "original context L (tokens)"
with the mouse (down on the handle, DRAG_MOVES moves spread over about DRAG_S seconds to DRAG_TO of its track, up)
and asserts:

* at least MIN_FRAMES_DURING_DRAG distinct new figures (PNG bytes, by SHA-256, none equal to the figure before the
  drag) entered the panel's ``<img>`` *before* the mouse button went up (a MutationObserver in the page, time-stamped
  in page time against the ``pointerdown``/``pointerup`` the page saw);
* after release, once the kernel is idle and the page has been quiet for QUIET_MS: the slider's readout shows its
  final value, which lies well past where it started, and the figure on screen is the figure of that value: one
  ArrowRight and one ArrowLeft (back to the same value, each waited for) must give the same pixels;
* no cell run shows an error or stderr output, no widget error view, no uncaught page error.

Printed (and written to tests/browser/_artifacts/drag-report.json): the frames during the drag (page and kernel
timing log), the drag's duration, and the ms from mouse up to the last new figure (negative: the last one came
before the release). The browser report's per-notebook table (nb_report.py) has no column for a drag, so it is not
used. Run time about 20 s (one JupyterLab, one notebook, three cells).
"""

from __future__ import annotations

import base64
import io
import json
import time
from pathlib import Path

import nbformat
import pytest
from browser_config import ARTIFACTS, NB_DIR
from cell_selection import bound_names, read_names, runnable
from nb_driver import PAGE_JS, NotebookDriver, readout_matches

pytestmark = pytest.mark.browser

NOTEBOOK = NB_DIR / "05_length_extension.ipynb"
PANEL_CALL = "yarn_panel()"
SLIDER = "original context L (tokens)"
DRAG_TO = 0.75  # fraction of the track where the drag ends
DRAG_MOVES = 12
DRAG_S = 1.0
MIN_FRAMES_DURING_DRAG = 3
QUIET_MS = 600

#: Records every new ``src`` of the panel's ``<img>`` (time, SHA-256 of its bytes) and the pointer's down/up times.
RECORDER_JS = r"""
(cell) => {
  const root = __pe.cells()[cell];
  const img = () => root.querySelector('.jupyter-widgets img');
  const hash = async (src) => {
    try {
      const d = await crypto.subtle.digest('SHA-256', await (await fetch(src)).arrayBuffer());
      return Array.from(new Uint8Array(d)).map(b => b.toString(16).padStart(2, '0')).join('');
    } catch (e) { return 'unreadable:' + src; }
  };
  const rec = {frames: [], ids: [], tDown: null, tUp: null, lastMut: performance.now(), seen: new Set()};
  const note = () => {
    rec.lastMut = performance.now();
    const im = img();
    const src = im ? (im.getAttribute('src') || '') : '';
    if (!src || rec.seen.has(src)) return;
    rec.seen.add(src);
    rec.frames.push(performance.now());
    rec.ids.push(hash(src));  // fetched at once: the Image view revokes a blob URL when the next one replaces it
  };
  const first = img() ? (img().getAttribute('src') || '') : '';
  rec.seen.add(first);
  rec.base = hash(first);
  rec.obs = new MutationObserver(note);
  rec.obs.observe(root, {subtree: true, childList: true, attributes: true, attributeFilter: ['src']});
  document.addEventListener('pointerdown', () => { if (rec.tDown === null) rec.tDown = performance.now(); }, true);
  document.addEventListener('pointerup', () => { if (rec.tUp === null) rec.tUp = performance.now(); }, true);
  window.__drag = rec;
}
"""

#: The recording so far: frame times and image ids (page time, ms), pointer down/up, ms since the last DOM change.
RESULT_JS = """
async () => {
  const r = window.__drag;
  return {base: await r.base, frames: r.frames, ids: await Promise.all(r.ids), tDown: r.tDown, tUp: r.tUp,
          quietMs: performance.now() - r.lastMut, idle: __pe.idle()};
}
"""

#: The bytes (base64) of the image the panel shows now.
SHOWN_PNG_JS = """
async (cell) => {
  const im = __pe.cells()[cell].querySelector('.jupyter-widgets img');
  const buf = new Uint8Array(await (await fetch(im.getAttribute('src'))).arrayBuffer());
  let s = '';
  for (let i = 0; i < buf.length; i += 0x8000) s += String.fromCharCode.apply(null, buf.subarray(i, i + 0x8000));
  return btoa(s);
}
"""


def cells_for(nb: nbformat.NotebookNode, needle: str) -> list[int]:
    """The first code cell, the code cell whose source contains ``needle``, and every earlier code cell binding a
    name one of those reads (transitively): the cells a panel needs (cell_selection.panel_cells, for one panel)."""
    code = [i for i, c in enumerate(nb.cells) if runnable(c)]
    target = [i for i in code if needle in nb.cells[i].source]
    if len(target) != 1:
        raise ValueError(f"{NOTEBOOK.name}: {len(target)} code cells contain {needle!r}, expected exactly 1")
    chosen, todo = {code[0], target[0]}, [target[0]]
    while todo:
        i = todo.pop()
        wanted = read_names(nb.cells[i].source)
        for j in code:
            if j < i and j not in chosen and bound_names(nb.cells[j].source) & wanted:
                chosen.add(j)
                todo.append(j)
    return sorted(chosen)


def pixels(png_b64: str) -> bytes:
    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(png_b64))).convert("RGBA").tobytes()


def wait_quiet(page, timeout_ms: float = 20_000) -> dict:
    """Wait until the kernel is idle and the panel's image has not changed for QUIET_MS; the recording."""
    page.wait_for_function(
        f"() => __pe.idle() && performance.now() - window.__drag.lastMut > {QUIET_MS}", timeout=timeout_ms, polling=50
    )
    return page.evaluate(RESULT_JS)


@pytest.mark.skipif(not NOTEBOOK.exists(), reason=f"no {NOTEBOOK}")
def test_slider_drag_redraws_while_dragging(lab, chromium):
    t_start = time.perf_counter()
    rel = NOTEBOOK.relative_to(lab.root_dir).as_posix()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    chosen = cells_for(nb, PANEL_CALL)
    panel_cell = chosen[-1]
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    page_errors: list[str] = []
    rep: dict = {"notebook": rel, "slider": SLIDER, "cells_run": chosen}
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: page_errors.append(str(e)[:300]))
        page.add_init_script(PAGE_JS)
        d = NotebookDriver(page, lab, rel, timeout_s=300)
        d.open()
        d.clear_outputs()
        run_s, _ = d.run_cells(chosen)
        rep["run_cells_s"] = round(run_s, 2)

        census = d.census()
        bad = [c for c in census if c["i"] in chosen and (c["stderr"] or c["widgetError"])]
        assert not bad, f"cells run show an error / stderr / widget error: {bad}"
        assert census[panel_cell]["nWidgetImg"] == 1, f"the YaRN panel (cell {panel_cell}) shows no figure"
        ctl = next((c for c in d.controls() if c["cell"] == panel_cell and c["label"] == SLIDER), None)
        assert ctl is not None, f"no slider {SLIDER!r} in cell {panel_cell}: {d.controls()}"
        lo, hi, v0 = ctl["min"], ctl["max"], ctl["value"]
        step = ctl["step"] or (hi - lo) / 100

        handle = page.locator(f"[data-pe-ctl='{ctl['id']}']")
        handle.scroll_into_view_if_needed()
        track = handle.locator("xpath=ancestor::*[contains(@class, 'noUi-target')][1]")
        hb, tb = handle.bounding_box(), track.bounding_box()
        x0, y = hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2
        x1 = tb["x"] + DRAG_TO * tb["width"]
        assert x1 - x0 > 0.4 * tb["width"], f"the handle starts at {v0}, too close to the drag's end ({hb}, {tb})"

        offset = d._log_size()
        page.evaluate(RECORDER_JS, panel_cell)
        page.mouse.move(x0, y)
        wall_down = time.time()
        page.mouse.down()
        t_down = time.perf_counter()
        for k in range(1, DRAG_MOVES + 1):  # move k at k/DRAG_MOVES of DRAG_S (each move's round trip included)
            time.sleep(max(0.0, t_down + DRAG_S * k / DRAG_MOVES - time.perf_counter()))
            page.mouse.move(x0 + (x1 - x0) * k / DRAG_MOVES, y)
        page.mouse.up()
        wall_up = time.time()
        r = wait_quiet(page)
        end = page.evaluate("i => __pe.readControl(i)", ctl["id"])
        kernel = d.kernel_frames(offset)

        assert r["tDown"] is not None and r["tUp"] is not None, f"the page saw no pointerdown/pointerup: {r}"
        during = [(t, h) for t, h in zip(r["frames"], r["ids"], strict=True) if r["tDown"] <= t < r["tUp"]]
        distinct_during = {h for _, h in during} - {r["base"]}
        rep.update(
            {
                "value_start": v0,
                "value_end": end["value"],
                "readout_end": end["readout"],
                "drag_ms": round(r["tUp"] - r["tDown"], 1),
                "frames_during_drag": len(during),
                "distinct_frames_during_drag": len(distinct_during),
                "frames_total": len(r["frames"]),
                "frame_ms_after_down": [round(t - r["tDown"], 1) for t in r["frames"]],
                "ms_up_to_last_frame": round(r["frames"][-1] - r["tUp"], 1) if r["frames"] else None,
                "kernel_frames_during_drag": sum(1 for f in kernel if wall_down <= f["t"] < wall_up),
                "kernel_frames_total": len(kernel),
            }
        )
        assert len(distinct_during) >= MIN_FRAMES_DURING_DRAG, (
            f"the figure did not follow the drag: {len(distinct_during)} new figure(s) while the mouse button was "
            f"down for {rep['drag_ms']} ms (at least {MIN_FRAMES_DURING_DRAG} expected; frames at "
            f"{rep['frame_ms_after_down']} ms after pointerdown, pointerup at {rep['drag_ms']} ms): {rep}"
        )
        assert end["value"] >= v0 + 0.4 * (hi - lo), f"the drag moved the slider only from {v0} to {end['value']}"
        assert readout_matches(end["readout"], end["value"]), f"readout {end['readout']!r} != value {end['value']}"
        assert r["ids"] and r["ids"][-1] != r["base"], "the figure after the drag is the one before it"

        # The figure on screen is the one of the final value: move one step away and back (keys, each waited for)
        # and the kernel must draw the very same pixels.
        shown = pixels(page.evaluate(SHOWN_PNG_JS, panel_cell))
        away, back = ("ArrowLeft", "ArrowRight") if end["value"] + step > hi else ("ArrowRight", "ArrowLeft")
        for key in (away, back):
            n_before = len(page.evaluate(RESULT_JS)["frames"])
            handle.focus()
            page.keyboard.press(key)
            page.wait_for_function(f"() => window.__drag.frames.length > {n_before}", timeout=15_000)
            wait_quiet(page)
        again = page.evaluate("i => __pe.readControl(i)", ctl["id"])
        assert abs(again["value"] - end["value"]) < step / 2, (
            f"{away} + {back} did not return to {end['value']}: {again}"
        )
        rep["round_trip_same_pixels"] = pixels(page.evaluate(SHOWN_PNG_JS, panel_cell)) == shown
        assert rep["round_trip_same_pixels"], (
            f"the figure shown after the drag is not the figure of the final value {end['value']} (one step away "
            "and back draws other pixels): a stale frame stayed on screen"
        )

        after = d.census()
        bad = [c for c in after if c["i"] in chosen and (c["stderr"] or c["widgetError"])]
        assert not bad, f"after the drag, cells show an error / stderr / widget error: {bad}"
        assert not page_errors, f"uncaught errors in the page: {page_errors}"
    finally:
        context.close()
        lab.shutdown_session(rel)
        rep["page_errors"] = page_errors
        rep["wall_s"] = round(time.perf_counter() - t_start, 1)
        ARTIFACTS.mkdir(exist_ok=True)
        Path(ARTIFACTS / "drag-report.json").write_text(json.dumps(rep, indent=1) + "\n")
        print(
            f"\ndrag of {SLIDER!r}: {rep.get('value_start')} -> {rep.get('value_end')} "
            f"(readout {rep.get('readout_end')!r}) in {rep.get('drag_ms')} ms; "
            f"{rep.get('distinct_frames_during_drag')} distinct new figures during the drag "
            f"({rep.get('frames_during_drag')} frames in the page, {rep.get('kernel_frames_during_drag')} in the "
            f"kernel's log); last new figure {rep.get('ms_up_to_last_frame')} ms after mouse up; "
            f"round trip same pixels: {rep.get('round_trip_same_pixels')}; wall {rep['wall_s']} s"
        )
