"""Tests for helpers.scaling: HF transformers cross-checks, properties, worked numbers, bad input, configs.

The HF cross-checks compare with ``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS`` (5.x) built from a
``LlamaConfig``; they skip if transformers is not installed. HF computes in float32, so agreement is checked to
float32 rounding (relative 1e-6) and attention factors exactly.
"""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import methods, scaling
from helpers.scaling import (
    ROPE_SCALING,
    default_inv_freq,
    dynamic_ntk_inv_freq,
    linear_inv_freq,
    linear_keep_fast_inv_freq,
    llama3_inv_freq,
    longrope_inv_freq,
    ntk_chapter_inv_freq,
    ntk_inv_freq,
    ntk_scaled_base,
    rope_parameters_from_config,
    yarn_correction_range,
    yarn_inv_freq,
    yarn_paper_inv_freq,
    yarn_ramp,
)

HEAD_DIMS = (16, 64, 128)
BASES = (1e4, 5e5)
FACTORS = (1, 2, 4, 8, 32)
LENGTHS = (2048, 4096)
RTOL = 1e-6  # float32 rounding of HF's inv_freq (observed worst case 4.6e-7)

LLAMA31 = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3",
}
QWEN_YARN = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}


def theta(dim: int, base: float) -> np.ndarray:
    """Independent default frequencies: b^(−2i/d) written out pair by pair."""
    return np.array([base ** (-2.0 * i / dim) for i in range(dim // 2)])


# --------------------------------------------------------------------------- HF transformers reference
class HF:
    """Builds LlamaConfig objects and calls HF's own RoPE init functions."""

    def __init__(self) -> None:
        import transformers
        from transformers import LlamaConfig
        from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        transformers.logging.set_verbosity_error()  # HF logs warnings for e.g. factor=None; not our concern here
        self.config_cls = LlamaConfig
        self.init = ROPE_INIT_FUNCTIONS
        self.default_fn = LlamaRotaryEmbedding.compute_default_rope_parameters

    def config(self, head_dim: int, max_position_embeddings: int, rope_parameters: dict):
        return self.config_cls(
            head_dim=head_dim,
            hidden_size=4 * head_dim,
            num_attention_heads=4,
            max_position_embeddings=max_position_embeddings,
            rope_parameters=dict(rope_parameters),
        )

    def __call__(self, rope_type, head_dim, base, max_position_embeddings=4096, seq_len=None, **params):
        cfg = self.config(head_dim, max_position_embeddings, {"rope_type": rope_type, "rope_theta": base, **params})
        if rope_type == "default":
            inv_freq, attention_factor = self.default_fn(cfg)
        else:
            inv_freq, attention_factor = self.init[rope_type](cfg, None, seq_len=seq_len)
        return inv_freq.double().numpy(), attention_factor


@pytest.fixture(scope="module")
def hf() -> HF:
    # exc_type=ImportError: also skip (not error) when transformers is installed but fails to import.
    pytest.importorskip(
        "transformers", minversion="5.0", reason="HF cross-checks need transformers>=5", exc_type=ImportError
    )
    return HF()


def assert_same(ours, ref, *, rtol: float = RTOL, what: str = "") -> None:
    inv_freq, attention_factor = ours
    ref_inv_freq, ref_attention_factor = ref
    assert inv_freq.dtype == np.float64 and inv_freq.shape == ref_inv_freq.shape, what
    np.testing.assert_allclose(inv_freq, ref_inv_freq, rtol=rtol, atol=0, err_msg=what)
    assert attention_factor == pytest.approx(ref_attention_factor, rel=1e-15, abs=0), what


def grid():
    for head_dim in HEAD_DIMS:
        for base in BASES:
            for factor in FACTORS:
                for length in LENGTHS:
                    yield head_dim, base, factor, length


@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("base", BASES)
def test_default_matches_hf(hf, head_dim, base):
    assert_same(default_inv_freq(head_dim, base), hf("default", head_dim, base))


def test_linear_matches_hf(hf):
    for d, b, s, _ in grid():
        assert_same(linear_inv_freq(d, b, s), hf("linear", d, b, factor=float(s)), what=f"d={d} b={b} s={s}")


def test_dynamic_matches_hf(hf):
    for d, b, s, length in grid():
        for seq_len in (1, length // 2, length, length + 1, 3 * length, 10 * length + 7):
            what = f"d={d} b={b} s={s} L={length} seq_len={seq_len}"
            ref = hf("dynamic", d, b, max_position_embeddings=length, seq_len=seq_len, factor=float(s))
            assert_same(dynamic_ntk_inv_freq(d, b, s, seq_len, length), ref, what=what)


def test_static_ntk_matches_hf_dynamic_at_factor_one(hf):
    # reference-formulas.md: HF `dynamic` with factor=1 at seq_len = s·L reproduces static NTK.
    for d, b, s, length in grid():
        ref = hf("dynamic", d, b, max_position_embeddings=length, seq_len=s * length, factor=1.0)
        assert_same(ntk_inv_freq(d, b, s), ref, what=f"d={d} b={b} s={s} L={length}")


def test_yarn_matches_hf(hf):
    for d, b, s, length in grid():
        for truncate in (True, False):
            what = f"d={d} b={b} s={s} L={length} truncate={truncate}"
            ref = hf(
                "yarn", d, b, s * length, factor=float(s), original_max_position_embeddings=length, truncate=truncate
            )
            # truncate=False: HF's ramp (i − low)/(high − low) is float32 with a fractional low ≈ 20, so its
            # absolute error ~1e-6/25 is multiplied by up to s = 32 where θ' ≈ θ/s (observed 1.9e-6).
            rtol = RTOL if truncate else 4e-6
            assert_same(yarn_inv_freq(d, b, s, length, truncate=truncate), ref, rtol=rtol, what=what)


def test_yarn_correction_range_clamped_at_d_minus_1_like_hf(hf):
    # HF's find_correction_range clamps high to d − 1, not to the last pair index d/2 − 1. It matters when
    # L/(2π) > b^((d−2)/d), e.g. d = 128, b = 1e4, L = 131072: fcd(1) = 69.1 → high = 70 > 63, so the slowest pair
    # is only (63 − 45)/(70 − 45) = 72% interpolated.
    fcd = [128 * math.log(131072 / (2 * math.pi * n)) / (2 * math.log(1e4)) for n in (32, 1)]
    assert (math.floor(fcd[0]), math.ceil(fcd[1])) == (45, 70)
    assert yarn_correction_range(128, 1e4, 131072) == (45, 70)
    assert yarn_ramp(128, 1e4, 131072)[-1] == pytest.approx(1 - 18 / 25, rel=1e-12)
    for d in HEAD_DIMS:
        for truncate in (True, False):
            ref = hf("yarn", d, 1e4, 4 * 131072, factor=4.0, original_max_position_embeddings=131072, truncate=truncate)
            assert_same(yarn_inv_freq(d, 1e4, 4, 131072, truncate=truncate), ref, rtol=4e-6, what=f"d={d}")


@pytest.mark.parametrize(
    "extra",
    [
        {"mscale": 1.0, "mscale_all_dim": 1.0},  # DeepSeek-V3: ratio 1
        {"mscale": 1.0, "mscale_all_dim": 0.5},
        {"mscale": 0.707, "mscale_all_dim": 0.707},  # DeepSeek-V2-Lite
        {"mscale": 1.0},  # only one set: plain 0.1·ln s + 1
        {"attention_factor": 1.25},
        {"attention_factor": 0.8, "mscale": 1.0, "mscale_all_dim": 0.5},  # override wins
        {"beta_fast": 16.0, "beta_slow": 2.0},
    ],
)
def test_yarn_extras_match_hf(hf, extra):
    for d in HEAD_DIMS:
        for s in (2, 8, 40):
            ref = hf("yarn", d, 1e4, 4096 * s, factor=float(s), original_max_position_embeddings=4096, **extra)
            assert_same(yarn_inv_freq(d, 1e4, s, 4096, **extra), ref, what=f"d={d} s={s} {extra}")


def test_yarn_attention_factor_ratio_arithmetic():
    # g(s, M) = 0.1·M·ln s + 1; DeepSeek style ratio g(s, 1)/g(s, 0.5), written out independently
    s = 40.0
    expected = (0.1 * 1.0 * math.log(s) + 1) / (0.1 * 0.5 * math.log(s) + 1)
    assert yarn_inv_freq(64, 1e4, s, 4096, mscale=1.0, mscale_all_dim=0.5)[1] == pytest.approx(expected, rel=1e-14)
    assert yarn_inv_freq(64, 1e4, s, 4096, mscale=1.0, mscale_all_dim=1.0)[1] == 1.0


def test_yarn_missing_factor_fallback_matches_hf(hf):
    # HF uses max_position_embeddings / original when factor is None (DeepSeek-V3 note in _compute_yarn_parameters)
    for d in HEAD_DIMS:
        for mpe, length in ((16384, 4096), (131072, 4096), (40960, 8192)):
            ref = hf("yarn", d, 1e4, mpe, factor=None, original_max_position_embeddings=length)
            config = {"rope_type": "yarn", "original_max_position_embeddings": length}
            ours = rope_parameters_from_config(config, head_dim=d, base=1e4, max_position_embeddings=mpe)
            assert_same(ours, ref, what=f"d={d} mpe={mpe} L={length}")
            assert_same(ours, yarn_inv_freq(d, 1e4, mpe / length, length))


def test_llama3_matches_hf(hf):
    for d, b, s, length in grid():
        for low, high in ((1.0, 4.0), (2.0, 8.0)):
            what = f"d={d} b={b} s={s} L={length} low={low} high={high}"
            params = {"low_freq_factor": low, "high_freq_factor": high}
            ref = hf("llama3", d, b, s * length + 1, factor=float(s), original_max_position_embeddings=length, **params)
            assert_same(llama3_inv_freq(d, b, s, length, **params), ref, what=what)


def _longrope_lists(d: int) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(d)
    short = (1.0 + 0.1 * rng.random(d // 2)).tolist()
    long = np.sort(1.0 + 40 * rng.random(d // 2)).tolist()
    return short, long


def test_longrope_matches_hf(hf):
    for d in (16, 64, 96, 128):
        short, long = _longrope_lists(d)
        for length in LENGTHS:
            for seq_len in (None, 1, length, length + 1, 8 * length):
                for factor in (None, 1.0, 4.0, 32.0):
                    what = f"d={d} L={length} seq_len={seq_len} factor={factor}"
                    params = {"short_factor": short, "long_factor": long, "original_max_position_embeddings": length}
                    ref = hf("longrope", d, 1e4, 32 * length, seq_len=seq_len, factor=factor, **params)
                    ours = longrope_inv_freq(
                        d, 1e4, factor=factor, max_position_embeddings=32 * length, seq_len=seq_len, **params
                    )
                    assert_same(ours, ref, what=what)


def test_longrope_attention_factor_override_matches_hf(hf):
    short, long = _longrope_lists(64)
    params = {"short_factor": short, "long_factor": long, "original_max_position_embeddings": 4096}
    ref = hf("longrope", 64, 1e4, 131072, seq_len=5000, attention_factor=1.5, **params)
    assert_same(longrope_inv_freq(64, 1e4, seq_len=5000, attention_factor=1.5, factor=32.0, **params), ref)


def test_phi3_style_longrope_factor_from_ratio(hf):
    # Phi-3-mini-128k: head_dim 96, L = 4096, max_position_embeddings 131072, no `factor`: s = 32.
    short, long = _longrope_lists(96)
    config = {"type": "longrope", "short_factor": short, "long_factor": long, "original_max_position_embeddings": 4096}
    for seq_len in (None, 4096, 4097):
        ours = rope_parameters_from_config(
            config, head_dim=96, base=1e4, max_position_embeddings=131072, seq_len=seq_len
        )
        params = {k: v for k, v in config.items() if k != "type"}
        assert_same(ours, hf("longrope", 96, 1e4, 131072, seq_len=seq_len, **params), what=f"seq_len={seq_len}")
        # ln 32 / ln 4096 = 5/12 exactly, so a = √(17/12)
        assert ours[1] == pytest.approx(math.sqrt(17 / 12), rel=1e-14)
        ext = np.array(long if seq_len == 4097 else short)
        np.testing.assert_allclose(ours[0], theta(96, 1e4) / ext, rtol=1e-13)


@pytest.mark.parametrize(
    ("config", "head_dim", "base", "mpe"),
    [
        (LLAMA31, 128, 500000.0, 131072),
        (QWEN_YARN, 128, 1e6, 131072),
        # gpt-oss: truncate false
        (
            {
                "rope_type": "yarn",
                "factor": 32.0,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "original_max_position_embeddings": 4096,
                "truncate": False,
            },
            64,
            150000.0,
            131072,
        ),
        # DeepSeek-V3 (rotary part of the head: qk_rope_head_dim = 64)
        (
            {
                "type": "yarn",
                "factor": 40,
                "beta_fast": 32,
                "beta_slow": 1,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096,
            },
            64,
            10000.0,
            163840,
        ),
        ({"type": "linear", "factor": 2.0}, 128, 1e4, 4096),
        ({"rope_type": "default"}, 64, 1e4, 4096),
    ],
)
def test_pasted_configs_match_hf(hf, config, head_dim, base, mpe):
    ours = rope_parameters_from_config(config, head_dim=head_dim, base=base, max_position_embeddings=mpe)
    rope_type = config.get("rope_type", config.get("type"))
    params = {k: v for k, v in config.items() if k not in ("type", "rope_type")}
    tol = RTOL if config.get("truncate", True) else 4e-6  # see test_yarn_matches_hf
    assert_same(ours, hf(rope_type, head_dim, base, mpe, **params), rtol=tol)


def test_rope_parameters_dict_with_theta_and_partial_rotary_matches_hf(hf):
    # A 5.x `rope_parameters` dict carrying rope_theta and partial_rotary_factor (GPT-NeoX / Phi style).
    config = {
        "rope_type": "yarn",
        "rope_theta": 500000.0,
        "partial_rotary_factor": 0.5,
        "factor": 4.0,
        "original_max_position_embeddings": 4096,
    }
    ours = rope_parameters_from_config(config, head_dim=128)
    assert ours[0].shape == (32,)
    ref = hf("yarn", 128, 500000.0, 16384, **{k: v for k, v in config.items() if k not in ("rope_type", "rope_theta")})
    assert_same(ours, ref)
    assert_same(ours, yarn_inv_freq(64, 500000.0, 4.0, 4096))


def test_dynamic_config_matches_hf(hf):
    config = {"type": "dynamic", "factor": 2.0}
    ours = rope_parameters_from_config(config, head_dim=64, base=1e4, max_position_embeddings=2048, seq_len=5000)
    assert_same(ours, hf("dynamic", 64, 1e4, 2048, seq_len=5000, factor=2.0))


@pytest.mark.parametrize("head_dim", (16, 64, 256, 512))
@pytest.mark.parametrize("prf", (0.25, 0.3, 0.5, 1.0))
def test_proportional_matches_hf(hf, head_dim, prf):
    """Proportional RoPE (Gemma 4's global layers) over head dims, rotated fractions, bases and factors: the method,
    and the adapter given p in the dict or as the model's argument (p goes to the method, which sizes its exponent by
    the full head, not to the rotary dimension)."""
    for base in BASES + (1e6,):
        for factor in (1.0, 4.0):
            what = f"D={head_dim} p={prf} b={base} s={factor}"
            params = {"partial_rotary_factor": prf, **({"factor": factor} if factor != 1.0 else {})}
            ref = hf("proportional", head_dim, base, **params)
            direct = scaling.proportional_inv_freq(head_dim, base, factor, partial_rotary_factor=prf)
            assert_same(direct, ref, what=what)
            in_dict = rope_parameters_from_config({"rope_type": "proportional", **params}, head_dim=head_dim, base=base)
            as_arg = rope_parameters_from_config(
                {"rope_type": "proportional", "factor": factor}, head_dim=head_dim, base=base, partial_rotary_factor=prf
            )
            assert_same(in_dict, ref, what=what)
            assert_same(as_arg, ref, what=what)
            rotated = scaling.proportional_rotated_pairs(head_dim, prf)
            assert direct[0].shape == (head_dim // 2,) and np.all(direct[0][rotated:] == 0), what
            np.testing.assert_allclose(direct[0][:rotated], theta(head_dim, base)[:rotated] / factor, rtol=1e-14)


def test_proportional_rotary_passes_the_unrotated_pairs_through():
    """A Rotary built from a proportional config rotates the first p·D/2 pairs and leaves the others as they are."""
    import torch

    rot = scaling.rotary_from_config(16, {"rope_type": "proportional", "partial_rotary_factor": 0.5, "rope_theta": 1e4})
    x = torch.randn(1, 5, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)  # (B, T, D)
    y = rot(x)  # (B, T, D), interleaved: pairs 4..7 are dimensions 8..15
    torch.testing.assert_close(y[..., 8:], x[..., 8:], rtol=0, atol=0)
    assert not torch.allclose(y[:, 1:, :8], x[:, 1:, :8])
    from helpers.rope import check_inv_freq

    for bad in ([0.0, 0.0], [1.0, -0.5], [1.0, float("nan")]):
        with pytest.raises(ValueError, match=r"finite values >= 0, at least one of them > 0"):
            check_inv_freq(bad)


# --------------------------------------------------------------------------- properties (hypothesis)
dims = st.integers(min_value=2, max_value=128).map(lambda k: 2 * k)  # 4 .. 256, even
bases = st.sampled_from([100.0, 1e4, 5e5, 1e6, 1e7]) | st.floats(min_value=10.0, max_value=1e7)
factors = st.sampled_from([1.0, 2.0, 4.0, 8.0, 32.0]) | st.floats(min_value=1.0, max_value=64.0)
lengths = st.integers(min_value=64, max_value=131072)
PROPS = settings(max_examples=50, deadline=None)


@PROPS
@given(dim=dims, base=bases, factor=factors)
def test_linear_is_default_over_s(dim, base, factor):
    inv_freq, a = linear_inv_freq(dim, base, factor)
    np.testing.assert_allclose(inv_freq, theta(dim, base) / factor, rtol=1e-13)
    assert a == 1.0


@PROPS
@given(dim=dims, base=bases, factor=factors)
def test_static_ntk_slowdown_per_pair(dim, base, factor):
    inv_freq, a = ntk_inv_freq(dim, base, factor)
    slowdown = theta(dim, base) / inv_freq  # (d/2,)
    assert slowdown[0] == pytest.approx(1.0, rel=1e-14)  # pair 0 unchanged
    assert slowdown[-1] == pytest.approx(factor, rel=1e-11)  # the slowest pair slowed by exactly s
    i = np.arange(dim // 2)
    np.testing.assert_allclose(slowdown, factor ** (2 * i / (dim - 2)), rtol=1e-11)  # pair i by s^(2i/(d−2))
    assert a == 1.0


@PROPS
@given(dim=dims, base=bases, factor=factors, length=lengths, truncate=st.booleans())
def test_yarn_lies_between_pi_and_default(dim, base, factor, length, truncate):
    inv_freq, a = yarn_inv_freq(dim, base, factor, length, truncate=truncate)
    default = theta(dim, base)
    assert np.all(inv_freq <= default * (1 + 1e-12))
    assert np.all(inv_freq >= default / factor * (1 - 1e-12))
    assert a == (1.0 if factor == 1 else pytest.approx(0.1 * math.log(factor) + 1))


@PROPS
@given(dim=dims, base=bases, factor=factors, length=lengths)
def test_yarn_paper_lies_between_pi_and_default(dim, base, factor, length):
    inv_freq, _ = yarn_paper_inv_freq(dim, base, factor, length)
    default = theta(dim, base)
    assert np.all((inv_freq <= default * (1 + 1e-12)) & (inv_freq >= default / factor * (1 - 1e-12)))


@PROPS
@given(
    dim=dims,
    base=bases,
    factor=factors,
    length=lengths,
    bands=st.sampled_from([(1.0, 4.0), (2.0, 8.0), (0.5, 32.0)]),
)
def test_llama3_bands(dim, base, factor, length, bands):
    low, high = bands
    inv_freq, a = llama3_inv_freq(dim, base, factor, length, low_freq_factor=low, high_freq_factor=high)
    default = theta(dim, base)
    wavelength = 2 * math.pi / default
    fast = wavelength < length / high
    slow = wavelength > length / low
    np.testing.assert_allclose(inv_freq[fast], default[fast], rtol=1e-13)
    np.testing.assert_allclose(inv_freq[slow], default[slow] / factor, rtol=1e-13)
    mid = ~fast & ~slow
    assert np.all(inv_freq[mid] <= default[mid] * (1 + 1e-12))
    assert np.all(inv_freq[mid] >= default[mid] / factor * (1 - 1e-12))
    # Llama 3's blend is the YaRN paper's ramp (linear in r = L/λ) with α = low, β = high.
    paper, _ = yarn_paper_inv_freq(dim, base, factor, length, alpha=low, beta=high)
    np.testing.assert_allclose(inv_freq, paper, rtol=1e-12)
    assert a == 1.0


@PROPS
@given(dim=dims, base=bases, factor=factors, mpe=lengths, data=st.data())
def test_dynamic_equals_default_up_to_max_position_embeddings(dim, base, factor, mpe, data):
    seq_len = data.draw(st.integers(min_value=0, max_value=mpe))
    inv_freq, a = dynamic_ntk_inv_freq(dim, base, factor, seq_len, mpe)
    np.testing.assert_allclose(inv_freq, theta(dim, base), rtol=1e-13)
    assert a == 1.0


@PROPS
@given(dim=dims, base=bases, s=st.integers(min_value=1, max_value=64), length=lengths)
def test_dynamic_factor_one_at_s_times_length_is_static_ntk(dim, base, s, length):
    np.testing.assert_allclose(
        dynamic_ntk_inv_freq(dim, base, 1.0, s * length, length)[0], ntk_inv_freq(dim, base, s)[0], rtol=1e-12
    )


@PROPS
@given(dim=dims, base=bases, factor=st.floats(min_value=1.01, max_value=64.0))
def test_chapter_ntk_differs_from_ntk(dim, base, factor):
    chapter, _ = ntk_chapter_inv_freq(dim, base, factor)
    ntk, _ = ntk_inv_freq(dim, base, factor)
    default = theta(dim, base)
    # b·s slows the last pair by s^((d−2)/d) < s: less than NTK-aware, which slows it by exactly s
    assert default[-1] / chapter[-1] == pytest.approx(factor ** ((dim - 2) / dim), rel=1e-11)
    assert chapter[-1] > ntk[-1] * (1 + 1e-9 * dim)
    assert chapter[0] == ntk[0] == 1.0


def test_errata_e4_bases():
    # d = 128: chapter b·s = 40,000 vs NTK 40,890; d = 4: 40,000 vs 160,000 (b = 1e4, s = 4)
    assert ntk_scaled_base(128, 1e4, 4) == pytest.approx(40890, abs=1)
    assert ntk_scaled_base(4, 1e4, 4) == pytest.approx(160000, rel=1e-12)
    for dim, expected in ((128, 40890), (4, 160000)):
        # recover the bases from the frequencies: θ'_1 = b'^(−2/d)
        chapter_base = ntk_chapter_inv_freq(dim, 1e4, 4)[0][1] ** (-dim / 2)
        ntk_base = ntk_inv_freq(dim, 1e4, 4)[0][1] ** (-dim / 2)
        assert chapter_base == pytest.approx(40000, rel=1e-9)
        assert ntk_base == pytest.approx(expected, abs=1)


# --------------------------------------------------------------------------- worked numbers
def test_yarn_paper_vs_code_ramp_worked_example():
    # reference-formulas.md point 2: d = 128, b = 1e4, L = 4096.
    code = yarn_ramp(128, 1e4, 4096)
    paper = yarn_ramp(128, 1e4, 4096, kind="paper")
    assert code[33] == pytest.approx(0.500, abs=5e-4) and paper[33] == pytest.approx(0.150, abs=5e-4)
    assert code[25] == pytest.approx(0.808, abs=5e-4) and paper[25] == pytest.approx(0.544, abs=5e-4)
    # the code's correction range: floor(20.94) = 20, ceil(45.03) = 46
    assert yarn_correction_range(128, 1e4, 4096) == (20, 46)
    # independent arithmetic for the paper ramp at pair 33: r = L/λ, γ = (r − 1)/31
    r33 = 4096 * 1e4 ** (-66 / 128) / (2 * math.pi)
    assert paper[33] == pytest.approx((r33 - 1) / 31, rel=1e-12)
    # and the frequencies use them: θ' = (1 − γ)θ/s + γθ
    s = 8.0
    t33 = 1e4 ** (-66 / 128)
    assert yarn_inv_freq(128, 1e4, s, 4096)[0][33] == pytest.approx(0.5 * t33 / s + 0.5 * t33, rel=1e-12)
    g = (r33 - 1) / 31
    assert yarn_paper_inv_freq(128, 1e4, s, 4096)[0][33] == pytest.approx((1 - g) * t33 / s + g * t33, rel=1e-12)
    # ends agree: fast pairs kept, slow pairs interpolated, in both
    assert code[0] == paper[0] == 1.0 and code[-1] == paper[-1] == 0.0


def test_yarn_mscale_at_eight():
    _, a = yarn_inv_freq(128, 1e4, 8, 4096)
    assert a == pytest.approx(1.2079, abs=1e-4)  # 0.1·ln 8 + 1
    assert a**2 == pytest.approx(1.459, abs=1e-3)  # logits multiplier
    assert yarn_paper_inv_freq(128, 1e4, 8, 4096)[1] == a
    assert yarn_inv_freq(128, 1e4, 1, 4096)[1] == 1.0


def test_llama31_8b_band_counts():
    inv_freq, a = rope_parameters_from_config(LLAMA31, head_dim=128, base=500000.0)
    ratio = theta(128, 500000.0) / inv_freq
    unchanged = np.isclose(ratio, 1.0, rtol=1e-12)
    divided = np.isclose(ratio, 8.0, rtol=1e-12)
    assert (unchanged.sum(), divided.sum(), (~unchanged & ~divided).sum()) == (29, 29, 6)
    assert np.all(unchanged[:29]) and np.all(divided[-29:])
    assert a == 1.0


# --------------------------------------------------------------------------- registry and configs
# Keys a (factor, train length) pair does not determine, for the methods that need them (LongRoPE's searched lists,
# one per rotary pair of a 64-dimensional head). A new method that needs more fails below, naming the keys.
UNDETERMINED = {"longrope": {"short_factor": [1.0] * 32, "long_factor": [4.0] * 32}, "ntk_alpha": {"alpha": 4.0}}


def test_registry_specs_are_consistent():
    assert set(scaling.HF_ROPE_TYPES) <= set(ROPE_SCALING)
    for name, spec in ROPE_SCALING.items():
        assert spec.name == name and list(inspect.signature(spec.fn).parameters)[:2] == ["dim", "base"], name
        assert spec.info is methods.SCALING_METHODS[name]
        assert set(spec.required) <= set(spec.parameters) and set(spec.config_keys) <= set(spec.parameters)
        assert spec.reads_length == ("seq_len" in inspect.signature(spec.fn).parameters), name
        assert set(spec.undetermined) == set(UNDETERMINED.get(name, {})), name
    for panel in scaling.PANELS:
        shown = scaling.methods_in(panel)
        assert list(shown) == [k for k in ROPE_SCALING if k in shown]  # in the registry's order


@pytest.mark.parametrize("name", list(ROPE_SCALING))
def test_every_method_returns_float64_and_float(name):
    """The contract of every registry method, run with the dict scaling_config builds for s = 4, L = 4096."""
    config = scaling.scaling_config(name, 4.0, 4096, **UNDETERMINED.get(name, {}))
    seq_len = 6000 if ROPE_SCALING[name].scale_from_length else 4 * 4096  # dynamic: scale l/L ≈ 1.46 <= s
    inv_freq, a = rope_parameters_from_config(config, head_dim=64, max_position_embeddings=4096, seq_len=seq_len)
    assert inv_freq.dtype == np.float64 and inv_freq.shape == (32,)
    assert type(a) is float and a > 0
    assert np.all(np.isfinite(inv_freq)) and np.all(inv_freq > 0)
    # every method slows the slowest pair by a factor in [1, s] (longrope: short lists of 1 → unchanged)
    assert 1 - 1e-12 <= theta(64, 1e4)[-1] / inv_freq[-1] <= 4 * (1 + 1e-12)
    # the registry entry is the function, called with the dict's keys and the caller's arguments
    spec = ROPE_SCALING[name]
    caller = {"max_position_embeddings": 4096, "seq_len": seq_len}
    kwargs = {k: v for k, v in {**config, **caller}.items() if k in spec.parameters}
    direct = ROPE_SCALING[name](64, 1e4, **kwargs)
    np.testing.assert_array_equal(direct[0], inv_freq)
    assert direct[1] == a


@pytest.mark.parametrize("name", scaling.HF_ROPE_TYPES)
def test_every_hf_method_matches_hf_on_the_built_dict(hf, name):
    """scaling_config(hf=True) builds a dict HF 5.24 accepts, and HF computes our numbers from it."""
    for d, b, s, length in grid():
        if d != 64:
            continue
        config = scaling.scaling_config(name, s, length, hf=True, **UNDETERMINED.get(name, {}))
        params = {k: v for k, v in config.items() if k != "rope_type"}
        for seq_len in (length, 3 * length):
            what = f"{name} b={b} s={s} L={length} seq_len={seq_len}"
            ref = hf(name, d, b, max_position_embeddings=length, seq_len=seq_len, **params)
            ours = rope_parameters_from_config(
                config, head_dim=d, base=b, max_position_embeddings=length, seq_len=seq_len
            )
            assert_same(ours, ref, what=what)


def test_scaling_config_builds_the_methods_dicts():
    assert scaling.scaling_config("default", 4.0, 64) == {"rope_type": "default"}
    assert scaling.scaling_config("linear", 4, 64) == {"rope_type": "linear", "factor": 4.0}
    assert scaling.scaling_config("yarn", 2.0, 64, attention_factor=1.0) == {
        "rope_type": "yarn",
        "factor": 2.0,
        "original_max_position_embeddings": 64,
        "attention_factor": 1.0,
    }
    # the scale of dynamic NTK comes from the current length: factor 1 (the paper's l/L), s as HF configs carry it
    assert scaling.scaling_config("dynamic", 4.0, 64) == {"rope_type": "dynamic", "factor": 1.0}
    assert scaling.scaling_config("dynamic", 4.0, 64, hf=True) == {"rope_type": "dynamic", "factor": 4.0}
    assert scaling.scaling_config("llama3", 8.0, 8192, hf=True) == LLAMA31
    with pytest.raises(ValueError, match=r"method must be one of \[.*'linear'.*\], got 'PI'"):
        scaling.scaling_config("PI", 4.0, 64)
    with pytest.raises(ValueError, match=r"factor must be .* >= 1, got 0\.5"):
        scaling.scaling_config("linear", 0.5, 64)
    with pytest.raises(ValueError, match=r"method 'linear' does not read \['beta_fast'\]"):
        scaling.scaling_config("linear", 2.0, 64, beta_fast=16.0)
    with pytest.raises(ValueError, match=r"method 'longrope' needs \['long_factor', 'short_factor'\]"):
        scaling.scaling_config("longrope", 2.0, 64)


def test_a_spec_is_checked_when_it_is_written():
    info = methods.MethodInfo("a label", "black", "-", "a description", "")
    with pytest.raises(ValueError, match=r"first parameters are \(dim, base\)"):
        scaling.ScalingMethod("bad", lambda base, dim: (None, 1.0), info)
    with pytest.raises(ValueError, match=r"\['beta'\] are not parameters of linear_inv_freq"):
        scaling.ScalingMethod("bad", linear_inv_freq, info, knobs={"beta_fast": "beta"})
    with pytest.raises(ValueError, match=r"panel must be one of"):
        scaling.ScalingMethod("bad", linear_inv_freq, info, panels=("sidebar",))
    with pytest.raises(ValueError, match=r"lab must be one of"):
        scaling.ScalingMethod("bad", linear_inv_freq, info, lab="sweep")
    with pytest.raises(ValueError, match=r"panel must be one of"):
        scaling.methods_in("sidebar")


def test_type_and_rope_type_keys_are_equivalent():
    old = rope_parameters_from_config(QWEN_YARN, head_dim=128, base=1e6)
    new = rope_parameters_from_config(
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}, head_dim=128, base=1e6
    )
    both = rope_parameters_from_config({**QWEN_YARN, "rope_type": "yarn"}, head_dim=128, base=1e6)
    np.testing.assert_array_equal(old[0], new[0])
    np.testing.assert_array_equal(old[0], both[0])
    assert old[1] == new[1] == both[1] == pytest.approx(0.1 * math.log(4) + 1)
    assert_same(old, yarn_inv_freq(128, 1e6, 4.0, 32768))


def test_llama31_config_equals_llama3_function():
    ours = rope_parameters_from_config(LLAMA31, head_dim=128, base=500000.0)
    assert_same(ours, llama3_inv_freq(128, 500000.0, 8.0, 8192, low_freq_factor=1.0, high_freq_factor=4.0))
    # rope_theta inside the dict instead of the base argument
    inside = rope_parameters_from_config({**LLAMA31, "rope_theta": 500000.0}, head_dim=128)
    np.testing.assert_array_equal(inside[0], ours[0])


def test_rotary_from_a_pasted_config_with_rope_theta_needs_no_base():
    # issue 10: a default base used to count as a choice and clash with the dict's rope_theta
    config = {**LLAMA31, "rope_theta": 500000.0}
    rot = scaling.rotary_from_config(64, rope_scaling=config)
    expected, a = llama3_inv_freq(64, 500000.0, 8.0, 8192, low_freq_factor=1.0, high_freq_factor=4.0)
    np.testing.assert_array_equal(rot.inv_freq, expected)
    assert rot.attention_factor == a == 1.0 and rot.rotary_dim == 64 and rot.layout == "interleaved"
    # the same base given explicitly agrees; a different one is a conflict that names both values
    same = scaling.rotary_from_config(64, rope_scaling=config, base=500000.0)
    np.testing.assert_array_equal(same.inv_freq, expected)
    with pytest.raises(ValueError, match=r"base=10000\.0 conflicts with the config's rope_theta=500000\.0"):
        scaling.rotary_from_config(64, rope_scaling=config, base=10000.0)


def test_rotary_from_config_rotates_with_the_method_and_its_attention_factor():
    import torch

    from helpers import rope

    rot = scaling.rotary_from_config(16, QWEN_YARN, base=1e6, layout="half_split", partial_rotary_factor=0.5)
    inv_freq, a = yarn_inv_freq(8, 1e6, 4.0, 32768)
    assert rot.rotary_dim == 8 and rot.attention_factor == pytest.approx(a)
    x = torch.randn(2, 5, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)  # (B, T, D)
    cos, sin = rope.rope_cos_sin(5, inv_freq, attention_factor=a, dtype=torch.float64)  # (T, 4) each
    expected = rope.apply_rope(x, cos, sin, layout="half_split", rotary_dim=8)  # (B, T, D)
    torch.testing.assert_close(rot(x), expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"layout must be one of \['half_split', 'interleaved'\], got 'neox'"):
        scaling.rotary_from_config(16, QWEN_YARN, layout="neox")


@pytest.mark.parametrize("config", [None, {}, {"rope_theta": 1e4}, {"type": "default"}])
def test_empty_config_means_default(config):
    inv_freq, a = rope_parameters_from_config(config, head_dim=64)
    np.testing.assert_allclose(inv_freq, theta(64, 1e4), rtol=1e-13)
    assert a == 1.0


def test_none_values_count_as_missing():
    # a saved HF dict may carry explicit nulls; beta_fast None means the default 32, as in HF
    config = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096, "beta_fast": None}
    np.testing.assert_array_equal(
        rope_parameters_from_config(config, head_dim=64)[0], yarn_inv_freq(64, 1e4, 8.0, 4096)[0]
    )


def test_unknown_config_key_warns():
    with pytest.warns(UserWarning, match="beta_fst"):
        rope_parameters_from_config({**QWEN_YARN, "beta_fst": 16}, head_dim=128)


def test_model_level_keys_in_the_dict_warn_and_are_ignored():
    with pytest.warns(UserWarning, match="seq_len"):
        inv_freq, _ = rope_parameters_from_config(
            {"rope_type": "dynamic", "factor": 2.0, "seq_len": 99999},
            head_dim=64,
            max_position_embeddings=4096,
            seq_len=10,
        )
    np.testing.assert_allclose(inv_freq, theta(64, 1e4), rtol=1e-13)


def test_longrope_switches_strictly_after_original_length():
    short, long = [1.0] * 8, [2.0] * 8
    params = {"short_factor": short, "long_factor": long, "original_max_position_embeddings": 100, "factor": 4.0}
    at_length = longrope_inv_freq(16, 1e4, seq_len=100, **params)[0]
    past = longrope_inv_freq(16, 1e4, seq_len=101, **params)[0]
    np.testing.assert_allclose(at_length, theta(16, 1e4), rtol=1e-13)
    np.testing.assert_allclose(past, theta(16, 1e4) / 2, rtol=1e-13)


# --------------------------------------------------------------------------- bad input
SHORT8 = [1.0] * 8
BAD_CALLS = [
    (lambda: default_inv_freq(7, 1e4), ValueError, r"dim must be a positive even integer, got 7"),
    (lambda: default_inv_freq(0, 1e4), ValueError, r"dim .* got 0"),
    (lambda: default_inv_freq(64.0, 1e4), TypeError, r"dim must be .* got 64\.0"),
    (lambda: linear_inv_freq(64, -1.0, 2.0), ValueError, r"base must be .* > 0, got -1\.0"),
    (lambda: linear_inv_freq(64, 1e4, 0.5), ValueError, r"factor must be .* >= 1, got 0\.5"),
    (lambda: ntk_inv_freq(2, 1e4, 2.0), ValueError, r"dim must be >= 4 .* got 2"),
    (lambda: dynamic_ntk_inv_freq(64, 1e4, 2.0, -1, 4096), ValueError, r"seq_len must be an integer >= 0, got -1"),
    (lambda: dynamic_ntk_inv_freq(64, 1e4, 2.0, 10, 0), ValueError, r"max_position_embeddings .* >= 1, got 0"),
    (lambda: yarn_inv_freq(64, 1e4, 0.9, 4096), ValueError, r"factor .* >= 1, got 0\.9"),
    (lambda: yarn_inv_freq(64, 1e4, 4, 4096, beta_fast=1, beta_slow=32), ValueError, r"beta_fast must be >= beta_slow"),
    (lambda: yarn_inv_freq(64, 1e4, 4, 4096, attention_factor=0.0), ValueError, r"attention_factor .* > 0, got 0\.0"),
    (lambda: yarn_inv_freq(64, 1e4, 4, 4096, truncate="no"), TypeError, r"truncate must be True or False"),
    (lambda: yarn_inv_freq(64, 1e4, 4, 4096.0), TypeError, r"original_max_position_embeddings must be an integer"),
    (lambda: yarn_ramp(64, 1e4, 4096, kind="linear"), ValueError, r"kind must be one of \['code', 'paper'\]"),
    (lambda: yarn_paper_inv_freq(64, 1e4, 4, 4096, alpha=2, beta=2), ValueError, r"beta must be > alpha"),
    (
        lambda: llama3_inv_freq(64, 5e5, 8, 8192, low_freq_factor=4.0, high_freq_factor=1.0),
        ValueError,
        r"high_freq_factor must be > low_freq_factor, got low_freq_factor=4\.0 and high_freq_factor=1\.0",
    ),
    (
        lambda: longrope_inv_freq(
            16, 1e4, short_factor=[1.0] * 7, long_factor=SHORT8, original_max_position_embeddings=4096, factor=2.0
        ),
        ValueError,
        r"short_factor must have length dim/2 = 8 .* got shape \(7,\)",
    ),
    (
        lambda: longrope_inv_freq(
            16, 1e4, short_factor=SHORT8, long_factor=[0.0] * 8, original_max_position_embeddings=4096, factor=2.0
        ),
        ValueError,
        r"long_factor must hold finite numbers > 0",
    ),
    (
        lambda: longrope_inv_freq(
            16, 1e4, short_factor=SHORT8, long_factor=SHORT8, original_max_position_embeddings=4096
        ),
        ValueError,
        r"longrope needs factor or max_position_embeddings",
    ),
    (
        lambda: longrope_inv_freq(
            16,
            1e4,
            short_factor=SHORT8,
            long_factor=SHORT8,
            original_max_position_embeddings=4096,
            factor=2.0,
            seq_len=-3,
        ),
        ValueError,
        r"seq_len must be an integer >= 0, got -3",
    ),
    (
        lambda: rope_parameters_from_config({"type": "ntk-by-parts"}, head_dim=64),
        ValueError,
        re.escape(f"unknown RoPE scaling method 'ntk-by-parts'; known methods: {sorted(ROPE_SCALING)}"),
    ),
    (
        lambda: rope_parameters_from_config({"type": "linear"}, head_dim=64),
        ValueError,
        r"rope_type 'linear' needs 'factor'",
    ),
    (
        lambda: rope_parameters_from_config({"rope_type": "llama3", "factor": 8.0}, head_dim=128),
        ValueError,
        r"rope_type 'llama3' needs 'original_max_position_embeddings'",
    ),
    (
        lambda: rope_parameters_from_config(
            {"rope_type": "longrope", "long_factor": SHORT8, "original_max_position_embeddings": 4096}, head_dim=16
        ),
        ValueError,
        r"rope_type 'longrope' needs 'short_factor'",
    ),
    (
        lambda: rope_parameters_from_config(
            {"rope_type": "dynamic", "factor": 2.0}, head_dim=64, max_position_embeddings=4096
        ),
        ValueError,
        r"rope_type 'dynamic' needs 'seq_len' \(argument\)",
    ),
    (
        lambda: rope_parameters_from_config(
            {"rope_type": "yarn", "original_max_position_embeddings": 4096}, head_dim=64
        ),
        ValueError,
        r"rope_type 'yarn' needs 'factor' in the config, or max_position_embeddings",
    ),
    (
        lambda: rope_parameters_from_config({"rope_scaling": LLAMA31}, head_dim=128),
        ValueError,
        r"pass config\['rope_scaling'\]",
    ),
    (
        lambda: rope_parameters_from_config({"rope_theta": 1e4}, head_dim=64, base=5e5),
        ValueError,
        r"base=500000\.0 conflicts with the config's rope_theta=10000\.0",
    ),
    (
        lambda: rope_parameters_from_config({"type": "yarn", "rope_type": "linear", "factor": 2.0}, head_dim=64),
        ValueError,
        r"conflicting rope_type='linear' and type='yarn'",
    ),
    (lambda: rope_parameters_from_config("llama3", head_dim=64), TypeError, r"config must be a dict"),
    (
        lambda: rope_parameters_from_config(None, head_dim=64, partial_rotary_factor=0.3),
        ValueError,
        r"head_dim \* partial_rotary_factor = 64 \* 0\.3 gives 19 rotated dimensions",
    ),
]


@pytest.mark.parametrize(("call", "exc", "match"), BAD_CALLS, ids=[m[:40] for _, _, m in BAD_CALLS])
def test_bad_input_raises_with_clear_message(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# --------------------------------------------------------------------------- comparing the methods (notebook 05)
def test_extension_frequencies_are_the_registry_methods():
    m = scaling.extension_frequencies(64, 1e4, 4.0, 1024)
    # every registry method whose parameters follow from (s, L); LongRoPE needs searched factor lists
    assert list(m) == [k for k, spec in scaling.ROPE_SCALING.items() if not spec.undetermined]
    assert "longrope" not in m
    theta = scaling.default_inv_freq(64, 1e4)[0]
    np.testing.assert_allclose(m["default"][0], theta)
    np.testing.assert_allclose(m["linear"][0], theta / 4)
    np.testing.assert_allclose(m["ntk"][0], (1e4 * 4 ** (64 / 62)) ** (-np.arange(0, 64, 2) / 64))
    np.testing.assert_allclose(m["dynamic"][0], m["ntk"][0], rtol=1e-12)  # paper scale l/L at l = sL
    assert_same(m["yarn"], yarn_inv_freq(64, 1e4, 4.0, 1024))
    assert m["yarn"][1] == pytest.approx(0.1 * math.log(4) + 1)
    assert_same(m["llama3"], llama3_inv_freq(64, 1e4, 4.0, 1024))
    sub = scaling.extension_frequencies(16, 1e4, 2.0, 64, methods=["linear"])
    assert list(sub) == ["linear"]
    with pytest.raises(ValueError, match=r"methods must be keys of ROPE_SCALING .*got unknown \['PI'\]"):
        scaling.extension_frequencies(16, 1e4, 2.0, 64, methods=["PI"])
    with pytest.raises(ValueError, match=r"method 'longrope' needs \['long_factor', 'short_factor'\]"):
        scaling.extension_frequencies(16, 1e4, 2.0, 64, methods=["longrope"])
    # a knob goes to each method that has it, under its own name (β_fast: YaRN's beta_fast, the paper's beta)
    knob = scaling.extension_frequencies(
        64, 1e4, 4.0, 1024, methods=["linear", "yarn", "yarn_paper"], knobs={"beta_fast": 8}
    )
    np.testing.assert_array_equal(knob["linear"][0], m["linear"][0])
    assert_same(knob["yarn"], yarn_inv_freq(64, 1e4, 4.0, 1024, beta_fast=8))
    assert_same(knob["yarn_paper"], yarn_paper_inv_freq(64, 1e4, 4.0, 1024, beta=8))
    with pytest.raises(ValueError, match=r"knobs must be among \[.*\], got unknown \['beta_fst'\]"):
        scaling.extension_frequencies(16, 1e4, 2.0, 64, knobs={"beta_fst": 8})


def test_dynamic_ntk_scale_is_one_up_to_l_then_linear():
    scale = scaling.dynamic_ntk_scale(np.array([1, 100, 200, 400]), 2.0, 100)
    np.testing.assert_allclose(scale, [1.0, 1.0, 3.0, 7.0])  # s·l/L − (s − 1)
    np.testing.assert_allclose(scaling.dynamic_ntk_scale([50, 400], 1.0, 100), [1.0, 4.0])  # paper: max(1, l/L)


def test_out_of_range_pairs_matches_brute_force():
    """Independent check: a pair meets unseen angles iff the angles m·θ mod 2π for m < L leave a gap that
    the angles for L ≤ m < L′ fall into, i.e. iff it did not complete a turn within L."""
    dim, base, length, target = 32, 1e4, 256, 1024
    theta = scaling.default_inv_freq(dim, base)[0]
    brute = np.array([length * t < 2 * np.pi and target * t > length * t for t in theta])
    np.testing.assert_array_equal(scaling.out_of_range_pairs(dim, base, length, target), brute)
    assert not scaling.out_of_range_pairs(dim, base, length, length).any()  # nothing new without extension
    assert scaling.out_of_range_pairs(dim, base, length, target)[-1]  # the slowest pair is always the first to fail


def test_toy_attention_entropy_matches_direct_softmax():
    inv = scaling.default_inv_freq(32, 1e4)[0]
    lengths = np.array([1, 7, 100, 333])
    got = scaling.toy_attention_entropy(inv, lengths, attention_factor=1.2, peak_logit=5.0)
    for n, h in zip(lengths, got, strict=True):
        logits = 5.0 * 1.44 * np.array([np.mean(np.cos(d * inv)) for d in range(n)])
        p = np.exp(logits - logits.max())
        p /= p.sum()
        assert h == pytest.approx(-(p * np.log(p)).sum(), rel=1e-9, abs=1e-12)
    assert got[0] == pytest.approx(0.0, abs=1e-12)  # one key: no uncertainty
    assert np.all(got <= np.log(lengths) + 1e-12)  # never above a uniform row
    with pytest.raises(ValueError, match="lengths"):
        scaling.toy_attention_entropy(inv, [0])


def test_still_out_of_range_against_interval_check():
    """Independent check with explicit angle intervals: trained [0, L·θ] (or the whole circle), needed [0, L′·θ′]."""
    dim, base, length, target = 64, 1e4, 512, 2048
    theta = scaling.default_inv_freq(dim, base)[0]
    for name, (inv, _) in scaling.extension_frequencies(dim, base, 4.0, length).items():
        expected = []
        for t, t_new in zip(theta, inv, strict=True):
            full_circle = length * t >= 2 * np.pi
            expected.append(not full_circle and target * t_new > length * t * (1 + 1e-12))
        np.testing.assert_array_equal(scaling.still_out_of_range(theta, inv, length, target), expected, err_msg=name)
    assert not scaling.still_out_of_range(theta, theta / 4, length, target).any()  # PI: nothing new
    assert (
        scaling.still_out_of_range(theta, theta, length, target).sum()
        == scaling.out_of_range_pairs(dim, base, length, target).sum()
    )
    with pytest.raises(ValueError, match="same shape"):
        scaling.still_out_of_range(theta, theta[:-1], length, target)


# --------------------------------------------------------------------------- PI with the fast pairs kept (ablation)
@given(
    dim=st.sampled_from([8, 16, 64]),
    base=st.floats(10.0, 1e6),
    factor=st.floats(1.0, 64.0),
    keep=st.integers(0, 4),
)
def test_linear_keep_fast_keeps_the_first_pairs_and_interpolates_the_rest(dim, base, factor, keep):
    inv_freq, a = linear_keep_fast_inv_freq(dim, base, factor, keep_pairs=keep)
    plain = default_inv_freq(dim, base)[0]
    np.testing.assert_array_equal(inv_freq[:keep], plain[:keep])
    np.testing.assert_allclose(inv_freq[keep:], plain[keep:] / factor, rtol=1e-15)
    assert a == 1.0


def test_linear_keep_fast_from_a_config_and_its_bad_input():
    inv_freq, _ = rope_parameters_from_config(
        {"rope_type": "linear_keep_fast", "factor": 4.0, "keep_pairs": 2}, head_dim=16, base=500.0
    )
    np.testing.assert_array_equal(inv_freq[:2], default_inv_freq(16, 500.0)[0][:2])
    np.testing.assert_allclose(inv_freq[2:], default_inv_freq(16, 500.0)[0][2:] / 4)
    with pytest.raises(ValueError, match=r"keep_pairs must be <= the number of pairs d/2 = 8, got 9"):
        linear_keep_fast_inv_freq(16, 500.0, 4.0, keep_pairs=9)
    with pytest.raises(ValueError, match="keep_pairs"):
        linear_keep_fast_inv_freq(16, 500.0, 4.0, keep_pairs=-1)
    with pytest.raises(TypeError, match="keep_pairs"):
        linear_keep_fast_inv_freq(16, 500.0, 4.0, keep_pairs=1.5)


@pytest.mark.parametrize("model", ["hunyuan_v1_dense", "hunyuan_v1_moe"])
@pytest.mark.parametrize("alpha", [1000.0, 50.0])
def test_ntk_alpha_equals_hf_hunyuan(model, alpha):
    """Static NTK-α equals HF 5.24's Hunyuan rotary class (a checkpoint's ``"type": "dynamic"`` with ``alpha``),
    and NTK-aware scaling at s = α."""
    import importlib

    from helpers.scaling import ROPE_SCALING, ntk_inv_freq, rope_parameters_from_config

    cfg_mod = importlib.import_module(f"transformers.models.{model}.configuration_{model}")
    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    cls = next(v for k, v in vars(cfg_mod).items() if k.endswith("Config") and k.startswith("HunYuan"))
    rope = {"rope_type": "dynamic", "rope_theta": 10000.0, "alpha": alpha, "factor": 1.0}
    config = cls(head_dim=128, hidden_size=1024, num_attention_heads=8, rope_parameters=rope)
    rotary = next(v for k, v in vars(mod).items() if k.endswith("RotaryEmbedding"))(config)
    assert rotary.rope_type == "ntk_alpha"
    ours, factor = ROPE_SCALING["ntk_alpha"](128, 10000.0, alpha=alpha)
    np.testing.assert_allclose(ours, rotary.inv_freq.double().numpy(), rtol=1e-6)
    assert factor == rotary.attention_scaling == 1.0
    np.testing.assert_allclose(ours, ntk_inv_freq(128, 10000.0, alpha)[0], rtol=1e-15)
    read, _ = rope_parameters_from_config({"rope_type": "ntk_alpha", "alpha": alpha}, head_dim=128)
    np.testing.assert_allclose(read, ours, rtol=1e-15)
