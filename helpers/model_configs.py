"""Reading a real model's position fields: per-layer-type RoPE, NoPE layers, windows, and what each layer can see.

A 2025–26 config describes position per layer, not per model: Gemma 3 gives its sliding-window layers base 1e4 and
its global layers base 1e6 (``rope_parameters`` keyed by layer type), Gemma 4 rotates a quarter of each global head,
SmolLM3 and Llama 4 leave every fourth layer unrotated, gpt-oss alternates a 128-token window with full attention.

* :func:`rope_by_layer_type`: each layer type's inverse frequencies and attention factor, plus the per-layer
  schedule, from a config dict (HF ``config.json`` style); equal to HF's rotary embedding built with ``layer_type=``.
* :func:`layer_table`: per layer, whether it rotates, its base, the fraction of each head rotated, its attention
  window, and which rotated pairs never complete a turn within the distances it can see.
* The gallery of real configs it reads is :data:`helpers.model_gallery.GALLERY`.

Frequencies come from :mod:`helpers.scaling` (every HF ``rope_type``, ``proportional`` included); the layer
schedules from :mod:`helpers.layer_schedules`. Formulas: ``shared/design/reference-formulas.md``, "2025–26 position designs".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from helpers._checks import check_int
from helpers.layer_schedules import no_rope_layers, sliding_layer_types
from helpers.scaling import ROPE_SCALING, rope_parameters_from_config

__all__ = ["LayerPosition", "LayerTypeRope", "RopeSchedule", "layer_table", "rope_by_layer_type", "slow_pair_share"]

#: HF's default base when a config gives none (``PreTrainedConfig.default_theta``); per-model defaults differ.
DEFAULT_THETA = 10000.0


@dataclass(frozen=True)
class LayerTypeRope:
    """One layer type's rotary parameters. ``inv_freq`` (D/2,) for ``proportional`` (zeros for unrotated pairs),
    (D_r/2,) for partial ``default``; ``head_dim`` D is the query/key head dimension of this layer type (for MLA,
    qk_nope_head_dim + qk_rope_head_dim: the rotary part is only qk_rope_head_dim of it)."""

    rope_type: str
    base: float
    head_dim: int
    inv_freq: np.ndarray
    attention_factor: float

    @property
    def rotated_pairs(self) -> int:
        """Pairs with θ > 0 (the others carry no position)."""
        return int(np.count_nonzero(self.inv_freq))

    @property
    def rotated_fraction(self) -> float:
        """Fraction of the head's D dimensions that rotate: 2·(pairs with θ > 0)/D."""
        return 2 * self.rotated_pairs / self.head_dim


@dataclass(frozen=True)
class RopeSchedule:
    """Per-layer-type RoPE and which type every layer is. ``rotates[ℓ]`` is False for NoPE layers."""

    by_type: dict[str, LayerTypeRope]
    layer_types: list[str]
    rotates: np.ndarray
    sliding_window: int | None
    attention_chunk_size: int | None


def _head_dims(config: Mapping, layer_type: str) -> tuple[int, int]:
    """(the dimension RoPE's exponent is computed over, the whole query/key head dimension)."""
    if config.get("qk_rope_head_dim"):  # DeepSeek MLA: only the decoupled slice rotates
        rope = check_int("qk_rope_head_dim", config["qk_rope_head_dim"], minimum=2)
        return rope, rope + check_int("qk_nope_head_dim", config.get("qk_nope_head_dim", 0), minimum=0)
    d = _head_dim(config, layer_type)
    return d, d


def _head_dim(config: Mapping, layer_type: str) -> int:
    if layer_type == "full_attention" and config.get("global_head_dim"):
        return check_int("global_head_dim", config["global_head_dim"], minimum=2)  # Gemma 4's global layers
    if config.get("head_dim"):
        return check_int("head_dim", config["head_dim"], minimum=2)
    if config.get("hidden_size") and config.get("num_attention_heads"):
        return check_int("hidden_size", config["hidden_size"], minimum=1) // check_int(
            "num_attention_heads", config["num_attention_heads"], minimum=1
        )
    raise ValueError("config must give head_dim, or hidden_size and num_attention_heads, to size the rotary pairs")


def _layer_types(config: Mapping, n_layers: int) -> list[str]:
    types = config.get("layer_types")
    if types is None:
        if config.get("sliding_window_pattern"):
            return sliding_layer_types(n_layers, config["sliding_window_pattern"])
        return ["full_attention"] * n_layers
    types = list(types)
    if len(types) != n_layers:
        raise ValueError(f"layer_types must have num_hidden_layers = {n_layers} entries, got {len(types)}")
    return types


def _rope_for(params: Mapping, config: Mapping, layer_type: str) -> LayerTypeRope:
    params = dict(params)
    head_dim, qk_dim = _head_dims(config, layer_type)
    base = float(params.get("rope_theta", config.get("rope_theta", DEFAULT_THETA)))
    rope_type = params.get("rope_type", params.get("type", "default"))
    if rope_type == "mrope":  # Qwen2-VL's old name: HF 5.24 reads it as "default" (Qwen2VLTextConfig)
        rope_type = "default"
        params.pop("type", None)
        params["rope_type"] = "default"
    if rope_type == "proportional":  # HF reads only its keys: another one is a mistake, not a setting
        keys = ["rope_theta", *ROPE_SCALING["proportional"].config_keys]
        extra = sorted(set(params) - {"rope_type", "type", *keys})
        if extra:
            raise ValueError(f"rope_type 'proportional' takes {', '.join(keys)}; got {extra}")
    params["rope_theta"] = base
    for key in ("mrope_section", "mrope_interleaved"):  # M-RoPE splits the slots by axis, not the frequencies
        params.pop(key, None)
    inv_freq, factor = rope_parameters_from_config(
        params,
        head_dim=head_dim,
        partial_rotary_factor=config.get("partial_rotary_factor", 1.0)
        if "partial_rotary_factor" not in params
        else 1.0,
        max_position_embeddings=config.get("max_position_embeddings"),
    )  # (D_r/2,), or (D/2,) for proportional
    return LayerTypeRope(str(rope_type), base, qk_dim, np.asarray(inv_freq, dtype=np.float64), float(factor))


def rope_by_layer_type(config: Mapping) -> RopeSchedule:
    """Each layer type's frequencies and attention factor, plus the per-layer schedule, from a model config dict.

    ``config``: the text part of an HF ``config.json`` as a dict: ``num_hidden_layers``; ``head_dim`` (or
    ``hidden_size`` / ``num_attention_heads``; Gemma 4's ``global_head_dim`` for its full-attention layers);
    ``rope_parameters`` either flat (one RoPE for every layer, e.g. Llama 3.1's llama3 scaling) or keyed by layer
    type (Gemma 3: ``{"sliding_attention": {...}, "full_attention": {...}}``); optional ``layer_types``
    (one per layer; else ``sliding_window_pattern`` n gives HF's "n−1 sliding, then full", else all full),
    ``sliding_window``, ``attention_chunk_size`` (Llama 4), ``no_rope_layers`` / ``no_rope_layer_interval``
    (SmolLM3, Llama 4: applied only when one of them is present), ``max_position_embeddings`` (needed by
    YaRN configs without ``factor``), ``partial_rotary_factor``.
    Every ``rope_type`` of :data:`helpers.scaling.ROPE_SCALING` is read (``proportional`` included).
    Shapes: ``by_type[t].inv_freq`` (D_t/2,) or (D_r/2,) float64; ``rotates`` bool (layers,).
    Source: HF 5.24 ``Gemma3RotaryEmbedding`` / ``Gemma4TextRotaryEmbedding`` (``rope_init_fn(config,
    layer_type=...)``), ``RotaryEmbeddingConfigMixin.standardize_rope_params``.
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a dict (a model's config.json text part), got {type(config).__name__}")
    if "num_hidden_layers" not in config:
        raise ValueError(f"config must give num_hidden_layers; keys given: {sorted(config)}")
    n_layers = check_int("num_hidden_layers", config["num_hidden_layers"], minimum=1)
    types = _layer_types(config, n_layers)
    rope = config.get("rope_parameters") or {}
    if not isinstance(rope, Mapping):
        raise TypeError(f"rope_parameters must be a dict, got {rope!r}")
    nested = {k: v for k, v in rope.items() if isinstance(v, Mapping)}
    by_type = {}
    for t in sorted(set(types)):
        if nested:
            if t not in nested:
                raise ValueError(f"rope_parameters has no entry for layer type {t!r} (it has {sorted(nested)})")
            by_type[t] = _rope_for(nested[t], config, t)
        else:
            by_type[t] = _rope_for(rope, config, t)
    if config.get("no_rope_layers") or "no_rope_layer_interval" in config:
        rotates = no_rope_layers(
            n_layers,
            no_rope_layers=config.get("no_rope_layers"),
            no_rope_layer_interval=config.get("no_rope_layer_interval", 4),
        ).astype(bool)  # (layers,)
    else:
        rotates = np.ones(n_layers, dtype=bool)  # (layers,)
    window = config.get("sliding_window")
    chunk = config.get("attention_chunk_size")
    return RopeSchedule(by_type, types, rotates, None if window is None else int(window), chunk and int(chunk))


@dataclass(frozen=True)
class LayerPosition:
    """One layer's position design, as :func:`layer_table` reads it."""

    layer: int
    layer_type: str
    rotates: bool
    rope_type: str | None
    base: float | None
    rotated_fraction: float  # of the head's dimensions (0 for a NoPE layer)
    window: int | None  # sliding window or attention chunk; None = the whole context
    max_distance: int  # the largest query-key distance this layer can see within the context
    pairs_without_full_turn: tuple[int, ...]  # rotated pairs i with max_distance·θ_i < 2π


def layer_table(config: Mapping, context_length: int | None = None) -> list[LayerPosition]:
    """Per layer: rotates or not, base, fraction of each head rotated, attention window, and the slow pairs.

    A layer sees query-key distances up to Δ_max = min(window, L) − 1 (L = ``context_length``, default the config's
    ``max_position_embeddings``; window = ``sliding_window`` on "sliding_attention" layers, ``attention_chunk_size``
    on "chunked_attention" layers, none on full layers). Rotated pair i (θ_i > 0, after the layer type's scaling)
    never completes a turn within what the layer sees iff Δ_max·θ_i < 2π: such a pair meets only part of its circle,
    so an angle it never saw in training appears as soon as distances grow past Δ_max (notebook 05, section 1).
    NoPE layers list no pairs and a rotated fraction of 0.
    Source: the config's fields as HF 5.24 reads them (see :func:`rope_by_layer_type`).
    """
    schedule = rope_by_layer_type(config)
    if context_length is None:
        if not config.get("max_position_embeddings"):
            raise ValueError("give context_length, or a config with max_position_embeddings")
        context_length = config["max_position_embeddings"]
    length = check_int("context_length", context_length, minimum=2)
    rows = []
    for i, t in enumerate(schedule.layer_types):
        window = {"sliding_attention": schedule.sliding_window, "chunked_attention": schedule.attention_chunk_size}
        w = window.get(t)
        max_distance = min(w, length) - 1 if w else length - 1
        rope = schedule.by_type[t]
        if not schedule.rotates[i]:
            rows.append(LayerPosition(i, t, False, None, None, 0.0, w, max_distance, ()))
            continue
        theta = rope.inv_freq  # (pairs,)
        slow = np.flatnonzero((theta > 0) & (max_distance * theta < 2 * math.pi))
        rows.append(
            LayerPosition(
                i, t, True, rope.rope_type, rope.base, rope.rotated_fraction, w, max_distance, tuple(slow.tolist())
            )
        )
    return rows


def slow_pair_share(config: Mapping, context_length: int | None = None) -> np.ndarray:
    """Per layer: the share of its rotated pairs that never complete a turn within what it sees (NaN: NoPE layer).

    share_ℓ = |{i : θ_i > 0, Δ_max·θ_i < 2π}| / |{i : θ_i > 0}|, with Δ_max and the pairs of :func:`layer_table`.
    Shapes: returns float64 (layers,). Used by notebook 08's gallery figure.
    """
    schedule = rope_by_layer_type(config)
    rows = layer_table(config, context_length)
    share = np.full(len(rows), np.nan)  # (layers,)
    for row in rows:
        if row.rotates:
            share[row.layer] = len(row.pairs_without_full_turn) / schedule.by_type[row.layer_type].rotated_pairs
    return share
