"""Scaled dot-product attention that returns its weights, with an optional causal mask and positional method.

Attention(Q, K, V) = softmax(Q·Kᵀ/√d_k + mask)·V   (Vaswani et al. 2017, arXiv 1706.03762 §3.2.1)

Where position can enter (notebooks 01 and 04):
* additively, before the projections: X + PE (sinusoidal or learned table), which changes Q, K *and* V;
* by rotating q and k after the projections (RoPE, :class:`helpers.rope.Rotary`); V is never rotated;
* through the causal mask, which makes token t see only tokens ≤ t (errata E9);
* as a bias on the scores that depends on the distance n − m only (T5, ALiBi: :mod:`helpers.score_biases`, notebook 06).
With none of these, self-attention is permutation-equivariant.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from helpers._checks import check_float_tensor
from helpers.rope import Rotary


def causal_mask(t_q: int, t_k: int | None = None) -> torch.Tensor:
    """Boolean (T_q, T_k) mask, True where query t may attend to key s (s ≤ t + T_k − T_q)."""
    t_k = t_q if t_k is None else t_k
    return torch.ones(t_q, t_k, dtype=torch.bool).tril(diagonal=t_k - t_q)  # (T_q, T_k)


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool = False,
    mask: torch.Tensor | None = None,
    logit_scale: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q·kᵀ·logit_scale/√d_k [masked])·v.

    q: (..., T_q, d_k), k: (..., T_k, d_k), v: (..., T_k, d_v); ``mask``: boolean, broadcastable to
    (..., T_q, T_k), True = may attend. Returns (output (..., T_q, d_v), weights (..., T_q, T_k)).
    Scaled by ``math.sqrt(d_k)`` (a Python float: errata E11).
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_float_tensor(name, t)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share d_k, got q {tuple(q.shape)} and k {tuple(k.shape)}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of positions, got k {tuple(k.shape)} and v {tuple(v.shape)}"
        )
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) * (logit_scale / math.sqrt(d_k))  # (..., T_q, T_k)
    if causal:
        scores = scores.masked_fill(~causal_mask(q.shape[-2], k.shape[-2]), float("-inf"))
    if mask is not None:
        if mask.dtype != torch.bool:
            raise TypeError(f"mask must be a boolean tensor (True = may attend), got dtype {mask.dtype}")
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k)
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


def self_attention(
    x: torch.Tensor,
    w_q: torch.Tensor,
    w_k: torch.Tensor,
    w_v: torch.Tensor,
    *,
    positional=None,
    causal: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One attention head over x (..., T, d_model) with weights W (d_model, d_k) as in the chapter (Q = X·W_Q).

    ``positional``: None (position-blind), an additive table of shape (T, d_model) (numpy or torch:
    X + PE before projecting), or a :class:`helpers.rope.Rotary` (rotate q and k after projecting,
    with its attention factor on both, so logits scale by factor²).
    Returns (output (..., T, d_v), weights (..., T, T)).
    """
    check_float_tensor("x", x)
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        check_float_tensor(name, w)
        if w.shape[0] != x.shape[-1]:
            raise ValueError(f"{name} must have shape (d_model={x.shape[-1]}, d), got {tuple(w.shape)}")
    if positional is not None and not isinstance(positional, Rotary):
        table = torch.as_tensor(np.asarray(positional) if not isinstance(positional, torch.Tensor) else positional)
        if table.shape != x.shape[-2:]:
            raise ValueError(
                f"an additive position table must have shape (T, d_model) = {tuple(x.shape[-2:])}, got {tuple(table.shape)}"
            )
        x = x + table.to(x.dtype)  # (..., T, d_model)
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (..., T, d_k), (..., T, d_k), (..., T, d_v)
    if isinstance(positional, Rotary):
        q, k = positional(q), positional(k)  # V is not rotated
    return scaled_dot_product_attention(q, k, v, causal=causal)
