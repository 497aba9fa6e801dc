"""Methods that treat the pairs by parts: YaRN (as HF computes it, and the paper's ramp), Llama 3.1, LongRoPE.

Each keeps the fast pairs (many turns within the training length L), divides the slow ones by s (PI) and blends in
between; YaRN and LongRoPE add an attention factor. The training length is ``train_len`` in the course's own
functions and HF's key ``original_max_position_embeddings`` in the methods, whose keywords are config keys.
Signatures and conventions: :mod:`helpers.scaling`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from helpers._checks import check_dim, check_positive
from helpers.rope import rope_inv_freq
from helpers.scaling._args import ScalingResult, check_bool, check_factor, check_length, check_optional_seq_len

__all__ = [
    "llama3_inv_freq",
    "longrope_inv_freq",
    "rotations_in_context",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_get_mscale",
    "yarn_inv_freq",
    "yarn_paper_inv_freq",
    "yarn_ramp",
]


def _check_factor_list(name: str, values, n_pairs: int) -> np.ndarray:
    """LongRoPE's per-pair rescale factors: a sequence of D/2 finite numbers > 0."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(
            f"{name} must be a list of {n_pairs} numbers (one per rotary pair), got {type(values).__name__}"
        )
    try:
        arr = np.asarray(values, dtype=np.float64)  # (D/2,)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a list of numbers, got {values!r}") from exc
    if arr.ndim != 1 or arr.size != n_pairs:
        raise ValueError(
            f"{name} must have length dim/2 = {n_pairs} (one factor per rotary pair), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or arr.min() <= 0:
        raise ValueError(f"{name} must hold finite numbers > 0, got minimum {arr.min()!r}")
    return arr


def _mix(inv_freq: np.ndarray, factor: float, extrapolation_weight: np.ndarray) -> np.ndarray:
    """θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i: γ = 1 keeps the pair (extrapolation), γ = 0 interpolates it like PI."""
    return inv_freq / factor * (1.0 - extrapolation_weight) + inv_freq * extrapolation_weight  # (D/2,)


# --------------------------------------------------------------------------- YaRN
def rotations_in_context(dim: int, base: float, train_len: int) -> np.ndarray:
    """How many full turns each pair makes over the original context: r_i = L/λ_i = L·θ_i/(2π).

    r > β (32) means many turns (high frequency: leave alone); r < α (1) means less than one turn (interpolate).
    Shapes: returns (d/2,) float64. Source: YaRN arXiv 2309.00071 §3.2 (r(d) = L/λ_d). Used by notebook 05.
    """
    train_len = check_length("train_len", train_len)
    # r_i = L / λ_i = L·θ_i / (2π)
    return train_len * rope_inv_freq(dim, base) / (2 * math.pi)  # (d/2,)


def yarn_correction_dim(num_rotations: float, dim: int, base: float, train_len: int) -> float:
    """The fractional pair index at which a pair makes ``num_rotations`` turns over the original context.

    fcd(N) = d·ln(L/(2πN)) / (2·ln b)   (solves r_i = L·b^(−2i/d)/(2π) = N for i).
    Source: jquesnelle/yarn ``find_correction_dim``; HF ``_compute_yarn_parameters.find_correction_dim``.
    Used by notebook 05.
    """
    num_rotations = check_positive("num_rotations", num_rotations)
    dim = check_dim("dim", dim)
    base = check_positive("base", base)
    if base == 1.0:
        raise ValueError("base must be != 1 for YaRN's correction range (ln b is in the denominator), got 1.0")
    train_len = check_length("train_len", train_len)
    # fcd(N) = d · ln(L / (2πN)) / (2 ln b)
    return dim * math.log(train_len / (num_rotations * 2 * math.pi)) / (2 * math.log(base))


def _check_betas(beta_fast, beta_slow) -> tuple[float, float]:
    beta_slow = check_positive("beta_slow", beta_slow)
    beta_fast = check_positive("beta_fast", beta_fast)
    # HF ``_validate_yarn_rope_parameters``: "beta_fast field must be greater than beta_slow" (warns when <)
    if beta_fast < beta_slow:
        raise ValueError(f"beta_fast must be >= beta_slow, got beta_fast={beta_fast} and beta_slow={beta_slow}")
    return beta_fast, beta_slow


def yarn_correction_range(
    dim: int,
    base: float,
    train_len: int,
    *,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> tuple[float, float]:
    """The pair-index interval (low, high) over which YaRN's code ramps from extrapolation to interpolation.

    low = fcd(β_fast), high = fcd(β_slow) (:func:`yarn_correction_dim`); with ``truncate`` low is floored and high
    ceiled; then low = max(low, 0), high = min(high, d − 1). (HF clamps to d − 1 although pair indices stop at
    d/2 − 1; kept for bit-compatibility.)
    Source: HF ``_compute_yarn_parameters.find_correction_range``; jquesnelle/yarn ``find_correction_range``.
    Used by notebook 05.
    """
    beta_fast, beta_slow = _check_betas(beta_fast, beta_slow)
    truncate = check_bool("truncate", truncate)
    dim = check_dim("dim", dim)
    low = yarn_correction_dim(beta_fast, dim, base, train_len)
    high = yarn_correction_dim(beta_slow, dim, base, train_len)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(
    dim: int,
    base: float,
    train_len: int,
    *,
    kind: str = "code",
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> np.ndarray:
    """YaRN's per-pair extrapolation weight γ_i in [0, 1], the code's ramp or the paper's.

    Both are used as θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i: γ = 1 keeps the pair, γ = 0 divides it by s (PI).

    * ``kind="code"`` (HF, jquesnelle/yarn): linear in the pair *index* i (so in log r):
      γ_i = 1 − clamp((i − low)/(high − low), 0, 1), (low, high) from :func:`yarn_correction_range`
      (high += 0.001 if low == high).
    * ``kind="paper"``: linear in r_i = L/λ_i (:func:`rotations_in_context`), with α = ``beta_slow`` and
      β = ``beta_fast`` (the paper's α = 1, β = 32 are the code's beta_slow, beta_fast):
      γ_i = clamp((r_i − α)/(β − α), 0, 1). ``truncate`` does not apply.

    For d = 128, b = 1e4, L = 4096 the two differ in the middle: pair 33 gets 0.150 (paper) vs 0.500 (code).
    Shapes: returns (d/2,) float64. Source: YaRN arXiv 2309.00071 §3.2 (Definition 2, the ramp γ);
    HF ``_compute_yarn_parameters.linear_ramp_factor``. Used by notebook 05.
    """
    if kind not in ("code", "paper"):
        raise ValueError(f"kind must be one of ['code', 'paper'], got {kind!r}")
    dim = check_dim("dim", dim)
    if kind == "paper":
        alpha, beta = check_positive("alpha", beta_slow, inclusive=True), check_positive("beta", beta_fast)
        if beta <= alpha:
            raise ValueError(f"beta must be > alpha, got alpha={alpha} and beta={beta}")
        r = rotations_in_context(dim, base, train_len)  # (d/2,)
        # γ(r) = clamp((r − α)/(β − α), 0, 1)
        return np.clip((r - alpha) / (beta - alpha), 0.0, 1.0)  # (d/2,)
    low, high = yarn_correction_range(dim, base, train_len, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate)
    if low == high:
        high += 0.001  # HF/jquesnelle: prevent a zero denominator
    i = np.arange(dim // 2, dtype=np.float64)  # (d/2,)
    # ramp_i = clamp((i − low)/(high − low), 0, 1) is the interpolation weight; γ_i = 1 − ramp_i
    return 1.0 - np.clip((i - low) / (high - low), 0.0, 1.0)  # (d/2,)


def yarn_get_mscale(factor: float, mscale: float = 1.0) -> float:
    """YaRN's attention factor g(s, M) = 0.1·M·ln s + 1 (1 if s <= 1): it multiplies cos and sin.

    The logits are multiplied by g², the paper's 1/t with √(1/t) = 0.1·ln s + 1: g(8) = 1.2079, g² = 1.459.
    Source: YaRN arXiv 2309.00071 §3.4 (√(1/t) = 0.1 ln s + 1); HF ``_compute_yarn_parameters.get_mscale``.
    Used by notebook 05.
    """
    factor = check_positive("factor", factor)
    mscale = check_positive("mscale", mscale, inclusive=True)
    if factor <= 1:
        return 1.0
    # g(s, M) = 0.1 · M · ln s + 1
    return 0.1 * mscale * math.log(factor) + 1.0


def yarn_inv_freq(
    dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    *,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
    attention_factor: float | None = None,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
) -> ScalingResult:
    """YaRN ("NTK-by-parts" + attention temperature) exactly as HF transformers 5.24 computes it.

    θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i with the code's ramp γ (linear in the pair index; :func:`yarn_ramp`).
    Pairs with more than β_fast = 32 turns over L are kept, pairs with under β_slow = 1 turn are divided by s.
    Attention factor (multiplies cos and sin, so logits scale by its square):
      ``attention_factor`` if given; else g(s, mscale)/g(s, mscale_all_dim) if both are set and non-zero
      (DeepSeek); else g(s, 1) = 0.1·ln s + 1 (1 if s <= 1) (:func:`yarn_get_mscale`).
    ``truncate=False`` (gpt-oss) skips the floor/ceil of the correction range.

    Shapes: returns inv_freq (d/2,) float64 and a float.
    Source: YaRN, arXiv 2309.00071 §3.2–3.4; HF ``_compute_yarn_parameters``. HF's fallback for a missing
    ``factor`` (max_position_embeddings / original) lives in :func:`rope_parameters_from_config`.
    Used by notebook 05.
    """
    factor = check_factor(factor)
    if attention_factor is not None:
        attention_factor = check_positive("attention_factor", attention_factor)
    for name, value in (("mscale", mscale), ("mscale_all_dim", mscale_all_dim)):
        if value is not None:
            check_positive(name, value, inclusive=True)
    inv_freq = rope_inv_freq(dim, base)  # (d/2,)
    train_len = check_length("original_max_position_embeddings", original_max_position_embeddings)
    gamma = yarn_ramp(dim, base, train_len, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate)  # (d/2,)
    # θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i
    inv_freq = _mix(inv_freq, factor, gamma)  # (d/2,)
    if attention_factor is None:
        if mscale and mscale_all_dim:  # HF: both set and non-zero
            # a = g(s, mscale) / g(s, mscale_all_dim)
            attention_factor = yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim)
        else:
            # a = 0.1 · ln s + 1
            attention_factor = yarn_get_mscale(factor)
    return inv_freq, float(attention_factor)


def yarn_paper_inv_freq(
    dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    *,
    alpha: float = 1.0,
    beta: float = 32.0,
) -> ScalingResult:
    """YaRN as the paper writes it, for teaching: the ramp is linear in r = L/λ, not in the pair index.

    r_i = L/λ_i,  γ_i = clamp((r_i − α)/(β − α), 0, 1),  θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i;
    attention factor 0.1·ln s + 1 (1 if s <= 1).
    Not HF-compatible: released checkpoints use :func:`yarn_inv_freq` (reference-formulas.md, point 2).

    Shapes: returns inv_freq (d/2,) float64 and a float.
    Source: YaRN, arXiv 2309.00071 §3.2 (Definition 2) and §3.4. Used by notebook 05.
    """
    factor = check_factor(factor)
    alpha = check_positive("alpha", alpha, inclusive=True)
    beta = check_positive("beta", beta)
    if beta <= alpha:
        raise ValueError(f"beta must be > alpha, got alpha={alpha} and beta={beta}")
    inv_freq = rope_inv_freq(dim, base)  # (d/2,)
    train_len = check_length("original_max_position_embeddings", original_max_position_embeddings)
    gamma = yarn_ramp(dim, base, train_len, kind="paper", beta_fast=beta, beta_slow=alpha)
    # θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i
    return _mix(inv_freq, factor, gamma), yarn_get_mscale(factor)  # (d/2,)


# --------------------------------------------------------------------------- Llama 3.1
def llama3_inv_freq(
    dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    *,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> ScalingResult:
    """Llama 3.1's scaling: keep high frequencies, divide low ones by s, blend linearly in r = L/λ in between.

    λ_i = 2π/θ_i:  θ'_i = θ_i            if λ_i < L/high_freq_factor,
                   θ'_i = θ_i/s          if λ_i > L/low_freq_factor,
                   θ'_i = (1 − σ_i)·θ_i/s + σ_i·θ_i  otherwise, σ_i = (L/λ_i − low)/(high − low).
    This is the YaRN paper's ramp with α = low, β = high. Attention factor 1.
    Llama-3.1-8B (d = 128, b = 5e5, s = 8, L = 8192): 29 pairs unchanged, 29 divided by 8, 6 blended.

    Shapes: returns inv_freq (d/2,) float64 and 1.0.
    Source: meta-llama/llama-models ``apply_scaling``; HF ``_compute_llama3_parameters``. Used by notebook 05.
    """
    factor = check_factor(factor)
    train_len = check_length("original_max_position_embeddings", original_max_position_embeddings)
    low = check_positive("low_freq_factor", low_freq_factor)
    high = check_positive("high_freq_factor", high_freq_factor)
    # HF ``_validate_llama3_rope_parameters``: "high_freq_factor field must be greater than low_freq_factor"
    if high <= low:
        raise ValueError(
            f"high_freq_factor must be > low_freq_factor, got low_freq_factor={low} and high_freq_factor={high}"
        )
    inv_freq = rope_inv_freq(dim, base)  # (d/2,)
    wavelen = 2 * math.pi / inv_freq  # (d/2,)  λ_i = 2π/θ_i
    # σ_i = (L/λ_i − low)/(high − low)
    smooth = (train_len / wavelen - low) / (high - low)  # (d/2,)
    # θ'_i = (1 − σ_i)·θ_i/s + σ_i·θ_i  (the blend, used only in the middle band)
    blended = (1 - smooth) * inv_freq / factor + smooth * inv_freq  # (d/2,)
    out = np.where(wavelen > train_len / low, inv_freq / factor, blended)  # (d/2,)  λ > L/low: θ/s
    out = np.where(wavelen < train_len / high, inv_freq, out)  # (d/2,)  λ < L/high: θ
    return out, 1.0


# --------------------------------------------------------------------------- LongRoPE
def longrope_inv_freq(
    dim: int,
    base: float,
    *,
    short_factor: Sequence[float],
    long_factor: Sequence[float],
    original_max_position_embeddings: int,
    factor: float | None = None,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    attention_factor: float | None = None,
) -> ScalingResult:
    """LongRoPE (Phi-3): a searched rescale factor per pair, one list for short and one for long contexts.

    θ'_i = θ_i / ext_i,  ext = long_factor if seq_len > L else short_factor (``seq_len=None`` → short;
    ``seq_len == L`` → short).
    s = ``factor``, or max_position_embeddings / L when ``factor`` is None (Phi-3).
    Attention factor: ``attention_factor`` if given, else √(1 + ln s / ln L) (1 if s <= 1).
    HF picks long or short per forward call from max(position_ids) + 1, so all positions switch together.

    Shapes: ``short_factor``, ``long_factor``: length d/2; returns inv_freq (d/2,) float64 and a float.
    Source: Ding et al., LongRoPE, arXiv 2402.13753; HF ``_compute_longrope_parameters``. Used by notebook 05.
    """
    dim = check_dim("dim", dim)
    base = check_positive("base", base)
    train_len = check_length("original_max_position_embeddings", original_max_position_embeddings)
    short = _check_factor_list("short_factor", short_factor, dim // 2)  # (d/2,)
    long = _check_factor_list("long_factor", long_factor, dim // 2)  # (d/2,)
    seq_len = check_optional_seq_len(seq_len)
    if factor is not None:
        factor = check_factor(factor)
    elif max_position_embeddings is not None:
        # s = L_mp / L (Phi-3: the ratio of the extended to the original context)
        factor = check_length("max_position_embeddings", max_position_embeddings) / train_len
    else:
        raise ValueError(
            "longrope needs factor or max_position_embeddings (s = max_position_embeddings / "
            "original_max_position_embeddings); got neither"
        )
    if attention_factor is not None:
        attention_factor = check_positive("attention_factor", attention_factor)
    elif factor <= 1.0:
        attention_factor = 1.0
    else:
        # a = √(1 + ln s / ln L)
        attention_factor = math.sqrt(1 + math.log(factor) / math.log(train_len))
    ext = long if seq_len is not None and seq_len > train_len else short  # (d/2,)
    # θ'_i = θ_i / ext_i
    return rope_inv_freq(dim, base) / ext, float(attention_factor)  # (d/2,)
