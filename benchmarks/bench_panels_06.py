"""Kernel-side redraw time of notebook 06's panels (draw on the kept figure + PNG), next to notebook 02's waves panel.

    python benchmarks/bench_panels_06.py                 # 20 moves per control, prints a Markdown table
    python benchmarks/bench_panels_06.py --repeats 50

Each control is moved back and forth between two values, as a slider step does; every redraw updates the panel's
one figure in place and encodes the PNG the panel displays (what a browser then shows). All panels run
round-robin in one process, so a busy machine slows them alike: the ratio to the reference panel (notebook 02's
waves panel, whose redraw the README reports) is the portable number, the milliseconds are this machine's.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from helpers.widgets import score_biases as W06  # noqa: E402
from helpers.widgets import sinusoidal as W02  # noqa: E402
from helpers.widgets._common import DPI, png_bytes  # noqa: E402

#: (name, draw, layout, defaults, control, two values it alternates between)
MOVES = [
    ("02 waves: dimension b (reference)", W02.draw_waves, W02.WAVES_LAYOUT, W02.WAVES_DEFAULTS, "dim_b", (20, 21)),
    (
        "06 buckets: number of buckets",
        W06.draw_buckets,
        W06.BUCKET_LAYOUT,
        W06.BUCKET_DEFAULTS,
        "num_buckets",
        (32, 34),
    ),
    ("06 buckets: max_distance", W06.draw_buckets, W06.BUCKET_LAYOUT, W06.BUCKET_DEFAULTS, "max_distance", (128, 132)),
    (
        "06 buckets: bidirectional",
        W06.draw_buckets,
        W06.BUCKET_LAYOUT,
        W06.BUCKET_DEFAULTS,
        "bidirectional",
        (False, True),
    ),
    ("06 ALiBi: heads H", W06.draw_alibi, W06.ALIBI_LAYOUT, W06.ALIBI_DEFAULTS, "num_heads", (8, 9)),
    ("06 ALiBi: distance shown", W06.draw_alibi, W06.ALIBI_LAYOUT, W06.ALIBI_DEFAULTS, "distance", (256, 272)),
    ("06 ALiBi: threshold", W06.draw_alibi, W06.ALIBI_LAYOUT, W06.ALIBI_DEFAULTS, "threshold", (4.6, 4.7)),
]


def _figure(layout, dpi):
    fig = Figure(figsize=layout.figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="moves per control (default 20)")
    args = parser.parse_args(argv)
    dpi = DPI
    figs = [_figure(layout, dpi) for _, _, layout, *_ in MOVES]
    for fig, (_, draw, _, defaults, _, _) in zip(figs, MOVES, strict=True):
        draw(**defaults, fig=fig)  # first draw builds the artists: not timed
        png_bytes(fig, dpi=dpi)
    times: list[list[float]] = [[] for _ in MOVES]
    for r in range(args.repeats):
        for k, (fig, (_, draw, _, defaults, key, values)) in enumerate(zip(figs, MOVES, strict=True)):
            t0 = time.perf_counter()
            draw(**{**defaults, key: values[(r + 1) % 2]}, fig=fig)
            png_bytes(fig, dpi=dpi)
            times[k].append(time.perf_counter() - t0)
    ref = statistics.median(times[0])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}, {args.repeats} moves per control\n")
    print("| control | median redraw (ms) | worst (ms) | vs reference |")
    print("|---|---:|---:|---:|")
    for (name, *_), t in zip(MOVES, times, strict=True):
        med = statistics.median(t)
        print(f"| {name} | {med * 1e3:.0f} | {max(t) * 1e3:.0f} | {med / ref:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
