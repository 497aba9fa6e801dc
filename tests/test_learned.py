"""Learned table: parameter cost, lookups, the clear IndexError past max_seq_len."""

import pytest
import torch

from helpers.learned import LearnedPositionalEmbedding, learned_table_parameters


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
