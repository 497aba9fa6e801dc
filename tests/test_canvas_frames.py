"""The canvas front end of the panels (helpers/widgets/_canvas.py) sends what a full drawing shows.

For the panels the course drags most (and a few others), after every move of every control: the background the
canvas keeps, with each line the widget sends drawn by Agg at the sent data, pixel box, limits, scales, colour, width,
dashes, caps and clip box (what the canvas strokes), and the sent sprites pasted on top, equals a fresh full drawing
of the same values pixel for pixel at the lines' float64 data, and within FLOAT32_LEVELS at the float32 data sent; each sent line's float32 data is a moving line's data in the panel's figure. The
browser suite (tests/browser) compares the real canvas with a full drawing within a tolerance (antialiasing).
"""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pytest
from _figure_checks import moved_value, panel_controls
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox
from PIL import Image
from test_panels import PANELS, _fresh, _pixels

from helpers.widgets import _canvas
from helpers.widgets import _common as C

#: Issue 36's sliders (04's rotation and wavelength, 05's scale panels) and panels of other kinds of moving artists.
CHECKED = {"04 rotation", "04 wavelength", "05 problem", "05 ntk", "05 yarn", "05 methods", "02 waves", "08 fraction"}
CASES = [p for p in PANELS if p[0] in CHECKED]
#: At the float32 data the canvas receives (rather than the float64 the figure holds), a full drawing's pixels
#: change by at most this many levels (of 255), on at most this share of the pixels (antialiased edges).
FLOAT32_LEVELS = 3
FLOAT32_PIXELS = 0.002

pytestmark = pytest.mark.skipif(not _canvas.available(), reason="anywidget is not installed")


@pytest.fixture(autouse=True)
def _canvas_on(monkeypatch):
    monkeypatch.setenv("PE_PANEL_RENDER", "canvas")  # not the default (helpers/widgets/_common.py)


def composite(front, exact: bool = False) -> np.ndarray:
    """What the canvas shows, drawn by Agg: background, the sent lines, the sent sprites. (H, W, 4) uint8.
    ``exact``: the lines at the data before its rounding to float32."""
    width, height = front.width, front.height
    background = np.asarray(Image.open(io.BytesIO(front.background)).convert("RGBA"))  # (H, W, 4)
    fig = Figure(figsize=(width / C.DPI, height / C.DPI), dpi=C.DPI)
    FigureCanvasAgg(fig)
    fig.patch.set_visible(False)
    axes = []
    for meta in front.axes:
        x0, y0, w, h = meta["box"]
        ax = fig.add_axes((x0 / width, y0 / height, w / width, h / height))
        ax.set_xscale("log" if meta["xlog"] else "linear")
        ax.set_yscale("log" if meta["ylog"] else "linear")
        ax.set_xlim(*meta["xlim"])
        ax.set_ylim(*meta["ylim"])
        ax.axis("off")
        axes.append(ax)
    data = front.data64 if exact else np.frombuffer(front.data, dtype=np.float32)
    lines = []
    for meta in front.lines:
        ax = axes[meta["axes"]]
        n, offset = meta["n"], meta["offset"]
        transform = {
            ("data", "data"): ax.transData,
            ("data", "axes"): ax.get_xaxis_transform(),
            ("axes", "data"): ax.get_yaxis_transform(),
        }[meta["x"], meta["y"]]
        lw, dash_offset, *dashes = meta["points"]  # the same values in points (Agg's input: exact pixels)
        caps = {"butt": "butt", "round": "round", "square": "projecting"}
        with matplotlib.rc_context({"lines.scale_dashes": False}):  # the dashes sent are scaled already
            line = Line2D(
                data[offset : offset + n], data[offset + n : offset + 2 * n], color=meta["color"], linewidth=lw
            )
            if dashes:
                line.set_linestyle((dash_offset, dashes))
        line.set_transform(transform)
        if dashes:
            line.set_dash_capstyle(caps[meta["cap"]])
            line.set_dash_joinstyle(meta["join"])
        else:
            line.set_solid_capstyle(caps[meta["cap"]])
            line.set_solid_joinstyle(meta["join"])
        assert meta["width"] == lw * C.DPI / 72 and meta["dashes"] == [v * C.DPI / 72 for v in dashes]
        ax.add_line(line)
        line.set_clip_box(Bbox.from_bounds(*meta["clip"]) if meta["clip"] else None)
        line.set_clip_on(meta["clip"] is not None)
        line.set_animated(True)
        lines.append((ax, line))
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())  # the renderer's own buffer
    pixels[:] = background
    for ax, line in lines:
        ax.draw_artist(line)
    out = np.array(fig.canvas.buffer_rgba())
    sprites = np.frombuffer(front.sprite_data, dtype=np.uint8)
    kept = front._pe_test_sprites
    for x, y, w, h, offset in front.sprites:
        box = (x, y, w, h)
        patch = kept[box] if offset < 0 else sprites[offset : offset + w * h * 4].reshape(h, w, 4)
        out[y : y + h, x : x + w] = patch
        kept[box] = patch.copy()
    front._pe_test_sprites = {b: kept[b] for b in ((s[0], s[1], s[2], s[3]) for s in front.sprites)}
    return out


def assert_lines_are_the_figures(front, fig) -> None:
    data = np.frombuffer(front.data, dtype=np.float32)
    figure_lines = [(np.asarray(a.get_xdata(), np.float32), np.asarray(a.get_ydata(), np.float32))
                    for a in fig.findobj(Line2D)]  # fmt: skip
    for i, meta in enumerate(front.lines):
        n, offset = meta["n"], meta["offset"]
        x, y = data[offset : offset + n], data[offset + n : offset + 2 * n]
        assert any(np.array_equal(x, fx, equal_nan=True) and np.array_equal(y, fy, equal_nan=True)
                   for fx, fy in figure_lines), f"sent line {i} is no line of the figure"  # fmt: skip


@pytest.mark.parametrize(("name", "make", "draw", "keywords", "layout"), CASES, ids=[c[0] for c in CASES])
def test_canvas_frames_equal_a_fresh_full_drawing(name, make, draw, keywords, layout):
    panel = make()
    front = panel.canvas_frames
    assert front is not None, f"{name}: no canvas front end"
    front._pe_test_sprites = {}
    composite(front)  # the first frame (its sprites are the ones later frames do not send again)
    controls = panel_controls(panel)
    fig = C._FRAMES[list(C._FRAMES)[-1]].fig
    n_lines = 0
    for round_ in range(2):
        for desc, control in controls.items():
            control.value = moved_value(control)
            values = {keywords[d]: c.value for d, c in controls.items()}
            fresh = _pixels(_fresh(draw, layout, values)[1])
            shown = composite(front, exact=True)
            differ = (shown != fresh).any(axis=-1)  # (H, W)
            assert not differ.any(), (
                f"{name}, {desc!r} moved (round {round_}): {differ.sum()} pixels of the canvas's picture differ "
                f"from a fresh full drawing"
            )
            # the data as sent (float32): its rounding moves a line by < 1e-4 pixel, a pixel's coverage by a level
            shown = composite(front).astype(int)
            assert np.abs(shown - fresh).max() <= FLOAT32_LEVELS, f"{name}, {desc!r}: float32 data"
            assert (shown != fresh).any(axis=-1).mean() <= FLOAT32_PIXELS, f"{name}, {desc!r}: float32 data"
            assert_lines_are_the_figures(front, fig)
            n_lines = max(n_lines, len(front.lines))
    sent = sum(s[2] * s[3] for s in front.sprites if s[4] >= 0)
    assert n_lines >= 1, f"{name}: no line drawn by the canvas"
    assert sent < front.width * front.height, f"{name}: the sprites are as large as the figure"


def test_panel_without_canvas_front_end_is_the_png_path(monkeypatch):
    monkeypatch.setenv("PE_PANEL_RENDER", "png")
    panel = PANELS[6][1]()  # 04 rotation
    assert panel.canvas_frames is None
    assert type(panel.children[-1].outputs[0]["data"]) is dict


def test_unknown_render_mode_is_refused(monkeypatch):
    monkeypatch.setenv("PE_PANEL_RENDER", "webgl")
    with pytest.raises(ValueError, match="PE_PANEL_RENDER='webgl': allowed values are png, canvas"):
        C.panel_mode()
