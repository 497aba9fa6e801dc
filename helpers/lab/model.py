"""A tiny pre-LayerNorm decoder-only transformer; position enters through one :class:`Positional` object.

Families (``LabConfig.family``: the keys of :data:`helpers.lab.positional.FAMILIES`, identifiers of
:data:`helpers.methods.POSITIONAL_FAMILIES`): each is a :class:`helpers.lab.positional.Positional` with three hooks (add to the token embeddings, rotate q and k, add a bias to the logits), called at one place each
in :meth:`TinyTransformer.forward` and :meth:`CausalSelfAttention.forward`; block ℓ calls the rotate and bias hooks
of ``positional.layer(ℓ)`` (a hybrid's layer, or the family's one object: :meth:`TinyTransformer.layer_hooks`).

Block (pre-LN, GPT-2 style, no dropout): h = h + Attn(LN(h)); h = h + MLP(LN(h)); logits = W_out·LN(h).
Attention: softmax(q·kᵀ/√d_h + bias + causal mask)·v, with ``torch.nn.functional.scaled_dot_product_attention``
unless the weights are asked for (``return_attention=True``: the same formula written out, weights returned).

Why these sizes (defaults of :class:`LabConfig`): d_model 64, 2 layers (an induction head needs two: one head
copies the previous token, the next matches it), 4 heads of d_h = 16, i.e. 8 RoPE pairs, MLP 256: about 0.12 M
parameters, so one training step on 32×64 tokens takes tens of milliseconds on one CPU core.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from helpers._checks import check_dim, check_int
from helpers.lab.dual_chunk import DualChunkRope
from helpers.lab.positional import FAMILIES, LearnedTable, Positional, family_class, make_positional
from helpers.score_biases import causal_additive_mask


@dataclasses.dataclass(frozen=True)
class LabConfig:
    """Architecture and positional family of a :class:`TinyTransformer` (JSON-serialisable).

    ``family``: one of :data:`helpers.lab.positional.FAMILIES`. ``train_len`` is L, the length the model is
    pre-trained at (YaRN's ``original_max_position_embeddings``). ``head_dim``: d_h (None = d_model / n_heads, filled
    in); the second scale uses 2 heads of 64 on a 64-wide residual stream, so that 32 RoPE pairs span wavelengths from
    2π to beyond 8·L. ``positional``: the family's own parameters, names and defaults declared by its class
    (``FAMILIES[family].defaults``, missing ones filled in), read as attributes (``config.rope_base``): ``rope``:
    ``rope_base`` (b), ``rope_layout``, ``rope_scaling`` (the HF-style dict the model runs with by default; None =
    plain RoPE; a fine-tune stores the one it was trained with); ``learned``: ``max_seq_len`` (rows),
    ``learned_init_std``; ``sinusoidal``: ``sinusoidal_base``; ``t5_bias``: ``t5_num_buckets``, ``t5_max_distance``,
    ``t5_init`` ("normal" = T5's N(0, 0.02²) table, "alibi" = every head starts on ALiBi's line, see
    :class:`helpers.lab.positional.T5RelativeBias`), ``t5_table_lr_scale`` (the table's learning rate as a multiple of
    the run's); the hybrids (:class:`helpers.lab.positional.Hybrid`, one object per layer): ``irope``: ``rope_base``,
    ``rope_layout``, ``no_rope_layer_interval`` (every n-th layer NoPE); ``irope_temp``: those and ``attn_scale``,
    ``floor_scale`` (Llama 4's query temperature in the NoPE layers); ``local_global``: ``rope_base`` (the sliding
    layers'), ``global_rope_base``, ``rope_layout``, ``sliding_window`` (W), ``sliding_window_pattern`` (every n-th
    layer full attention).
    ``seed``: initialisation. :meth:`build` takes the parameters by name, as the older flat configs stored them.
    """

    family: str = "rope"
    vocab_size: int = 128
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    head_dim: int | None = None
    d_ff: int = 256
    train_len: int = 64
    positional: dict = dataclasses.field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        cls = family_class(self.family)
        check_int("vocab_size", self.vocab_size, minimum=2)
        check_dim("d_model", self.d_model)
        check_int("n_layers", self.n_layers, minimum=1)
        check_int("n_heads", self.n_heads, minimum=1)
        if self.head_dim is None:
            if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
                raise ValueError(
                    f"d_model ({self.d_model}) must be n_heads ({self.n_heads}) times an even head dimension"
                )
            object.__setattr__(self, "head_dim", self.d_model // self.n_heads)
        check_int("head_dim", self.head_dim, minimum=2, even=True)
        check_int("d_ff", self.d_ff, minimum=1)
        check_int("train_len", self.train_len, minimum=2)
        check_int("seed", self.seed, minimum=0)
        if not isinstance(self.positional, dict):
            raise TypeError(f"positional must be a dict of the family's parameters, got {self.positional!r}")
        unknown = sorted(set(self.positional) - set(cls.defaults))
        if unknown:
            raise ValueError(f"unknown parameters {unknown} of family {self.family!r}; allowed: {sorted(cls.defaults)}")
        params = {**cls.defaults, **self.positional}
        cls.check(params)
        object.__setattr__(self, "positional", params)

    def __getattr__(self, name: str) -> Any:
        """The family's parameters read as attributes: ``config.rope_base`` is ``config.positional["rope_base"]``."""
        params = self.__dict__.get("positional")
        if params is not None and name in params:
            return params[name]
        raise AttributeError(f"{type(self).__name__} of family {self.__dict__.get('family')!r} has no {name!r}")

    @classmethod
    def build(cls, family: str = "rope", *, shared: bool = False, **settings) -> LabConfig:
        """A config from flat settings: :class:`LabConfig` fields, and parameters of ``family`` by name
        (``rope_base=500.0``). ``shared``: the settings serve every family (a scale's), so parameters of the other
        families are left out; otherwise they raise (ValueError naming the parameter and its family)."""
        fields = {f.name for f in dataclasses.fields(cls)} - {"positional"}
        mine = family_class(family).defaults
        owners: dict[str, list[str]] = {}
        for f, c in FAMILIES.items():
            for k in c.defaults:
                owners.setdefault(k, []).append(f)
        params, rest = {}, {}
        for key, value in settings.items():
            if key in mine:
                params[key] = value
            elif key in owners:
                if not shared:
                    which = ", ".join(repr(f) for f in owners[key])
                    noun = "family" if len(owners[key]) == 1 else "families"
                    raise ValueError(f"{key} only applies to {noun} {which}, got family={family!r}")
            elif key in fields:
                rest[key] = value
            else:
                allowed = sorted(fields | set(owners))
                raise ValueError(f"unknown LabConfig fields {[key]}; allowed: {allowed}")
        return cls(family=family, positional=params, **rest)

    def replace_params(self, **params) -> LabConfig:
        """A copy with some of the family's parameters changed (``rope_scaling=...``)."""
        return dataclasses.replace(self, positional={**self.positional, **params})

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> LabConfig:
        """The config of :meth:`to_dict`, or of an older checkpoint: flat parameters of every family (those of
        the other families dropped) and ``d_head`` for ``head_dim``."""
        data = dict(data)
        if "d_head" in data:
            data["head_dim"] = data.pop("d_head")
        if "positional" in data:
            known = {f.name for f in dataclasses.fields(cls)}
            unknown = sorted(set(data) - known)
            if unknown:
                raise ValueError(f"unknown LabConfig fields {unknown}; allowed: {sorted(known)}")
            return cls(**data)
        return cls.build(**data, shared=True)


def check_positions(name: str, positions: Any, shape: tuple[int, int]) -> torch.Tensor:
    """``positions``: an int64 tensor (B, n) of positions in [0, T) for tokens of ``shape`` (B, T)."""
    if not isinstance(positions, torch.Tensor) or positions.dtype != torch.int64 or positions.ndim != 2:
        raise TypeError(f"{name} must be an int64 tensor of shape (B, n), got {positions!r}")
    b, t = shape
    if positions.shape[0] != b or positions.shape[1] < 1:
        raise ValueError(
            f"{name} must have shape ({b}, n >= 1) for tokens of shape {tuple(shape)}, got {tuple(positions.shape)}"
        )
    if positions.min() < 0 or positions.max() >= t:
        raise ValueError(
            f"{name} must hold positions in [0, {t}), got values from {int(positions.min())} to {int(positions.max())}"
        )
    return positions


@functools.lru_cache(maxsize=4)
def _causal_mask(length: int) -> torch.Tensor:
    """:func:`helpers.score_biases.causal_additive_mask` (T, T), kept for the last few lengths (a 2048-token mask
    takes ~15 ms to build and 16 MB to keep). Shared: only read it (add it to something, never add to it). Made
    outside inference mode, so a mask first built during an evaluation can still take part in training."""
    with torch.inference_mode(False):
        return causal_additive_mask(length)


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with the positional hooks ``rotate`` (q, k; never v) and ``score_bias``."""

    def __init__(self, config: LabConfig):
        super().__init__()
        self.n_heads, self.head_dim = config.n_heads, config.head_dim
        width = config.n_heads * config.head_dim  # H·d_h (= d_model unless head_dim is set)
        self.qkv = nn.Linear(config.d_model, 3 * width, bias=False)
        self.out = nn.Linear(width, config.d_model, bias=False)

    def forward(
        self,
        x: torch.Tensor,
        positional: Positional,
        options: dict,
        bias: torch.Tensor | None,
        return_attention: bool = False,
        query_at: torch.Tensor | None = None,
        weights_only: bool = False,
    ) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """Output (B, T, D) and, if ``return_attention``, the weights (B, H, T, T) (else None); with
        ``weights_only`` (and ``return_attention``) only the weights, the output is None.

        ``query_at`` (B, n) positions: compute the output only for the queries at those positions, (B, n, D) (each
        still attends to every key up to its position); used by the last block when only some logits are needed."""
        b, t, _ = x.shape  # (B, T, D)
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # 3 × (B, H, T, d_h)
        q, k = positional.rotate(q, k, **options)  # (B, H, T, d_h) each
        if isinstance(positional, DualChunkRope):  # it computes the attention itself (helpers.lab.dual_chunk)
            y, weights = positional.attend(q, k, v, query_at)  # (B, H, n, d_h), (B, H, n, T); n = T without query_at
            n = y.shape[2]
            out = None if weights_only else self.out(y.transpose(1, 2).reshape(b, n, self.n_heads * self.head_dim))
            return out, (weights if return_attention else None)  # (B, n, D)
        weights = None
        if query_at is not None:
            n = query_at.shape[1]
            q = q.gather(2, query_at[:, None, :, None].expand(b, self.n_heads, n, self.head_dim))  # (B, H, n, d_h)
            hidden = torch.arange(t) > query_at[..., None]  # (B, n, T): keys after the query
            mask = torch.zeros(b, 1, n, t).masked_fill(hidden[:, None], float("-inf"))  # (B, 1, n, T)
            if bias is not None:
                mask = mask + bias[:, query_at].transpose(0, 1)  # (B, H, n, T)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, H, n, d_h)
            return self.out(y.transpose(1, 2).reshape(b, n, self.n_heads * self.head_dim)), None  # (B, n, D)
        if return_attention:
            mask = _causal_mask(t) if bias is None else bias + _causal_mask(t)  # (T, T) or (H, T, T)
            scores = q @ k.transpose(-2, -1)  # (B, H, T, T)
            scores.div_(math.sqrt(self.head_dim)).add_(mask)  # in place: the same numbers, two (B, H, T, T) fewer
            weights = torch.softmax(scores, dim=-1)  # (B, H, T, T)
            if weights_only:
                return None, weights
            y = weights @ v  # (B, H, T, d_h)
        elif bias is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, d_h)
        else:
            mask = bias + _causal_mask(t)  # (H, T, T): −inf above the diagonal
            # as (1, H, T, T): torch 2.13's CPU kernel takes a 4-D mask about 5x faster than the same 3-D one
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[None])  # (B, H, T, d_h)
        return self.out(y.transpose(1, 2).reshape(b, t, self.n_heads * self.head_dim)), weights  # (B, T, D)


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

    def forward(
        self,
        h: torch.Tensor,
        positional: Positional,
        options: dict,
        bias: torch.Tensor | None,
        return_attention: bool = False,
        query_at: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(B, T, D) → (B, T, D), or (B, n, D) at the positions ``query_at`` (B, n) only."""
        update, weights = self.attn(self.ln1(h), positional, options, bias, return_attention, query_at)
        if query_at is not None:
            h = h.gather(1, query_at[..., None].expand(-1, -1, h.shape[-1]))  # (B, n, D)
        h = h + update  # (B, T, D) or (B, n, D)
        return h + self.mlp(self.ln2(h)), weights  # (B, T, D) or (B, n, D)


class TinyTransformer(nn.Module):
    """Decoder-only transformer: tokens (B, T) int64 → next-token logits (B, T, vocab_size).

    ``positional``: the one :class:`helpers.lab.positional.Positional` of ``config.family``. Attributes the
    notebooks read: ``config``, ``train_len`` (L), ``rope_scaling`` (the dict used when ``forward`` is not given
    one), ``position_embedding`` (the learned table, or None) and ``rows_reached`` (training has sent gradient to
    rows 0..rows_reached−1 of that table; 0 before training and for other families).
    """

    def __init__(self, config: LabConfig):
        super().__init__()
        if not isinstance(config, LabConfig):
            raise TypeError(f"config must be a LabConfig, got {type(config).__name__}")
        self.config = config
        torch.manual_seed(config.seed)
        d = config.d_model
        self.embed_scale = math.sqrt(d)
        self.token_embedding = nn.Embedding(config.vocab_size, d)
        self.positional = make_positional(config)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, config.vocab_size, bias=False)
        self._init_weights()

    def _init_weights(self) -> None:
        """Unit-scale residual stream: token embeddings N(0, 1/d), multiplied by √d in ``forward`` (Vaswani §3.4), so
        each coordinate has variance 1 like the sinusoidal table; linear weights N(0, 1/fan_in) (LeCun), residual
        output projections additionally divided by √(2·n_layers) (GPT-2). With GPT-2's N(0, 0.02²) weights on these
        unit-scale embeddings the attention outputs start at about 1 % of the residual stream, and in our trials (with
        P_COPY = 0.5) no induction head had formed after 3000 steps; with this init and P_COPY = 0.8 it forms after
        about 700 steps. The positional object initialises its own parameters (learned table and T5 bias table from
        their own generators seeded with ``config.seed``, so the other weights are the same for every family)."""
        for name, p in self.named_parameters():
            if name.startswith("positional."):
                continue
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

    @property
    def position_embedding(self):
        """The :class:`helpers.learned.LearnedPositionalEmbedding` of a ``learned`` model, else None."""
        return self.positional.embedding if isinstance(self.positional, LearnedTable) else None

    @property
    def rows_reached(self) -> int:
        return self.positional.rows_reached if isinstance(self.positional, LearnedTable) else 0

    @rows_reached.setter
    def rows_reached(self, value: int) -> None:
        if isinstance(self.positional, LearnedTable):
            self.positional.rows_reached = check_int("rows_reached", value, minimum=0)

    @property
    def rope_scaling(self) -> dict | None:
        """The RoPE scaling dict used when a call gives none (a fine-tune's own; None for plain RoPE and for the
        other families)."""
        return getattr(self.positional, "rope_scaling", None)

    @rope_scaling.setter
    def rope_scaling(self, value: dict | None) -> None:
        options = self.positional.run_options(rope_scaling=value)  # raises for a non-None dict on another family
        if "rope_scaling" in options:
            self.positional.rope_scaling = options["rope_scaling"]

    def forward(
        self,
        tokens: torch.Tensor,
        *,
        return_attention: bool = False,
        logits_at: torch.Tensor | None = None,
        **options,
    ) -> torch.Tensor | tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
        """Next-token logits (B, T, vocab_size) for ``tokens`` (B, T) int64.

        ``return_attention``: also return every layer's attention weights, a tuple of n_layers tensors (B, H, T, T).
        ``logits_at``: int64 positions (B, n): return only the logits there, (B, n, vocab_size), the same numbers as
        the full call's (up to float rounding) at about half its cost: the last block computes only those queries.
        ``options``: the family's per-call options (:meth:`helpers.lab.positional.Positional.run_options`); RoPE's
        are ``rope_scaling`` (override the model's scaling dict for this call; None = plain) and ``kv_cache`` (score
        the sequence as token-by-token generation with a KV cache would: length-dependent methods only, position t
        uses the frequencies for t + 1 tokens, cached keys keep theirs), and ``dual_chunk_attention_config`` (a RoPE
        model only, without the other two: every block attends by Dual Chunk Attention, :mod:`helpers.lab.dual_chunk`).
        A learned table raises IndexError (with its message) when T exceeds its ``max_seq_len``.
        """
        if not isinstance(tokens, torch.Tensor) or tokens.ndim != 2 or tokens.is_floating_point():
            raise TypeError(f"tokens must be an integer tensor of shape (B, T), got {tokens!r}")
        if not isinstance(return_attention, bool):
            raise TypeError(f"return_attention must be a bool, got {return_attention!r}")
        if logits_at is not None:
            check_positions("logits_at", logits_at, tokens.shape)
            if return_attention:
                raise ValueError(
                    "logits_at and return_attention=True cannot be combined (the last layer's weights "
                    "would cover only some queries)"
                )
        dual_chunk = options.pop("dual_chunk_attention_config", None)
        options = self.positional.run_options(**options)
        h = self.positional.add_to_embeddings(self.token_embedding(tokens) * self.embed_scale)  # (B, T, D)
        weights = []
        hooks = self.layer_hooks(tokens.shape[1], dual_chunk)  # per block: its positional object and score bias
        for i, (block, (positional, bias)) in enumerate(zip(self.blocks, hooks, strict=True)):
            last = i == len(self.blocks) - 1
            query_at = logits_at if last else None
            h, w = block(h, positional, options, bias, return_attention, query_at)  # (B, T|n, D)
            weights.append(w)
        logits = self.lm_head(self.ln_f(h))  # (B, T, V) or (B, n, V)
        return (logits, tuple(weights)) if return_attention else logits

    def layer_attention(self, tokens: torch.Tensor, layer: int, **options) -> torch.Tensor:
        """Attention weights (B, H, T, T) of block ``layer`` for ``tokens`` (B, T), running only blocks 0..layer
        (the same numbers as ``forward(..., return_attention=True)[1][layer]``, without the layers above)."""
        check_int("layer", layer, minimum=0)
        if layer >= self.config.n_layers:
            raise IndexError(f"layer must be < n_layers = {self.config.n_layers}, got {layer}")
        dual_chunk = options.pop("dual_chunk_attention_config", None)
        options = self.positional.run_options(**options)
        h = self.positional.add_to_embeddings(self.token_embedding(tokens) * self.embed_scale)  # (B, T, D)
        hooks = self.layer_hooks(tokens.shape[1], dual_chunk)
        for block, (positional, bias) in zip(self.blocks[:layer], hooks, strict=False):
            h, _ = block(h, positional, options, bias)  # (B, T, D)
        block, (positional, bias) = self.blocks[layer], hooks[layer]
        _, weights = block.attn(block.ln1(h), positional, options, bias, True, weights_only=True)
        return weights  # (B, H, T, T)

    def layer_hooks(self, length: int, dual_chunk: dict | None = None) -> list[tuple[Positional, torch.Tensor | None]]:
        """Per block: the positional object it calls (``positional.layer(ℓ)``: the family's one object, or a
        hybrid's layer) and that object's score bias (H, T, T) or None, each bias computed once per distinct object
        (so a family with one object computes it once per call, as before hybrids existed). ``dual_chunk``: a
        ``dual_chunk_attention_config``; each block's RoPE object is then wrapped in a
        :class:`helpers.lab.dual_chunk.DualChunkRope` (TypeError for a model without RoPE)."""
        biases: dict[int, torch.Tensor | None] = {}
        hooks = []
        for i in range(self.config.n_layers):
            positional = self.positional.layer(i)
            if dual_chunk is not None:
                positional = DualChunkRope(positional, dual_chunk)
            if id(positional) not in biases:
                biases[id(positional)] = positional.score_bias(length)  # (H, T, T) or None
            hooks.append((positional, biases[id(positional)]))
        return hooks
