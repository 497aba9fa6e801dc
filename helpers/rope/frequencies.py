"""RoPE's frequencies and angles: θ_i, wavelengths, the angle table m·θ_i and its cos/sin, partial rotary.

θ_i = base^(−2i/D) (RoFormer, arXiv 2104.09864 §3.2.2); every other module of :mod:`helpers.rope` builds on these.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from helpers._checks import check_dim, check_positions, check_positive

__all__ = [
    "check_inv_freq",
    "degrees",
    "partial_rotary_dim",
    "rope_angles",
    "rope_cos_sin",
    "rope_inv_freq",
    "rope_wavelengths",
]


# --------------------------------------------------------------------------- frequencies and angles
def rope_inv_freq(dim: int, base: float = 10000.0) -> np.ndarray:
    """Rotation speed of each pair, in radians per position.

    θ_i = base^(-2i/D), i = 0 .. D/2-1 (RoFormer, arXiv 2104.09864 §3.2.2). Pair 0 is the fastest (1 rad/position).

    Returns a float64 array of shape (D/2,).
    """
    dim = check_dim("dim", dim)
    base = check_positive("base", base)
    return base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)  # (D/2,)


def rope_wavelengths(inv_freq: np.ndarray) -> np.ndarray:
    """λ_i = 2π/θ_i: positions per full turn of pair i. Shape (D/2,)."""
    return 2 * np.pi / np.asarray(inv_freq, dtype=np.float64)  # (D/2,)


def rope_angles(positions, inv_freq) -> np.ndarray:
    """Angle table m·θ_i in float64 (float32 would lose ~1e-4 rad by position 3000).

    ``positions``: an int T (meaning 0..T-1) or an array of shape (T,). ``inv_freq``: shape (D/2,).
    Returns shape (T, D/2).
    """
    pos = check_positions("positions", positions)  # (T,)
    inv_freq = check_inv_freq(inv_freq)  # (D/2,)
    return np.outer(pos, inv_freq)  # (T, D/2)


def rope_cos_sin(
    positions,
    inv_freq,
    *,
    attention_factor: float = 1.0,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos(m·θ_i)·a and sin(m·θ_i)·a as torch tensors of shape (T, D/2).

    ``a`` is the scaling method's attention factor (YaRN's mscale, LongRoPE's factor; 1 otherwise). It
    multiplies q and k alike, so the logits are multiplied by a² (reference-formulas.md, point 6).
    Angles are computed in float64, then cast to ``dtype``.
    """
    a = check_positive("attention_factor", attention_factor)
    angles = torch.from_numpy(rope_angles(positions, inv_freq))  # (T, D/2) float64
    return (angles.cos() * a).to(dtype), (angles.sin() * a).to(dtype)  # (T, D/2) each


def check_inv_freq(inv_freq) -> np.ndarray:
    """``inv_freq`` (D/2,) as a float64 NumPy array, after checking it: 1-D, not empty, finite, every θ_i >= 0
    and at least one > 0.

    θ_i = 0 is allowed: that pair never turns (cos = 1, sin = 0), so its two dimensions carry no position, as the
    unrotated pairs of proportional RoPE (:func:`helpers.scaling.proportional_inv_freq`, Gemma 4) do. Accepts a
    NumPy array, a list or a torch tensor. Used by every function here that takes ``inv_freq``, and by
    :mod:`helpers.mrope`.
    """
    if isinstance(inv_freq, torch.Tensor):
        inv_freq = inv_freq.detach().cpu().numpy()
    arr = np.asarray(inv_freq, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"inv_freq must be a non-empty 1-D array of shape (D/2,), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or arr.min() < 0 or arr.max() <= 0:
        raise ValueError("inv_freq must hold finite values >= 0, at least one of them > 0")
    return arr


def partial_rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """Number of rotated dimensions per head: int(head_dim · factor), as HF computes it; must be even."""
    head_dim = check_dim("head_dim", head_dim)
    f = check_positive("partial_rotary_factor", partial_rotary_factor)
    if f > 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {f}")
    d = int(head_dim * f)
    if d == 0 or d % 2:
        raise ValueError(
            f"head_dim * partial_rotary_factor = {head_dim} * {f} gives {d} rotated dimensions; it must be even and > 0"
        )
    return d


def degrees(radians: float) -> float:
    """Radians to degrees (the chapter's "about 54°" is really 57.30°: errata E3)."""
    return math.degrees(radians)
