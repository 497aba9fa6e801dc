"""Every public entry point refuses bad input with a message naming the parameter, the value and what is allowed."""

import numpy as np
import pytest
import torch

from helpers import attention, learned, rope, sinusoidal

X = torch.zeros(2, 5, 8)
COS, SIN = rope.rope_cos_sin(5, rope.rope_inv_freq(8))

BAD_CALLS = [
    # (call, exception, regex the message must match)
    (lambda: rope.rope_inv_freq(7), ValueError, r"dim must be a positive even integer, got 7"),
    (lambda: rope.rope_inv_freq(0), ValueError, r"dim must be a positive even integer, got 0"),
    (lambda: rope.rope_inv_freq(8.0), TypeError, r"dim must be a positive even integer, got 8.0"),
    (lambda: rope.rope_inv_freq(8, base=0), ValueError, r"base must be a finite number > 0, got 0.0"),
    (lambda: rope.rope_inv_freq(8, base=-5), ValueError, r"base must be a finite number > 0, got -5.0"),
    (
        lambda: rope.rope_angles([-1, 2], rope.rope_inv_freq(8)),
        ValueError,
        r"positions must be >= 0, got a position -1",
    ),
    (lambda: rope.rope_angles([0, np.nan], rope.rope_inv_freq(8)), ValueError, r"positions must be finite"),
    (
        lambda: rope.apply_rope(torch.zeros(2, 5, 6), COS, SIN),
        ValueError,
        r"x's last dimension \(6\) must equal 2 \* cos.shape\[-1\] = 8",
    ),
    (
        lambda: rope.apply_rope(torch.zeros(2, 5, 8, dtype=torch.int64), COS, SIN),
        TypeError,
        r"x must be a floating-point tensor.*int64",
    ),
    (lambda: rope.apply_rope(torch.zeros(2, 7, 8), COS, SIN), ValueError, r"cos/sin cover 5 positions but x has T = 7"),
    (
        lambda: rope.apply_rope(X, COS, SIN, layout="neox"),
        ValueError,
        r"layout must be one of \['half_split', 'interleaved'\], got 'neox'",
    ),
    (lambda: rope.apply_rope(X, COS, SIN, rotary_dim=6), ValueError, r"rotary_dim must equal 2 \* cos.shape\[-1\] = 8"),
    (lambda: rope.apply_rope(X.numpy(), COS, SIN), TypeError, r"x must be a torch.Tensor, got ndarray"),
    (
        lambda: rope.rope_cos_sin(4, rope.rope_inv_freq(8), attention_factor=0),
        ValueError,
        r"attention_factor must be a finite number > 0",
    ),
    (lambda: rope.partial_rotary_dim(64, 1.5), ValueError, r"partial_rotary_factor must be in \(0, 1\], got 1.5"),
    (lambda: rope.partial_rotary_dim(10, 0.3), ValueError, r"10 \* 0.3 gives 3 rotated dimensions; it must be even"),
    (
        lambda: rope.permute_qk_rows(torch.zeros(12, 4), 4),
        ValueError,
        r"weight.shape\[0\] = 12 must be n_heads \(4\) times an even head dimension",
    ),
    (lambda: rope.RopeCache(rope.rope_inv_freq(8)).get(-1), ValueError, r"seq_len must be an integer >= 0, got -1"),
    (lambda: rope.Rotary(8)(torch.zeros(3, 6)), ValueError, r"x's last dimension must be dim = 8"),
    (lambda: rope.rotation_matrix(1, 8, inv_freq=[1.0, 0.1]), ValueError, r"inv_freq has 2 pairs but dim = 8 needs 4"),
    (lambda: sinusoidal.sinusoidal_table(4, 5), ValueError, r"d_model must be a positive even integer, got 5"),
    (lambda: sinusoidal.sinusoidal_table(4, 8, base=0.0), ValueError, r"base must be a finite number > 0"),
    (
        lambda: sinusoidal.sinusoidal_table(4, 8, layout="half"),
        ValueError,
        r"layout must be one of \['concat', 'interleaved'\], got 'half'",
    ),
    (lambda: sinusoidal.sinusoidal_table("abc", 8), TypeError, r"positions must be numbers"),
    (lambda: sinusoidal.closest_distinct_positions(1, 8), ValueError, r"n_positions must be an integer >= 2, got 1"),
    (lambda: learned.LearnedPositionalEmbedding(0, 8), ValueError, r"max_seq_len must be an integer >= 1, got 0"),
    (
        lambda: learned.LearnedPositionalEmbedding(4, 8)(torch.tensor([4])),
        IndexError,
        r"position 4 is past the learned table: max_seq_len = 4",
    ),
    (
        lambda: learned.LearnedPositionalEmbedding(4, 8)(torch.tensor([-1])),
        IndexError,
        r"positions must be >= 0, got position -1",
    ),
    (
        lambda: learned.LearnedPositionalEmbedding(4, 8)(torch.tensor([0.5])),
        TypeError,
        r"positions must be an int or an integer tensor",
    ),
    (lambda: attention.scaled_dot_product_attention(X, torch.zeros(2, 5, 4), X), ValueError, r"q and k must share d_k"),
    (
        lambda: attention.scaled_dot_product_attention(X, X, torch.zeros(2, 4, 8)),
        ValueError,
        r"k and v must have the same number of positions",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=torch.ones(5, 5)),
        TypeError,
        r"mask must be a boolean tensor",
    ),
    (
        lambda: rope.rotation_matrix(1, 8, 500.0, inv_freq=rope.rope_inv_freq(8)),
        ValueError,
        r"give base or inv_freq, not both \(got base=500.0",
    ),
    (
        lambda: rope.Rotary(8, 500.0, inv_freq=rope.rope_inv_freq(8)),
        ValueError,
        r"give base or inv_freq, not both \(got base=500.0",
    ),
    # issue 10: a mask must match (T_q, T_k) and must not broadcast unbatched q/k/v into a batch
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=torch.ones(5, 3, dtype=torch.bool)),
        ValueError,
        r"mask must have shape \(\.\.\., T_q, T_k\) = \(\.\.\., 5, 5\), got \(5, 3\)",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X[0], X[0], X[0], mask=torch.ones(3, 5, 5, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(3, 5, 5\) does not broadcast to the scores' shape \(5, 5\) without adding dimensions",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=torch.ones(3, 5, 5, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(3, 5, 5\) does not broadcast to the scores' shape \(2, 5, 5\)",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, mask=[[True] * 5] * 5),
        TypeError,
        r"mask must be a boolean torch.Tensor \(True = may attend\), got list",
    ),
    # issue 10: partial rotary is asked for, never inferred from a short inv_freq; odd D refused
    (
        lambda: rope.rope(X, inv_freq=[1.0, 0.1]),
        ValueError,
        r"inv_freq must have rotary_dim / 2 = 4 frequencies .* got 2; for partial rotary pass rotary_dim explicitly",
    ),
    (lambda: rope.rope(torch.zeros(5, 7)), ValueError, r"x's last dimension D must be even .* got D = 7"),
    (lambda: rope.rope(X, rotary_dim=10), ValueError, r"rotary_dim must be <= x.shape\[-1\] = 8, got 10"),
    (lambda: rope.rope(X, rotary_dim=3), ValueError, r"rotary_dim must be a positive even integer, got 3"),
    (
        lambda: rope.rope(X, base=500.0, inv_freq=rope.rope_inv_freq(8)),
        ValueError,
        r"give base or inv_freq, not both \(got base=500.0",
    ),
    (
        lambda: attention.self_attention(X, torch.zeros(6, 4), torch.zeros(8, 4), torch.zeros(8, 4)),
        ValueError,
        r"w_q must have shape \(d_model=8, d\), got \(6, 4\)",
    ),
    (
        lambda: attention.self_attention(X, *(torch.zeros(8, 4),) * 3, positional=np.zeros((4, 8))),
        ValueError,
        r"an additive position table must have shape \(T, d_model\) = \(5, 8\), got \(4, 8\)",
    ),
]


@pytest.mark.parametrize(("call", "exc", "pattern"), BAD_CALLS, ids=[f"bad{i:02d}" for i in range(len(BAD_CALLS))])
def test_bad_input_is_refused_clearly(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_there_are_at_least_fifteen_distinct_bad_calls():
    assert len({p for _, _, p in BAD_CALLS}) >= 15


def test_partial_rotary_on_request_rotates_only_the_first_dimensions():
    x = torch.randn(5, 8, dtype=torch.float64)
    out = rope.rope(x, inv_freq=rope.rope_inv_freq(4), rotary_dim=4)
    assert torch.equal(out[:, 4:], x[:, 4:])
    assert torch.allclose(out[:, :4], rope.rope(x[:, :4]))


def test_a_matching_mask_with_batch_dimensions_is_accepted():
    mask = attention.causal_mask(5)[None].expand(2, 5, 5)  # (2, 5, 5)
    out, w = attention.scaled_dot_product_attention(X + 1.0, X, X, mask=mask)
    assert out.shape == (2, 5, 8) and torch.all(w.triu(1) == 0)


MORE_SILENT_ACCEPTANCES = [
    # found by trying every public function as a new user would (issue 10): each was accepted silently before
    (lambda: rope.rope_angles(np.zeros((2, 3), int), rope.rope_inv_freq(8)), ValueError, r"got shape \(2, 3\)"),
    (lambda: rope.rope_cos_sin(np.zeros((2, 3), int), rope.rope_inv_freq(8)), ValueError, r"1-D array of shape \(T,\)"),
    (lambda: sinusoidal.sinusoidal_table(np.zeros((2, 3)), 8), ValueError, r"positions must be an int n .* got shape"),
    (
        lambda: attention.scaled_dot_product_attention(torch.zeros(5, 8), torch.zeros(2, 5, 8), torch.zeros(2, 5, 8)),
        ValueError,
        r"q, k and v must have the same leading \(batch, head\) dimensions, got q \(5, 8\), k \(2, 5, 8\)",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, causal="yes"),
        TypeError,
        r"causal must be True or False, got 'yes'",
    ),
    (
        lambda: attention.scaled_dot_product_attention(X, X, X, logit_scale=-1.0),
        ValueError,
        r"logit_scale must be a finite number > 0",
    ),
    (lambda: attention.causal_mask(-1), ValueError, r"t_q must be an integer >= 0, got -1"),
    (lambda: attention.causal_mask(2.5), TypeError, r"t_q must be an integer, got 2.5"),
    (lambda: attention.causal_mask(4, 3), ValueError, r"t_k must be an integer >= 4, got 3"),
    (
        lambda: attention.self_attention(torch.zeros(8), *(torch.zeros(8, 4),) * 3),
        ValueError,
        r"x must have shape \(\.\.\., T, d_model\) with at least 2 dimensions, got \(8,\)",
    ),
]


@pytest.mark.parametrize(("call", "exc", "pattern"), MORE_SILENT_ACCEPTANCES)
def test_silent_acceptances_are_now_refused(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()
