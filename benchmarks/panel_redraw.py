"""Kernel-side redraw time of every widget panel, per control: compute + draw + PNG, without a browser.

Each control is moved back and forth between two values; every move runs the panel's redraw exactly as the kernel
does (the observer of ``interactive_output``: the draw function, the PNG, ``display``). The median over
``--repeats`` moves is printed per control, in milliseconds, as a Markdown table. The browser adds the widget
round trip and the image decode on top (tests/browser measures that). On a shared machine the numbers are inflated
by the load: compare runs made at the same time.

With ``--compare`` each panel is built three times: on the code path before issue 36 (``PE_PANEL_REDRAW=full``,
``PE_PANEL_TRANSPORT=output``, ``PE_PANEL_RASTER=plain``: the whole figure drawn and saved on every move), with
blitting but Agg's own text drawing and PIL's PNG encoder (``PE_PANEL_RASTER=plain``: only the moving artists
redrawn on a cached background, the frame handed to an Image widget), and on the current path (the same, text drawn
from cached glyph layouts and bitmaps and the PNG from cached bands, ``helpers/widgets/_common.py``); their moves
alternate, so all three are measured under the same load; the table gives them side by side. Each control goes back and
forth between two values, or with ``--drag`` through successive new values as a drag does (the caches then meet new
strings and new glyph positions on every move).

With ``--png`` it measures instead, on each panel's first frame, PIL's PNG encoder (zlib level 1, what the panels
used before) against the toolkit's (``png_of_rgba``): bytes, encoding time (whole frame, and a frame whose bands
are all cached) and decoding time (PIL's, a proxy for the browser's).

Usage: ``python benchmarks/panel_redraw.py [--repeats 12] [--chapters 01 02 ...] [--compare [--drag] | --png]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import time

import matplotlib

matplotlib.use("Agg")


def _panels():
    """(chapter, panel name, constructor) for every panel the notebooks show."""
    import numpy as np

    from helpers.sinusoidal import sinusoidal_table
    from helpers.widgets import (
        blindness,
        extension,
        lab,
        learned,
        modern,
        position_2026,
        rope,
        score_biases,
        sinusoidal,
    )

    table = np.random.default_rng(0).normal(scale=0.02, size=(64, 32))  # (max_seq_len, d_model), like notebook 03
    return [
        ("01", "explorer", blindness.explorer_panel),
        ("01", "weight scale", blindness.weight_scale_panel),
        ("02", "waves", sinusoidal.waves_panel),
        ("02", "clocks", sinusoidal.clock_panel),
        ("03", "gradient", learned.gradient_panel),
        ("03", "position", lambda: learned.position_panel(table, sinusoidal_table(64, 32), train_len=32)),
        ("04", "rotation", rope.rotation_panel),
        ("04", "wavelength", rope.wavelength_panel),
        ("04", "decay", rope.decay_panel),
        ("05", "problem", extension.problem_panel),
        ("05", "ntk", extension.ntk_panel),
        ("05", "yarn", extension.yarn_panel),
        ("05", "methods", extension.methods_panel),
        ("05b", "lab run", lab.lab_panel),
        ("06", "buckets", score_biases.bucket_panel),
        ("06", "alibi", score_biases.alibi_panel),
        ("08", "fraction", modern.fraction_panel),
        ("08", "bases", modern.bases_panel),
        ("08", "mrope", modern.mrope_panel),
        ("08", "sink", modern.sink_panel),
        ("08", "attention", modern.attention_panel),
        ("08", "loss", modern.loss_panel),
        ("09", "temperature", position_2026.temperature_panel),
    ]


#: The two code paths ``--compare`` measures (helpers/widgets/_common.py reads these when a panel is built).
BEFORE = {"PE_PANEL_REDRAW": "full", "PE_PANEL_TRANSPORT": "output", "PE_PANEL_RASTER": "plain"}
BLIT_PLAIN = {"PE_PANEL_REDRAW": "blit", "PE_PANEL_TRANSPORT": "image", "PE_PANEL_RASTER": "plain"}
AFTER = {"PE_PANEL_REDRAW": "blit", "PE_PANEL_TRANSPORT": "image", "PE_PANEL_RASTER": "cached"}


def _build(make, env: dict[str, str]):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return make()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _controls(panel):
    return [c for row in panel.children[:-1] for c in row.children]


def _other_value(control):
    """A valid value different from the control's current one."""
    if hasattr(control, "options"):
        values = [o[1] if isinstance(o, tuple) else o for o in control.options]
        return next(v for v in values if v != control.value)
    if isinstance(control.value, bool):
        return not control.value
    if hasattr(control, "base"):  # FloatLogSlider: one step up (or down at the top)
        exp = __import__("math").log(control.value, control.base)
        new = exp + control.step if exp + control.step <= control.max else exp - control.step
        return control.base**new
    step = control.step
    return control.value + step if control.value + step <= control.max else control.value - step


def time_control(control, repeats: int, warmup: int = 2) -> tuple[float, float]:
    """Median milliseconds of ``control.value = v`` (the whole redraw), alternating between two values.

    Returns (wall-clock, CPU time of this process): on a busy machine the wall clock also counts the time other
    processes hold the cores, the CPU time only the redraw's own work.
    """
    first, second = control.value, _other_value(control)
    wall, cpu = [], []
    with contextlib.redirect_stdout(io.StringIO()):
        for k in range(warmup + repeats):
            value = second if k % 2 == 0 else first
            start, start_cpu = time.perf_counter(), time.process_time()
            control.value = value
            elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
            if k >= warmup:
                wall.append(elapsed)
                cpu.append(elapsed_cpu)
    return 1000 * statistics.median(wall), 1000 * statistics.median(cpu)


def _drag(control, n: int) -> list:
    """``n`` values a drag visits from the control's value: one step at a time, turning back at either end of its
    range (options and checkboxes: the next one, cyclically)."""
    if hasattr(control, "options") or isinstance(control.value, bool):
        values = [control.value]
        for _ in range(n):
            if isinstance(control.value, bool):
                values.append(not values[-1])
            else:
                options = [o[1] if isinstance(o, tuple) else o for o in control.options]
                values.append(options[(options.index(values[-1]) + 1) % len(options)])
        return values[1:]
    log = hasattr(control, "base")
    value = __import__("math").log(control.value, control.base) if log else control.value
    direction, values = 1, []
    for _ in range(n):
        if not control.min <= value + direction * control.step <= control.max:
            direction = -direction
        value += direction * control.step
        values.append(control.base**value if log else value)
    return values


def time_pair(*controls, repeats: int, warmup: int = 2, drag: bool = False) -> list[tuple[float, float]]:
    """(wall, CPU) medians in ms of controls moved in turn (first, second, ..., first, ...): the same load.

    Each control goes back and forth between two values, or with ``drag`` through new values as a drag does (new
    strings to lay out, new curves)."""
    if drag:
        values = [_drag(c, warmup + repeats) for c in controls]
    else:
        values = [[_other_value(c), c.value] * (warmup + repeats) for c in controls]
    times = [([], []) for _ in controls]
    with contextlib.redirect_stdout(io.StringIO()):
        for k in range(warmup + repeats):
            for j, control in enumerate(controls):
                start, start_cpu = time.perf_counter(), time.process_time()
                control.value = values[j][k]
                wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
                if k >= warmup:
                    times[j][0].append(wall)
                    times[j][1].append(cpu)
    return [(1000 * statistics.median(w), 1000 * statistics.median(c)) for w, c in times]


def main(argv=None) -> list[tuple]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=12)
    parser.add_argument("--chapters", nargs="*", default=None)
    parser.add_argument("--compare", action="store_true", help="the code paths before issue 36 against the current")
    parser.add_argument("--png", action="store_true", help="PIL's PNG encoder against the toolkit's, per panel")
    parser.add_argument("--drag", action="store_true", help="with --compare: every move to a value not seen before")
    args = parser.parse_args(argv)
    if args.png:
        return compare_png(args.chapters, args.repeats)
    rows = []
    if args.compare:
        print(
            "| chapter | panel | control | wall: before 36 → blit → now (ms) | CPU: before 36 → blit → now (ms) "
            "| CPU blit ÷ now |"
        )
        print("|---|---|---|---:|---:|---:|")
    else:
        print("| chapter | panel | control | median redraw, wall (ms) | median redraw, CPU (ms) |")
        print("|---|---|---|---:|---:|")
    for chapter, name, make in _panels():
        if args.chapters and chapter not in args.chapters:
            continue
        if args.compare:
            paths = [_controls(_build(make, env)) for env in (BEFORE, BLIT_PLAIN, AFTER)]
            for before, plain, after in zip(*paths, strict=True):
                (wb, cb), (wp, cp), (wa, ca) = time_pair(before, plain, after, repeats=args.repeats, drag=args.drag)
                rows.append((chapter, name, after.description, wb, cb, wp, cp, wa, ca))
                print(
                    f"| {chapter} | {name} | {after.description} | {wb:.0f} → {wp:.0f} → {wa:.0f} | "
                    f"{cb:.0f} → {cp:.0f} → {ca:.0f} | {cp / ca:.1f}× |",
                    flush=True,
                )
            continue
        panel = _build(make, {})
        for control in _controls(panel):
            wall, cpu = time_control(control, args.repeats)
            rows.append((chapter, name, control.description, wall, cpu))
            print(f"| {chapter} | {name} | {control.description} | {wall:.1f} | {cpu:.1f} |", flush=True)
    return rows


def _median_ms(work, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def compare_png(chapters, repeats: int) -> list[tuple]:
    """Per panel: PNG bytes, encoding and decoding ms of PIL (zlib level 1) against ``png_of_rgba``."""
    import numpy as np
    from PIL import Image

    from helpers.widgets import _common

    print("| chapter | panel | pixels | PIL: kB, encode, decode (ms) | toolkit: kB, encode, cached, decode (ms) |")
    print("|---|---|---|---:|---:|")
    rows = []
    for chapter, name, make in _panels():
        if chapters and chapter not in chapters:
            continue
        _build(make, AFTER)
        frames = list(_common._FRAMES.values())[-1]
        rgba = np.asarray(frames.fig.canvas.buffer_rgba())  # (H, W, 4)
        pil, ours = _common._pil_png(frames.fig.canvas), _common.png_of_rgba(rgba)
        for png in (pil, ours):  # the same pixels
            assert (np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")) == rgba).all(), (chapter, name)
        bands: dict = {}
        _common.png_of_rgba(rgba, bands)
        row = (
            chapter,
            name,
            f"{rgba.shape[1]}×{rgba.shape[0]}",
            len(pil) / 1000,
            _median_ms(lambda c=frames.fig.canvas: _common._pil_png(c), repeats),
            _median_ms(lambda png=pil: Image.open(io.BytesIO(png)).load(), repeats),
            len(ours) / 1000,
            _median_ms(lambda a=rgba: _common.png_of_rgba(a), repeats),
            _median_ms(lambda a=rgba, b=bands: _common.png_of_rgba(a, b), repeats),
            _median_ms(lambda png=ours: Image.open(io.BytesIO(png)).load(), repeats),
        )
        rows.append(row)
        print("| {} | {} | {} | {:.0f}, {:.1f}, {:.1f} | {:.0f}, {:.1f}, {:.1f}, {:.1f} |".format(*row), flush=True)
    return rows


if __name__ == "__main__":
    main()
