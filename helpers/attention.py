"""Scaled dot-product attention that returns its weights, with an optional causal mask and positional method.

Attention(Q, K, V) = softmax(Q·Kᵀ/√d_k + mask)·V   (Vaswani et al. 2017, arXiv 1706.03762 §3.2.1)

Where position can enter (notebooks 01 and 04):
* additively, before the projections: X + PE (sinusoidal or learned table), which changes Q, K *and* V;
* by rotating q and k after the projections (RoPE, :class:`helpers.rope.Rotary`); V is never rotated;
* through the causal mask, which makes token t see only tokens ≤ t (errata E9);
* as a bias on the scores that depends on the distance n − m only (T5, ALiBi: :mod:`helpers.score_biases`, notebook 06).
With none of these, self-attention is permutation-equivariant.

Notebook 01's toy head lives here too: the chapter's sentences (猫 吃 鱼 / 鱼 吃 猫, 小明 打了 小红 / 小红 打了 小明),
seeded embeddings and weights (:func:`toy_head`), :func:`attend` with or without position information, the
permutation matrix that relabels rows, the entropy of an attention row, and the chapter's d = 512 example with
unit-scale weights (errata E10: W = randn saturates the softmax).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from helpers._checks import check_bool, check_float_tensor, check_int, check_positive
from helpers.rope import Rotary
from helpers.sinusoidal import sinusoidal_table


def causal_mask(t_q: int, t_k: int | None = None) -> torch.Tensor:
    """Boolean (T_q, T_k) mask, True where query t may attend to key s (s ≤ t + T_k − T_q).

    ``t_k`` defaults to ``t_q``; with T_k > T_q the queries are the last T_q positions (a KV cache).
    """
    t_q = check_int("t_q", t_q, minimum=0)
    t_k = t_q if t_k is None else check_int("t_k", t_k, minimum=t_q)
    return torch.ones(t_q, t_k, dtype=torch.bool).tril(diagonal=t_k - t_q)  # (T_q, T_k)


def _check_mask(mask, scores_shape: tuple[int, ...]) -> None:
    """A boolean mask whose last two dimensions are (T_q, T_k) and which does not enlarge the scores' batch shape."""
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a boolean torch.Tensor (True = may attend), got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a boolean tensor (True = may attend), got dtype {mask.dtype}")
    t_q, t_k = scores_shape[-2:]
    if mask.ndim < 2 or tuple(mask.shape[-2:]) != (t_q, t_k):
        raise ValueError(f"mask must have shape (..., T_q, T_k) = (..., {t_q}, {t_k}), got {tuple(mask.shape)}")
    try:
        broadcast = torch.broadcast_shapes(tuple(mask.shape), scores_shape)
    except RuntimeError:
        broadcast = None
    if broadcast != scores_shape:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape {scores_shape} "
            "without adding dimensions; give it the batch dimensions of q (or none)"
        )


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

    q: (..., T_q, d_k), k: (..., T_k, d_k), v: (..., T_k, d_v); ``mask``: boolean of shape (T_q, T_k) or
    (..., T_q, T_k) with leading dimensions that broadcast to q's without adding any, True = may attend. Returns (output (..., T_q, d_v), weights (..., T_q, T_k)).
    Scaled by ``math.sqrt(d_k)`` (a Python float: errata E11).
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_float_tensor(name, t)
        if t.ndim < 2:
            raise ValueError(f"{name} must have shape (..., T, d) with at least 2 dimensions, got {tuple(t.shape)}")
    if not (q.shape[:-2] == k.shape[:-2] == v.shape[:-2]):
        raise ValueError(
            "q, k and v must have the same leading (batch, head) dimensions, got "
            f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}; nothing is broadcast"
        )
    causal = check_bool("causal", causal)
    logit_scale = check_positive("logit_scale", logit_scale)
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
        _check_mask(mask, tuple(scores.shape))
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
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, d_model) with at least 2 dimensions, got {tuple(x.shape)}")
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


# --------------------------------------------------------------------------- the chapter's tokens
#: Each toy token: (English, pinyin). "<s>" is a start-of-sequence token (used for the causal-mask demo).
TOKENS: dict[str, tuple[str, str]] = {
    "猫": ("cat", "māo"),
    "吃": ("eat", "chī"),
    "鱼": ("fish", "yú"),
    "小明": ("Xiaoming", "Xiǎomíng"),
    "打了": ("hit", "dǎle"),
    "小红": ("Xiaohong", "Xiǎohóng"),
    "<s>": ("<s>", ""),
}

#: The chapter's two sentences in their original order (tokenised by word).
SENTENCES: dict[str, tuple[str, ...]] = {
    "猫 吃 鱼": ("猫", "吃", "鱼"),
    "小明 打了 小红": ("小明", "打了", "小红"),
}

#: Where the toy head can take position from: nowhere, X + PE, or RoPE on q and k (:func:`attend`).
POSITION_METHODS = ("none", "sinusoidal", "rope")


# --------------------------------------------------------------------------- the toy attention head
@dataclass(frozen=True)
class ToyHead:
    """Seeded toy embeddings for :data:`TOKENS` and one attention head's weights W_Q, W_K, W_V (d_model, d_k)."""

    embeddings: dict[str, torch.Tensor]
    w_q: torch.Tensor
    w_k: torch.Tensor
    w_v: torch.Tensor

    def embed(self, tokens: Sequence[str]) -> torch.Tensor:
        """Stack the embeddings of ``tokens`` into X of shape (T, d_model). No position is added."""
        unknown = [t for t in tokens if t not in self.embeddings]
        if unknown:
            raise ValueError(f"tokens must come from {list(self.embeddings)}, got {unknown}")
        return torch.stack([self.embeddings[t] for t in tokens])  # (T, d_model)


def toy_head(d_model: int = 8, d_k: int = 8, seed: int = 0, *, weight_scale: float | None = None) -> ToyHead:
    """Embeddings e ~ N(0, 1) and weights W ~ N(0, 1)·weight_scale, in float64, from one seeded generator.

    Draw order: the embedding table (len(TOKENS), d_model) in the order of :data:`TOKENS`, then W_Q, W_K,
    W_V, each (d_model, d_k). ``weight_scale`` defaults to 1/√d_model, which keeps the logits q·k/√d_k of
    order 1 (see errata E10 for what happens without it).
    """
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(len(TOKENS), d_model, generator=gen, dtype=torch.float64)  # (V, d_model)
    draws = [torch.randn(d_model, d_k, generator=gen, dtype=torch.float64) for _ in range(3)]  # (d_model, d_k) each
    if weight_scale is None:
        w_q, w_k, w_v = (w / math.sqrt(d_model) for w in draws)
    else:
        w_q, w_k, w_v = (w * weight_scale for w in draws)
    return ToyHead(dict(zip(TOKENS, table, strict=True)), w_q, w_k, w_v)


def attend(
    head: ToyHead, tokens: Sequence[str], *, position: str = "none", causal: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Run ``tokens`` through the head with :func:`helpers.attention.self_attention`.

    ``position``: "none" (position-blind), "sinusoidal" (X + PE, :func:`helpers.sinusoidal.sinusoidal_table`)
    or "rope" (rotate q and k, :class:`helpers.rope.Rotary`). Returns (outputs (T, d_k), weights (T, T)).
    """
    if position not in POSITION_METHODS:
        raise ValueError(f"position must be one of {POSITION_METHODS}, got {position!r}")
    x = head.embed(tokens)  # (T, d_model)
    positional = None
    if position == "sinusoidal":
        positional = sinusoidal_table(len(tokens), x.shape[-1])  # (T, d_model)
    elif position == "rope":
        positional = Rotary(head.w_q.shape[-1])
    return self_attention(x, head.w_q, head.w_k, head.w_v, positional=positional, causal=causal)


def reference_order(tokens: Sequence[str]) -> tuple[str, ...]:
    """The chapter's original order of the sentence whose tokens these are (a reordering of it)."""
    for sentence in SENTENCES.values():
        if sorted(sentence) == sorted(tokens):
            return sentence
    raise ValueError(f"tokens must be a reordering of one of {list(SENTENCES)}, got {tuple(tokens)}")


def permutation_matrix(order: Sequence[int]) -> torch.Tensor:
    """P with P[i, order[i]] = 1, so (P·X)[i] = X[order[i]]: the rows of X taken in the new order. (T, T)."""
    order = list(order)
    if sorted(order) != list(range(len(order))):
        raise ValueError(f"order must be a permutation of 0..{len(order) - 1}, got {order}")
    p = torch.zeros(len(order), len(order), dtype=torch.float64)  # (T, T)
    p[torch.arange(len(order)), torch.tensor(order)] = 1.0
    return p


def row_entropy(weights: torch.Tensor) -> torch.Tensor:
    """Entropy of each attention row in nats: H = −Σ_j a_j ln a_j (with 0·ln 0 = 0). Shape (..., T_q).

    0 for a one-hot row, ln T_k for a uniform one.
    """
    w = torch.as_tensor(weights)
    safe = torch.where(w > 0, w, torch.ones_like(w))
    return -(w * torch.log(safe)).sum(-1)  # (..., T_q)


# --------------------------------------------------------------------------- the chapter's d = 512 example (E10)
@functools.lru_cache(maxsize=2)
def chapter_projections(d_model: int = 512, seq_len: int = 10, batch: int = 2, seed: int = 0):
    """The chapter's example with unit weights: X, W ~ N(0, 1) as ``torch.randn`` draws them (float32).

    Draw order from one generator seeded ``seed``: X (batch, T, d), W_Q, W_K, W_V (d, d). Returns
    (q, k, v) for W scale 1, with RoPE (interleaved, as the chapter's ``apply_rope``) already applied to
    q and k, each (batch, T, d). Scaling every W by s scales q, k, v by s (rotation is linear), so
    :func:`chapter_logits` and :func:`chapter_weights` reuse these. Cached: treat the tensors as read-only.
    """
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, seq_len, d_model, generator=gen)  # (B, T, d)
    w_q, w_k, w_v = (torch.randn(d_model, d_model, generator=gen) for _ in range(3))  # (d, d) each
    rot = Rotary(d_model)
    return rot(x @ w_q), rot(x @ w_k), x @ w_v  # (B, T, d) each


@functools.lru_cache(maxsize=2)
def chapter_logits(d_model: int = 512, seq_len: int = 10, seed: int = 0) -> np.ndarray:
    """The unit-scale logits q₀·k₀ᵀ/√d of the chapter's example (W = randn), in float64. Shape (2, T, T).

    With W = s·randn every logit is multiplied by s², so one table serves every s. Cached and read-only.
    """
    q, k, _ = chapter_projections(d_model, seq_len, 2, seed)  # (B, T, d) each, float32
    logits = (q.double() @ k.double().transpose(-2, -1)).numpy() / math.sqrt(d_model)  # (B, T, T)
    logits.flags.writeable = False
    return logits


def chapter_weights(weight_scale: float = 1.0, *, d_model: int = 512, seq_len: int = 10, seed: int = 0) -> np.ndarray:
    """Attention weights (batch, T, T) of the chapter's example when every W is ``weight_scale``·randn(d, d).

    softmax(s²·q₀·k₀ᵀ/√d) row by row, in float64 NumPy from the cached :func:`chapter_logits` (no torch
    work per call: this is what the weight-scale slider redraws). The logits' standard deviation is about
    s²·d: 491 at s = 1 for this seed (d = 512), and about 1 at s = 1/√d.
    """
    if not weight_scale > 0:
        raise ValueError(f"weight_scale must be > 0, got {weight_scale!r}")
    z = weight_scale**2 * chapter_logits(d_model, seq_len, seed)  # (B, T, T)
    e = np.exp(z - z.max(axis=-1, keepdims=True))  # stable softmax
    return e / e.sum(axis=-1, keepdims=True)  # (B, T, T)
