"""Where position enters the tiny transformer: one object with three hooks.

Every positional family is a :class:`Positional` with the same small interface, called at fixed places by
:class:`helpers.lab.model.TinyTransformer`::

    options = positional.run_options(**kwargs)    # per-call options, checked (RoPE: rope_scaling, kv_cache)
    h = positional.add_to_embeddings(h)            # (B, T, D): absolute tables add here (else unchanged)
    q, k = positional.rotate(q, k, **options)      # (B, H, T, d_h): RoPE rotates here (else unchanged)
    bias = positional.score_bias(T)                # (H, T, T) added to q·kᵀ/√d_h, or None

A hybrid family gives each layer its own object: block ℓ calls the hooks of ``positional.layer(ℓ)`` (every other
family returns itself there, so its model computes exactly what it computed before hybrids existed).

A family is one subclass, registered in :data:`FAMILIES` (name → class) by defining it: its ``family`` (an identifier
of :data:`helpers.methods.POSITIONAL_FAMILIES`, which holds its label, colour and description), its parameters with
their defaults (``defaults``: they live in :attr:`helpers.lab.model.LabConfig.positional`), their checks
(``check``), ``from_config`` and the hooks it overrides. The lab then trains, evaluates and reports it.

Families:

* ``nope``: nothing; the causal mask alone tells positions apart (Haviv et al. 2022, arXiv 2203.16634;
  Kazemnejad et al. 2023, arXiv 2305.19466).
* ``sinusoidal``: h + PE[pos], PE from :func:`helpers.sinusoidal.sinusoidal_table` (Vaswani et al., arXiv 1706.03762
  §3.5), computed for any T.
* ``learned``: h + P[pos], P a :class:`helpers.learned.LearnedPositionalEmbedding` (raises IndexError past its rows).
* ``rope``: q and k rotated by :func:`helpers.rope.apply_rope`; frequencies and attention factor from any method of
  :data:`helpers.scaling.ROPE_SCALING` (Su et al., arXiv 2104.09864 §3.2). cos/sin come from
  :class:`helpers.rope.RopeCache`, one cache per scaling dict (per length T for ``dynamic``, whose frequencies
  depend on T).
* ``alibi``: bias −slope_h·(m − n) for key n ≤ query m, :func:`helpers.score_biases.alibi_bias` (slopes 2^(−8h/H);
  Press et al. 2022, arXiv 2108.12409 §3). Nothing learned, nothing to change past L.
* ``t5_bias``: bias table[bucket(n − m), h], a learned scalar per head and causal relative-position bucket
  (:class:`helpers.score_biases.T5RelativeBias`: exact up to num_buckets/2, log-spaced up to ``max_distance``, one
  shared bucket beyond; Raffel et al. 2020, arXiv 1910.10683 §2.1). The lab uses 32 buckets (T5's) and
  ``max_distance`` = L = 64 (T5 uses 128 at 512 training tokens): every bucket is reached in training, and every
  distance >= L shares the last one, so the model runs at any T on trained parameters.

Hybrids (``group = "hybrid"``: ``irope``, ``irope_temp``, ``local_global``, layer-wise mixtures of the above, trained
on request) live in :mod:`helpers.lab.hybrids`; importing it registers them here (:data:`FAMILIES`).
"""

from __future__ import annotations

import json
from typing import Any

import torch
from torch import nn

from helpers import score_biases
from helpers._checks import check_choice, check_int, check_positive
from helpers.learned import LearnedPositionalEmbedding
from helpers.methods import POSITIONAL_FAMILIES
from helpers.rope import LAYOUTS, RopeCache, apply_rope
from helpers.scaling import ROPE_SCALING, rope_parameters_from_config
from helpers.score_biases import alibi_bias
from helpers.sinusoidal import sinusoidal_table

__all__ = [
    "FAMILIES",
    "GROUPS",
    "AlibiBias",
    "LearnedTable",
    "NoPositional",
    "Positional",
    "RopeRotation",
    "SinusoidalTable",
    "T5RelativeBias",
    "check_rope_scaling",
    "family_class",
    "make_positional",
]


#: "Not given" for a keyword whose None means something (``rope_scaling=None`` is plain RoPE).
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()

#: Scaling methods whose frequencies depend on the current length T (one cache per T for them): the registry's
#: methods that read ``seq_len``.
LENGTH_DEPENDENT = tuple(name for name, spec in ROPE_SCALING.items() if spec.reads_length)


#: Every family: name → its :class:`Positional` subclass, in the order the classes are defined (the vocabulary's).
FAMILIES: dict[str, type[Positional]] = {}

#: A family's group (its class's ``group``): ``main``, trained for every seed and shipped with the lab, or ``hybrid``,
#: a layer-wise hybrid trained on request (``python -m helpers.lab train hybrid``), whose checkpoints do not ship.
GROUPS = ("main", "hybrid")


def check_rope_scaling(rope_scaling: Any) -> dict:
    """An HF-style scaling dict whose ``rope_type`` is in :data:`helpers.scaling.ROPE_SCALING`."""
    if not isinstance(rope_scaling, dict):
        raise TypeError(
            f"rope_scaling must be a dict like {{'rope_type': 'linear', 'factor': 4.0}} or None, got {rope_scaling!r}"
        )
    kind = rope_scaling.get("rope_type", rope_scaling.get("type", "default"))
    check_choice("rope_scaling['rope_type']", kind, tuple(ROPE_SCALING))
    return rope_scaling


class Positional(nn.Module):
    """The interface: three hooks, each the identity (or no bias) unless a family overrides it.

    Class attributes of a family: ``family`` (its identifier), ``defaults`` (its parameters in
    ``LabConfig.positional`` and their defaults; none here) and ``group`` (one of :data:`GROUPS`). A subclass
    defined with ``register=False`` is a building block, not a family (:class:`HybridLayer`)."""

    family = "nope"
    defaults: dict[str, Any] = {}
    group = "main"

    def __init_subclass__(cls, register: bool = True, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if not register:
            return
        if cls.family not in POSITIONAL_FAMILIES:
            raise ValueError(f"family {cls.family!r} needs a line in helpers.methods.POSITIONAL_FAMILIES")
        if cls.family in FAMILIES:
            raise ValueError(f"family {cls.family!r} is already registered by {FAMILIES[cls.family].__name__}")
        if cls.group not in GROUPS:
            raise ValueError(f"group of family {cls.family!r} must be one of {GROUPS}, got {cls.group!r}")
        FAMILIES[cls.family] = cls

    @classmethod
    def check(cls, params: dict) -> None:
        """Raise ValueError naming a parameter of ``params`` (this family's, defaults filled in) that is invalid."""

    @classmethod
    def from_config(cls, config) -> Positional:
        """The object for a :class:`helpers.lab.model.LabConfig` of this family."""
        return cls()

    def run_options(self, **options) -> dict:
        """The per-call options (keywords of the model's forward) checked and resolved: none for most families; a
        RoPE-only option given to another family raises, naming it (None / False mean "not given")."""
        given = sorted(k for k, v in options.items() if v is not None and v is not False and v is not UNSET)
        if given:
            raise ValueError(f"{', '.join(given)} only applies to a RoPE model; this model's family is {self.family!r}")
        return {}

    def add_to_embeddings(self, h: torch.Tensor) -> torch.Tensor:
        """h (B, T, D) → h + position vectors (B, T, D). Default: unchanged."""
        return h

    def rotate(self, q: torch.Tensor, k: torch.Tensor, **options) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (B, H, T, d_h) → rotated q, k (``options`` from :meth:`run_options`). Default: unchanged."""
        return q, k

    def score_bias(self, length: int) -> torch.Tensor | None:
        """An additive bias (H, T, T) for the logits q·kᵀ/√d_h at query m, key n, or None. Default: None."""
        return None

    def param_groups(self, lr: float) -> list[dict]:
        """Optimizer groups of this family's parameters that train with their own settings, each a dict
        ``{"params", "weight_decay", "lr_scale", "lr"}`` (``lr_scale``: the group's learning rate as a multiple of the
        run's ``lr``). :func:`helpers.lab.train.make_optimizer` puts every other parameter in its usual groups.
        Default: none."""
        return []

    def layer(self, index: int) -> Positional:
        """The object whose ``rotate`` and ``score_bias`` block ``index`` calls. Default: this one, for every layer
        (only hybrids differ, :class:`Hybrid`)."""
        return self


class NoPositional(Positional):
    """``nope``: no positional signal at all (the causal mask still leaks order)."""

    family = "nope"


class SinusoidalTable(Positional):
    """``sinusoidal``: h + PE[0..T−1], the fixed table of Vaswani §3.5 (float32, cached per T)."""

    family = "sinusoidal"
    defaults = {"sinusoidal_base": 10000.0}

    @classmethod
    def check(cls, params: dict) -> None:
        check_positive("sinusoidal_base", params["sinusoidal_base"])

    @classmethod
    def from_config(cls, config) -> SinusoidalTable:
        return cls(config.d_model, config.sinusoidal_base)

    def __init__(self, d_model: int, base: float):
        super().__init__()
        self.d_model, self.base = d_model, base
        self._tables: dict[int, torch.Tensor] = {}

    def table(self, length: int) -> torch.Tensor:
        """PE (T, d_model) as float32."""
        if length not in self._tables:
            table = sinusoidal_table(length, self.d_model, self.base)  # (T, D) float64
            self._tables[length] = torch.from_numpy(table).float()  # (T, D)
        return self._tables[length]

    def add_to_embeddings(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.table(h.shape[1])  # (B, T, D)


class LearnedTable(Positional):
    """``learned``: h + P[0..T−1], a trainable table of ``max_seq_len`` rows (IndexError past it).

    ``rows_reached``: training has sent gradient to rows 0..rows_reached−1 (set by the trainer; saved with the
    checkpoint).
    """

    family = "learned"
    defaults = {"max_seq_len": 128, "learned_init_std": 0.02}

    @classmethod
    def check(cls, params: dict) -> None:
        check_int("max_seq_len", params["max_seq_len"], minimum=1)
        check_positive("learned_init_std", params["learned_init_std"])

    @classmethod
    def from_config(cls, config) -> LearnedTable:
        return cls(config.max_seq_len, config.d_model, init_std=config.learned_init_std, seed=config.seed)

    def __init__(self, max_seq_len: int, d_model: int, *, init_std: float, seed: int):
        super().__init__()
        self.embedding = LearnedPositionalEmbedding(max_seq_len, d_model, init_std=init_std, seed=seed)
        self.rows_reached = 0

    def add_to_embeddings(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.embedding(h.shape[1])  # (B, T, D); IndexError past the table


class RopeRotation(Positional):
    """``rope``: rotate q and k of every head by m·θ_i (``layout`` "half_split" or "interleaved").

    ``rope_scaling``: an HF-style dict (``{"rope_type": "yarn", "factor": 4.0, ...}``) or None (plain RoPE); the
    frequencies and attention factor a come from :func:`helpers.scaling.rope_parameters_from_config` with
    ``max_position_embeddings = train_len`` and ``seq_len = T`` (dynamic NTK sees the current length, as HF's
    ``dynamic_rope_update`` does). a multiplies cos and sin, so the logits are multiplied by a².
    """

    family = "rope"
    defaults = {"rope_base": 10000.0, "rope_layout": "half_split", "rope_scaling": None}

    @classmethod
    def check(cls, params: dict) -> None:
        check_positive("rope_base", params["rope_base"], minimum=1.0)
        check_choice("rope_layout", params["rope_layout"], LAYOUTS)
        if params["rope_scaling"] is not None:
            check_rope_scaling(params["rope_scaling"])

    @classmethod
    def from_config(cls, config) -> RopeRotation:
        return cls(
            config.head_dim,
            config.rope_base,
            layout=config.rope_layout,
            train_len=config.train_len,
            rope_scaling=config.rope_scaling,
        )

    def __init__(self, head_dim: int, base: float, *, layout: str, train_len: int, rope_scaling: dict | None = None):
        super().__init__()
        self.head_dim, self.base, self.layout, self.train_len = head_dim, base, layout, train_len
        self.rope_scaling = rope_scaling  # the dict used when a call does not give one (a fine-tune's own)
        self._caches: dict[tuple[str, int | None], RopeCache] = {}
        self._stale: dict[tuple, tuple[torch.Tensor, torch.Tensor]] = {}

    def cache(self, rope_scaling: dict | None, length: int) -> RopeCache:
        """The :class:`helpers.rope.RopeCache` for this scaling dict (and this T, for ``dynamic``)."""
        kind = (rope_scaling or {}).get("rope_type", (rope_scaling or {}).get("type"))
        key = (json.dumps(rope_scaling, sort_keys=True), length if kind in LENGTH_DEPENDENT else None)
        if key not in self._caches:
            inv_freq, factor = rope_parameters_from_config(
                rope_scaling,
                head_dim=self.head_dim,
                base=self.base,
                seq_len=length,
                max_position_embeddings=self.train_len,
            )  # (d_h/2,), float
            self._caches[key] = RopeCache(inv_freq, attention_factor=factor)
        return self._caches[key]

    def cos_sin(self, length: int, rope_scaling: dict | None) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin (T, d_h/2) for positions 0..T−1, times the attention factor."""
        return self.cache(rope_scaling, length).get(length)  # (T, d_h/2) each

    def kv_cache_cos_sin(self, length: int, rope_scaling: dict | None) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin (T, d_h/2) as token-by-token generation with a KV cache produces them for a length-dependent
        method (``dynamic``): row t is rotated by t·θ_i(t + 1), the frequencies for the t + 1 tokens seen when
        token t was processed (HF's ``dynamic_rope_update`` recomputes them from the longest position so far).
        The key of token t is cached with that rotation and keeps it; the query of token t uses it too. So one
        causal call with these rows scores every position exactly as generation would (keys stale, as in practice).
        """
        kind = (rope_scaling or {}).get("rope_type", (rope_scaling or {}).get("type"))
        if kind not in LENGTH_DEPENDENT:
            raise ValueError(
                f"kv_cache=True only changes length-dependent methods {LENGTH_DEPENDENT}; got rope_scaling={rope_scaling!r}"
            )
        key = (json.dumps(rope_scaling, sort_keys=True), length, "kv_cache")
        if key not in self._stale:
            angles = torch.empty(length, self.head_dim // 2, dtype=torch.float64)  # (T, d_h/2)
            for t in range(length):
                inv_freq, factor = rope_parameters_from_config(
                    rope_scaling,
                    head_dim=self.head_dim,
                    base=self.base,
                    seq_len=t + 1,
                    max_position_embeddings=self.train_len,
                )  # (d_h/2,), float
                angles[t] = t * torch.as_tensor(inv_freq, dtype=torch.float64)  # (d_h/2,)
            self._stale[key] = (
                (angles.cos() * factor).float(),  # (T, d_h/2)
                (angles.sin() * factor).float(),  # (T, d_h/2)
            )
        return self._stale[key]

    def run_options(self, *, rope_scaling: dict | None = UNSET, kv_cache: bool = False) -> dict:
        """``rope_scaling``: this call's HF-style dict (default: :attr:`rope_scaling`; None = plain RoPE).
        ``kv_cache``: score as token-by-token generation with a KV cache (length-dependent methods only)."""
        if not isinstance(kv_cache, bool):
            raise TypeError(f"kv_cache must be a bool, got {kv_cache!r}")
        if rope_scaling is UNSET:
            rope_scaling = self.rope_scaling
        elif rope_scaling is not None:
            check_rope_scaling(rope_scaling)
        return {"rope_scaling": rope_scaling, "kv_cache": kv_cache}

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, *, rope_scaling: dict | None = None, kv_cache: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (B, H, T, d_h) rotated; ``kv_cache``: as generation with a KV cache (:meth:`kv_cache_cos_sin`)."""
        if kv_cache:
            cos, sin = self.kv_cache_cos_sin(q.shape[-2], rope_scaling)  # (T, d_h/2) each
        else:
            cos, sin = self.cos_sin(q.shape[-2], rope_scaling)  # (T, d_h/2) each
        q, k = q.contiguous(), k.contiguous()  # views into the fused qkv output: the same numbers, faster passes
        return apply_rope(q, cos, sin, layout=self.layout), apply_rope(k, cos, sin, layout=self.layout)


class AlibiBias(Positional):
    """``alibi``: score bias −slope_h·(m − n) (H, T, T) from :func:`helpers.score_biases.alibi_bias` (cached per T).

    Slopes 2^(−8h/H) (the paper's rule for other H). Entries above the diagonal are removed by the causal mask.
    """

    family = "alibi"

    @classmethod
    def from_config(cls, config) -> AlibiBias:
        return cls(config.n_heads)

    def __init__(self, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self._biases: dict[int, torch.Tensor] = {}

    def score_bias(self, length: int) -> torch.Tensor:
        if length not in self._biases:
            self._biases[length] = alibi_bias(self.n_heads, length)  # (H, T, T)
        return self._biases[length]


T5_INITS = ("normal", "alibi")


def bucket_start_distances(num_buckets: int, max_distance: int) -> torch.Tensor:
    """The smallest distance d = m − n of every causal T5 bucket, float64 (num_buckets,): 0..e for the exact ones,
    then :func:`helpers.score_biases.t5_bucket_thresholds` (an empty bucket repeats its neighbour's start)."""
    exact = num_buckets // 2
    starts = [
        *range(exact + 1),
        *score_biases.t5_bucket_thresholds(bidirectional=False, num_buckets=num_buckets, max_distance=max_distance),
    ]
    return torch.tensor(starts, dtype=torch.float64)  # (num_buckets,)


class T5RelativeBias(Positional):
    """``t5_bias``: score bias table[bucket(n − m), h] (H, T, T) from a :class:`helpers.score_biases.T5RelativeBias`
    (causal buckets; table (num_buckets, H)).

    ``init``: "normal" = N(0, 0.02²) from the config's seed (T5's small random start); "alibi" = table[b, h] =
    −s_h·d_b, ALiBi's line at the first distance d_b of bucket b (slopes s_h = 2^(−8h/H), Press et al.), so every
    head starts local and the table is then learned. In the lab's copy task a table that starts near 0 learns to
    avoid the nearest keys before any previous-token head forms (notebook 06 §5).
    """

    family = "t5_bias"
    defaults = {"t5_num_buckets": 32, "t5_max_distance": 64, "t5_init": "normal", "t5_table_lr_scale": 1.0}

    @classmethod
    def check(cls, params: dict) -> None:
        check_int("t5_num_buckets", params["t5_num_buckets"], minimum=2, even=True)
        check_int("t5_max_distance", params["t5_max_distance"], minimum=params["t5_num_buckets"] // 2 + 1)
        check_choice("t5_init", params["t5_init"], T5_INITS)
        check_positive("t5_table_lr_scale", params["t5_table_lr_scale"])

    @classmethod
    def from_config(cls, config) -> T5RelativeBias:
        return cls(
            config.n_heads,
            num_buckets=config.t5_num_buckets,
            max_distance=config.t5_max_distance,
            seed=config.seed,
            init=config.t5_init,
            table_lr_scale=config.t5_table_lr_scale,
        )

    def __init__(
        self,
        n_heads: int,
        *,
        num_buckets: int,
        max_distance: int,
        seed: int,
        init: str = "normal",
        table_lr_scale: float = 1.0,
    ):
        super().__init__()
        if init not in T5_INITS:
            raise ValueError(f"init must be one of {T5_INITS}, got {init!r}")
        self.table_lr_scale = check_positive("table_lr_scale", table_lr_scale)
        self.relative = score_biases.T5RelativeBias(
            n_heads, num_buckets=num_buckets, max_distance=max_distance, bidirectional=False, seed=seed
        )
        if init == "alibi":
            slopes = score_biases.alibi_slopes(n_heads).double()  # (H,)
            start = bucket_start_distances(num_buckets, max_distance)  # (num_buckets,)
            with torch.no_grad():
                self.relative.table.copy_(-(start[:, None] * slopes[None, :]).float())  # (num_buckets, H)

    def score_bias(self, length: int) -> torch.Tensor:
        return self.relative(length)  # (H, T, T)

    def param_groups(self, lr: float) -> list[dict]:
        """The bias table in its own group, without weight decay, at ``table_lr_scale``·lr (none when the scale is
        1: the table then trains in the usual no-decay group)."""
        if self.table_lr_scale == 1.0:
            return []
        scale = self.table_lr_scale
        return [{"params": [self.relative.table], "weight_decay": 0.0, "lr_scale": scale, "lr": lr * scale}]


def family_class(family: str) -> type[Positional]:
    """The :class:`Positional` subclass of ``family`` (a key of :data:`FAMILIES`)."""
    if not isinstance(family, str) or family not in FAMILIES:
        raise ValueError(f"family must be one of {tuple(FAMILIES)}, got {family!r}")
    return FAMILIES[family]


def make_positional(config) -> Positional:
    """The :class:`Positional` of a :class:`helpers.lab.model.LabConfig` (its ``family``)."""
    return family_class(config.family).from_config(config)
