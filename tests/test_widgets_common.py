"""The one widget toolkit: slider factories, Layout/fixed_axes, View/view_on, png_bytes and the panel builder."""

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from helpers.widgets import _common as C


def test_sliders_carry_description_range_and_continuity():
    s = C.int_slider("position m (tokens)", 3, 0, 10)
    assert (s.description, s.value, s.min, s.max, s.continuous_update) == ("position m (tokens)", 3, 0, 10, True)
    f = C.log_slider("base", 1e4, 2, 7)
    assert f.base == 10 and f.min == 2 and f.max == 7 and abs(f.value - 1e4) < 1e-6 and f.continuous_update


LAYOUT = C.Layout((3.0, 2.0), left=0.2, bottom=0.2, right=0.9, top=0.8, ncols=2, wspace=0.3, width_ratios=(1, 2))


class _Counter(C.View):
    """A view whose one line shows the values it was given; counts how often its artists were created."""

    layout = LAYOUT
    made = 0

    def setup(self, axes):
        type(self).made += 1
        (self.line,) = axes[0].plot([], [])

    def update(self, k):
        self.line.set_data([0, 1], [0, k])
        return self.fig


def test_fixed_axes_place_the_grid_at_the_layout_margins():
    fig, axes = C.fixed_axes(LAYOUT, Figure(figsize=LAYOUT.figsize))
    assert len(axes) == 2
    left, right = axes
    assert left.get_position().x0 == pytest.approx(0.2) and right.get_position().x1 == pytest.approx(0.9)
    assert left.get_position().y0 == pytest.approx(0.2) and left.get_position().y1 == pytest.approx(0.8)
    assert right.get_position().width == pytest.approx(2 * left.get_position().width)  # width_ratios (1, 2)
    fig, ax = C.fixed_axes(C.Layout((2.0, 1.0), left=0.1, bottom=0.1, right=0.9, top=0.9))
    assert fig in map(plt.figure, plt.get_fignums()) and ax.figure is fig  # no figure given: a pyplot figure


def test_view_on_makes_the_view_once_per_figure_and_refuses_another_kind():
    fig = Figure(figsize=LAYOUT.figsize)
    before = _Counter.made
    for k in range(3):
        assert C.view_on(_Counter, fig).update(k) is fig
    assert _Counter.made == before + 1 and len(fig.axes) == 2  # artists created once, updated three times

    class Other(_Counter):
        pass

    with pytest.raises(ValueError, match="this figure shows a _Counter, not a Other"):
        C.view_on(Other, fig)


def test_panel_draws_once_per_change_on_one_kept_figure(shown):
    figures = []

    def draw(k, *, fig):
        figures.append(fig)
        return C.view_on(_Counter, fig).update(k)

    hold = {"on": False}
    slider = C.int_slider("k", 2, 0, 5)
    box = C.panel(draw, {"k": slider}, layout=LAYOUT, hold=hold)
    assert isinstance(box, W.VBox) and isinstance(box.children[-1], W.Output) and box.children[0].children == (slider,)
    assert len(shown) == 1 and shown[0][:8] == b"\x89PNG\r\n\x1a\n"
    slider.value = 4
    assert len(shown) == 2 and shown[1] != shown[0]
    hold["on"] = True
    slider.value = 1  # held: no redraw
    assert len(shown) == 2
    assert len(set(map(id, figures))) == 1 and plt.get_fignums() == []  # one figure, never registered with pyplot


def test_png_bytes_is_a_png_of_the_figure_size_at_the_panels_dpi():
    fig = plt.figure(figsize=(2, 1))
    data = C.png_bytes(fig)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (2 * C.DPI, 1 * C.DPI)
    data = C.png_bytes(Figure(figsize=(2, 1)), dpi=50)  # a bare Figure gets an Agg canvas
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (100, 50)


# ----------------------------------------------------------------------------- redrawing only what moved (issue 36)
class _Blitted(C.View):
    """Two lines, two texts and a title; ``moving_artists`` declares one line and the title."""

    layout = C.Layout((3.0, 2.0), left=0.2, bottom=0.2, right=0.9, top=0.8)

    def setup(self, ax):
        (self.moving,) = ax.plot([0, 1], [0, 0], lw=2)
        (self.other,) = ax.plot([0, 1], [1, 1], color="tab:red", zorder=1)  # below the declared line
        self.note = ax.text(0.1, 0.1, "", zorder=0.5)  # below both lines
        self.above = ax.text(0.5, 0.5, "static text above the lines", zorder=5)
        ax.set_xlim(0, 1)
        ax.set_ylim(-1, 2)

    def update(self, k, other=1.0, top=2.0, note=""):
        self.moving.set_data([0, 1], [0, k])
        self.other.set_data([0, 1], [other, other])
        self.axes.set_ylim(-1, top)
        self.axes.set_title(f"k = {k}")
        if note != self.note.get_text():
            self.note.set_text(note)
        return self.fig

    def moving_artists(self):
        return [self.moving, self.axes.title]


def _fresh_png(**values):
    fig = Figure(figsize=_Blitted.layout.figsize, dpi=C.DPI)
    C.view_on(_Blitted, fig).update(**values)
    return C.png_bytes(fig)


def test_frames_blit_moving_artists_and_redraw_everything_when_something_static_changes():
    fig = Figure(figsize=_Blitted.layout.figsize, dpi=C.DPI)
    view = C.view_on(_Blitted, fig)
    frames = C.Frames(fig, view.moving_artists())
    steps = [
        ({"k": 0.5}, "full"),  # first frame: the background is drawn
        ({"k": 0.9}, "full"),  # an undeclared artist was set (the red line): found, full redraw...
        ({"k": 0.1, "other": 0.2}, "blit"),  # ... and blitted from then on, with the declared ones
        ({"k": 0.1, "other": 0.2, "note": "new"}, "full"),  # another undeclared artist changed
        ({"k": 0.3, "other": 0.2, "note": "newer"}, "blit"),
        ({"k": 0.3, "other": 0.2, "note": "newer", "top": 3.0}, "full"),  # limits: the background is redrawn
        ({"k": -0.5, "other": 0.7, "note": "newer", "top": 3.0}, "blit"),
    ]
    for values, kind in steps:
        view.update(**values)
        png = frames.frame()
        assert frames.last == kind, values
        assert png == _fresh_png(**values), f"frame after {values} differs from a fresh drawing"
    assert view.above in frames.moving  # above a moving line: drawn again on top of it, as a full draw layers it
    view.note.remove()  # an artist removed: the background must lose it
    view.update(k=0.0, other=0.7, top=3.0)
    frames.frame()
    assert frames.last == "full"


class _SideBySide(C.View):
    """Two axes in a row, each with a moving line and a moving title; ``left`` and ``right`` move them."""

    layout = C.Layout((6.0, 2.0), left=0.1, bottom=0.2, right=0.95, top=0.8, ncols=2, wspace=0.4)
    keeps_unchanged_axes = True

    def setup(self, axes):
        self.lines = [ax.plot([0, 1], [0, 0], lw=2)[0] for ax in axes]
        for ax in axes:
            ax.set_xlim(0, 1)
            ax.set_ylim(-1, 1)

    def update(self, left=0.0, right=0.0, left_title="left"):
        for ax, line, k, title in zip(self.axes, self.lines, (left, right), (left_title, "right"), strict=True):
            if list(line.get_ydata()) != [0, k]:  # an axes left as it was stays unchanged (not stale)
                line.set_data([0, 1], [0, k])
            if ax.get_title() != title:
                ax.set_title(title)
        return self.fig

    def moving_artists(self):
        return [*self.lines, *(ax.title for ax in self.axes)]


def test_an_unchanged_axes_is_kept_from_the_last_frame_only_while_every_axes_stays_in_its_strip():
    fig = Figure(figsize=_SideBySide.layout.figsize, dpi=C.DPI)
    view = C.view_on(_SideBySide, fig)
    frames = C.Frames(fig, view.moving_artists(), keep_axes=True)
    left, right = view.axes
    long_title = "a left title far too long for its own half of the figure, reaching into the right one"
    steps = [
        ({"right": 0.5}, set()),  # first frame (full)
        ({"right": 0.7}, {left}),  # only the right axes moved: the left one's strip is copied
        ({"right": 0.7, "left": 0.3}, {right}),
        ({"right": -0.2, "left": 0.6}, set()),  # both moved: nothing kept (and nothing checked)...
        ({"right": 0.1, "left": 0.6}, set()),  # ... so the next frame, unchecked before, keeps nothing but is checked
        ({"right": 0.2, "left": 0.6}, {left}),
        ({"right": 0.2, "left": 0.6, "left_title": long_title}, set()),  # the left title crosses the cut: checked
        ({"right": 0.3, "left": 0.6, "left_title": long_title}, set()),  # ... and the right axes cannot be kept alone
    ]
    for values, kept in steps:
        view.update(**values)
        png = frames.frame()
        assert frames.kept == kept, values
        fresh = Figure(figsize=_SideBySide.layout.figsize, dpi=C.DPI)
        assert png == C.png_bytes(C.view_on(_SideBySide, fresh).update(**values)), values
    assert frames.counts == {"full": 1, "blit": len(steps) - 1}
    strips = frames.strips.strips
    assert strips[left][2] == strips[right][0] and (strips[left][0], strips[right][2]) == (0, 600)  # they tile it


class _Annotated(C.View):
    """Two axes side by side; the left one's annotation moves by setting ``xy``, which marks nothing ``stale``."""

    layout = _SideBySide.layout

    def setup(self, axes):
        for ax in axes:
            ax.set_xlim(0, 1)
            ax.set_ylim(-1, 1)
        arrow = {"arrowstyle": "->"}
        self.note = axes[0].annotate("peak", xy=(0.2, 0), xytext=(0, 8), textcoords="offset points", arrowprops=arrow)
        (self.line,) = axes[1].plot([0, 1], [0, 0])

    def update(self, left=0.0, right=0.0):
        self.note.xy = (0.2 + 0.5 * left, left)
        self.line.set_data([0, 1], [0, right])
        return self.fig

    def moving_artists(self):
        return [self.note, self.line]


class _MarkerEdge(_Annotated):
    """Right: an unclipped marker whose thick edge reaches past the cut between the axes."""

    layout = C.Layout((6.0, 2.0), left=0.1, bottom=0.2, right=0.95, top=0.8, ncols=2, wspace=0.1702)
    keeps_unchanged_axes = True

    def setup(self, axes):
        for ax in axes:
            ax.set_xlim(0, 1)
            ax.set_ylim(-1, 1)
        (self.left,) = axes[0].plot([0.5], [0], "s")
        (self.dot,) = axes[1].plot([0], [0], "o", ms=20, mew=12, mfc="none", mec="C3", lw=1, clip_on=False)
        axes[1].tick_params(labelleft=False)

    def update(self, left=0.0, right=0.0):
        if self.left.get_ydata()[0] != left:
            self.left.set_ydata([left])
        self.dot.set_ydata([right])
        return self.fig

    def moving_artists(self):
        return [self.left, self.dot]


class _LongTicks(_MarkerEdge):
    """Right: a moving y axis with 20-point ticks and no labels, reaching past the cut."""

    layout = C.Layout((6.0, 2.0), left=0.1, bottom=0.2, right=0.95, top=0.8, ncols=2, wspace=0.2174)

    def setup(self, axes):
        for ax in axes:
            ax.set_xlim(0, 1)
            ax.set_ylim(-1, 1)
        (self.left,) = axes[0].plot([0.5], [0], "s")
        axes[1].tick_params(axis="y", length=20, width=2, labelleft=False)

    def update(self, left=0.0, right=1.0):
        if self.left.get_ydata()[0] != left:
            self.left.set_ydata([left])
        self.axes[1].set_ylim(-right, right)
        return self.fig

    def moving_artists(self):
        return [self.left, self.axes[1].yaxis]


@pytest.mark.parametrize(
    ("kind", "steps"),
    [
        (_Annotated, [{"right": 0.5}, {"right": 0.6, "left": 0.8}, {"right": 0.7, "left": 0.8}]),
        (_MarkerEdge, [{"right": 0.5}, {"right": -0.5}, {"right": 0.2}]),
        (_LongTicks, [{"right": 1.0}, {"right": 1.37}, {"right": 2.9}]),
    ],
    ids=["in-place change, no strips", "marker edge past the cut", "tick marks past the cut"],
)
def test_strips_never_keep_pixels_that_changed(kind, steps):
    """A View that changes an artist in place does not keep axes (it does not set ``keeps_unchanged_axes``); a marker's
    edge or a tick mark that reaches into the neighbour's strip is measured (points converted to pixels)."""
    fig = Figure(figsize=kind.layout.figsize, dpi=C.DPI)
    view = C.view_on(kind, fig)
    frames = C.Frames(fig, view.moving_artists(), keep_axes=kind.keeps_unchanged_axes)
    for values in steps:
        view.update(**values)
        png = frames.frame()
        fresh = Figure(figsize=kind.layout.figsize, dpi=C.DPI)
        assert png == C.png_bytes(C.view_on(kind, fresh).update(**values)), (kind.__name__, values, frames.kept)


def test_panel_mode_refuses_an_unknown_value(monkeypatch):
    monkeypatch.setenv("PE_PANEL_REDRAW", "fast")
    with pytest.raises(ValueError, match=r"PE_PANEL_REDRAW='fast': allowed values are blit, full"):
        C.panel_mode()


@pytest.mark.parametrize(("redraw", "transport"), [("blit", "image"), ("full", "output"), ("blit", "output")])
def test_every_code_path_shows_the_same_frames(monkeypatch, shown, redraw, transport):
    """The benchmark's switches (PE_PANEL_REDRAW / PE_PANEL_TRANSPORT) change the speed, not the picture."""
    monkeypatch.setenv("PE_PANEL_REDRAW", redraw)
    monkeypatch.setenv("PE_PANEL_TRANSPORT", transport)
    monkeypatch.setattr(C, "display", lambda image: None)  # no kernel here: the output area's display is a no-op

    def draw(k, *, fig):
        return C.view_on(_Blitted, fig).update(k)

    targets, publish = [], C._publish
    monkeypatch.setattr(C, "_publish", lambda target, png: (targets.append(target), publish(target, png)))
    slider = C.float_slider("k", 0.5, -1.0, 1.0, 0.1)
    box = C.panel(draw, {"k": slider}, layout=_Blitted.layout)
    assert isinstance(box.children[-1], W.Output)
    slider.value = -0.3
    assert len(shown) == 2 and shown[-1] == _fresh_png(k=-0.3)
    if transport == "image":  # one Image widget, shown in the Output, its value replaced on every move
        image = targets[-1]
        assert targets == [image, image] and image.value == shown[-1]
        view = box.children[-1].outputs[0]["data"]["application/vnd.jupyter.widget-view+json"]
        assert view["model_id"] == image.model_id
    else:
        assert targets == [None, None]


# ----------------------------------------------------------------------------- a string's glyphs blended at once
def _blended(placed, alpha: float) -> np.ndarray:
    """The pixels of a drawn figure (a grey patch, a line) after ``draw_text_image`` of each placed coverage."""
    fig = Figure(figsize=(0.4, 0.4), dpi=100)
    FigureCanvasAgg(fig)
    fig.patch.set_facecolor("0.8")
    fig.add_artist(Line2D([0, 1], [0, 1], transform=fig.transFigure, lw=3, color="tab:blue"))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    gc = renderer.new_gc()
    gc.set_foreground((0.9, 0.1, 0.2, alpha), isRGBA=True)
    for buffer, column, row in placed:
        renderer._renderer.draw_text_image(buffer, column, row, 0, gc)
    return np.asarray(fig.canvas.buffer_rgba()).copy()


def test_a_strings_glyphs_are_blended_as_one_image_only_where_no_two_overlap():
    rng = np.random.default_rng(0)
    a, b = (rng.integers(0, 256, (6, 5), dtype=np.uint8) for _ in range(2))
    a[:, -1] = 0  # a glyph's bitmap has empty columns: b's box may overlap a's box, not its ink
    disjoint = [(a, 10, 20), (b, 14, 23), (np.zeros((0, 0), np.uint8), 30, 20)]  # a space has no bitmap
    merged = C._merged(disjoint)
    assert len(merged) == 1 and merged[0][0].shape == (9, 9)
    for alpha in (1.0, 0.45):  # one blend of the sum == the glyphs one by one, pixel for pixel
        np.testing.assert_array_equal(_blended(merged, alpha), _blended(disjoint, alpha))
    overlapping = [(a, 10, 20), (b, 12, 20)]  # ink on the same pixels: blending order matters, kept apart
    kept = C._merged(overlapping)
    assert len(kept) == 2 and all(k is o for k, o in zip(kept, overlapping, strict=True))
    union = np.zeros((6, 7), np.uint8)
    union[:, :5] |= a
    union[:, 2:] |= b
    assert not np.array_equal(_blended([(union, 10, 20)], 0.45), _blended(overlapping, 0.45))  # why they are kept
    c = np.zeros((6, 5), np.uint8)
    c[:, 3:] = 200
    three = [*overlapping, (c, 14, 20)]  # the third overlaps the second's box, not its ink: one run of the two
    runs = C._merged(three)
    assert len(runs) == 2 and runs[0] is three[0] and runs[1][0].shape == (6, 7)
    np.testing.assert_array_equal(_blended(runs, 0.45), _blended(three, 0.45))
