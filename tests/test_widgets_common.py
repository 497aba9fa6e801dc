"""The one widget toolkit: slider factories, Layout/fixed_axes, View/view_on, png_bytes and the panel builder."""

import ipywidgets as W
import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from helpers.widgets import _common as C


def test_sliders_carry_description_range_and_continuity():
    s = C.int_slider("position m (tokens)", 3, 0, 10, heavy=True)
    assert (s.description, s.value, s.min, s.max, s.continuous_update) == ("position m (tokens)", 3, 0, 10, False)
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
