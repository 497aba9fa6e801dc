"""Notebook 03's figures and panels: what they draw, and the computations behind them."""

import matplotlib

matplotlib.use("Agg")

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from helpers.learned import LearnedPositionalEmbedding
from helpers.plots import learned as P
from helpers.sinusoidal import sinusoidal_table
from helpers.widgets import learned as WL


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _tables(T=24, d=16, train_len=10, seed=0):
    rng = np.random.default_rng(seed)
    init = rng.normal(size=(T, d)) * 0.02
    trained = init.copy()
    trained[:train_len] += rng.normal(size=(train_len, d))
    return trained, init, sinusoidal_table(T, d)


def _labels_present(ax):
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()


# ---- computations against independent ones ----------------------------------------------------------------------


def test_cosine_similarity_matches_torch():
    table = np.random.default_rng(1).normal(size=(12, 6))
    expected = torch.nn.functional.cosine_similarity(
        torch.tensor(table)[:, None, :], torch.tensor(table)[None, :, :], dim=-1
    ).numpy()
    np.testing.assert_allclose(P.cosine_similarity_matrix(table), expected, atol=1e-12)
    # a torch tensor with grad is accepted and gives the same matrix
    np.testing.assert_allclose(
        P.cosine_similarity_matrix(torch.tensor(table, requires_grad=True)), expected, atol=1e-12
    )


def test_cosine_similarity_of_sinusoidal_table_depends_on_offset_only():
    # ⟨PE(p), PE(q)⟩ = Σ_i cos((p − q)ω_i) and ‖PE(p)‖² = d/2: an independent closed form.
    d, T = 16, 20
    s = P.cosine_similarity_matrix(sinusoidal_table(T, d))
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    offsets = np.arange(T)[:, None] - np.arange(T)[None, :]
    expected = np.cos(offsets[..., None] * omega).sum(-1) / (d / 2)
    np.testing.assert_allclose(s, expected, atol=1e-12)


def test_cosine_similarity_zero_row_and_bad_shape():
    table = np.array([[1.0, 0.0], [0.0, 0.0], [2.0, 2.0]])
    s = P.cosine_similarity_matrix(table)
    assert np.all(s[1] == 0) and np.all(s[:, 1] == 0)
    np.testing.assert_allclose(s[0, 2], 1 / np.sqrt(2))
    with pytest.raises(ValueError, match="shape"):
        P.cosine_similarity_matrix(np.zeros(5))


def test_row_distance():
    trained, init, _ = _tables()
    d = P.row_distance(trained, init)
    np.testing.assert_allclose(d, [np.sqrt(((trained[p] - init[p]) ** 2).sum()) for p in range(len(d))])
    assert np.all(d[10:] == 0) and np.all(d[:10] > 0)
    with pytest.raises(ValueError, match="same shape"):
        P.row_distance(trained, init[:-1])


def test_row_gradients_reach_only_used_rows():
    grad = WL.row_gradients(5, max_seq_len=12, d_model=4)
    assert grad.shape == (12, 4)
    assert torch.all(grad[5:] == 0) and torch.all(grad[:5].abs().sum(-1) > 0)
    # ∂/∂table of Σ ⟨table[t], x_t⟩ is x_t: the same seeded upstream vectors
    upstream = torch.randn(5, 4, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(grad[:5], upstream)


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
    _labels_present(ax)


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
    np.testing.assert_allclose(im.get_array(), P.cosine_similarity_matrix(trained))
    assert im.get_clim() == (-1.0, 1.0)
    assert len(ax.lines) == 2  # the training length, marked on both axes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["training length L = 10"]
    _labels_present(ax)
    axes = P.plot_similarity_pair(trained, sin, train_len=10)
    assert len(axes) == 2
    np.testing.assert_allclose(axes[1].get_images()[0].get_array(), P.cosine_similarity_matrix(sin))
    assert "learned" in axes[0].get_title() and "sinusoidal" in axes[1].get_title()


def test_plot_distance_from_init():
    trained, init, _ = _tables()
    d = P.row_distance(trained, init)
    ax = P.plot_distance_from_init(d, train_len=10)
    line, mark = ax.lines
    np.testing.assert_allclose(line.get_ydata(), d)
    assert mark.get_xdata()[0] == 9.5
    assert "L = 10" in mark.get_label()
    _labels_present(ax)


def test_plot_position_comparison_follows_position():
    trained, _, sin = _tables()
    a0, a1 = P.plot_position_comparison(3, trained, sin, train_len=10)
    b0, b1 = P.plot_position_comparison(7, trained, sin, train_len=10)
    for ax in (a0, a1):
        _labels_present(ax)
    # left: unit vectors of row p; right: similarity row S[p, :]
    np.testing.assert_allclose(a0.lines[1].get_ydata(), trained[3] / np.linalg.norm(trained[3]))
    np.testing.assert_allclose(a0.lines[0].get_ydata(), sin[3] / np.linalg.norm(sin[3]))
    np.testing.assert_allclose(a1.lines[1].get_ydata(), P.cosine_similarity_matrix(trained)[3])
    np.testing.assert_allclose(b1.lines[0].get_ydata(), P.cosine_similarity_matrix(sin)[7])
    assert not np.allclose(a1.lines[1].get_ydata(), b1.lines[1].get_ydata())
    assert "p = 7" in b0.get_title()
    with pytest.raises(IndexError):
        P.plot_position_comparison(24, trained, sin)
    with pytest.raises(ValueError):
        P.plot_position_comparison(0, trained, sin[:-1])


# ---- widget redraws and panels --------------------------------------------------------------------------------------


def test_draw_row_gradients_changes_with_seq_len():
    h3 = [b.get_height() for b in WL.draw_row_gradients(3).patches]
    h9 = [b.get_height() for b in WL.draw_row_gradients(9).patches]
    assert len(h3) == len(h9) == 16
    assert sum(h > 0 for h in h3) == 3 and sum(h > 0 for h in h9) == 9


def test_draw_position_changes_with_position():
    trained, _, sin = _tables()
    a = WL.draw_position(2, trained, sin, 10)
    b = WL.draw_position(15, trained, sin, 10)
    assert not np.allclose(a[1].lines[0].get_ydata(), b[1].lines[0].get_ydata())
    assert "p = 15" in b[0].get_title()


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
    assert s.continuous_update is False  # redraws on release
    assert isinstance(box.children[-1], W.Output)


def test_position_panel_controls():
    trained, _, sin = _tables()
    box = WL.position_panel(trained, sin, train_len=10, position=8)
    (s,) = _sliders(box)
    assert (s.min, s.max, s.value) == (0, 23, 8)
    assert "tokens" in s.description
    assert s.continuous_update is False  # redraws on release
    s.value = 20  # moving the slider redraws without error
