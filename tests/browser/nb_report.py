"""The measured figures of a browser run: JSON (merged across runs by notebook) and a Markdown table."""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

GOAL_MEDIAN_MS = 100  # issue 36 (issue 11 had 100 / 250)
GOAL_WORST_MS = 150


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


@dataclass
class Report:
    started: float
    notebooks: dict[str, dict] = field(default_factory=dict)
    server_start_s: float = math.nan
    browser_version: str = ""
    load_start: list[float] = field(default_factory=_load)
    load_end: list[float] = field(default_factory=list)
    suite_s: float = math.nan

    def add(self, name: str, entry: dict) -> None:
        self.notebooks[name] = entry

    def finish(self) -> None:
        self.suite_s = time.perf_counter() - self.started
        self.load_end = _load()

    def as_dict(self) -> dict:
        return {
            "measured_at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": {"cores": os.cpu_count(), "loadavg_start": self.load_start, "loadavg_end": self.load_end},
            "chromium": self.browser_version,
            "server_start_s": round(self.server_start_s, 2),
            "suite_s": round(self.suite_s, 1),
            "goal_ms": {"median": GOAL_MEDIAN_MS, "worst": GOAL_WORST_MS},
            "notebooks": self.notebooks,
        }

    def write(self, out: Path) -> None:
        data = self.as_dict()
        (out / "browser-report.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        (out / "browser-report.md").write_text(markdown(data))

    def write_docs(self, docs: Path) -> None:
        """Merge this run into docs/browser-report.json (a run of some notebooks keeps the others'
        figures), rewrite docs/browser-report.md and copy the screenshots to docs/img/."""
        docs.mkdir(exist_ok=True)
        (docs / "img").mkdir(exist_ok=True)
        path = docs / "browser-report.json"
        data = self.as_dict()
        if path.exists():
            old = json.loads(path.read_text())
            measured = {_split(k)[0] for k in data["notebooks"]}  # a notebook measured now replaces all its rows
            kept = {k: v for k, v in old.get("notebooks", {}).items() if _split(k)[0] not in measured}
            merged = {**kept, **data["notebooks"]}
            data["notebooks"] = {k: merged[k] for k in sorted(merged)}
        for entry in self.notebooks.values():
            shot = entry.get("screenshot_file")
            if shot and Path(shot).exists():
                dest = docs / "img" / Path(shot).name
                shutil.copyfile(shot, dest)
                entry["screenshot"] = f"img/{dest.name}"
        for entry in data["notebooks"].values():
            entry.pop("screenshot_file", None)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        (docs / "browser-report.md").write_text(markdown(data))


def _ms(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"


def _s(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1f}"


def _cells(e: dict) -> str:
    """Code cells of a notebook; "3 of 53 run" when the test ran only the cells its panels need."""
    n = e.get("code_cells", "?")
    return f"{len(e['cells_run'])} of {n} run" if "cells_run" in e else str(n)


def markdown(data: dict) -> str:
    m = data["machine"]
    lines = [
        "# Real-browser check of every notebook",
        "",
        "Written by `tests/browser/` (regenerate: `python scripts/screenshots.py`). Each notebook is opened in",
        "the project's own JupyterLab, in headless Chromium; its outputs are cleared, **Run All** is clicked in",
        "the menu, and every control of every widget panel is moved "
        "(keyboard for sliders, clicks/selection for the rest).",
        "The Chinese notebooks other than zh-01 run only the cells their panels need, in one JupyterLab page, and",
        "one control per panel is moved once (test_zh_panels_in_browser.py; their panels' texts are checked to be",
        "Chinese wherever the zh catalogs translate them, see _artifacts/zh-labels.md).",
        "Latency = time in the page from the user event (keydown / pointerdown / input) to the first animation",
        "frame after the new figure's `<img>` arrived (a new PNG: identical bytes would not count).",
        "",
        f"Measured {data['measured_at']}, Chromium {data['chromium'] or '?'}, {m['cores']} cores, "
        f"load average {m['loadavg_start']} at start, {m['loadavg_end']} at end. "
        f"Server start {data['server_start_s']} s; whole browser suite {data['suite_s']} s.",
        "",
        f"Goal: median at most {data['goal_ms']['median']} ms for every control, none worse than "
        f"{data['goal_ms']['worst']} ms (measured, not asserted). **Caveat**: on a shared 2-core machine "
        "(other jobs running, see the load average) these figures are inflated.",
        "",
        "## Per notebook",
        "",
        "| notebook | code cells / plots / panels checked | load → kernel idle (s) | Run All (or the panels' cells) → done (s) | "
        "controls | moves | median of medians (ms) | worst median (ms) | worst move (ms) | test wall time (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, e in data["notebooks"].items():
        ctls = e.get("controls", [])
        meds = sorted(c["median_ms"] for c in ctls if c["median_ms"] is not None)
        mom = meds[len(meds) // 2] if meds else None
        worst_med = max(meds) if meds else None
        worst = max((c["worst_ms"] for c in ctls if c["worst_ms"] is not None), default=None)
        moves = sum(len(c["latencies_ms"]) for c in ctls)
        lines.append(
            f"| {name} | {_cells(e)} / {e.get('images', '?')} / {e.get('widget_cells', '?')} | "
            f"{_s(e.get('load_to_idle_s'))} | {_s(e.get('run_all_s'))} | {len(ctls)} | {moves} | "
            f"{_ms(mom)} | {_ms(worst_med)} | {_ms(worst)} | {_s(e.get('wall_s'))} |"
        )
    lines += [
        "",
        "## Per control",
        "",
        "Kernel = the panel's redraw in the kernel (draw + frame + handing it to the widget, from the kernel's own",
        "timing log), median over the moves, wall-clock and CPU time; its share = kernel median ÷ latency median (the rest is the widget",
        "round trip and the browser). Full = moves that redrew the whole figure (the others redrew only what moved).",
        "",
        "| notebook | cell | control | kind | moves | median (ms) | worst (ms) | kernel (ms) | kernel CPU (ms) |"
        " kernel share | full | goal met |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    g_med, g_worst = data["goal_ms"]["median"], data["goal_ms"]["worst"]
    for name, e in data["notebooks"].items():
        for c in e.get("controls", []):
            ok = (
                c["median_ms"] is not None
                and c["median_ms"] <= g_med
                and c["worst_ms"] is not None
                and c["worst_ms"] <= g_worst
            )
            label = c["label"].replace("|", "\\|")
            kernel = _median([k for k in c.get("kernel_ms", []) if k is not None])
            cpu = _median([k for k in c.get("kernel_cpu_ms", []) if k is not None])
            share = f"{kernel / c['median_ms']:.0%}" if kernel is not None and c["median_ms"] else "–"
            lines.append(
                f"| {name} | {c['cell']} | {label} | {c['kind']} | {len(c['latencies_ms'])} | "
                f"{_ms(c['median_ms'])} | {_ms(c['worst_ms'])} | {_ms(kernel)} | {_ms(cpu)} | {share} | "
                f"{c.get('full_redraws', '–')} | {'yes' if ok else '**no**'} |"
            )
    lines += comparison(data)
    problems = [(n, p) for n, e in data["notebooks"].items() for p in e.get("problems", [])]
    lines += ["", "## Problems found", ""]
    lines += [f"- {n}: {p}" for n, p in problems] or ["None."]
    shots = [(n, e["screenshot"]) for n, e in data["notebooks"].items() if e.get("screenshot")]
    if shots:
        lines += ["", "## Screenshots (main interactive figure, default values)", ""]
        lines += [f"![{n}]({s})" for n, s in shots]
    return "\n".join(lines) + "\n"


def _median(xs) -> float | None:
    xs = sorted(xs)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _split(name: str) -> tuple[str, str]:
    """("04_rope", "after") from "04_rope [after]"; ("04_rope", "") without a mode."""
    if name.endswith("]") and " [" in name:
        base, mode = name[:-1].split(" [", 1)
        return base, mode
    return name, ""


def comparison(data: dict) -> list[str]:
    """Side-by-side tables of the modes measured in the run (PE_BROWSER_MODES), if there are several."""
    by_nb: dict[str, dict[str, dict]] = {}
    for name, e in data["notebooks"].items():
        base, mode = _split(name)
        by_nb.setdefault(base, {})[mode] = e
    order = ["before", "output", "after"]
    modes = sorted(
        {m for ms in by_nb.values() for m in ms if m},
        key=lambda m: (m.endswith("-ipyw7"), order.index(m.split("-")[0]) if m.split("-")[0] in order else 9, m),
    )
    if len(modes) < 2:
        return []
    by_nb = {k: v for k, v in by_nb.items() if any(m in v for m in modes)}  # notebooks measured per mode only
    lines = [
        "",
        "## Code paths compared in this run",
        "",
        "Same run, notebook by notebook, mode after mode: `before` = the whole figure redrawn and shown in the output",
        "area (the code path before issue 36); `output` = only what moved redrawn, shown in the output area; `after` =",
        "only what moved redrawn, shown in an Image widget; `-ipyw7` = the kernel runs ipywidgets 7.7.1 (Colab's).",
        "Median of the controls' medians / worst move, ms.",
        "",
        "| notebook | " + " | ".join(modes) + " |",
        "|---|" + "---:|" * len(modes),
    ]
    for base, per_mode in sorted(by_nb.items()):
        cells = []
        for m in modes:
            ctls = per_mode.get(m, {}).get("controls", [])
            meds = [c["median_ms"] for c in ctls if c["median_ms"] is not None]
            worst = max((c["worst_ms"] for c in ctls if c["worst_ms"] is not None), default=None)
            cells.append(f"{_ms(_median(meds))} / {_ms(worst)}" if meds else "–")
        lines.append(f"| {base} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Per control: median / worst (ms), and in brackets the kernel's median redraw time and its CPU time (ms;",
        "on a loaded machine the CPU time is the redraw's own work, the wall time also waits for the cores).",
        "",
        "| notebook | control | " + " | ".join(modes) + " |",
        "|---|---|" + "---:|" * len(modes),
    ]
    for base, per_mode in sorted(by_nb.items()):
        keys = []
        for m in modes:
            for c in per_mode.get(m, {}).get("controls", []):
                if (c["cell"], c["label"]) not in keys:
                    keys.append((c["cell"], c["label"]))
        for cell, label in keys:
            cells = []
            for m in modes:
                c = next(
                    (c for c in per_mode.get(m, {}).get("controls", []) if (c["cell"], c["label"]) == (cell, label)),
                    None,
                )
                if c is None or c["median_ms"] is None:
                    cells.append("–")
                    continue
                k = _median([x for x in c.get("kernel_ms", []) if x is not None])
                cpu = _median([x for x in c.get("kernel_cpu_ms", []) if x is not None])
                cells.append(f"{_ms(c['median_ms'])} / {_ms(c['worst_ms'])} ({_ms(k)}; {_ms(cpu)})")
            lines.append(f"| {base} | {label.replace('|', chr(92) + '|')} | " + " | ".join(cells) + " |")
    return lines
