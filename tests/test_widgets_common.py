"""Shared widget building blocks: slider factories, panel, figure_panel, png_bytes."""

import matplotlib

matplotlib.use("Agg")

import ipywidgets as W  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from helpers.widgets import _common as C  # noqa: E402


def test_sliders_carry_description_range_and_continuity():
    s = C.int_slider("position m (tokens)", 3, 0, 10, heavy=True)
    assert (s.description, s.value, s.min, s.max, s.continuous_update) == ("position m (tokens)", 3, 0, 10, False)
    f = C.log_slider("base", 1e4, 2, 7)
    assert f.base == 10 and f.min == 2 and f.max == 7 and abs(f.value - 1e4) < 1e-6 and f.continuous_update


def test_panel_and_figure_panel_call_the_draw_function_with_control_values():
    seen = []

    def draw(**v):
        seen.append(v)
        _, ax = plt.subplots()
        ax.plot([0, v["k"]])

    box = C.panel(draw, {"k": C.int_slider("k", 2, 0, 5)})
    assert isinstance(box, W.VBox) and seen[-1] == {"k": 2}
    box.children[0].children[0].value = 4
    assert seen[-1] == {"k": 4}
    plt.close("all")

    drawn = []

    def draw_into(fig, k):
        ax = fig.add_subplot()
        ax.plot([0, k])
        drawn.append(len(fig.axes))

    box = C.figure_panel(draw_into, {"k": C.int_slider("k", 1, 0, 5)})
    box.children[0].children[0].value = 3
    assert drawn == [1, 1]  # the figure is cleared before every redraw


def test_png_bytes_is_a_png_of_the_figure_size():
    fig = plt.figure(figsize=(2, 1))
    data = C.png_bytes(fig, dpi=50)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (100, 50)
    plt.close(fig)
