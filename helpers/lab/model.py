"""A tiny pre-LayerNorm decoder-only transformer with a pluggable positional method.

Positional methods (``LabConfig.positional``):

* ``"none"``: no positional encoding; the causal mask alone tells tokens apart by how many tokens precede them
  (Haviv et al. 2022, arXiv 2203.16634; Kazemnejad et al. 2023, arXiv 2305.19466).
* ``"sinusoidal"``: x = √d·E[token] + PE[pos], PE from :func:`helpers.sinusoidal.sinusoidal_table` (Vaswani §3.5).
* ``"learned"``: x = √d·E[token] + P[pos], P a :class:`helpers.learned.LearnedPositionalEmbedding` with
  ``max_seq_len`` rows (2·L by default, so rows L..2L−1 exist but are never reached by training).
* ``"rope"``: q and k of every head rotated by :func:`helpers.rope.apply_rope` (either layout), frequencies and
  attention factor from any method of :data:`helpers.scaling.ROPE_SCALING` via
  :func:`helpers.scaling.rope_parameters_from_config` (an HF-style dict such as
  ``{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}``). The attention factor a
  multiplies cos and sin, so the logits q·k/√d_h are multiplied by a² (YaRN's temperature).

Block (pre-LN, GPT-2 style, no dropout): h = h + Attn(LN(h)); h = h + MLP(LN(h)); logits = W_out·LN(h).
Attention: softmax(q·kᵀ/√d_h + causal mask)·v with ``torch.nn.functional.scaled_dot_product_attention``.

Why these sizes (defaults of :class:`LabConfig`): d_model 64, 2 layers (an induction head needs two: one head
copies the previous token, the next matches it), 4 heads of d_h = 16, i.e. 8 RoPE pairs, MLP 256: about 0.12 M
parameters, so one training step on 32×64 tokens takes tens of milliseconds on one CPU core.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from helpers._checks import check_choice, check_dim, check_int, check_positive
from helpers.learned import LearnedPositionalEmbedding
from helpers.rope import LAYOUTS, apply_rope, rope_cos_sin
from helpers.scaling import ROPE_SCALING, rope_parameters_from_config
from helpers.sinusoidal import sinusoidal_table

POSITIONAL_METHODS = ("none", "sinusoidal", "learned", "rope")
_UNSET: Any = object()


@dataclasses.dataclass(frozen=True)
class LabConfig:
    """Architecture and positional method of a :class:`TinyTransformer` (JSON-serialisable).

    ``train_len`` is L, the length the model is pre-trained at (YaRN's ``original_max_position_embeddings``).
    ``max_seq_len`` is the number of rows of the learned table (only used by ``positional="learned"``).
    ``rope_base`` (b) and ``rope_layout`` ("interleaved" or "half_split") only matter for ``positional="rope"``.
    ``rope_scaling``: the HF-style dict the model runs with by default (None = plain RoPE); fine-tuned checkpoints
    store the one they were fine-tuned with.
    """

    positional: str = "rope"
    vocab_size: int = 128
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    d_ff: int = 256
    train_len: int = 64
    max_seq_len: int = 128
    rope_base: float = 10000.0
    rope_layout: str = "half_split"
    rope_scaling: dict | None = None
    sinusoidal_base: float = 10000.0
    learned_init_std: float = 0.02
    seed: int = 0

    def __post_init__(self) -> None:
        check_choice("positional", self.positional, POSITIONAL_METHODS)
        check_int("vocab_size", self.vocab_size, minimum=2)
        check_dim("d_model", self.d_model)
        check_int("n_layers", self.n_layers, minimum=1)
        check_int("n_heads", self.n_heads, minimum=1)
        check_int("d_ff", self.d_ff, minimum=1)
        check_int("train_len", self.train_len, minimum=2)
        check_int("max_seq_len", self.max_seq_len, minimum=1)
        check_positive("rope_base", self.rope_base, minimum=1.0)
        check_choice("rope_layout", self.rope_layout, LAYOUTS)
        check_positive("sinusoidal_base", self.sinusoidal_base)
        check_positive("learned_init_std", self.learned_init_std)
        check_int("seed", self.seed, minimum=0)
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(f"d_model ({self.d_model}) must be n_heads ({self.n_heads}) times an even head dimension")
        if self.rope_scaling is not None:
            check_rope_scaling(self.rope_scaling)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> LabConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown LabConfig fields {unknown}; allowed: {sorted(known)}")
        return cls(**data)


def check_rope_scaling(rope_scaling: Any) -> dict:
    """An HF-style scaling dict whose ``rope_type`` is in :data:`helpers.scaling.ROPE_SCALING`."""
    if not isinstance(rope_scaling, dict):
        raise TypeError(
            f"rope_scaling must be a dict like {{'rope_type': 'linear', 'factor': 4.0}} or None, got {rope_scaling!r}"
        )
    kind = rope_scaling.get("rope_type", rope_scaling.get("type", "default"))
    check_choice("rope_scaling['rope_type']", kind, tuple(ROPE_SCALING))
    return rope_scaling


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention; RoPE (if given cos/sin) rotates q and k, never v."""

    def __init__(self, config: LabConfig):
        super().__init__()
        self.n_heads, self.head_dim, self.layout = config.n_heads, config.head_dim, config.rope_layout
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model, bias=False)
        self.out = nn.Linear(config.d_model, config.d_model, bias=False)

    def forward(self, x: torch.Tensor, cos_sin: tuple[torch.Tensor, torch.Tensor] | None) -> torch.Tensor:
        b, t, d = x.shape  # (B, T, D)
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # 3 × (B, H, T, d_h)
        if cos_sin is not None:
            cos, sin = cos_sin  # (T, d_h/2) each, already multiplied by the attention factor
            q = apply_rope(q, cos, sin, layout=self.layout)  # (B, H, T, d_h)
            k = apply_rope(k, cos, sin, layout=self.layout)  # (B, H, T, d_h)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, d_h)
        return self.out(y.transpose(1, 2).reshape(b, t, d))  # (B, T, D)


class Block(nn.Module):
    """Pre-LN transformer block: h + Attn(LN(h)), then h + MLP(LN(h)) with a GELU MLP of width d_ff."""

    def __init__(self, config: LabConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.d_model)
        self.attn = CausalSelfAttention(config)
        self.ln2 = nn.LayerNorm(config.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(config.d_model, config.d_ff), nn.GELU(), nn.Linear(config.d_ff, config.d_model)
        )

    def forward(self, h: torch.Tensor, cos_sin: tuple[torch.Tensor, torch.Tensor] | None) -> torch.Tensor:
        h = h + self.attn(self.ln1(h), cos_sin)  # (B, T, D)
        return h + self.mlp(self.ln2(h))  # (B, T, D)


class TinyTransformer(nn.Module):
    """Decoder-only transformer: tokens (B, T) int64 → next-token logits (B, T, vocab_size).

    Attributes the notebooks read: ``config`` (:class:`LabConfig`), ``train_len`` (L), ``rope_scaling`` (the dict
    used when ``forward`` is not given one), ``position_embedding`` (the learned table, or None) and
    ``rows_reached`` (training has sent gradient to rows 0..rows_reached−1 of that table; 0 before training).
    """

    def __init__(self, config: LabConfig):
        super().__init__()
        if not isinstance(config, LabConfig):
            raise TypeError(f"config must be a LabConfig, got {type(config).__name__}")
        self.config = config
        self.rope_scaling: dict | None = config.rope_scaling
        self.rows_reached = 0
        torch.manual_seed(config.seed)
        d = config.d_model
        self.embed_scale = math.sqrt(d)
        self.token_embedding = nn.Embedding(config.vocab_size, d)
        self.position_embedding: LearnedPositionalEmbedding | None = None
        if config.positional == "learned":
            self.position_embedding = LearnedPositionalEmbedding(
                config.max_seq_len, d, init_std=config.learned_init_std, seed=config.seed
            )
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, config.vocab_size, bias=False)
        self._init_weights()
        self._cos_sin_cache: dict[tuple[str, int], tuple[torch.Tensor, torch.Tensor]] = {}
        self._sinusoid_cache: dict[int, torch.Tensor] = {}

    def _init_weights(self) -> None:
        """Unit-scale residual stream: token embeddings N(0, 1/d), multiplied by √d in ``forward`` (Vaswani §3.4), so
        each coordinate has variance 1 like the sinusoidal table; linear weights N(0, 1/fan_in) (LeCun), residual
        output projections additionally divided by √(2·n_layers) (GPT-2). With GPT-2's N(0, 0.02²) weights on these
        unit-scale embeddings the attention outputs start at about 1 % of the residual stream, and in our trials (with
        P_COPY = 0.5) no induction head had formed after 3000 steps; with this init and P_COPY = 0.8 it forms after
        about 700 steps."""
        for name, p in self.named_parameters():
            if name.startswith("position_embedding"):
                continue  # LearnedPositionalEmbedding initialises itself from its own seed
            if name == "token_embedding.weight":
                nn.init.normal_(p, std=self.config.d_model**-0.5)
            elif p.ndim == 2:
                std = p.shape[1] ** -0.5
                if name.endswith("attn.out.weight") or name.endswith("mlp.2.weight"):
                    std /= math.sqrt(2 * self.config.n_layers)
                nn.init.normal_(p, std=std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    @property
    def train_len(self) -> int:
        return self.config.train_len

    @property
    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def rope_cos_sin(self, length: int, rope_scaling: dict | None) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin (T, d_h/2) for positions 0..T−1, times the scaling method's attention factor.

        Frequencies: ``rope_parameters_from_config(rope_scaling, head_dim=d_h, base=b, seq_len=T,
        max_position_embeddings=L)``: dynamic NTK sees the current length T, as HF's ``dynamic_rope_update``
        does with max(position_ids)+1. Cached per (scaling, T).
        """
        key = (json.dumps(rope_scaling, sort_keys=True), length)
        if key not in self._cos_sin_cache:
            inv_freq, factor = rope_parameters_from_config(
                rope_scaling,
                head_dim=self.config.head_dim,
                base=self.config.rope_base,
                seq_len=length,
                max_position_embeddings=self.config.train_len,
            )  # (d_h/2,), float
            self._cos_sin_cache[key] = rope_cos_sin(length, inv_freq, attention_factor=factor)  # (T, d_h/2) × 2
        return self._cos_sin_cache[key]

    def sinusoid(self, length: int) -> torch.Tensor:
        """The sinusoidal table PE (T, d_model) as float32, cached per T."""
        if length not in self._sinusoid_cache:
            table = sinusoidal_table(length, self.config.d_model, self.config.sinusoidal_base)  # (T, D) float64
            self._sinusoid_cache[length] = torch.from_numpy(table).float()
        return self._sinusoid_cache[length]

    def forward(self, tokens: torch.Tensor, *, rope_scaling: dict | None = _UNSET) -> torch.Tensor:
        """Next-token logits (B, T, vocab_size) for ``tokens`` (B, T) int64.

        ``rope_scaling``: override the model's RoPE scaling dict for this call (RoPE models only; None = plain).
        A learned table raises IndexError (with its message) when T exceeds its ``max_seq_len``.
        """
        if not isinstance(tokens, torch.Tensor) or tokens.ndim != 2 or tokens.is_floating_point():
            raise TypeError(f"tokens must be an integer tensor of shape (B, T), got {tokens!r}")
        if rope_scaling is _UNSET:
            rope_scaling = self.rope_scaling
        elif self.config.positional != "rope" and rope_scaling is not None:
            raise ValueError(
                f"rope_scaling only applies to a RoPE model; this model's positional is {self.config.positional!r}"
            )
        elif rope_scaling is not None:
            check_rope_scaling(rope_scaling)
        t = tokens.shape[1]
        h = self.token_embedding(tokens) * self.embed_scale  # (B, T, D)
        if self.position_embedding is not None:
            h = h + self.position_embedding(t)  # (B, T, D); IndexError past the table
        elif self.config.positional == "sinusoidal":
            h = h + self.sinusoid(t)  # (B, T, D)
        cos_sin = self.rope_cos_sin(t, rope_scaling) if self.config.positional == "rope" else None
        for block in self.blocks:
            h = block(h, cos_sin)  # (B, T, D)
        return self.lm_head(self.ln_f(h))  # (B, T, V)
