"""Dual Chunk Attention (DCA): extend a RoPE model's context by remapping positions instead of scaling frequencies.

Chunk size S, local window W, chunk length c = S − W (vLLM's ``chunk_len``). Token t sits in chunk ⌊t/c⌋ at offset
t mod c. A key at position n is rotated as if at n mod c; a query at position m is rotated at one of three positions,
chosen by the relation of its chunk i = ⌊m/c⌋ to the key's chunk j = ⌊n/c⌋ (a = m mod c, b = n mod c, n ≤ m)::

    intra-chunk      (i = j):      p_q = a                 r(m, n) = a − b = m − n
    successive-chunk (i = j + 1):  p_q = min(a + c, S)     r(m, n) = min(a + c, S) − b = min(m − n, S − b)
    inter-chunk      (i ≥ j + 2):  p_q = min(2c − 1, S)    r(m, n) = min(2c − 1, S) − b

RoPE's score depends only on p_q − p_k, so the model sees the relative position r(m, n) ≤ S for every pair, however
long the sequence: with S no larger than the training length L (Qwen2.5-7B/14B-Instruct-1M: S = 262,144 = their
``original_max_position_embeddings``, W = 8,192), every distance is at most S: inside the trained range except
r = S = L itself, one past the largest distance training saw (L − 1). Inside a chunk the true
distance is kept; to the previous chunk it is kept while it is at most S − b (so the first W + 1 queries of a chunk see
the last keys of the previous chunk at their true distance: the local window); beyond, the key's offset alone sets it.
The three parts are one softmax over every key n ≤ m (vLLM computes them as three flash-attention calls and merges
them by their log-sum-exp, which is the same softmax).

vLLM also multiplies the logits by a length factor when ``original_max_position_embeddings`` L_o > 0:
f(T) = max(1, 0.1·ln(T / L_o) + 1) for a sequence of T tokens (:func:`dca_logit_scale`; the same 0.1·ln s + 1 as
YaRN's, here on the logits once).

Sources: An et al. 2024, "Training-Free Long-Context Scaling of Large Language Models" (arXiv 2402.17463, §3);
Qwen2.5-1M technical report (arXiv 2501.15383, §4: DCA with YaRN's temperature). Checked against vLLM (Apache-2.0),
``vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py``, ``DualChunkRotaryEmbedding._compute_cos_sin_cache``
and ``forward_native`` (query/key position tables), and ``vllm/attention/backends/dual_chunk_flash_attn.py``,
``DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill_func`` (which keys each query table scores),
``_merge_attn_outputs`` (the merge) and ``DualChunkFlashAttentionMetadata.prefill_metadata`` (the factor f);
``tests/test_dca.py`` re-derives the tables from those functions and compares.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from helpers._checks import check_int
from helpers.rope import apply_rope

__all__ = [
    "INTER",
    "INTRA",
    "RELATIONS",
    "SUCCESSIVE",
    "dca_chunk_len",
    "dca_key_positions",
    "dca_logit_scale",
    "dca_query_positions",
    "dca_relations",
    "dca_relative_positions",
    "dual_chunk_attention",
]

INTRA, SUCCESSIVE, INTER = 0, 1, 2
#: The three relations of a query's chunk to a key's chunk, by their code in :func:`dca_relations`.
RELATIONS = {INTRA: "intra-chunk", SUCCESSIVE: "successive-chunk", INTER: "inter-chunk"}


def dca_chunk_len(chunk_size: int, local_size: int) -> int:
    """c = S − W, checked: S >= 2, 0 <= W and c > W (so that the inter-chunk query position is S, as in vLLM's
    defaults and Qwen's configs; a larger W would make it 2c − 1 < S)."""
    chunk_size = check_int("chunk_size", chunk_size, minimum=2)
    local_size = check_int("local_size", local_size, minimum=0)
    c = chunk_size - local_size
    if c <= local_size:
        raise ValueError(
            f"chunk_size − local_size must exceed local_size, got chunk_size={chunk_size}, local_size={local_size}"
        )
    return c


def dca_key_positions(length: int, chunk_size: int, local_size: int) -> np.ndarray:
    """p_k(n) = n mod c for n = 0..T−1, int64 (T,)."""
    c = dca_chunk_len(chunk_size, local_size)
    return np.arange(check_int("length", length, minimum=1)) % c  # (T,)


def dca_query_positions(length: int, chunk_size: int, local_size: int) -> dict[int, np.ndarray]:
    """The query's rotation position for each relation, int64 (T,) each: {INTRA: a, SUCCESSIVE: min(a + c, S),
    INTER: min(2c − 1, S)} with a = m mod c."""
    c = dca_chunk_len(chunk_size, local_size)
    a = np.arange(check_int("length", length, minimum=1)) % c  # (T,)
    return {
        INTRA: a,
        SUCCESSIVE: np.minimum(a + c, chunk_size),
        INTER: np.full_like(a, min(2 * c - 1, chunk_size)),
    }


def dca_relations(length: int, chunk_size: int, local_size: int) -> np.ndarray:
    """(T, T) int64: INTRA / SUCCESSIVE / INTER for key n <= query m by their chunks' distance, −1 above the
    diagonal (a future key, masked)."""
    c = dca_chunk_len(chunk_size, local_size)
    chunk = np.arange(check_int("length", length, minimum=1)) // c  # (T,)
    gap = chunk[:, None] - chunk[None, :]  # (T, T): query's chunk − key's chunk
    relation = np.minimum(gap, INTER)  # (T, T)
    causal = np.arange(length)[:, None] >= np.arange(length)[None, :]  # (T, T)
    return np.where(causal, relation, -1)  # (T, T)


def dca_relative_positions(length: int, chunk_size: int, local_size: int) -> np.ndarray:
    """r(m, n) = p_q(m, relation) − p_k(n), int64 (T, T) for keys n <= m (module docstring); −1 above the diagonal."""
    relation = dca_relations(length, chunk_size, local_size)  # (T, T)
    key = dca_key_positions(length, chunk_size, local_size)  # (T,)
    query = dca_query_positions(length, chunk_size, local_size)  # 3 × (T,)
    r = np.full((length, length), -1, dtype=np.int64)  # (T, T)
    for rel, p_q in query.items():
        where = relation == rel
        r[where] = (p_q[:, None] - key[None, :])[where]
    return r


def dca_logit_scale(length: int, original_max_position_embeddings: int | None) -> float:
    """vLLM's f(T) = max(1, 0.1·ln(T / L_o) + 1); 1.0 when L_o is None or 0 (vLLM's "not set")."""
    length = check_int("length", length, minimum=1)
    if not original_max_position_embeddings:
        return 1.0
    orig = check_int("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    return max(1.0, 0.1 * math.log(length / orig) + 1.0)


def _cos_sin(positions: np.ndarray, inv_freq) -> tuple[torch.Tensor, torch.Tensor]:
    freq = torch.as_tensor(inv_freq, dtype=torch.float64)  # (d/2,)
    angles = torch.as_tensor(positions, dtype=torch.float64)[:, None] * freq[None, :]  # (T, d/2)
    return angles.cos().float(), angles.sin().float()  # (T, d/2) each


def dual_chunk_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    inv_freq,
    *,
    chunk_size: int,
    local_size: int,
    original_max_position_embeddings: int | None = None,
    layout: str = "half_split",
    query_at: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal DCA over un-rotated q, k, v (B, H, T, d_h); ``inv_freq`` (d_h/2,) the model's RoPE frequencies (array or tensor).

    Returns (output (B, H, n, d_h), weights (B, H, n, T)) for the queries at ``query_at`` (B, n) positions, or at every
    position (n = T) when None. Score of query m and key n: f(T)·(R(p_q)q_m)·(R(p_k)k_n)/√d_h with p_q from the
    relation of their chunks (:func:`dca_query_positions`, :func:`dca_relations`), f from :func:`dca_logit_scale`;
    −inf for n > m; one softmax over n."""
    b, h, t, d = q.shape  # (B, H, T, d_h)
    relation = torch.from_numpy(dca_relations(t, chunk_size, local_size))  # (T, T)
    cos_k, sin_k = _cos_sin(dca_key_positions(t, chunk_size, local_size), inv_freq)  # (T, d/2) each
    k_rot = apply_rope(k.contiguous(), cos_k, sin_k, layout=layout)  # (B, H, T, d_h)
    scores = torch.full((b, h, t, t) if query_at is None else (b, h, query_at.shape[1], t), float("-inf"))
    for rel, p_q in dca_query_positions(t, chunk_size, local_size).items():
        cos_q, sin_q = _cos_sin(p_q, inv_freq)  # (T, d/2) each
        q_rot = apply_rope(q.contiguous(), cos_q, sin_q, layout=layout)  # (B, H, T, d_h)
        if query_at is None:
            part = q_rot @ k_rot.transpose(-2, -1)  # (B, H, T, T)
            use = relation == rel  # (T, T)
        else:
            index = query_at[:, None, :, None].expand(b, h, query_at.shape[1], d)  # (B, H, n, d_h)
            part = q_rot.gather(2, index) @ k_rot.transpose(-2, -1)  # (B, H, n, T)
            use = (relation[query_at] == rel)[:, None]  # (B, 1, n, T)
        scores = torch.where(use, part, scores)  # (B, H, n, T)
    scores = scores * (dca_logit_scale(t, original_max_position_embeddings) / math.sqrt(d))  # (B, H, n, T)
    weights = torch.softmax(scores, dim=-1)  # (B, H, n, T): −inf (future keys) → 0
    return weights @ v, weights  # (B, H, n, d_h), (B, H, n, T)
