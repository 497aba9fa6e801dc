"""Slider panels for notebook 02 (sinusoidal position encoding).

* :func:`waves_panel`: chosen columns of the table against position (d_model, base, two dimensions, range).
* :func:`clock_panel`: the clock analogy, one dial per pair whose hand turns by ω_i per position.

The redraw functions :func:`draw_waves` and :func:`draw_clocks` are plain functions (tests call them with Agg).
Called without ``fig`` they draw on a new pyplot figure (the notebook's static cells); a panel passes its own
figure on every redraw.

Speed. A redraw of a small figure costs little to compute; the time goes into building a figure and laying
it out and rendering it (the inline backend's ``bbox_inches="tight"`` draws every figure twice). So each
panel keeps one :class:`~matplotlib.figure.Figure` with fixed margins (:func:`helpers.widgets._common.panel`),
and the figure keeps its axes, ticks and artists: the first redraw creates them (:class:`WavesView`,
:class:`ClocksView`), later redraws only set their data and texts. Only the columns a redraw shows are computed (:func:`helpers.plots.sinusoidal.
wave_columns`), and every dial of the clock figure shares one line for the circles, one for the angle-0 ticks
and one for the trail dots. The figure is rendered once per redraw, to a PNG at its own size (zlib level 1),
and displayed in the panel's output area. When d_model shrinks below a chosen dimension, the dimension slider is
clamped; the panel then still draws once, not twice.

Only ipywidgets APIs present in both 7.7 (Colab) and 8 are used.
"""

from __future__ import annotations

import ipywidgets as W

from helpers.i18n import _
from helpers.plots import sinusoidal as sinusoidal_plots
from helpers.widgets._common import Layout, View, int_slider, log_slider, panel, view_on

WAVES_DEFAULTS = {"d_model": 64, "base": 10000.0, "dim_a": 0, "dim_b": 20, "n_positions": 100}
CLOCK_DEFAULTS = {"position": 10, "d_model": 8, "base": 10000.0}

WAVES_LAYOUT = Layout((6.0, 3.2), left=0.11, bottom=0.14, right=0.98, top=0.91)
CLOCK_LAYOUT = Layout((6.4, 2.2), left=0.01, bottom=0.1, right=0.99, top=0.88)

MAX_DIALS = 8  # the clock panel's d_model goes up to 16


class WavesView(View):
    """The artists of a waves figure, created once; :meth:`update` sets their data (two columns at most)."""

    layout = WAVES_LAYOUT

    def setup(self, ax):
        self.ax = ax
        sinusoidal_plots.label_waves(ax)
        self.lines, self.dots = [], []
        for k in range(2):  # in plot_waves' order: a column's dots are drawn over its line, under the next line
            self.lines.append(ax.plot([], [], lw=0.8, color=f"C{k}")[0])
            self.dots.append(ax.plot([], [], ".", ms=3, color=f"C{k}")[0])
        self.legend = None

    def update(self, d_model, base, dims, n_positions):
        fine, fine_cols, ints, int_cols = sinusoidal_plots.wave_columns(
            d_model, base, dims, n_positions
        )  # (F,) (F,k) (T,) (T,k)
        dotted = n_positions <= sinusoidal_plots.MAX_DOTTED_POSITIONS
        for k, (line, dots) in enumerate(zip(self.lines, self.dots, strict=True)):
            shown = k < len(dims)
            line.set_visible(shown)
            dots.set_visible(shown and dotted)
            if shown:
                line.set_data(fine, fine_cols[:, k])
                line.set_label(sinusoidal_plots.column_name(dims[k], d_model, base))
                if dotted:
                    dots.set_data(ints, int_cols[:, k])
        names = [sinusoidal_plots.column_name(j, d_model, base) for j in dims]
        if self.legend is None or len(self.legend.get_texts()) != len(dims):
            self.legend = self.ax.legend(
                handles=self.lines[: len(dims)], loc="lower center", ncol=2, fontsize=7, framealpha=0.9
            )
        else:  # same entries: change their texts only (the legend box is laid out when drawn)
            for text, name in zip(self.legend.get_texts(), names, strict=True):
                text.set_text(name)
        span = n_positions - 1
        self.ax.set_xlim(-0.05 * span, 1.05 * span)  # what autoscaling with the default 5 % margins gives
        self.ax.set_title(sinusoidal_plots.waves_title(d_model, base))
        return self.ax

    def moving_artists(self):
        # the x axis follows "positions shown" (the range is what that slider chooses): drawn on every frame
        return [*self.lines, *self.dots, self.ax.xaxis, self.ax.title]


class ClocksView(View):
    """The artists of a clock figure, created once for up to :data:`MAX_DIALS` dials; :meth:`update` sets them."""

    layout = CLOCK_LAYOUT

    def setup(self, ax):
        self.ax = ax
        sinusoidal_plots.frame_clocks(ax)
        ax.set_aspect("auto")  # equal units on both axes from the limits instead (_equal_aspect): the box stays
        style = sinusoidal_plots.CLOCK_STYLE
        self.dials = ax.plot([], [], **style["dials"])[0]
        self.ticks = ax.plot([], [], **style["ticks"])[0]
        self.trail = ax.plot([], [], **style["trail"])[0]
        self.hands = [ax.plot([], [], gid=f"hand{i}", **style["hand"])[0] for i in range(MAX_DIALS)]
        self.captions = [ax.text(0.0, sinusoidal_plots.CAPTION_Y, "", **style["caption"]) for _ in range(MAX_DIALS)]
        self.n_dials = None

    def update(self, position, d_model, base):
        parts = sinusoidal_plots.clock_parts(position, d_model, base)
        n = len(parts["hands"])
        if n > MAX_DIALS:
            raise ValueError(f"at most {MAX_DIALS} dials (d_model ≤ {2 * MAX_DIALS}), got d_model = {d_model}")
        if n != self.n_dials:  # what depends on the number of dials only
            self.n_dials = n
            self.dials.set_data(*parts["dials"])
            self.ticks.set_data(*parts["ticks"])
            xlim, ylim = _equal_aspect(self.ax, parts["xlim"], parts["ylim"])
            self.ax.set_xlim(*xlim)
            self.ax.set_ylim(*ylim)
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

    def moving_artists(self):
        # the number of dials sets the limits (the axes' box stays): everything inside is drawn on every frame
        ax = self.ax
        return [self.dials, self.ticks, self.trail, *self.hands, *self.captions, ax.xaxis, ax.yaxis, ax.title]


def _equal_aspect(ax, xlim, ylim) -> tuple[tuple[float, float], tuple[float, float]]:
    """``(xlim, ylim)`` widened about their centres so that one unit is as long on x as on y in ``ax``'s box.

    What ``set_aspect("equal")`` does by shrinking the box, done on the limits: the box stays put when the number of
    dials changes (so a panel redraws only the dials), and the dials are drawn at the same size, centred.
    """
    fig_w, fig_h = ax.figure.get_size_inches()
    box = ax.get_position()
    ratio = (box.width * fig_w) / (box.height * fig_h)  # the box's width over its height
    (x0, x1), (y0, y1) = xlim, ylim
    if (x1 - x0) / (y1 - y0) < ratio:  # too narrow: widen x
        half, mid = 0.5 * (y1 - y0) * ratio, 0.5 * (x0 + x1)
        return (mid - half, mid + half), (y0, y1)
    half, mid = 0.5 * (x1 - x0) / ratio, 0.5 * (y0 + y1)
    return (x0, x1), (mid - half, mid + half)


def draw_waves(d_model: int, base: float, dim_a: int, dim_b: int, n_positions: int, *, fig=None):
    """Redraw of :func:`waves_panel`: columns ``dim_a`` and ``dim_b`` (clamped to d_model − 1) against position.

    Draws what :func:`helpers.plots.sinusoidal.plot_waves` draws. ``fig``: a figure from an earlier call (its
    artists are updated in place, as the panel does) or an empty one; default a new pyplot figure. Returns the axes.
    """
    dims = sorted({min(dim_a, d_model - 1), min(dim_b, d_model - 1)})
    return view_on(WavesView, fig).update(d_model, base, dims, n_positions)


def draw_clocks(position: int, d_model: int, base: float, *, fig=None):
    """Redraw of :func:`clock_panel`: one dial per pair at ``position`` (d_model ≤ 16).

    Draws what :func:`helpers.plots.sinusoidal.plot_clocks` draws; ``fig`` as in :func:`draw_waves`.
    """
    return view_on(ClocksView, fig).update(position, d_model, base)


def waves_panel() -> W.VBox:
    """d_model (4..128), base (10..10^6, log), two dimensions (0..d_model−1) and the positions shown (20..2000)."""
    d = WAVES_DEFAULTS
    controls = {
        "d_model": int_slider(_("d_model (dims)"), d["d_model"], 4, 128, 2),
        "base": log_slider(_("base"), d["base"], 1, 6, 0.1),
        "dim_a": int_slider(_("dimension a (index)"), d["dim_a"], 0, d["d_model"] - 1),
        "dim_b": int_slider(_("dimension b (index)"), d["dim_b"], 0, d["d_model"] - 1),
        "n_positions": int_slider(_("positions shown (tokens)"), d["n_positions"], 20, 2000, 20),
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
    return panel(draw_waves, controls, layout=WAVES_LAYOUT, columns=2, hold=hold)


def clock_panel() -> W.VBox:
    """position (0..1000 tokens), d_model (2..16, so 1..8 dials) and base (10..10^6, log)."""
    d = CLOCK_DEFAULTS
    controls = {
        "position": int_slider(_("position pos (tokens)"), d["position"], 0, 1000),
        "d_model": int_slider(_("d_model (dims)"), d["d_model"], 2, 16, 2),
        "base": log_slider(_("base"), d["base"], 1, 6, 0.1),
    }
    return panel(draw_clocks, controls, layout=CLOCK_LAYOUT)
