"""Attention with learned sinks (gpt-oss): one extra logit per head that soaks up attention and is then dropped.

A head sometimes has nothing to attend to; softmax still has to put its mass somewhere, and trained models learn to
dump it on the first tokens ("attention sinks", Xiao et al. 2023, arXiv 2309.17453, StreamingLLM). gpt-oss gives
each head a learned logit z_h that joins every query's row of scores; the softmax runs over the scores and z_h, and
z_h's column is then removed, so each row of weights sums to 1 − p_sink < 1.

StreamingLLM instead keeps the first few *tokens* as sinks in a rolling KV cache and gives the cached keys positions
inside the cache, not in the text (:func:`streaming_cache`).
"""

from __future__ import annotations

import numpy as np
import torch

from helpers._checks import check_float_tensor, check_int, check_positive

__all__ = ["sink_attention", "streaming_cache"]


def sink_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    sinks: torch.Tensor,
    *,
    scale: float | None = None,
    mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention with one learned sink logit per head.

    s_{mn} = c·q_m·k_n (+ mask),  w_{mn} = exp(s_{mn}) / (Σ_n' exp(s_{mn'}) + exp(z_h)),  out_m = Σ_n w_{mn}·v_n;
    every row Σ_n w_{mn} = 1 − exp(z_h)/(Σ_n' exp(s_{mn'}) + exp(z_h)) < 1.
    ``q``: (B, H, T, D); ``k``, ``v``: (B, H, S, D) (repeat grouped KV heads first); ``sinks``: (H,) logits z_h;
    ``scale`` c: default D^(−1/2); ``mask``: additive, broadcasting to (B, H, T, S) (0 kept, −inf masked).
    Returns (out (B, H, T, D), weights (B, H, T, S)), the sink's column dropped, computed in the inputs' dtype.
    Source: HF 5.24 ``models/gpt_oss/modeling_gpt_oss.eager_attention_forward`` (it subtracts each row's max,
    sink included, before the softmax; so does this function); OpenAI 2025, "gpt-oss-120b & gpt-oss-20b model card".
    """
    for name, x in (("q", q), ("k", k), ("v", v), ("sinks", sinks)):
        check_float_tensor(name, x)
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(
            f"q, k, v must have shape (B, H, T, D), got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        )
    b, h, t, d = q.shape
    if k.shape[:2] != (b, h) or k.shape[-1] != d or v.shape[:3] != k.shape[:3]:
        raise ValueError(
            f"k must be (B, H, S, D) = ({b}, {h}, S, {d}) and v (B, H, S, D_v), got {tuple(k.shape)}, {tuple(v.shape)}"
        )
    if sinks.shape != (h,):
        raise ValueError(f"sinks must have shape (H,) = ({h},), one logit per head, got {tuple(sinks.shape)}")
    c = d**-0.5 if scale is None else check_positive("scale", scale)
    scores = (q @ k.transpose(-2, -1)) * c  # (B, H, T, S)
    if mask is not None:
        scores = scores + mask  # (B, H, T, S)
    sink = sinks.to(scores.dtype).reshape(1, h, 1, 1).expand(b, h, t, 1)  # (B, H, T, 1)
    logits = torch.cat([scores, sink], dim=-1)  # (B, H, T, S + 1)
    logits = logits - logits.max(dim=-1, keepdim=True).values  # (B, H, T, S + 1) stable
    weights = torch.softmax(logits, dim=-1)[..., :-1]  # (B, H, T, S): the sink's column dropped
    return weights @ v, weights  # (B, H, T, D_v), (B, H, T, S)


def streaming_cache(n_tokens: int, *, window: int, n_sink: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Which tokens a StreamingLLM cache holds after ``n_tokens`` tokens, and the positions RoPE gives them.

    The cache keeps the first S = ``n_sink`` tokens (the attention sinks) and the last W = ``window`` tokens; the
    ones in between are evicted. Positions are re-indexed inside the cache: the j-th cached key gets position j
    (j = 0 .. S + W − 1) whatever its place in the text, and the next query gets position S + W. So the distances
    RoPE sees never exceed S + W, however long the stream.
    Shapes: returns (token indices in the text (C,), cache positions (C,)), int64, C = min(n_tokens, S + W).
    Source: Xiao et al. 2023, StreamingLLM, arXiv 2309.17453 §3.2 (4 sink tokens; "positions within the cache
    rather than those in the original text").
    """
    n = check_int("n_tokens", n_tokens, minimum=1)
    s = check_int("n_sink", n_sink, minimum=0)
    w = check_int("window", window, minimum=1)
    if n <= s + w:
        kept = np.arange(n, dtype=np.int64)  # (n,) nothing evicted yet
    else:
        kept = np.concatenate([np.arange(s), np.arange(n - w, n)]).astype(np.int64)  # (S + W,)
    return kept, np.arange(kept.size, dtype=np.int64)  # (C,), (C,)
