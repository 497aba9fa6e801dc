"""RoPE: properties (hypothesis), the chapter's worked example, layouts, cache, and HF's rotate_half."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import rope as R

dims = st.sampled_from([2, 4, 8, 16, 64])
bases = st.sampled_from([10.0, 100.0, 1e4, 5e5])
positions = st.integers(min_value=0, max_value=5000)
layouts = st.sampled_from(R.LAYOUTS)


def _vec(seed: int, *shape: int, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _rot(x: torch.Tensor, pos: int, base: float, layout: str) -> torch.Tensor:
    """Rotate a single vector x (D,) to position pos."""
    return R.rope(x[None, :], [pos], base=base, layout=layout)[0]


# --------------------------------------------------------------------------- the chapter's example
def test_chapter_d4_frequencies_and_angles():
    theta = R.rope_inv_freq(4)
    np.testing.assert_allclose(theta, [1.0, 0.01], rtol=1e-15)
    # Errata E3: position 1 turns pair 0 by 1 rad = 57.30 degrees, not "about 54 degrees".
    assert f"{R.degrees(theta[0]):.2f}" == "57.30"
    assert f"{R.degrees(theta[1]):.2f}" == "0.57"
    r1 = R.rotation_matrix(1, 4)
    np.testing.assert_allclose(r1[:2, :2], [[0.540302, -0.841471], [0.841471, 0.540302]], atol=1e-6)
    np.testing.assert_allclose(r1[2:, 2:], [[0.99995, -0.0099998], [0.0099998, 0.99995]], atol=1e-6)


def test_position_zero_is_identity_and_angles_are_float64():
    x = _vec(0, 3, 7, 16, dtype=torch.float32)
    for layout in R.LAYOUTS:
        cos, sin = R.rope_cos_sin([0], R.rope_inv_freq(16))
        out = R.apply_rope(x[..., :1, :], cos, sin, layout=layout)
        assert torch.equal(out, x[..., :1, :])
    assert R.rope_angles(10, R.rope_inv_freq(8)).dtype == np.float64


# --------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(dims, bases, positions, layouts, st.integers(0, 10_000))
def test_rotation_preserves_norm(dim, base, pos, layout, seed):
    x = _vec(seed, dim)
    np.testing.assert_allclose(_rot(x, pos, base, layout).norm(), x.norm(), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(dims, bases, positions, positions, st.integers(0, 3000), layouts, st.integers(0, 10_000))
def test_score_depends_only_on_relative_position(dim, base, m, n, k, layout, seed):
    q, kk = _vec(seed, dim), _vec(seed + 1, dim)
    s1 = _rot(q, m, base, layout) @ _rot(kk, n, base, layout)
    s2 = _rot(q, m + k, base, layout) @ _rot(kk, n + k, base, layout)
    assert abs(float(s1 - s2)) <= 1e-9 * (1 + float(q.norm() * kk.norm()))


@settings(max_examples=60, deadline=None)
@given(dims, bases, positions, st.integers(0, 10_000))
def test_layouts_agree_after_permutation(dim, base, pos, seed):
    x = _vec(seed, dim)
    p = R.interleaved_to_half_split(dim)
    inter = _rot(x, pos, base, "interleaved")
    half = _rot(x[p], pos, base, "half_split")
    torch.testing.assert_close(half, inter[p], rtol=0, atol=1e-12)
    q = R.half_split_to_interleaved(dim)
    torch.testing.assert_close(x[p][q], x)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([4, 8, 16]), st.integers(1, 4), positions, st.integers(0, 10_000))
def test_permuting_wq_rows_makes_half_split_code_match_an_interleaved_checkpoint(head_dim, n_heads, pos, seed):
    d_model = 12
    w_q = _vec(seed, n_heads * head_dim, d_model)  # nn.Linear layout (out, in)
    x = _vec(seed + 1, d_model)
    q_inter = (w_q @ x).view(n_heads, head_dim)  # (H, D)
    q_half = (R.permute_qk_rows(w_q, n_heads) @ x).view(n_heads, head_dim)  # (H, D)
    p = R.interleaved_to_half_split(head_dim)
    want = R.rope(q_inter[:, None, :], [pos], layout="interleaved")[:, 0][:, p]
    got = R.rope(q_half[:, None, :], [pos], layout="half_split")[:, 0]
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)
    # and the permutation is undone exactly
    back = R.permute_qk_rows(R.permute_qk_rows(w_q, n_heads), n_heads, to="interleaved")
    assert torch.equal(back, w_q)


def test_permute_qk_rows_matches_hf_conversion_formula():
    # HF's convert_llama_weights_to_hf.permute: w.view(H, D//2, 2, d).transpose(1, 2).reshape(H*D, d)
    n_heads, head_dim, d_model = 4, 8, 16
    w = _vec(3, n_heads * head_dim, d_model)
    hf = w.view(n_heads, head_dim // 2, 2, d_model).transpose(1, 2).reshape(n_heads * head_dim, d_model)
    assert torch.equal(R.permute_qk_rows(w, n_heads), hf)


@pytest.mark.parametrize("layout", R.LAYOUTS)
def test_rotation_matrix_matches_apply_rope_and_complex_form(layout):
    dim, pos = 8, 7
    x = _vec(5, dim)
    torch.testing.assert_close(
        torch.from_numpy(R.rotation_matrix(pos, dim, layout=layout)) @ x, _rot(x, pos, 1e4, layout)
    )
    # complex form: pair i of the interleaved layout multiplied by e^{i m θ_i}
    z = torch.complex(x[0::2], x[1::2]) * torch.exp(1j * pos * torch.from_numpy(R.rope_inv_freq(dim)))
    want = torch.stack([z.real, z.imag], -1).flatten()
    torch.testing.assert_close(_rot(x, pos, 1e4, "interleaved"), want)
    m = R.rotation_matrix(pos, dim, layout=layout)
    np.testing.assert_allclose(m @ m.T, np.eye(dim), atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_fast_paths_match_the_chapters_stack_flatten_code(dtype):
    x = _vec(9, 2, 3, 33, 16).to(dtype)
    cos, sin = R.rope_cos_sin(33, R.rope_inv_freq(16), dtype=dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    chapter = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype == torch.bfloat16 else {}
    torch.testing.assert_close(R.apply_rope(x, cos, sin, layout="interleaved"), chapter, **tol)


def test_partial_rotary_leaves_the_tail_untouched():
    x = _vec(1, 2, 10, 16)
    rd = R.partial_rotary_dim(16, 0.25)
    assert rd == 4
    cos, sin = R.rope_cos_sin(10, R.rope_inv_freq(rd), dtype=x.dtype)
    out = R.apply_rope(x, cos, sin, layout="half_split", rotary_dim=rd)
    assert torch.equal(out[..., rd:], x[..., rd:])
    torch.testing.assert_close(out[..., :rd], R.apply_rope(x[..., :rd], cos, sin, layout="half_split"))
    rot = R.Rotary(16, rotary_dim=rd, layout="half_split")
    torch.testing.assert_close(rot(x), out)


def test_cache_grows_on_demand_and_matches_direct_computation():
    cache = R.RopeCache(R.rope_inv_freq(8))
    assert cache.length == 0
    cos, sin = cache.get(5)
    assert cache.length == 8 and cos.shape == (5, 4)
    cache.get(8)
    assert cache.rebuilds == 1
    cos, sin = cache.get(100)
    assert cache.length == 128 and cache.rebuilds == 2
    want_cos, want_sin = R.rope_cos_sin(100, R.rope_inv_freq(8))
    assert torch.equal(cos, want_cos) and torch.equal(sin, want_sin)
    pc, _ = cache.get_positions(torch.tensor([[3, 300]]))
    assert pc.shape == (1, 2, 4) and cache.length == 512
    torch.testing.assert_close(pc[0, 1], R.rope_cos_sin([300], R.rope_inv_freq(8))[0][0])


def test_float64_angles_beat_float32_at_long_positions():
    inv = R.rope_inv_freq(64)
    pos = np.array([1e6])
    exact = np.outer(pos, inv)
    f32 = (torch.tensor(pos, dtype=torch.float32)[:, None] * torch.tensor(inv, dtype=torch.float32)).double().numpy()
    assert np.abs(f32 - exact).max() > 1e-3  # float32 angle tables lose ~0.03 rad at position 1e6
    np.testing.assert_array_equal(R.rope_angles(pos, inv), exact)


def test_matches_hf_apply_rotary_pos_emb_half_split():
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    b, h, t, d = 2, 3, 50, 16
    q, k = _vec(1, b, h, t, d, dtype=torch.float32), _vec(2, b, h, t, d, dtype=torch.float32)
    cos, sin = R.rope_cos_sin(t, R.rope_inv_freq(d, 1e4))  # (T, D/2)
    hf_cos, hf_sin = torch.cat([cos, cos], -1)[None], torch.cat([sin, sin], -1)[None]  # (1, T, D)
    hq, hk = llama.apply_rotary_pos_emb(q, k, hf_cos, hf_sin)
    torch.testing.assert_close(R.apply_rope(q, cos, sin, layout="half_split"), hq, rtol=0, atol=1e-6)
    torch.testing.assert_close(R.apply_rope(k, cos, sin, layout="half_split"), hk, rtol=0, atol=1e-6)


def test_degrees():
    assert R.degrees(math.pi) == 180.0


def test_rotary_keeps_float64_inputs_in_float64():
    x = _vec(4, 2, 40, 8)  # float64
    exact = R.rope(x, base=1e4)  # float64 angles and tables
    torch.testing.assert_close(R.Rotary(8)(x), exact, rtol=0, atol=1e-14)
    assert R.Rotary(8)(x.float()).dtype == torch.float32


def test_rope_score_curve_matches_rotated_vectors():
    """a²·mean cos(Δθ_i) equals ⟨R_m q, R_n k⟩/D for q = k = 1, computed by rotating with helpers.rope."""
    from helpers.scaling import yarn_inv_freq

    dim = 16
    inv, a = yarn_inv_freq(dim, 1e4, 4.0, 64)
    positions = np.arange(40)
    cos, sin = R.rope_cos_sin(positions, inv, attention_factor=a, dtype=torch.float64)
    ones = torch.ones(len(positions), dim, dtype=torch.float64)
    rot = R.apply_rope(ones, cos, sin)  # (T, D)
    scores = (rot[-1] @ rot.T).numpy() / dim  # query at 39, keys at 0..39
    distances = positions[-1] - positions
    np.testing.assert_allclose(R.rope_score_curve(inv, distances, a), scores, rtol=1e-10)


def _explicit_score(q, k, m, n, base=10000.0):
    """<R_Θ(m) q, R_Θ(n) k> with the explicit block-diagonal matrices (an O(D²) independent route)."""
    d = len(q)
    return (R.rotation_matrix(m, d, base) @ q) @ (R.rotation_matrix(n, d, base) @ k)


# ---- scores against distance (notebook 04), against independent computations ----------------------------------------------------------------------


@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_pair_score_curve_matches_explicit_rotation(base):
    rng = np.random.default_rng(0)
    for d in (2, 8, 32):
        q, k = rng.standard_normal(d), rng.standard_normal(d)
        pairs = [(0, 0), (5, 2), (2, 5), (1000, 3), (77, 1234)]
        got = R.pair_score_curve(q, k, [m - n for m, n in pairs], base)
        want = [_explicit_score(q, k, m, n, base) for m, n in pairs]
        np.testing.assert_allclose(got, want, atol=1e-9)


def test_pair_score_curve_batched_rows_match_single_rows():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((5, 16)), rng.standard_normal((5, 16))
    d = np.arange(0, 50, 7)
    batched = R.pair_score_curve(q, k, d)
    assert batched.shape == (5, d.size)
    for i in range(5):
        np.testing.assert_allclose(batched[i], R.pair_score_curve(q[i], k[i], d), atol=1e-12)


@pytest.mark.parametrize("distance", [0, 7, 300])
def test_key_peaking_at_is_a_rotation_of_q_and_peaks_there(distance):
    rng = np.random.default_rng(2)
    q = rng.standard_normal(64)
    k = R.key_peaking_at(q, distance)
    np.testing.assert_allclose(k, R.rotation_matrix(distance, 64) @ q, atol=1e-12)
    # brute force over distances with explicit matrices: maximum |q|² exactly at m − n = distance
    dists = np.arange(0, 400)
    scores = np.array([_explicit_score(q, k, int(dd) + 5, 5) for dd in dists])
    assert dists[np.argmax(scores)] == distance
    np.testing.assert_allclose(scores.max(), q @ q, rtol=1e-12)


def test_roformer_bound_factor_matches_a_loop_and_bounds_the_score():
    d, base = 16, 10000.0
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    for dist in (0, 1, 10, 333):
        partial, total = 0j, 0.0
        for t in theta:  # S_j = Σ_{k<j} e^{i·dist·θ_k}, j = 1 .. D/2
            partial += complex(math.cos(dist * t), math.sin(dist * t))
            total += abs(partial)
        np.testing.assert_allclose(R.roformer_bound_factor([dist], d, base), [total / (d // 2)], rtol=1e-12)
    # at distance 0, |S_j| = j, so the average is (D/2 + 1)/2
    assert R.roformer_bound_factor([0], 128)[0] == pytest.approx(32.5)
    # Abel summation: |score| <= max_i |h_{i+1} − h_i| · Σ_j |S_j|  (h_{D/2} = 0), for random q, k
    rng = np.random.default_rng(3)
    for _ in range(20):
        q, k = rng.standard_normal(d), rng.standard_normal(d)
        h = np.append((q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2]), 0)
        dist = int(rng.integers(0, 2000))
        bound = np.abs(np.diff(h)).max() * R.roformer_bound_factor([dist], d, base)[0] * (d // 2)
        assert abs(R.pair_score_curve(q, k, [dist], base)[0]) <= bound + 1e-9


def test_random_score_stats_mean_zero_and_std_one_over_sqrt_d():
    d = 64
    mean, std = R.random_score_stats([0, 10, 500], d, n_samples=4000, seed=1)
    assert np.all(np.abs(mean) < 4 * std / math.sqrt(4000))
    np.testing.assert_allclose(std, 1 / math.sqrt(d), rtol=0.05)
    again = R.random_score_stats([0, 10, 500], d, n_samples=4000, seed=1)
    np.testing.assert_array_equal(again[0], mean)  # seeded: the notebook prints it
