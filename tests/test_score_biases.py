"""Score biases: ALiBi slopes against the paper's rule, T5 buckets against HF transformers, shapes, masks, errors."""

import math

import pytest
import torch
from transformers import T5Config
from transformers.models.bloom.modeling_bloom import build_alibi_tensor
from transformers.models.t5.modeling_t5 import T5Attention

from helpers.attention import causal_mask
from helpers.score_biases import (
    T5RelativeBias,
    alibi_bias,
    alibi_effective_window,
    alibi_slopes,
    causal_additive_mask,
    relative_position_bucket,
    relative_positions,
    t5_bucket_thresholds,
    t5_relative_bucket,
)


# --------------------------------------------------------------------------- ALiBi slopes
def reference_slopes(n_heads: int) -> list[float]:
    """The rule of Press et al. 2022 §3, written independently: start = ratio = 2^(−8/n), slope_i = start·ratio^i."""

    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))  # 2^(−8/n)
        return [start * start**i for i in range(n)]

    k = 2 ** math.floor(math.log2(n_heads))
    if k == n_heads:
        return power_of_two(n_heads)
    return power_of_two(k) + reference_slopes(2 * k)[::2][: n_heads - k]


@pytest.mark.parametrize("n_heads", range(1, 65))
def test_alibi_slopes_match_the_papers_rule(n_heads):
    ours = alibi_slopes(n_heads)
    assert ours.shape == (n_heads,) and ours.dtype == torch.float64
    torch.testing.assert_close(ours, torch.tensor(reference_slopes(n_heads), dtype=torch.float64), rtol=1e-13, atol=0)
    assert len(set(ours.tolist())) == n_heads  # every head has its own slope
    assert bool((ours > 0).all() and (ours < 1).all())


@pytest.mark.parametrize("n_heads", [1, 3, 8, 12, 16, 20, 32, 48, 64])
def test_alibi_slopes_match_hf_bloom(n_heads):
    """HF's BLOOM computes the same rule in float32: its bias for one row is slope_h·n."""
    hf = build_alibi_tensor(torch.ones(1, 2), n_heads, torch.float32)[:, 0, 1]  # (H,) = slope_h·1
    torch.testing.assert_close(alibi_slopes(n_heads).float(), hf, rtol=1e-6, atol=0)


def test_alibi_slopes_exact_values():
    assert alibi_slopes(8).tolist() == [2.0**-h for h in range(1, 9)]
    assert alibi_slopes(1).tolist() == [2.0**-8]
    assert alibi_slopes(2).tolist() == [2.0**-4, 2.0**-8]
    assert alibi_slopes(4).tolist() == [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8]
    twelve = alibi_slopes(12).tolist()
    assert twelve[:8] == [2.0**-h for h in range(1, 9)]
    torch.testing.assert_close(torch.tensor(twelve[8:]), torch.tensor([2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]))
    assert alibi_slopes(3).tolist() == [2.0**-4, 2.0**-8, 2.0**-2]


def test_alibi_effective_window():
    win = alibi_effective_window(8, math.log(100))
    torch.testing.assert_close(win, math.log(100) * 2.0 ** torch.arange(1, 9, dtype=torch.float64))
    # at that distance the penalty is exactly the threshold: the weight ratio to distance 0 is 1/100
    for h, d in enumerate(win.tolist()):
        assert math.exp(-alibi_slopes(8)[h].item() * d) == pytest.approx(0.01)


# --------------------------------------------------------------------------- ALiBi bias and masks
def test_alibi_bias_formula_shape_and_offset():
    h, tq, tk, off = 6, 5, 11, 4
    bias = alibi_bias(h, tq, tk, offset=off)
    assert bias.shape == (h, tq, tk) and bias.dtype == torch.float32
    slopes = alibi_slopes(h)
    for head in range(h):
        for row in range(tq):
            m = off + row
            for n in range(tk):
                assert bias[head, row, n].item() == pytest.approx(-slopes[head].item() * (m - n), rel=1e-6, abs=1e-7)
    assert alibi_bias(h, 3).shape == (h, 3, 3)
    assert alibi_bias(h, 1, offset=9).shape == (h, 1, 10)  # one new token against a cache of 9
    assert alibi_bias(h, 4, dtype=torch.float64).dtype == torch.float64


def test_alibi_bias_is_zero_on_the_diagonal_negative_below_and_toeplitz():
    bias = alibi_bias(4, 7, dtype=torch.float64)
    assert torch.all(torch.diagonal(bias, dim1=1, dim2=2) == 0)
    below = torch.tril(torch.ones(7, 7, dtype=torch.bool), -1)
    assert bool((bias[:, below] < 0).all())
    torch.testing.assert_close(bias[:, 1:, 1:], bias[:, :-1, :-1])  # depends on n − m only


def test_alibi_decoding_with_a_cache_gives_the_full_matrix_rows():
    full = alibi_bias(8, 12)
    for t in range(12):
        torch.testing.assert_close(alibi_bias(8, 1, offset=t), full[:, t : t + 1, : t + 1])
    torch.testing.assert_close(alibi_bias(8, 4, offset=8), full[:, 8:, :])


def test_alibi_softmax_equals_blooms_slope_times_key_shortcut():
    """bias = slope·(n − m) and BLOOM's slope·n differ by a per-row constant: same causal attention weights."""
    h, t = 5, 9
    logits = torch.randn(h, t, t, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    mask = causal_additive_mask(t, dtype=torch.float64)
    ours = torch.softmax(logits + alibi_bias(h, t, dtype=torch.float64) + mask, dim=-1)
    bloom = build_alibi_tensor(torch.ones(1, t), h, torch.float64).view(h, 1, t)
    theirs = torch.softmax(logits + bloom + mask, dim=-1)
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-7)  # BLOOM's slopes are float32


@pytest.mark.parametrize(("tq", "tk"), [(5, 5), (1, 6), (3, 8), (4, 4)])
def test_causal_additive_mask_matches_the_boolean_mask(tq, tk):
    add = causal_additive_mask(tq, tk, offset=tk - tq)
    allowed = causal_mask(tq, tk)
    assert torch.equal(add == 0, allowed)
    assert bool(torch.isneginf(add[~allowed]).all())


@pytest.mark.parametrize(("tq", "tk", "window"), [(9, 9, 1), (9, 9, 3), (4, 10, 5), (6, 6, 20)])
def test_sliding_window_mask_equals_hf_sliding_window_causal_mask(tq, tk, window):
    """window W: key n visible from query m iff m − W < n <= m, HF 5.24's rule (masking_utils), queries at the end."""
    from transformers.masking_utils import sliding_window_causal_mask_function

    add = causal_additive_mask(tq, tk, offset=tk - tq, window=window)  # (T_q, T_k)
    rule = sliding_window_causal_mask_function(window)
    zero = torch.tensor(0)
    allowed = rule(zero, zero, torch.arange(tk - tq, tk)[:, None], torch.arange(tk)[None, :])  # (T_q, T_k) bool
    assert torch.equal(add == 0, allowed) and bool(torch.isneginf(add[~allowed]).all())
    if window >= tk:  # a window longer than the sequence is the plain causal mask
        assert torch.equal(add, causal_additive_mask(tq, tk, offset=tk - tq))


def test_sliding_window_mask_gives_gemma3_block_attention():
    """softmax(q·kᵀ/√d + mask(W))·v equals helpers.real.gemma3.sliding_window_attention (blocks of W queries)."""
    from helpers.real.gemma3 import sliding_window_attention

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 23, 8, generator=g, dtype=torch.float64) for _ in range(3))  # (H, T, D)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8) + causal_additive_mask(23, window=5, dtype=q.dtype), -1)
    torch.testing.assert_close(w @ v, sliding_window_attention(q, k, v, 5))


def test_relative_positions_convention_key_minus_query():
    rel = relative_positions(2, 4, offset=1)
    assert rel.tolist() == [[-1, 0, 1, 2], [-2, -1, 0, 1]]
    assert rel.dtype == torch.long
    assert relative_positions(0).shape == (0, 0)


# --------------------------------------------------------------------------- T5 buckets
GRID = torch.arange(-2500, 2501)
BUCKET_CASES = [
    (bi, nb, md)
    for bi in (False, True)
    for nb in (2, 3, 4, 5, 6, 8, 10, 16, 24, 32, 64, 128)
    for md in (2, 3, 4, 5, 8, 16, 20, 32, 50, 64, 100, 128, 200, 256, 1000, 2048)
    if not (bi and nb % 2) and (nb // 2 if bi else nb) >= 2 and md > (nb // 2 if bi else nb) // 2
]


def exact_boundaries(bidirectional, num_buckets, max_distance):
    """Distances p where N·ln(p/e)/ln(M/e) is an exact integer j in 1..N−1 (the mathematically ambiguous floors)."""
    n = num_buckets // 2 if bidirectional else num_buckets
    e = n // 2
    big_n = n - e
    return {
        p for j in range(1, big_n) for p in range(e, max_distance + 1) if p**big_n * e**j == max_distance**j * e**big_n
    }


@pytest.mark.parametrize(("bidirectional", "num_buckets", "max_distance"), BUCKET_CASES)
def test_t5_buckets_match_hf_except_exactly_on_a_boundary(bidirectional, num_buckets, max_distance):
    kw = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}
    ours = t5_relative_bucket(GRID, **kw)
    hf = T5Attention._relative_position_bucket(GRID, **kw)
    differ = ours != hf
    if differ.any():  # only where float32 rounding in HF puts an exact boundary one bucket lower
        dist = GRID[differ].abs().tolist()
        assert set(dist) <= exact_boundaries(**kw), (kw, sorted(set(dist)))
        assert bool((ours[differ] - hf[differ] == 1).all())
    assert ours.dtype == torch.long and ours.shape == GRID.shape
    assert int(ours.min()) >= 0 and int(ours.max()) < num_buckets


def test_the_grid_contains_exact_boundaries_so_the_comparison_can_fail():
    assert 16 in exact_boundaries(True, 32, 128)  # e = 8, M = 128, N = 8: 16 = 8·16^(2/8)
    assert {16, 32, 64} <= exact_boundaries(True, 32, 128)
    assert sum(len(exact_boundaries(*case)) for case in BUCKET_CASES) > 50


def test_exact_boundary_goes_to_the_upper_bucket():
    rel = -torch.tensor([15, 16, 31, 32, 63, 64, 127, 128, 5000])
    got = t5_relative_bucket(rel, bidirectional=True, num_buckets=32, max_distance=128)
    # keys before the query use the lower half: e = 8, buckets 8 + j with j = floor(8·log16(p/8))
    assert got.tolist() == [9, 10, 11, 12, 13, 14, 15, 15, 15]


@pytest.mark.parametrize(("bidirectional", "num_buckets", "max_distance"), BUCKET_CASES[::7])
def test_thresholds_are_the_smallest_integers_satisfying_the_inequality(bidirectional, num_buckets, max_distance):
    n = num_buckets // 2 if bidirectional else num_buckets
    e, big_n = n // 2, n - n // 2
    thr = t5_bucket_thresholds(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    assert len(thr) == big_n - 1 and thr == sorted(thr)
    for j, t in enumerate(thr, start=1):
        assert t**big_n * e**j >= max_distance**j * e**big_n
        assert t == e or (t - 1) ** big_n * e**j < max_distance**j * e**big_n


def test_t5_bucket_structure_causal():
    dist = torch.arange(0, 400)
    b = t5_relative_bucket(-dist, bidirectional=False, num_buckets=32, max_distance=128)
    assert b[:16].tolist() == list(range(16))  # exact range: one bucket per distance
    assert bool((b.diff() >= 0).all())  # never decreases with distance
    assert bool((b[128:] == 31).all())  # everything at or past max_distance shares the last bucket
    assert int(b[127]) == 31 or int(b[127]) == 30
    future = t5_relative_bucket(torch.arange(1, 10), bidirectional=False, num_buckets=32, max_distance=128)
    assert bool((future == 0).all())  # keys after the query: bucket 0 (masked anyway)


def test_t5_bucket_structure_bidirectional():
    b_past = t5_relative_bucket(-torch.arange(0, 300), bidirectional=True, num_buckets=32, max_distance=128)
    b_future = t5_relative_bucket(torch.arange(0, 300), bidirectional=True, num_buckets=32, max_distance=128)
    assert int(b_past[0]) == int(b_future[0]) == 0
    assert b_past[:8].tolist() == list(range(8))
    assert b_future[1:8].tolist() == list(range(17, 24))
    assert bool((b_future[1:] >= 16).all() and (b_past < 16).all())
    assert int(b_past[-1]) == 15 and int(b_future[-1]) == 31


def test_relative_position_bucket_is_the_same_function():
    assert relative_position_bucket is t5_relative_bucket


def test_t5_bucket_accepts_int32_and_keeps_the_shape():
    rel = relative_positions(3, 5).to(torch.int32)
    got = t5_relative_bucket(rel, bidirectional=False, num_buckets=8, max_distance=16)
    assert got.shape == (3, 5) and got.dtype == torch.long


# --------------------------------------------------------------------------- the module
def test_t5_relative_bias_matches_hf_compute_bias():
    h, nb, md = 4, 16, 40
    ours = T5RelativeBias(h, num_buckets=nb, max_distance=md, seed=3)
    cfg = T5Config(
        d_model=16,
        d_kv=4,
        num_heads=h,
        relative_attention_num_buckets=nb,
        relative_attention_max_distance=md,
        is_decoder=True,
    )
    hf = T5Attention(cfg, has_relative_attention_bias=True)
    with torch.no_grad():
        hf.relative_attention_bias.weight.copy_(ours.table)
        for tq, tk, off in [(50, 50, 0), (1, 60, 59), (7, 30, 23)]:
            torch.testing.assert_close(ours(tq, tk, offset=off), hf.compute_bias(tq, tk, past_seen_tokens=off)[0])


def test_t5_relative_bias_shapes_values_gradient_and_seed():
    mod = T5RelativeBias(3, num_buckets=8, max_distance=20, seed=1)
    assert mod.table.shape == (8, 3)
    out = mod(6, 9, offset=3)
    assert out.shape == (3, 6, 9)
    idx = mod.buckets(6, 9, offset=3)
    torch.testing.assert_close(out, mod.table[idx].permute(2, 0, 1))
    torch.testing.assert_close(mod(1, offset=5), mod(6)[:, 5:6, :])  # cache rows = full-matrix rows
    mod(30).sum().backward()
    assert mod.table.grad is not None and bool((mod.table.grad.abs().sum(-1) > 0).all())
    assert torch.equal(T5RelativeBias(3, seed=7).table, T5RelativeBias(3, seed=7).table)
    assert not torch.equal(T5RelativeBias(3, seed=7).table, T5RelativeBias(3, seed=8).table)
    assert "num_buckets=8" in repr(mod)


def test_t5_relative_bias_is_relative_and_flat_past_max_distance():
    mod = T5RelativeBias(2, num_buckets=8, max_distance=16, seed=0)
    b = mod(64).detach()
    torch.testing.assert_close(b[:, 1:, 1:], b[:, :-1, :-1])  # Toeplitz: depends on n − m only
    far = b[:, 63, :48]  # distances 16..63 from the last query
    assert bool((far == far[:, :1]).all())  # far keys look alike


# --------------------------------------------------------------------------- bad input
BAD = [
    (lambda: alibi_slopes(0), ValueError, r"num_heads must be an integer >= 1, got 0"),
    (lambda: alibi_slopes(-4), ValueError, r"num_heads must be an integer >= 1, got -4"),
    (lambda: alibi_slopes(8.0), TypeError, r"num_heads must be an integer, got 8.0"),
    (lambda: alibi_slopes(True), TypeError, r"num_heads must be an integer, got True"),
    (lambda: alibi_bias(0, 4), ValueError, r"num_heads must be an integer >= 1, got 0"),
    (lambda: alibi_bias(4, -1), ValueError, r"query_len must be an integer >= 0, got -1"),
    (lambda: alibi_bias(4, 3, -2), ValueError, r"key_len must be an integer >= 0, got -2"),
    (lambda: alibi_bias(4, 3, offset=-1), ValueError, r"offset must be an integer >= 0, got -1"),
    (lambda: alibi_bias(4, 3, dtype=torch.long), TypeError, r"dtype must be a floating-point torch.dtype"),
    (lambda: alibi_effective_window(4, 0.0), ValueError, r"threshold must be a finite number > 0, got 0.0"),
    (lambda: causal_additive_mask(2.5), TypeError, r"query_len must be an integer, got 2.5"),
    (lambda: causal_additive_mask(4, window=0), ValueError, r"window must be an integer >= 1, got 0"),
    (lambda: causal_additive_mask(4, window=2.0), TypeError, r"window must be an integer, got 2.0"),
    (
        lambda: t5_relative_bucket(torch.tensor([1.0]), bidirectional=False, num_buckets=8, max_distance=16),
        TypeError,
        r"relative_position must be an integer tensor .* got dtype torch.float32",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([True]), bidirectional=False, num_buckets=8, max_distance=16),
        TypeError,
        r"relative_position must be an integer tensor .* got dtype torch.bool",
    ),
    (
        lambda: t5_relative_bucket([1, 2], bidirectional=False, num_buckets=8, max_distance=16),
        TypeError,
        r"relative_position must be an integer torch.Tensor, got list",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([1]), bidirectional=1, num_buckets=8, max_distance=16),
        TypeError,
        r"bidirectional must be True or False, got 1",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([1]), bidirectional=False, num_buckets=1, max_distance=16),
        ValueError,
        r"num_buckets must be an integer >= 2, got 1",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([1]), bidirectional=True, num_buckets=2, max_distance=16),
        ValueError,
        r"num_buckets must leave >= 2 buckets per direction .* got num_buckets = 2 .* allowed num_buckets >= 4",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([1]), bidirectional=True, num_buckets=31, max_distance=128),
        ValueError,
        r"num_buckets must be even when bidirectional=True .* got 31",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([1]), bidirectional=False, num_buckets=32, max_distance=16),
        ValueError,
        r"max_distance must be > the exact range \(16 distances 0..15 .* got max_distance = 16",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([1]), bidirectional=False, num_buckets=8, max_distance=0),
        ValueError,
        r"max_distance must be an integer >= 1, got 0",
    ),
    (
        lambda: t5_relative_bucket(torch.tensor([1]), bidirectional=False, num_buckets=8, max_distance=16.0),
        TypeError,
        r"max_distance must be an integer, got 16.0",
    ),
    (lambda: T5RelativeBias(0), ValueError, r"num_heads must be an integer >= 1, got 0"),
    (
        lambda: T5RelativeBias(4, num_buckets=8, max_distance=3),
        ValueError,
        r"max_distance must be > the exact range \(4 distances 0..3",
    ),
    (lambda: T5RelativeBias(4, init_std=-1.0), ValueError, r"init_std must be a finite number >= 0, got -1.0"),
    (lambda: T5RelativeBias(4)(-3), ValueError, r"query_len must be an integer >= 0, got -3"),
]


@pytest.mark.parametrize(("call", "exc", "pattern"), BAD, ids=[f"bad{i:02d}" for i in range(len(BAD))])
def test_bad_input_is_refused_clearly(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()
