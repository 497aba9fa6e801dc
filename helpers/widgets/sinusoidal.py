"""Slider panels for notebook 02 (sinusoidal position encoding).

* :func:`waves_panel`: chosen columns of the table against position (d_model, base, two dimensions, range).
* :func:`clock_panel`: the clock analogy, one dial per pair whose hand turns by ω_i per position.

The redraw functions :func:`draw_waves` and :func:`draw_clocks` are plain functions (tests call them with Agg).
Called without ``fig`` they draw on a new pyplot figure (the notebook's static cells); a panel passes its own
figure on every redraw.

Speed. A redraw of a small figure costs little to compute; the time goes into building a figure and laying
it out and rendering it (the inline backend's ``bbox_inches="tight"`` draws every figure twice). So each
panel keeps one :class:`~matplotlib.figure.Figure` with fixed margins, and the figure keeps its axes, ticks
and artists: the first redraw creates them (:class:`_WavesView`, :class:`_ClocksView`), later redraws only
set their data and texts. Only the columns a redraw shows are computed (:func:`helpers.plots.sinusoidal.
wave_columns`), and every dial of the clock figure shares one line for the circles, one for the angle-0 ticks
and one for the trail dots. The figure is rendered once per redraw, to a PNG at its own size (zlib level 1),
and displayed in the panel's output area. When d_model shrinks below a chosen dimension, the dimension slider is
clamped; the panel then still draws once, not twice.

Only ipywidgets APIs present in both 7.7 (Colab) and 8 are used.
"""

from __future__ import annotations

import io
import weakref

import ipywidgets as W
import matplotlib.pyplot as plt
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers.plots import sinusoidal as psn
from helpers.widgets._common import int_slider, log_slider, panel

WAVES_DEFAULTS = {"d_model": 64, "base": 10000.0, "dim_a": 0, "dim_b": 20, "n_positions": 100}
CLOCK_DEFAULTS = {"position": 10, "d_model": 8, "base": 10000.0}

DPI = 100  # the inline backend's resolution, so a panel looks like the static figure above it

#: Figure size (inches) and fixed margins (left, bottom, right, top) of each figure.
WAVES_LAYOUT = ((6.0, 3.2), (0.11, 0.14, 0.98, 0.91))
CLOCK_LAYOUT = ((6.4, 2.2), (0.01, 0.1, 0.99, 0.88))

MAX_DIALS = 8  # the clock panel's d_model goes up to 16


def _fixed_axes(fig, layout):
    """One axes at fixed margins: no layout engine, so a redraw measures no text to place it."""
    _, (left, bottom, right, top) = layout
    ax = fig.add_subplot()
    fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top)
    return ax


class _WavesView:
    """The artists of a waves figure, created once; :meth:`update` sets their data (two columns at most)."""

    def __init__(self, fig):
        self.ax = ax = _fixed_axes(fig, WAVES_LAYOUT)
        psn.label_waves(ax)
        self.lines, self.dots = [], []
        for k in range(2):  # in plot_waves' order: a column's dots are drawn over its line, under the next line
            self.lines.append(ax.plot([], [], lw=0.8, color=f"C{k}")[0])
            self.dots.append(ax.plot([], [], ".", ms=3, color=f"C{k}")[0])
        self.legend = None

    def update(self, d_model, base, dims, n_positions):
        fine, fine_cols, ints, int_cols = psn.wave_columns(d_model, base, dims, n_positions)  # (F,) (F,k) (T,) (T,k)
        dotted = n_positions <= psn.MAX_DOTTED_POSITIONS
        for k, (line, dots) in enumerate(zip(self.lines, self.dots, strict=True)):
            shown = k < len(dims)
            line.set_visible(shown)
            dots.set_visible(shown and dotted)
            if shown:
                line.set_data(fine, fine_cols[:, k])
                line.set_label(psn.column_name(dims[k], d_model, base))
                if dotted:
                    dots.set_data(ints, int_cols[:, k])
        names = [psn.column_name(j, d_model, base) for j in dims]
        if self.legend is None or len(self.legend.get_texts()) != len(dims):
            self.legend = self.ax.legend(
                handles=self.lines[: len(dims)], loc="lower center", ncol=2, fontsize=7, framealpha=0.9
            )
        else:  # same entries: change their texts only (the legend box is laid out when drawn)
            for text, name in zip(self.legend.get_texts(), names, strict=True):
                text.set_text(name)
        span = n_positions - 1
        self.ax.set_xlim(-0.05 * span, 1.05 * span)  # what autoscaling with the default 5 % margins gives
        self.ax.set_title(psn.waves_title(d_model, base))
        return self.ax


class _ClocksView:
    """The artists of a clock figure, created once for up to :data:`MAX_DIALS` dials; :meth:`update` sets them."""

    def __init__(self, fig):
        self.ax = ax = _fixed_axes(fig, CLOCK_LAYOUT)
        psn.frame_clocks(ax)
        style = psn.CLOCK_STYLE
        self.dials = ax.plot([], [], **style["dials"])[0]
        self.ticks = ax.plot([], [], **style["ticks"])[0]
        self.trail = ax.plot([], [], **style["trail"])[0]
        self.hands = [ax.plot([], [], gid=f"hand{i}", **style["hand"])[0] for i in range(MAX_DIALS)]
        self.captions = [ax.text(0.0, psn.CAPTION_Y, "", **style["caption"]) for _ in range(MAX_DIALS)]
        self.n_dials = None

    def update(self, position, d_model, base):
        parts = psn.clock_parts(position, d_model, base)
        n = len(parts["hands"])
        if n > MAX_DIALS:
            raise ValueError(f"at most {MAX_DIALS} dials (d_model ≤ {2 * MAX_DIALS}), got d_model = {d_model}")
        if n != self.n_dials:  # what depends on the number of dials only
            self.n_dials = n
            self.dials.set_data(*parts["dials"])
            self.ticks.set_data(*parts["ticks"])
            self.ax.set_xlim(*parts["xlim"])
            self.ax.set_ylim(*parts["ylim"])
            for i, (hand, caption) in enumerate(zip(self.hands, self.captions, strict=True)):
                hand.set_visible(i < n)
                caption.set_visible(i < n)
                if i < n:
                    caption.set_x(parts["centres"][i])
                    caption.set_fontsize(parts["fontsize"])
        self.trail.set_data(*parts["trail"])
        for hand, caption, xy, text in zip(self.hands, self.captions, parts["hands"], parts["captions"], strict=False):
            hand.set_data(*xy)
            caption.set_text(text)
        self.ax.set_title(parts["title"])
        return self.ax


_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # figure -> its view


def _view(fig, kind, layout):
    """The view drawn on ``fig`` (made on first use; ``fig=None``: a new pyplot figure of the layout's size)."""
    if fig is None:
        fig = plt.figure(figsize=layout[0])
    view = _VIEWS.get(fig)
    if view is None:
        view = _VIEWS[fig] = kind(fig)
    elif not isinstance(view, kind):
        raise ValueError(f"this figure shows a {type(view).__name__}, not a {kind.__name__}")
    return view


def draw_waves(d_model: int, base: float, dim_a: int, dim_b: int, n_positions: int, *, fig=None):
    """Redraw of :func:`waves_panel`: columns ``dim_a`` and ``dim_b`` (clamped to d_model − 1) against position.

    Draws what :func:`helpers.plots.sinusoidal.plot_waves` draws. ``fig``: a figure from an earlier call (its
    artists are updated in place, as the panel does) or an empty one; default a new pyplot figure. Returns the axes.
    """
    dims = sorted({min(dim_a, d_model - 1), min(dim_b, d_model - 1)})
    return _view(fig, _WavesView, WAVES_LAYOUT).update(d_model, base, dims, n_positions)


def draw_clocks(position: int, d_model: int, base: float, *, fig=None):
    """Redraw of :func:`clock_panel`: one dial per pair at ``position`` (d_model ≤ 16).

    Draws what :func:`helpers.plots.sinusoidal.plot_clocks` draws; ``fig`` as in :func:`draw_waves`.
    """
    return _view(fig, _ClocksView, CLOCK_LAYOUT).update(position, d_model, base)


def png_of(fig) -> bytes:
    """``fig`` as a PNG at its own size and :data:`DPI` (no tight bounding box: one layout, one render).

    zlib level 1 encodes several times faster than the default level 6 for a slightly larger file.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def _live_panel(draw, layout, controls: dict[str, W.Widget], *, columns: int = 1, hold: dict | None = None):
    """Controls above the PNG of ``draw(**values, fig=fig)`` on one kept figure (built with
    :func:`helpers.widgets._common.panel`, so every change replaces the output in place).

    While ``hold["on"]`` is true a change does not redraw: set it around an update that moves several controls
    at once (the change that caused the update then redraws once, with every new value).
    """
    fig = Figure(figsize=layout[0], dpi=DPI)  # not registered with pyplot: only this panel shows it
    FigureCanvasAgg(fig)
    hold = {"on": False} if hold is None else hold

    def render(**values):
        if not hold["on"]:
            draw(**values, fig=fig)
            display(Image(data=png_of(fig), format="png"))

    return panel(render, controls, columns=columns)


def waves_panel() -> W.VBox:
    """d_model (4..128), base (10..10^6, log), two dimensions (0..d_model−1) and the positions shown (20..2000)."""
    d = WAVES_DEFAULTS
    controls = {
        "d_model": int_slider("d_model (dims)", d["d_model"], 4, 128, 2),
        "base": log_slider("base", d["base"], 1, 6, 0.1),
        "dim_a": int_slider("dimension a (index)", d["dim_a"], 0, d["d_model"] - 1),
        "dim_b": int_slider("dimension b (index)", d["dim_b"], 0, d["d_model"] - 1),
        # Long ranges draw up to 2000-point waves: redraw when the slider is released.
        "n_positions": int_slider("positions shown (tokens)", d["n_positions"], 20, 2000, 20, heavy=True),
    }

    hold = {"on": False}

    def limit_dims(change):
        # The dimension sliders can only pick existing columns; ipywidgets clamps a value above the new max.
        # A clamp changes a dimension's value: held, so that moving d_model redraws once, with every new value.
        hold["on"] = True
        try:
            for key in ("dim_a", "dim_b"):
                controls[key].max = change["new"] - 1
        finally:
            hold["on"] = False

    controls["d_model"].observe(limit_dims, names="value")  # before the panel's own observer: runs first
    return _live_panel(draw_waves, WAVES_LAYOUT, controls, columns=2, hold=hold)


def clock_panel() -> W.VBox:
    """position (0..1000 tokens), d_model (2..16, so 1..8 dials) and base (10..10^6, log)."""
    d = CLOCK_DEFAULTS
    controls = {
        "position": int_slider("position pos (tokens)", d["position"], 0, 1000),
        "d_model": int_slider("d_model (dims)", d["d_model"], 2, 16, 2),
        "base": log_slider("base", d["base"], 1, 6, 0.1),
    }
    return _live_panel(draw_clocks, CLOCK_LAYOUT, controls)
