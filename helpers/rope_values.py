"""RoPE on the values, undone at the query: each value enters a query's output rotated by the relative distance.

DeepSeek-V4 shares one tensor as key and value (K = V), so RoPE rotates the values' rotary slice by their positions
R(j)·v_j; after attention the output's rotary slice is rotated back by the query's position, R(−i). Because
rotations of the same frequencies commute and R(−i)·R(j) = R(j − i)::

    o_i = R(−i) · Σ_j a_ij · R(j)·v_j = Σ_j a_ij · R(j − i)·v_j

so what a value contributes depends on the distance j − i, never on where the pair sits in the text. The idea is
labml's RoPER ("Rotary Positional Embeddings with Relative distances", ``labml_nn/transformers/rope/value_pe``).

* :func:`rope_value_output`: the two-step computation (rotate V by its positions, weight, un-rotate at the query);
* :func:`relative_value_output`: the right-hand side, written with the relative angles (j − i)·θ directly;
* :func:`rotated_copy_similarity`: for a head that copies one token from d positions back, the expected cosine
  between what arrives (R(−d)·v) and the value itself, (D − D_rot + 2·Σ_i cos(d·θ_i))/D for an isotropic v.

Layouts as :mod:`helpers.rope` (DeepSeek-V4 uses interleaved pairs on the *trailing* 64 of its 512 dims; here the
rotary part is the leading ``rotary_dim``, the position of the slice does not change the maths).
Source: HF 5.24 ``models/deepseek_v4/modeling_deepseek_v4.py`` l.765–775 (docstring) and l.828–877
(``kv = apply_rotary_pos_emb(kv, cos, sin)``; ``attn_output = apply_rotary_pos_emb(attn_output…, cos, -sin)``).
Used by notebook 09 (checked in ``tests/test_rope_values.py``, also against HF's function).
"""

from __future__ import annotations

import numpy as np
import torch

from helpers._checks import check_choice, check_float_tensor, check_int, check_positions
from helpers.rope import LAYOUTS, apply_rope, check_inv_freq

__all__ = ["relative_value_output", "rope_value_output", "rotated_copy_similarity"]


def _cos_sin(angles: np.ndarray, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    a = torch.from_numpy(angles)  # (..., D_rot/2) float64
    return a.cos().to(dtype), a.sin().to(dtype)


def _check(weights, v, positions, inv_freq, rotary_dim, layout):
    weights, v = check_float_tensor("weights", weights), check_float_tensor("v", v)
    if v.ndim < 2 or weights.shape[-1] != v.shape[-2] or weights.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"weights must be (..., T, T) and v (..., T, D) with the same T, got {tuple(weights.shape)} and "
            f"{tuple(v.shape)}"
        )
    pos = check_positions("positions", positions)  # (T,)
    if pos.shape[0] != v.shape[-2]:
        raise ValueError(f"positions must have one entry per token (T = {v.shape[-2]}), got {pos.shape[0]}")
    theta = check_inv_freq(inv_freq)  # (D_rot/2,)
    d_rot = 2 * theta.size if rotary_dim is None else check_int("rotary_dim", rotary_dim, minimum=2, even=True)
    if d_rot != 2 * theta.size or d_rot > v.shape[-1]:
        raise ValueError(
            f"rotary_dim must be 2 * len(inv_freq) = {2 * theta.size} and <= v's last dimension {v.shape[-1]}, "
            f"got {d_rot}"
        )
    check_choice("layout", layout, LAYOUTS)
    return weights, v, pos, theta, d_rot


def rope_value_output(
    weights: torch.Tensor,
    v: torch.Tensor,
    positions,
    inv_freq,
    *,
    rotary_dim: int | None = None,
    layout: str = "interleaved",
) -> torch.Tensor:
    """o_i = R(−p_i)·Σ_j a_ij·R(p_j)·v_j: rotate each value by its position, weight, rotate back at the query.

    ``weights``: (..., T, T) attention weights a_ij (rows: queries); ``v``: (..., T, D); ``positions``: (T,) the
    tokens' positions p (ints >= 0, any order); ``inv_freq``: (D_rot/2,) θ_i; ``rotary_dim``: D_rot (default
    2·len(θ)); the other D − D_rot dimensions are plain attention. Returns (..., T, D) in v's dtype.
    """
    weights, v, pos, theta, d_rot = _check(weights, v, positions, inv_freq, rotary_dim, layout)
    cos, sin = _cos_sin(np.outer(pos, theta), v.dtype)  # (T, D_rot/2) each
    v_rot = apply_rope(v, cos, sin, layout=layout, rotary_dim=d_rot)  # (..., T, D): R(p_j)·v_j
    mixed = weights @ v_rot  # (..., T, D)
    return apply_rope(mixed, cos, -sin, layout=layout, rotary_dim=d_rot)  # (..., T, D): R(−p_i)·(...)


def relative_value_output(
    weights: torch.Tensor,
    v: torch.Tensor,
    positions,
    inv_freq,
    *,
    rotary_dim: int | None = None,
    layout: str = "interleaved",
) -> torch.Tensor:
    """o_i = Σ_j a_ij·R(p_j − p_i)·v_j, computed with the relative angles (p_j − p_i)·θ (one rotation per pair i, j).

    The same arguments and shapes as :func:`rope_value_output`; costs T² rotations (for checking, not for speed).
    """
    weights, v, pos, theta, d_rot = _check(weights, v, positions, inv_freq, rotary_dim, layout)
    rel = (pos[None, :] - pos[:, None]).astype(np.float64)  # (T, T): p_j − p_i
    cos, sin = _cos_sin(rel[..., None] * theta, v.dtype)  # (T, T, D_rot/2)
    t = v.shape[-2]
    v_ij = v.unsqueeze(-3).expand(*v.shape[:-2], t, t, v.shape[-1])  # (..., T, T, D): v_j for every query i
    v_ij = apply_rope(v_ij, cos, sin, layout=layout, rotary_dim=d_rot)  # (..., T, T, D): R(p_j − p_i)·v_j
    return (weights.unsqueeze(-1) * v_ij).sum(-2)  # (..., T, D)


def rotated_copy_similarity(distances, inv_freq, *, head_dim: int | None = None) -> np.ndarray:
    """Expected cosine between R(−d)·v and v for an isotropic v: (D − D_rot + 2·Σ_i cos(d·θ_i)) / D.

    A head that copies one token from d positions back (a_ij = 1 at j = i − d) outputs R(−d)·v_j: the unrotated
    D − D_rot dimensions arrive intact, rotary pair i turned by d·θ_i. ``distances``: (N,) ints >= 0 (an int n: 0 … n − 1);
    ``inv_freq``: (D_rot/2,); ``head_dim``: D (default D_rot: a fully rotated value). Returns float64 (N,).
    """
    d = check_positions("distances", distances).astype(np.float64)  # (N,)
    theta = check_inv_freq(inv_freq)  # (D_rot/2,)
    d_rot = 2 * theta.size
    dim = d_rot if head_dim is None else check_int("head_dim", head_dim, minimum=d_rot)
    return (dim - d_rot + 2.0 * np.cos(np.outer(d, theta)).sum(-1)) / dim  # (N,)
