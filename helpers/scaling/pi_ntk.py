"""Methods with one rule for every pair: plain RoPE, proportional RoPE, Position Interpolation (and its keep-fast
ablation), NTK-aware (and the source chapter's b·s), dynamic NTK.

Proportional RoPE keeps plain RoPE's θ_i on the first pairs and sets the others to 0; PI divides every θ_i by s;
NTK-aware raises the base so the fast pairs stay and the slowest slows by s; dynamic NTK takes the NTK scale from the
current length. Signatures and conventions: :mod:`helpers.scaling`.
"""

from __future__ import annotations

import numpy as np

from helpers._checks import check_dim, check_int, check_positive
from helpers.rope import rope_inv_freq
from helpers.scaling._args import ScalingResult, check_factor, check_length

__all__ = [
    "default_inv_freq",
    "dynamic_ntk_inv_freq",
    "dynamic_ntk_scale",
    "linear_inv_freq",
    "linear_keep_fast_inv_freq",
    "ntk_chapter_inv_freq",
    "ntk_alpha_inv_freq",
    "ntk_inv_freq",
    "ntk_scaled_base",
    "proportional_inv_freq",
    "proportional_rotated_pairs",
]


def default_inv_freq(dim: int, base: float) -> ScalingResult:
    """Unscaled RoPE frequencies (the reference every method is compared with).

    θ_i = b^(−2i/d), i = 0 .. d/2−1; attention factor 1.

    Shapes: returns inv_freq (d/2,) float64 and 1.0.
    Source: RoFormer, arXiv 2104.09864 §3.2.2; HF ``LlamaRotaryEmbedding.compute_default_rope_parameters``
    (in HF 5.x ``default`` is not in ``ROPE_INIT_FUNCTIONS``). Used by notebook 05.
    """
    return rope_inv_freq(dim, base), 1.0  # (d/2,)


def proportional_rotated_pairs(dim: int, partial_rotary_factor: float = 1.0) -> int:
    """r = int(p·D // 2): the number of pairs proportional RoPE rotates (HF ``rope_angles``); the rest get θ = 0.

    ``dim``: the full head dimension D; ``partial_rotary_factor``: p in (0, 1].
    """
    dim = check_dim("dim", dim)
    p = check_positive("partial_rotary_factor", partial_rotary_factor)
    if p > 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {p}")
    return int(p * dim // 2)


def proportional_inv_freq(
    dim: int, base: float, factor: float = 1.0, *, partial_rotary_factor: float = 1.0
) -> ScalingResult:
    """Proportional RoPE: the rotated pairs keep full-RoPE frequencies, the others carry no position.

    With r = int(p·D // 2):  θ_i = b^(−2i/D) / s for i < r,  θ_i = 0 for r ≤ i < D/2;  attention factor 1.
    The exponent divides by the **full** head dimension D, so pair i < r turns exactly as in full RoPE, and the
    output always has D/2 entries (a θ of 0 means cos = 1, sin = 0: those dimensions pass through, NoPE
    dimensions). Contrast :func:`helpers.layer_schedules.partial_default_inv_freq`, where the D_r rotated
    dimensions get the exponent −2i/D_r. Not a length-extension method: it is how a layer is built, so no panel
    of notebook 05 shows it.

    ``dim``: the full head dimension D (not the rotated part; :func:`helpers.scaling.rope_parameters_from_config`
    passes it so for every method that takes ``partial_rotary_factor``). ``factor``: s >= 1, divides every θ_i
    (HF default 1). Shapes: returns inv_freq (D/2,) float64 (zeros after the first r) and 1.0.
    Source: HF transformers 5.24 ``modeling_rope_utils._compute_proportional_rope_parameters`` (Gemma 4's
    ``full_attention`` layers: p = 0.25, b = 1e6). HF computes in float32: agreement about 1e-7 relative.
    """
    dim = check_dim("dim", dim)
    base = check_positive("base", base)
    factor = check_factor(factor)
    r = proportional_rotated_pairs(dim, partial_rotary_factor)
    inv_freq = np.zeros(dim // 2, dtype=np.float64)  # (D/2,)
    # θ_i = b^(−2i/D) for i < r (full-D exponent), 0 otherwise; then / s
    inv_freq[:r] = rope_inv_freq(dim, base)[:r]  # (r,)
    return inv_freq / factor, 1.0  # (D/2,)


def linear_inv_freq(dim: int, base: float, factor: float) -> ScalingResult:
    """Position Interpolation: every pair slowed by the same factor s.

    θ'_i = θ_i / s (the same as feeding positions m/s); attention factor 1.

    Shapes: returns inv_freq (d/2,) float64 and 1.0.
    Source: Chen et al., arXiv 2306.15595 (PI); HF ``_compute_linear_scaling_rope_parameters``. Used by notebook 05.
    """
    factor = check_factor(factor)
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
    factor = check_factor(factor)
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
    factor = check_factor(factor)
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


def ntk_alpha_inv_freq(dim: int, base: float, alpha: float) -> ScalingResult:
    """Static NTK-α (Tencent Hunyuan): the NTK-aware base change with a fixed α written in the config.

    b' = b·α^(D/(D−2)),  θ'_i = b'^(−2i/D); attention factor 1. The same numbers as :func:`ntk_inv_freq` at s = α
    (pair 0 unchanged, the slowest pair slowed by exactly α), but α is a model constant, not a length ratio: the
    frequencies do not depend on the current length. Hunyuan's checkpoints label it ``"type": "dynamic"`` with an
    ``alpha`` (e.g. α = 1000); HF renames it ``ntk_alpha`` so that the dynamic update stops recomputing it.
    ``dim``: the full head dimension D (HF uses ``config.head_dim``). Shapes: returns inv_freq (D/2,) float64, 1.0.
    Source: HF 5.24 ``models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py`` l.298–302 (the rename) and l.339–359
    (``compute_ntk_alpha_rope_parameters``: ``rope_theta * alpha ** (dim / (dim - 2))``); the same in
    ``hunyuan_v1_moe``; vLLM ``DynamicNTKAlphaRotaryEmbedding``.
    """
    alpha = check_positive("alpha", alpha)
    # b' = b · α^(D/(D−2));  θ'_i = b'^(−2i/D)
    return rope_inv_freq(dim, ntk_scaled_base(dim, base, alpha)), 1.0  # (D/2,)


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
    factor = check_factor(factor)
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
    factor = check_factor(factor)
    seq_len = check_int("seq_len", seq_len, minimum=0)
    max_position_embeddings = check_length("max_position_embeddings", max_position_embeddings)
    # b' = b · (s·l/L_mp − (s − 1))^(d/(d−2))
    scaled_base = base * float(dynamic_ntk_scale(seq_len, factor, max_position_embeddings)) ** (dim / (dim - 2))
    return rope_inv_freq(dim, scaled_base), 1.0  # (d/2,)


def dynamic_ntk_scale(lengths, factor: float, max_position_embeddings: int) -> np.ndarray:
    """Dynamic NTK's effective scale at the current length(s) l: s·max(l, L_mp)/L_mp − (s − 1).

    1 up to l = L_mp (frequencies unchanged while the text is short), then linear in l. With s = 1 it is the YaRN
    paper's max(1, l/L) (§3.3). ``lengths``: a number or an array (K,); returns float64 of the same shape.
    Source: HF ``_compute_dynamic_ntk_parameters``; YaRN arXiv 2309.00071 §3.3. Used by notebook 05 (section 4).
    """
    factor = check_factor(factor)
    max_position_embeddings = check_length("max_position_embeddings", max_position_embeddings)
    lengths = np.asarray(lengths, dtype=np.float64)  # (K,) or ()
    if not np.all(np.isfinite(lengths)) or (lengths.size and lengths.min() < 0):
        raise ValueError(f"lengths must be finite and >= 0, got {lengths}")
    # l = max(seq_len, L_mp);  s·l/L_mp − (s − 1)
    return factor * np.maximum(lengths, max_position_embeddings) / max_position_embeddings - (factor - 1.0)
