"""Teaching diagnostics of length extension: the methods side by side, the pairs that meet unseen angles, and the
toy attention entropy that YaRN's temperature answers. Used by notebook 05 and its figures and widgets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from helpers._checks import check_dim, check_int, check_positive
from helpers.rope import rope_inv_freq, rope_score_curve
from helpers.scaling._args import ScalingResult, check_factor, check_length
from helpers.scaling.hf_config import rope_parameters_from_config
from helpers.scaling.registry import ROPE_SCALING, scaling_config

__all__ = ["extension_frequencies", "out_of_range_pairs", "still_out_of_range", "toy_attention_entropy"]


# --------------------------------------------------------------------------- comparing the methods
def extension_frequencies(
    dim: int,
    base: float,
    factor: float,
    train_len: int,
    *,
    methods: Sequence[str] | None = None,
    knobs: Mapping[str, float] | None = None,
) -> dict[str, ScalingResult]:
    """Every registry method's ``(inv_freq, attention_factor)`` for running a model trained on L positions at s·L.

    Keys are those of :data:`~helpers.scaling.registry.ROPE_SCALING`, in its order (labels and colours:
    :data:`helpers.methods.SCALING_METHODS`). Each method runs with the dict of
    :func:`~helpers.scaling.registry.scaling_config` (factor s, ``original_max_position_embeddings`` = L) and
    ``max_position_embeddings`` = L, ``seq_len`` = round(s·L). A method whose scale comes from the current length
    gets factor 1: HF's dynamic NTK then uses the YaRN paper's s = l/L (§3.3) and equals static NTK-aware at l = s·L.
    A method that needs more (LongRoPE's searched factor lists) is left out when ``methods`` is None and raises when
    named. ``knobs``: course-wide slider values (``{"beta_fast": 16.0}``), given to each method that has the knob
    under its own parameter name (:attr:`~helpers.scaling.registry.ScalingMethod.knobs`).

    Shapes: inv_freq (D/2,) float64 per method. Used by notebook 05 (sections 5 and 7), notebook 05b (section 2) and their widgets.
    """
    dim = check_dim("dim", dim)
    train_len = check_length("train_len", train_len)
    factor = check_factor(factor)
    if methods is None:
        methods = [name for name, spec in ROPE_SCALING.items() if not spec.undetermined]
    unknown = [m for m in methods if m not in ROPE_SCALING]
    if unknown:
        raise ValueError(f"methods must be keys of ROPE_SCALING {list(ROPE_SCALING)}, got unknown {unknown}")
    known_knobs = sorted({k for spec in ROPE_SCALING.values() for k in spec.knobs})
    bad = sorted(set(knobs or {}) - set(known_knobs))
    if bad:
        raise ValueError(f"knobs must be among {known_knobs}, got unknown {bad}")
    out = {}
    for name in methods:
        spec = ROPE_SCALING[name]
        config = scaling_config(name, factor, train_len, **spec.knob_params(knobs or {}))
        out[name] = rope_parameters_from_config(
            config, head_dim=dim, base=base, max_position_embeddings=train_len, seq_len=round(factor * train_len)
        )
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
    Used by notebook 05 (section 3) and notebook 05b (section 2).
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
