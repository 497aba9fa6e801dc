"""Notebook 03's figures and panels: what they draw, and the computations behind them."""

import ipywidgets as W
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from helpers import learned
from helpers.learned import LearnedPositionalEmbedding
from helpers.plots import learned as P
from helpers.sinusoidal import sinusoidal_table
from helpers.widgets import learned as WL
from helpers.widgets._common import DPI, png_bytes


def _tables(T=24, d=16, train_len=10, seed=0):
    rng = np.random.default_rng(seed)
    init = rng.normal(size=(T, d)) * 0.02
    trained = init.copy()
    trained[:train_len] += rng.normal(size=(train_len, d))
    return trained, init, sinusoidal_table(T, d)


def _labels_present(ax):
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()


# ---- plotting functions ---------------------------------------------------------------------------------------------


def test_plot_row_gradients_bars_follow_the_gradient():
    pe = LearnedPositionalEmbedding(10, 4)
    pe(torch.tensor([0, 2, 2])).sum().backward()
    ax = P.plot_row_gradients(pe.table.grad, used=[0, 2])
    heights = [b.get_height() for b in ax.patches]
    assert len(heights) == 10
    assert heights[0] > 0 and heights[2] > 0 and all(h == 0 for i, h in enumerate(heights) if i not in (0, 2))
    np.testing.assert_allclose(heights[2], 2 * heights[0])  # position 2 read twice → twice the gradient
    assert "2 of 10 rows" in ax.get_title()
    (crosses,) = ax.lines  # one cross on every row whose gradient is exactly 0, drawn unclipped
    assert list(crosses.get_xdata()) == [1, 3, 4, 5, 6, 7, 8, 9] and not crosses.get_clip_on()
    assert ax.get_ylim()[1] > max(heights)
    _labels_present(ax)
    ax = P.plot_row_gradients(pe.table.grad, used=[0, 2], ymax=10.0)
    assert ax.get_ylim() == (0.0, 10.0)


def test_plot_parameter_share():
    ax = P.plot_parameter_share(["GPT-2", "BERT"], [786_432, 393_216], [124_439_808, 109_482_240])
    widths = [b.get_width() for b in ax.patches]
    np.testing.assert_allclose(widths, [100 * 786_432 / 124_439_808, 100 * 393_216 / 109_482_240])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["GPT-2", "BERT"]
    assert any("786,432" in t.get_text() for t in ax.texts)
    _labels_present(ax)
    with pytest.raises(ValueError):
        P.plot_parameter_share(["a"], [1, 2], [3])


def test_plot_similarity_matrix_and_pair():
    trained, _, sin = _tables()
    ax = P.plot_similarity_matrix(trained, train_len=10, title="t")
    (im,) = ax.get_images()
    np.testing.assert_allclose(im.get_array(), learned.cosine_similarity_matrix(trained))
    assert im.get_clim() == (-1.0, 1.0)
    assert len(ax.lines) == 2  # the training length, marked on both axes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["training length L = 10"]
    _labels_present(ax)
    axes = P.plot_similarity_pair(trained, sin, train_len=10)
    assert len(axes) == 2
    np.testing.assert_allclose(axes[1].get_images()[0].get_array(), learned.cosine_similarity_matrix(sin))
    assert "learned" in axes[0].get_title() and "sinusoidal" in axes[1].get_title()


def test_plot_distance_from_init():
    trained, init, _ = _tables()
    d = learned.row_distance(trained, init)
    ax = P.plot_distance_from_init(d, train_len=10)
    line, mark = ax.lines
    np.testing.assert_allclose(line.get_ydata(), d)
    assert mark.get_xdata()[0] == 9.5
    assert "L = 10" in mark.get_label()
    _labels_present(ax)


def test_position_tables_are_unit_rows_and_similarities():
    trained, _, sin = _tables()
    t = learned.position_tables(trained, sin, train_len=10)
    assert t.n_positions == 24 and t.train_len == 10
    np.testing.assert_allclose(t.learned_unit, trained / np.linalg.norm(trained, axis=1, keepdims=True))
    np.testing.assert_allclose(np.linalg.norm(t.sinusoidal_unit, axis=1), 1.0)
    np.testing.assert_allclose(t.learned_similarity, learned.cosine_similarity_matrix(trained), atol=1e-12)
    np.testing.assert_allclose(t.sinusoidal_similarity, learned.cosine_similarity_matrix(sin), atol=1e-12)
    with pytest.raises(ValueError, match="same number of positions"):
        learned.position_tables(trained, sin[:-1])
    with pytest.raises(ValueError, match="train_len"):
        learned.position_tables(trained, sin, train_len=25)


def test_plot_position_comparison_follows_position():
    trained, _, sin = _tables()
    a0, a1 = P.plot_position_comparison(3, trained, sin, train_len=10)
    b0, b1 = P.plot_position_comparison(7, learned.position_tables(trained, sin, 10))  # precomputed tables: same figure
    for ax in (a0, a1, b0, b1):
        _labels_present(ax)
    # left: unit vectors of row p; right: similarity row S[p, :]
    np.testing.assert_allclose(a0.lines[1].get_ydata(), trained[3] / np.linalg.norm(trained[3]))
    np.testing.assert_allclose(a0.lines[0].get_ydata(), sin[3] / np.linalg.norm(sin[3]))
    np.testing.assert_allclose(a1.lines[1].get_ydata(), learned.cosine_similarity_matrix(trained)[3])
    np.testing.assert_allclose(b1.lines[0].get_ydata(), learned.cosine_similarity_matrix(sin)[7])
    assert not np.allclose(a1.lines[1].get_ydata(), b1.lines[1].get_ydata())
    assert a1.lines[2].get_xdata()[0] == 3 and b1.lines[2].get_xdata()[0] == 7  # the dotted q = p line moves
    assert a1.lines[3].get_xdata()[0] == 9.5 and any("L = 10" in t.get_text() for t in a1.texts)
    assert "p = 7" in b0.get_title()
    lim = learned.position_tables(trained, sin).unit_limit  # one y scale for every p, fitting every row of both tables
    assert a0.get_ylim() == b0.get_ylim() == pytest.approx((-lim, lim))
    assert lim >= max(np.abs(trained / np.linalg.norm(trained, axis=1, keepdims=True)).max(), 0.0)
    with pytest.raises(IndexError):
        P.plot_position_comparison(24, trained, sin)
    with pytest.raises(ValueError):
        P.plot_position_comparison(0, trained, sin[:-1])
    with pytest.raises(TypeError, match="sinusoidal"):
        P.plot_position_comparison(0, trained)


# ---- widget redraws and panels --------------------------------------------------------------------------------------


def test_all_row_gradients_match_row_gradients():
    grads = learned.all_row_gradients(6, 4)
    assert grads.shape == (6, 6, 4)
    for t in (1, 4, 6):
        np.testing.assert_array_equal(grads[t - 1], learned.row_gradients(t, 6, 4).numpy())
    assert WL.gradient_ymax(grads) == pytest.approx(1.35 * np.linalg.norm(grads, axis=-1).max())


def test_draw_row_gradients_changes_with_seq_len():
    h3 = [b.get_height() for b in WL.draw_row_gradients(3).patches]
    h9 = [b.get_height() for b in WL.draw_row_gradients(9).patches]
    assert len(h3) == len(h9) == 16
    assert sum(h > 0 for h in h3) == 3 and sum(h > 0 for h in h9) == 9


def test_draw_row_gradients_into_a_reused_figure():
    grads = learned.all_row_gradients()
    ymax = WL.gradient_ymax(grads)
    fig = Figure(figsize=WL.GRADIENT_LAYOUT.figsize)
    a = WL.draw_row_gradients(2, grads=grads, fig=fig)
    h2, ylim2 = [b.get_height() for b in a.patches], a.get_ylim()
    b = WL.draw_row_gradients(12, grads=grads, fig=fig)  # updated in place: same axes, same bars
    assert b is a and len(fig.axes) == 1 and len(b.patches) == 16
    assert sum(h > 0 for h in h2) == 2 and sum(b_.get_height() > 0 for b_ in b.patches) == 12
    assert ylim2 == b.get_ylim() == (0.0, ymax)  # one scale for every slider value
    with pytest.raises(ValueError, match="built for other data"):
        WL.draw_row_gradients(3, grads=grads.copy(), fig=fig)
    L = WL.GRADIENT_LAYOUT
    left, top = L.left, L.top
    assert b.get_position().x0 == pytest.approx(left) and b.get_position().y1 == pytest.approx(top)  # fixed margins


def test_draw_position_changes_with_position():
    trained, _, sin = _tables()
    a = WL.draw_position(2, trained, sin, 10)
    b = WL.draw_position(15, trained, sin, 10)
    assert not np.allclose(a[1].lines[0].get_ydata(), b[1].lines[0].get_ydata())
    assert "p = 15" in b[0].get_title()
    fig = Figure(figsize=WL.POSITION_LAYOUT.figsize)
    c = WL.draw_position(15, tables=learned.position_tables(trained, sin, 10), fig=fig)
    np.testing.assert_allclose(c[1].lines[1].get_ydata(), b[1].lines[1].get_ydata())  # panel = static figure
    assert b[0].get_position().bounds == pytest.approx(c[0].get_position().bounds)  # same fixed margins


def _sliders(box):
    out = []
    for child in box.children:
        if isinstance(child, W.IntSlider):
            out.append(child)
        elif isinstance(child, W.Box):
            out.extend(_sliders(child))
    return out


def test_gradient_panel_controls():
    box = WL.gradient_panel(max_seq_len=16, d_model=8, seq_len=5)
    (s,) = _sliders(box)
    assert (s.min, s.max, s.value) == (1, 16, 5)
    assert "tokens" in s.description
    assert s.continuous_update is True  # fast enough to follow the slider


def test_position_panel_controls():
    trained, _, sin = _tables()
    box = WL.position_panel(trained, sin, train_len=10, position=8)
    (s,) = _sliders(box)
    assert (s.min, s.max, s.value) == (0, 23, 8)
    assert "tokens" in s.description
    assert s.continuous_update is True  # fast enough to follow the slider
    s.value = 20  # moving the slider redraws without error
    box = WL.position_panel(trained, sin, train_len=10, position=99)
    assert _sliders(box)[0].value == 23  # a default past the table is clipped to its last row


def test_redraws_differ_between_slider_values():
    """Every control visibly changes the figure: the PNG bytes of two slider values differ."""
    trained, _, sin = _tables()
    tables = learned.position_tables(trained, sin, 10)
    grads = learned.all_row_gradients()
    cases = [
        (WL.POSITION_LAYOUT, lambda fig, v: WL.draw_position(v, tables=tables, fig=fig), (3, 4)),
        (WL.GRADIENT_LAYOUT, lambda fig, v: WL.draw_row_gradients(v, grads=grads, fig=fig), (5, 6)),
    ]
    for layout, draw, (v1, v2) in cases:
        images = []
        for v in (v1, v2):
            fig = Figure(figsize=layout.figsize)
            draw(fig, v)
            images.append(png_bytes(fig))
        assert images[0] != images[1]
        width, height = int.from_bytes(images[0][16:20], "big"), int.from_bytes(images[0][20:24], "big")
        assert (width, height) == (round(layout.figsize[0] * DPI), round(layout.figsize[1] * DPI))
