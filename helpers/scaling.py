"""RoPE length extension: one function per method, all returning ``(inv_freq, attention_factor)``.

Every method has the signature ``fn(dim, base, **params) -> (inv_freq, attention_factor)``, in the style of HF
transformers' ``ROPE_INIT_FUNCTIONS`` registry, and accepts HF's parameter names (``factor``,
``original_max_position_embeddings``, ``beta_fast``, ``low_freq_factor``, ...):

* ``inv_freq``: float64 array of shape (D/2,), θ'_i in radians per position, computed in float64.
  HF computes the same numbers in float32; they agree to about 1e-6 relative (float32 rounding).
* ``attention_factor``: a float ``a`` that multiplies cos and sin, hence q and k alike, so the attention logits are
  multiplied by ``a²`` (YaRN's temperature, LongRoPE's factor; 1.0 for the other methods). Pass it to
  :func:`helpers.rope.rope_cos_sin`.

Methods (:data:`ROPE_SCALING`): ``default``, ``linear`` (PI), ``linear_keep_fast`` (PI with the fastest pairs
unchanged, an ablation), ``ntk`` (static NTK-aware), ``ntk_chapter`` (the source
chapter's b·s approximation, errata E4), ``dynamic`` (HF dynamic NTK), ``yarn`` (as HF computes it), ``yarn_paper``
(the paper's ramp, for teaching), ``llama3``, ``longrope``. :func:`rope_parameters_from_config` turns a pasted HF
``rope_scaling`` / ``rope_parameters`` dict into frequencies, :func:`rotary_from_config` into a ready
:class:`helpers.rope.Rotary` (here, not in :mod:`helpers.rope`, so that imports point one way: scaling -> rope).

Formulas and the HF 5.24 conventions they follow: ``shared/design/reference-formulas.md``. Used by notebook 05.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from helpers._checks import check_choice, check_dim, check_int, check_positive
from helpers.rope import LAYOUTS, Rotary, partial_rotary_dim, rope_inv_freq, rope_score_curve

__all__ = [
    "HF_ROPE_TYPES",
    "ROPE_SCALING",
    "default_inv_freq",
    "dynamic_ntk_inv_freq",
    "dynamic_ntk_scale",
    "extension_frequencies",
    "linear_inv_freq",
    "linear_keep_fast_inv_freq",
    "llama3_inv_freq",
    "longrope_inv_freq",
    "ntk_chapter_inv_freq",
    "ntk_inv_freq",
    "ntk_scaled_base",
    "out_of_range_pairs",
    "rope_parameters_from_config",
    "rotary_from_config",
    "rotations_in_context",
    "still_out_of_range",
    "toy_attention_entropy",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_get_mscale",
    "yarn_inv_freq",
    "yarn_paper_inv_freq",
    "yarn_ramp",
]

ScalingResult = tuple[np.ndarray, float]


# --------------------------------------------------------------------------- argument checks
def _check_factor(value, name: str = "factor") -> float:
    """s >= 1. HF 5.24's validators (``_validate_linear_rope_parameters``, ``_validate_dynamic_rope_parameters``,
    ``_validate_yarn_rope_parameters``, ``_validate_llama3_rope_parameters``, ``_validate_longrope_rope_parameters``)
    all say "factor field must be a float or int >= 1"; HF only logs a warning, we raise."""
    return check_positive(name, value, minimum=1.0, inclusive=True)


def _check_length(name: str, value) -> int:
    """A context length in positions: an integer >= 1."""
    return check_int(name, value, minimum=1)


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def _check_optional_seq_len(value) -> int | None:
    return None if value is None else check_int("seq_len", value, minimum=0)


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


# --------------------------------------------------------------------------- default, PI, NTK
def default_inv_freq(dim: int, base: float) -> ScalingResult:
    """Unscaled RoPE frequencies (the reference every method is compared with).

    θ_i = b^(−2i/d), i = 0 .. d/2−1; attention factor 1.

    Shapes: returns inv_freq (d/2,) float64 and 1.0.
    Source: RoFormer, arXiv 2104.09864 §3.2.2; HF ``LlamaRotaryEmbedding.compute_default_rope_parameters``
    (in HF 5.x ``default`` is not in ``ROPE_INIT_FUNCTIONS``). Used by notebook 05.
    """
    return rope_inv_freq(dim, base), 1.0  # (d/2,)


def linear_inv_freq(dim: int, base: float, factor: float) -> ScalingResult:
    """Position Interpolation: every pair slowed by the same factor s.

    θ'_i = θ_i / s (the same as feeding positions m/s); attention factor 1.

    Shapes: returns inv_freq (d/2,) float64 and 1.0.
    Source: Chen et al., arXiv 2306.15595 (PI); HF ``_compute_linear_scaling_rope_parameters``. Used by notebook 05.
    """
    factor = _check_factor(factor)
    inv_freq = rope_inv_freq(dim, base)  # (d/2,)
    # θ'_i = θ_i / s
    return inv_freq / factor, 1.0  # (d/2,)


def linear_keep_fast_inv_freq(dim: int, base: float, factor: float, *, keep_pairs: int = 1) -> ScalingResult:
    """Position Interpolation with the fastest pairs left alone (an ablation, not a published method).

    θ'_i = θ_i for i < keep_pairs, θ'_i = θ_i / s otherwise; attention factor 1. It isolates one mechanism:
    PI also slows pair 0, which turns by 1 rad per token and is what a previous-token head reads, so at a small
    L every distance-1 angle PI produces (1/s rad) lies below anything seen in training. Keeping the fast pairs is
    what YaRN's and Llama 3.1's "high-frequency" bands do (they keep pairs with many turns within L).

    Shapes: returns inv_freq (d/2,) float64 and 1.0.
    Source: the PI paper's method (Chen et al., arXiv 2306.15595) with YaRN's observation (Peng et al., arXiv
    2309.00071 §3.2, "blind" interpolation loses high frequencies). Used by the lab's ablations.
    """
    factor = _check_factor(factor)
    inv_freq = rope_inv_freq(dim, base)  # (d/2,)
    keep = check_int("keep_pairs", keep_pairs, minimum=0)
    if keep > len(inv_freq):
        raise ValueError(f"keep_pairs must be <= the number of pairs d/2 = {len(inv_freq)}, got {keep}")
    # θ'_i = θ_i (i < keep_pairs), θ_i / s otherwise
    out = inv_freq / factor  # (d/2,)
    out[:keep] = inv_freq[:keep]  # (d/2,)
    return out, 1.0


def ntk_scaled_base(dim: int, base: float, factor: float) -> float:
    """The NTK-aware base b' = b·s^(d/(d−2)) (YaRN arXiv 2309.00071 §3.1 and App. A.1). Used by notebook 05.

    The exponent makes the slowest pair exactly s times slower: b'^((d−2)/d) = s·b^((d−2)/d).
    Needs d >= 4 (at d = 2 the exponent d/(d−2) is undefined).
    """
    dim = check_dim("dim", dim)
    if dim < 4:
        raise ValueError(
            f"dim must be >= 4 for NTK-aware scaling (the exponent d/(d-2) is undefined at d = 2), got {dim}"
        )
    base = check_positive("base", base)
    factor = _check_factor(factor)
    # b' = b · s^(d/(d−2))
    return base * factor ** (dim / (dim - 2))


def ntk_inv_freq(dim: int, base: float, factor: float) -> ScalingResult:
    """Static NTK-aware scaling: raise the base so fast pairs stay put and the slowest pair slows by exactly s.

    b' = b·s^(d/(d−2)),  θ'_i = b'^(−2i/d) = θ_i · s^(−2i/(d−2)); attention factor 1.
    Pair 0 is unchanged, pair d/2−1 is divided by s (not a uniform slowdown: that is PI; errata E4).

    Shapes: returns inv_freq (d/2,) float64 and 1.0. Needs d >= 4.
    Source: bloc97's NTK-aware RoPE as written in YaRN, arXiv 2309.00071 §3.1 and App. A.1. HF 5.24 has no static
    NTK type; HF ``_compute_dynamic_ntk_parameters`` with factor 1 at seq_len = s·L gives the same numbers.
    Used by notebook 05.
    """
    # b' = b · s^(d/(d−2));  θ'_i = b'^(−2i/d)
    return rope_inv_freq(dim, ntk_scaled_base(dim, base, factor)), 1.0  # (d/2,)


def ntk_chapter_inv_freq(dim: int, base: float, factor: float) -> ScalingResult:
    """The source chapter's simplified NTK-aware scaling, kept for comparison: the base times s.

    b' = b·s,  θ'_i = (b·s)^(−2i/d); attention factor 1.
    This is the chapter's approximation (errata E4): the correct NTK base is b·s^(d/(d−2)) (:func:`ntk_inv_freq`).
    The two are close only for large d: d = 128, b = 1e4, s = 4 gives 40,000 vs 40,890; d = 4 gives 40,000 vs
    160,000. With b·s the slowest pair is slowed by s^((d−2)/d), a little less than s.

    Shapes: returns inv_freq (d/2,) float64 and 1.0.
    Source: the course's source chapter (seed-errata.md E4); not in HF. Used by notebook 05.
    """
    base = check_positive("base", base)
    factor = _check_factor(factor)
    # b' = b · s
    return rope_inv_freq(dim, base * factor), 1.0  # (d/2,)


def dynamic_ntk_inv_freq(
    dim: int, base: float, factor: float, seq_len: int, max_position_embeddings: int
) -> ScalingResult:
    """Dynamic NTK as HF computes it: the NTK base grows with the current sequence length.

    l = max(seq_len, L_mp),  b' = b·(s·l/L_mp − (s − 1))^(d/(d−2)),  θ'_i = b'^(−2i/d); attention factor 1.
    L_mp is ``max_position_embeddings`` (not ``original_max_position_embeddings``). The effective NTK scale
    s·l/L_mp − s + 1 is 1 up to l = L_mp (frequencies = default) and 2s − 1 at l = 2·L_mp. The YaRN paper's
    dynamic scaling (§3.3) uses max(1, l/L) instead; the two agree only for s = 1.

    Shapes: returns inv_freq (d/2,) float64 and 1.0. Needs d >= 4.
    Source: HF ``_compute_dynamic_ntk_parameters`` (credited to /u/bloc97 and /u/emozilla); HF recomputes it per
    call from ``max(position_ids) + 1`` in ``dynamic_rope_update``. Used by notebook 05.
    """
    dim = check_dim("dim", dim)
    if dim < 4:
        raise ValueError(f"dim must be >= 4 for dynamic NTK (the exponent d/(d-2) is undefined at d = 2), got {dim}")
    base = check_positive("base", base)
    factor = _check_factor(factor)
    seq_len = check_int("seq_len", seq_len, minimum=0)
    max_position_embeddings = _check_length("max_position_embeddings", max_position_embeddings)
    # b' = b · (s·l/L_mp − (s − 1))^(d/(d−2))
    scaled_base = base * float(dynamic_ntk_scale(seq_len, factor, max_position_embeddings)) ** (dim / (dim - 2))
    return rope_inv_freq(dim, scaled_base), 1.0  # (d/2,)


def dynamic_ntk_scale(lengths, factor: float, max_position_embeddings: int) -> np.ndarray:
    """Dynamic NTK's effective scale at the current length(s) l: s·max(l, L_mp)/L_mp − (s − 1).

    1 up to l = L_mp (frequencies unchanged while the text is short), then linear in l. With s = 1 it is the YaRN
    paper's max(1, l/L) (§3.3). ``lengths``: a number or an array (K,); returns float64 of the same shape.
    Source: HF ``_compute_dynamic_ntk_parameters``; YaRN arXiv 2309.00071 §3.3. Used by notebook 05 (section 4).
    """
    factor = _check_factor(factor)
    max_position_embeddings = _check_length("max_position_embeddings", max_position_embeddings)
    lengths = np.asarray(lengths, dtype=np.float64)  # (K,) or ()
    if not np.all(np.isfinite(lengths)) or (lengths.size and lengths.min() < 0):
        raise ValueError(f"lengths must be finite and >= 0, got {lengths}")
    # l = max(seq_len, L_mp);  s·l/L_mp − (s − 1)
    return factor * np.maximum(lengths, max_position_embeddings) / max_position_embeddings - (factor - 1.0)


# --------------------------------------------------------------------------- YaRN
def rotations_in_context(dim: int, base: float, original_max_position_embeddings: int) -> np.ndarray:
    """How many full turns each pair makes over the original context: r_i = L/λ_i = L·θ_i/(2π).

    r > β (32) means many turns (high frequency: leave alone); r < α (1) means less than one turn (interpolate).
    Shapes: returns (d/2,) float64. Source: YaRN arXiv 2309.00071 §3.2 (r(d) = L/λ_d). Used by notebook 05.
    """
    length = _check_length("original_max_position_embeddings", original_max_position_embeddings)
    # r_i = L / λ_i = L·θ_i / (2π)
    return length * rope_inv_freq(dim, base) / (2 * math.pi)  # (d/2,)


def yarn_correction_dim(num_rotations: float, dim: int, base: float, original_max_position_embeddings: int) -> float:
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
    length = _check_length("original_max_position_embeddings", original_max_position_embeddings)
    # fcd(N) = d · ln(L / (2πN)) / (2 ln b)
    return dim * math.log(length / (num_rotations * 2 * math.pi)) / (2 * math.log(base))


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
    original_max_position_embeddings: int,
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
    truncate = _check_bool("truncate", truncate)
    dim = check_dim("dim", dim)
    low = yarn_correction_dim(beta_fast, dim, base, original_max_position_embeddings)
    high = yarn_correction_dim(beta_slow, dim, base, original_max_position_embeddings)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
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
        r = rotations_in_context(dim, base, original_max_position_embeddings)  # (d/2,)
        # γ(r) = clamp((r − α)/(β − α), 0, 1)
        return np.clip((r - alpha) / (beta - alpha), 0.0, 1.0)  # (d/2,)
    low, high = yarn_correction_range(
        dim, base, original_max_position_embeddings, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate
    )
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
    factor = _check_factor(factor)
    if attention_factor is not None:
        attention_factor = check_positive("attention_factor", attention_factor)
    for name, value in (("mscale", mscale), ("mscale_all_dim", mscale_all_dim)):
        if value is not None:
            check_positive(name, value, inclusive=True)
    inv_freq = rope_inv_freq(dim, base)  # (d/2,)
    gamma = yarn_ramp(
        dim, base, original_max_position_embeddings, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate
    )  # (d/2,)
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
    factor = _check_factor(factor)
    alpha = check_positive("alpha", alpha, inclusive=True)
    beta = check_positive("beta", beta)
    if beta <= alpha:
        raise ValueError(f"beta must be > alpha, got alpha={alpha} and beta={beta}")
    inv_freq = rope_inv_freq(dim, base)  # (d/2,)
    gamma = yarn_ramp(dim, base, original_max_position_embeddings, kind="paper", beta_fast=beta, beta_slow=alpha)
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
    factor = _check_factor(factor)
    length = _check_length("original_max_position_embeddings", original_max_position_embeddings)
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
    smooth = (length / wavelen - low) / (high - low)  # (d/2,)
    # θ'_i = (1 − σ_i)·θ_i/s + σ_i·θ_i  (the blend, used only in the middle band)
    blended = (1 - smooth) * inv_freq / factor + smooth * inv_freq  # (d/2,)
    out = np.where(wavelen > length / low, inv_freq / factor, blended)  # (d/2,)  λ > L/low: θ/s
    out = np.where(wavelen < length / high, inv_freq, out)  # (d/2,)  λ < L/high: θ
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
    length = _check_length("original_max_position_embeddings", original_max_position_embeddings)
    short = _check_factor_list("short_factor", short_factor, dim // 2)  # (d/2,)
    long = _check_factor_list("long_factor", long_factor, dim // 2)  # (d/2,)
    seq_len = _check_optional_seq_len(seq_len)
    if factor is not None:
        factor = _check_factor(factor)
    elif max_position_embeddings is not None:
        # s = L_mp / L (Phi-3: the ratio of the extended to the original context)
        factor = _check_length("max_position_embeddings", max_position_embeddings) / length
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
        attention_factor = math.sqrt(1 + math.log(factor) / math.log(length))
    ext = long if seq_len is not None and seq_len > length else short  # (d/2,)
    # θ'_i = θ_i / ext_i
    return rope_inv_freq(dim, base) / ext, float(attention_factor)  # (d/2,)


# --------------------------------------------------------------------------- registry and configs
ROPE_SCALING: dict[str, Callable[..., ScalingResult]] = {
    "default": default_inv_freq,
    "linear": linear_inv_freq,
    "linear_keep_fast": linear_keep_fast_inv_freq,
    "ntk": ntk_inv_freq,
    "ntk_chapter": ntk_chapter_inv_freq,
    "dynamic": dynamic_ntk_inv_freq,
    "yarn": yarn_inv_freq,
    "yarn_paper": yarn_paper_inv_freq,
    "llama3": llama3_inv_freq,
    "longrope": longrope_inv_freq,
}

#: The methods whose numbers match HF transformers 5.24 (``ROPE_INIT_FUNCTIONS`` plus Llama's default).
HF_ROPE_TYPES: tuple[str, ...] = ("default", "linear", "dynamic", "yarn", "llama3", "longrope")

# Keys that describe the base RoPE rather than the scaling method.
_COMMON_KEYS = frozenset({"type", "rope_type", "rope_theta", "partial_rotary_factor"})
# Arguments supplied by the caller (model-level values), not by the rope_scaling dict.
_CALLER_KEYS = frozenset({"max_position_embeddings", "seq_len"})


def _method_parameters(fn: Callable[..., ScalingResult]) -> tuple[set[str], set[str]]:
    """(all parameter names, required parameter names) of a registry function, minus dim and base."""
    params = list(inspect.signature(fn).parameters.values())[2:]
    names = {p.name for p in params}
    required = {p.name for p in params if p.default is inspect.Parameter.empty}
    return names, required


def rope_parameters_from_config(
    config: Mapping | None,
    *,
    head_dim: int,
    base: float | None = None,
    partial_rotary_factor: float = 1.0,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
) -> ScalingResult:
    """Frequencies and attention factor for a pasted HF ``rope_scaling`` or ``rope_parameters`` dict.

    ``config``: e.g. Llama-3.1-8B's ``{"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192, "rope_type": "llama3"}``. The method is ``rope_type`` (5.x) or
    ``type`` (old ``rope_scaling``); ``None``, ``{}`` or no type means ``default``. Any method of
    :data:`ROPE_SCALING` is accepted. Keys equal to ``None`` count as missing.
    ``head_dim``: the model's head dimension; the rotary dimension is d = int(head_dim · partial_rotary_factor).
    ``base`` / ``partial_rotary_factor``: the model's ``rope_theta`` / ``partial_rotary_factor``; a 5.x
    ``rope_parameters`` dict may carry them instead (a conflicting value raises). Base defaults to 10000
    (HF ``default_theta``).
    ``max_position_embeddings``: the model's value; needed by ``dynamic``, by YaRN without ``factor`` (HF's
    fallback s = max_position_embeddings / original_max_position_embeddings) and by LongRoPE without ``factor``.
    ``seq_len``: the current sequence length; needed by ``dynamic``, picks LongRoPE's long factors when > L.

    Returns inv_freq (d/2,) float64 and the attention factor. Unknown keys give a warning (as HF logs one).
    Source: HF ``RotaryEmbeddingConfigMixin.standardize_rope_params`` and ``ROPE_INIT_FUNCTIONS``.
    Used by notebook 05.
    """
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a dict (a model's rope_scaling / rope_parameters) or None, got {type(config).__name__}"
        )
    for wrapper in ("rope_scaling", "rope_parameters"):
        if wrapper in config:
            raise ValueError(
                f"config looks like a whole model config (it has a {wrapper!r} key): pass config[{wrapper!r}] "
                "and the model's head_dim and rope_theta instead"
            )
    nested = sorted(k for k, v in config.items() if isinstance(v, Mapping))
    if nested:
        raise ValueError(
            f"config has nested dicts under {nested} (per-layer-type RoPE, e.g. Gemma 3); pass one of them"
        )
    config = {k: v for k, v in config.items() if v is not None}

    rope_type = config.get("rope_type", config.get("type", "default"))
    if "rope_type" in config and "type" in config and config["type"] != config["rope_type"]:
        raise ValueError(f"config has conflicting rope_type={config['rope_type']!r} and type={config['type']!r}")
    if rope_type not in ROPE_SCALING:
        raise ValueError(f"unknown RoPE scaling method {rope_type!r}; known methods: {sorted(ROPE_SCALING)}")

    if "rope_theta" in config:
        theta = check_positive("rope_theta", config["rope_theta"])
        if base is not None and check_positive("base", base) != theta:
            raise ValueError(f"base={base} conflicts with the config's rope_theta={theta}; give one of them")
        base = theta
    base = 10000.0 if base is None else base
    if "partial_rotary_factor" in config:
        prf = config["partial_rotary_factor"]
        if partial_rotary_factor != 1.0 and partial_rotary_factor != prf:
            raise ValueError(
                f"partial_rotary_factor={partial_rotary_factor} conflicts with the config's "
                f"partial_rotary_factor={prf}; give one of them"
            )
        partial_rotary_factor = prf
    dim = partial_rotary_dim(head_dim, partial_rotary_factor)

    fn = ROPE_SCALING[rope_type]
    names, required = _method_parameters(fn)
    kwargs = {k: v for k, v in config.items() if k in names and k not in _CALLER_KEYS}
    # max_position_embeddings / seq_len are model-level arguments: in the dict they are ignored (and reported)
    unknown = sorted(set(config) - (names - _CALLER_KEYS) - _COMMON_KEYS)
    if unknown:
        warnings.warn(
            f"ignoring keys {unknown} that rope_type {rope_type!r} does not use (it uses {sorted(names - _CALLER_KEYS)})",
            stacklevel=2,
        )
    for key, value in (("max_position_embeddings", max_position_embeddings), ("seq_len", seq_len)):
        if key in names and value is not None:
            kwargs[key] = value

    if rope_type == "yarn" and "factor" not in kwargs and "original_max_position_embeddings" in kwargs:
        # HF ``_compute_yarn_parameters``: factor = max_position_embeddings / original_max_position_embeddings
        if max_position_embeddings is None:
            raise ValueError(
                "rope_type 'yarn' needs 'factor' in the config, or max_position_embeddings to compute "
                "factor = max_position_embeddings / original_max_position_embeddings"
            )
        original = _check_length("original_max_position_embeddings", kwargs["original_max_position_embeddings"])
        kwargs["factor"] = _check_length("max_position_embeddings", max_position_embeddings) / original

    missing = sorted(required - set(kwargs))
    if missing:
        where = {"max_position_embeddings": " (argument)", "seq_len": " (argument)"}
        described = ", ".join(f"{k!r}{where.get(k, '')}" for k in missing)
        raise ValueError(f"rope_type {rope_type!r} needs {described}; config keys given: {sorted(config)}")
    return fn(dim, base, **kwargs)


def rotary_from_config(
    dim: int,
    rope_scaling: Mapping | None = None,
    *,
    base: float | None = None,
    layout: str = "interleaved",
    partial_rotary_factor: float = 1.0,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
) -> Rotary:
    """A :class:`helpers.rope.Rotary` for a pasted HF ``rope_scaling`` / ``rope_parameters`` dict.

    ``dim``: the head dimension D; only the first int(D · partial_rotary_factor) dimensions are rotated.
    ``base``: the model's ``rope_theta``; leave it out when the dict carries ``rope_theta`` (a 5.x
    ``rope_parameters`` dict), so that a real model's config pastes as it is. An explicit ``base`` that differs
    from the dict's ``rope_theta`` raises; with neither, base = 10000 (HF ``default_theta``).
    The other arguments are those of :func:`rope_parameters_from_config`. The rotation uses θ'_i and the attention
    factor a of the chosen method (cos and sin both times a, so the logits scale by a²).

    Shapes: the returned object rotates x (..., T, D). Source: HF ``RotaryEmbeddingConfigMixin`` and
    ``ROPE_INIT_FUNCTIONS``. Used by notebook 05 and the tiny-model lab.
    """
    check_choice("layout", layout, LAYOUTS)
    inv_freq, attention_factor = rope_parameters_from_config(
        rope_scaling,
        head_dim=dim,
        base=base,
        partial_rotary_factor=partial_rotary_factor,
        max_position_embeddings=max_position_embeddings,
        seq_len=seq_len,
    )  # (D_rot/2,), float
    return Rotary(
        dim, layout=layout, inv_freq=inv_freq, attention_factor=attention_factor, rotary_dim=2 * len(inv_freq)
    )


# --------------------------------------------------------------------------- comparing the methods
def extension_frequencies(
    dim: int, base: float, factor: float, train_len: int, *, methods: Sequence[str] | None = None
) -> dict[str, ScalingResult]:
    """Every registry method's ``(inv_freq, attention_factor)`` for running a model trained on L positions at s·L.

    Keys are those of :data:`ROPE_SCALING` (labels and colours: :data:`helpers.methods.SCALING_METHODS`). Each
    function gets, by its parameter names: ``factor`` = s, ``original_max_position_embeddings`` =
    ``max_position_embeddings`` = L, ``seq_len`` = round(s·L). A method that reads the current length (``seq_len``)
    sets its scale from it, so it gets factor 1: HF's dynamic NTK then uses the YaRN paper's s = l/L (§3.3) and
    equals static NTK-aware at l = s·L. A method that needs more (LongRoPE's searched factor lists) is left out
    when ``methods`` is None and raises when named.

    Shapes: inv_freq (D/2,) float64 per method. Used by notebook 05 (sections 7 and 9) and its widgets.
    """
    dim = check_dim("dim", dim)
    train_len = _check_length("train_len", train_len)
    factor = _check_factor(factor)
    if methods is not None:
        unknown = [m for m in methods if m not in ROPE_SCALING]
        if unknown:
            raise ValueError(f"methods must be keys of ROPE_SCALING {list(ROPE_SCALING)}, got unknown {unknown}")
    values = {
        "factor": factor,
        "original_max_position_embeddings": train_len,
        "max_position_embeddings": train_len,
        "seq_len": round(factor * train_len),
    }
    out = {}
    for name in ROPE_SCALING if methods is None else methods:
        names, required = _method_parameters(ROPE_SCALING[name])
        missing = sorted(required - set(values))
        if missing:
            if methods is None:
                continue
            raise ValueError(f"method {name!r} needs {missing}, which extension_frequencies cannot choose for it")
        kwargs = {k: v for k, v in values.items() if k in names}
        if "seq_len" in kwargs and "factor" in kwargs:
            kwargs["factor"] = 1.0  # the scale comes from the current length
        out[name] = ROPE_SCALING[name](dim, base, **kwargs)
    return out


def out_of_range_pairs(dim: int, base: float, train_len: int, target_len: int) -> np.ndarray:
    """Boolean (D/2,): pairs whose angles at positions up to L′ include angles never seen up to L.

    Pair i sees the angles [0, L·θ_i] during training. If L·θ_i ≥ 2π it has made a full turn, so every angle
    (mod 2π) has been seen; otherwise the angles in (L·θ_i, min(L′·θ_i, 2π)) are new whenever L′ > L.
    The condition L·θ_i < 2π is r_i = L/λ_i < 1: YaRN's α = 1 boundary (arXiv 2309.00071 §3.2).
    Used by notebook 05 (section 1).
    """
    theta = rope_inv_freq(dim, base)  # (D/2,)
    train_len = check_int("train_len", train_len, minimum=1)
    target_len = check_int("target_len", target_len, minimum=1)
    return (train_len * theta < 2 * math.pi) & (target_len > train_len)  # (D/2,)


def still_out_of_range(inv_freq, scaled_inv_freq, train_len: int, target_len: int) -> np.ndarray:
    """Boolean (D/2,): pairs that, with the scaled frequencies θ′, still meet angles unseen in training at L′.

    Pair i saw [0, L·θ_i] in training (the whole circle if L·θ_i ≥ 2π). At L′ with θ′ it needs [0, L′·θ′_i]; it
    meets new angles iff L·θ_i < 2π and L′·θ′_i > L·θ_i (up to a 1e-12 relative rounding margin).
    PI (θ′ = θ·L/L′) gives none; NTK-aware leaves the slow pairs but the last partly out of range.
    Used by notebook 05 (sections 3 and 9).
    """
    theta = np.asarray(inv_freq, dtype=np.float64)  # (D/2,)
    scaled = np.asarray(scaled_inv_freq, dtype=np.float64)  # (D/2,)
    if theta.shape != scaled.shape:
        raise ValueError(f"inv_freq and scaled_inv_freq must have the same shape, got {theta.shape} and {scaled.shape}")
    train_len = check_int("train_len", train_len, minimum=1)
    target_len = check_int("target_len", target_len, minimum=1)
    return (train_len * theta < 2 * math.pi) & (target_len * scaled > train_len * theta * (1 + 1e-12))  # (D/2,)


def toy_attention_entropy(inv_freq, lengths, *, attention_factor: float = 1.0, peak_logit: float = 8.0) -> np.ndarray:
    """Entropy (nats) of the last query's attention over the n most recent keys, for each n in ``lengths``.

    Toy model: every token has the same content, so the logit at distance Δ is
    c·a²·mean_i cos(Δ·θ_i) (c = ``peak_logit``, the logit at Δ = 0 without temperature; a = attention factor;
    :func:`helpers.rope.rope_score_curve`). H(n) = −Σ_{Δ<n} p_Δ ln p_Δ with p = softmax over Δ = 0..n−1, computed
    for all n at once with running sums. A uniform row would have H = ln n. YaRN's temperature (arXiv 2309.00071
    §3.4) exists to keep this entropy from growing with n. Shapes: ``lengths`` (K,) of ints >= 1; returns (K,).
    Used by notebook 05 (section 5).
    """
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.min() < 1:
        raise ValueError(f"lengths must be a 1-D array of integers >= 1, got {lengths!r}")
    c = check_positive("peak_logit", peak_logit)
    n_max = int(lengths.max())
    x = c * rope_score_curve(inv_freq, np.arange(n_max), attention_factor)  # (n_max,)
    w = np.exp(x - x.max())  # (n_max,) stable: a common shift cancels in p
    z = np.cumsum(w)  # (n_max,)  Z_n (shifted)
    wx = np.cumsum(w * (x - x.max()))  # (n_max,)
    idx = lengths.astype(int) - 1
    # H = ln Z − E_p[x]  (both with the same shift)
    return np.log(z[idx]) - wx[idx] / z[idx]  # (K,)
