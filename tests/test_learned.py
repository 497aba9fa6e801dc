"""Learned table: parameter cost, lookups, the clear IndexError past max_seq_len."""

import numpy as np
import pytest
import torch

from helpers import learned
from helpers.learned import LearnedPositionalEmbedding, learned_table_parameters
from helpers.sinusoidal import sinusoidal_table


def test_parameter_cost_of_real_models():
    assert learned_table_parameters(1024, 768) == 786_432  # GPT-2
    assert learned_table_parameters(512, 768) == 393_216  # BERT-base
    emb = LearnedPositionalEmbedding(16, 8)
    assert emb.n_parameters == sum(p.numel() for p in emb.parameters()) == 128


def test_lookup_and_gradient_only_reaches_used_rows():
    emb = LearnedPositionalEmbedding(10, 4, seed=1)
    out = emb(torch.tensor([0, 3, 3]))
    assert out.shape == (3, 4)
    torch.testing.assert_close(emb(4), emb.table[:4])
    out.sum().backward()
    used = emb.table.grad.abs().sum(-1) > 0
    assert used.tolist() == [True, False, False, True] + [False] * 6


def test_deterministic_init():
    assert torch.equal(LearnedPositionalEmbedding(5, 4, seed=3).table, LearnedPositionalEmbedding(5, 4, seed=3).table)


@pytest.mark.parametrize("positions", [torch.tensor([0, 512]), 513])
def test_past_the_table_raises_a_clear_index_error(positions):
    emb = LearnedPositionalEmbedding(512, 8)
    with pytest.raises(IndexError, match=r"position 512 is past the learned table: max_seq_len = 512"):
        emb(positions)


def _tables(T=24, d=16, train_len=10, seed=0):
    rng = np.random.default_rng(seed)
    init = rng.normal(size=(T, d)) * 0.02
    trained = init.copy()
    trained[:train_len] += rng.normal(size=(train_len, d))
    return trained, init, sinusoidal_table(T, d)


# ---- measuring a table (notebook 03), against independent computations ---------------------------------------------


def test_cosine_similarity_matches_torch():
    table = np.random.default_rng(1).normal(size=(12, 6))
    expected = torch.nn.functional.cosine_similarity(
        torch.tensor(table)[:, None, :], torch.tensor(table)[None, :, :], dim=-1
    ).numpy()
    np.testing.assert_allclose(learned.cosine_similarity_matrix(table), expected, atol=1e-12)
    # a torch tensor with grad is accepted and gives the same matrix
    np.testing.assert_allclose(
        learned.cosine_similarity_matrix(torch.tensor(table, requires_grad=True)), expected, atol=1e-12
    )


def test_cosine_similarity_of_sinusoidal_table_depends_on_offset_only():
    # ⟨PE(p), PE(q)⟩ = Σ_i cos((p − q)ω_i) and ‖PE(p)‖² = d/2: an independent closed form.
    d, T = 16, 20
    s = learned.cosine_similarity_matrix(sinusoidal_table(T, d))
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    offsets = np.arange(T)[:, None] - np.arange(T)[None, :]
    expected = np.cos(offsets[..., None] * omega).sum(-1) / (d / 2)
    np.testing.assert_allclose(s, expected, atol=1e-12)


def test_cosine_similarity_zero_row_and_bad_shape():
    table = np.array([[1.0, 0.0], [0.0, 0.0], [2.0, 2.0]])
    s = learned.cosine_similarity_matrix(table)
    assert np.all(s[1] == 0) and np.all(s[:, 1] == 0)
    np.testing.assert_allclose(s[0, 2], 1 / np.sqrt(2))
    with pytest.raises(ValueError, match="shape"):
        learned.cosine_similarity_matrix(np.zeros(5))


def test_row_distance():
    trained, init, _ = _tables()
    d = learned.row_distance(trained, init)
    np.testing.assert_allclose(d, [np.sqrt(((trained[p] - init[p]) ** 2).sum()) for p in range(len(d))])
    assert np.all(d[10:] == 0) and np.all(d[:10] > 0)
    with pytest.raises(ValueError, match="same shape"):
        learned.row_distance(trained, init[:-1])


def test_row_gradients_reach_only_used_rows():
    grad = learned.row_gradients(5, max_seq_len=12, d_model=4)
    assert grad.shape == (12, 4)
    assert torch.all(grad[5:] == 0) and torch.all(grad[:5].abs().sum(-1) > 0)
    # ∂/∂table of Σ ⟨table[t], x_t⟩ is x_t: the same seeded upstream vectors
    upstream = torch.randn(5, 4, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(grad[:5], upstream)
