"""Dual Chunk Attention on the lab's RoPE models: zero-shot position remapping (:mod:`helpers.dca`).

A call ``model(tokens, dual_chunk_attention_config={...})`` on a ``rope`` model runs every block's attention as DCA:
the block's :class:`helpers.lab.positional.RopeRotation` is wrapped in a :class:`DualChunkRope`, whose ``rotate``
leaves q and k as they are and whose ``attend`` computes :func:`helpers.dca.dual_chunk_attention` (the attention
hook :class:`helpers.lab.model.CausalSelfAttention` calls when the positional object has one).

The config has the keys of Qwen2.5-7B/14B-Instruct-1M's ``dual_chunk_attention_config`` (``chunk_size``,
``local_size``, ``original_max_position_embeddings``). The lab's (:func:`lab_dual_chunk_config`) keeps Qwen's
proportions at L: chunk_size = L (Qwen: 262,144, its training length and ``original_max_position_embeddings``),
local_size = L/32 (Qwen: 8,192 = 262,144/32), original_max_position_embeddings = L (so vLLM's logit factor
max(1, 0.1·ln(T/L) + 1) applies past L). At T = L every remapped distance equals the true one and the factor is 1:
DCA is then plain RoPE.
"""

from __future__ import annotations

from typing import Any

import torch

from helpers.dca import dca_chunk_len, dual_chunk_attention
from helpers.lab.positional import Positional, RopeRotation

__all__ = ["CONFIG_KEYS", "DualChunkRope", "check_dual_chunk_config", "lab_dual_chunk_config"]

#: The keys of a ``dual_chunk_attention_config`` the lab reads (Qwen2.5-1M's config.json; vLLM reads these three
#: for the remapping and the factor).
CONFIG_KEYS = ("chunk_size", "local_size", "original_max_position_embeddings")


def lab_dual_chunk_config(train_len: int) -> dict[str, int]:
    """The lab's DCA settings at training length L: Qwen2.5-1M's proportions (module docstring)."""
    return {"chunk_size": train_len, "local_size": train_len // 32, "original_max_position_embeddings": train_len}


def check_dual_chunk_config(config: Any) -> dict[str, int]:
    """A dict with exactly :data:`CONFIG_KEYS`, chunk_size − local_size > local_size (else ValueError/TypeError
    naming the key)."""
    if not isinstance(config, dict):
        raise TypeError(f"dual_chunk_attention_config must be a dict with keys {CONFIG_KEYS}, got {config!r}")
    if set(config) != set(CONFIG_KEYS):
        raise ValueError(f"dual_chunk_attention_config must have exactly the keys {CONFIG_KEYS}, got {sorted(config)}")
    dca_chunk_len(config["chunk_size"], config["local_size"])
    if (
        not isinstance(config["original_max_position_embeddings"], int)
        or config["original_max_position_embeddings"] < 0
    ):
        raise ValueError(
            "dual_chunk_attention_config['original_max_position_embeddings'] must be an int >= 0 (0: no logit "
            f"factor), got {config['original_max_position_embeddings']!r}"
        )
    return dict(config)


class DualChunkRope(Positional, register=False):
    """One block's DCA: the block's RoPE frequencies and layout, attention computed by :meth:`attend`."""

    def __init__(self, rope: RopeRotation, config: dict):
        super().__init__()
        if not isinstance(rope, RopeRotation):
            raise TypeError(f"Dual Chunk Attention needs a RoPE layer (RopeRotation), got {type(rope).__name__}")
        self.rope = rope
        self.config = check_dual_chunk_config(config)

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, *, rope_scaling: dict | None = None, kv_cache: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Unchanged: :meth:`attend` rotates q (three ways) and k itself. DCA runs plain RoPE's frequencies: a scaling
        dict or the KV-cache protocol raises (the model refuses them first, naming the config)."""
        if rope_scaling is not None or kv_cache:
            raise ValueError(
                f"Dual Chunk Attention runs plain RoPE; got rope_scaling={rope_scaling!r}, kv_cache={kv_cache!r}"
            )
        return q, k

    def attend(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, query_at: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(output (B, H, n, d_h), weights (B, H, n, T)) for un-rotated q, k, v (B, H, T, d_h); n = T unless
        ``query_at`` (B, n) positions are given."""
        inv_freq = self.rope.cache(None, q.shape[-2]).inv_freq  # (d_h/2,): plain RoPE's frequencies
        return dual_chunk_attention(
            q, k, v, inv_freq, **self.config, layout=self.rope.layout, query_at=query_at
        )  # (B, H, n, d_h), (B, H, n, T)
