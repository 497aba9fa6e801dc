"""Reading a real model's position design from its config: one strict reader, per layer.

A 2025–26 config describes position per layer, not per model: Gemma 3 gives its sliding-window layers base 1e4 and
its global layers base 1e6 (``rope_parameters`` keyed by layer type), Gemma 4 rotates a quarter of each global head,
SmolLM3 and Llama 4 leave every fourth layer unrotated, EXAONE 4 leaves its global layers unrotated, hybrids such as
Jamba never rotate, Ministral 3 multiplies its queries by a temperature that grows with position.

* :func:`read_model_config`: a whole ``config.json`` (a dict or a path) -> :class:`ModelPositions`: per layer,
  whether it rotates, its inverse frequencies (D/2 entries, exactly 0 for unrotated pairs), the attention factor on
  cos/sin and the query temperature as a function of position. Both spellings (``rope_theta`` + ``rope_scaling``
  with ``type`` or ``rope_type``; ``rope_parameters`` flat or keyed by layer type), per-layer lists (Step-3.7's
  ``rope_theta`` / ``partial_rotary_factors``, granite-swash's ``layer_rope_theta`` with 0 = NoPE), Hunyuan's
  ``alpha``, ``llama_4_scaling_beta``, Llama 4's temperature tuning, ``axial``, M-RoPE sections, DeepSeek-V4's
  label-keyed ``rope_parameters`` (``main`` on sliding layers, ``compress`` on compressed ones), and Mistral Large 4's
  learned per-frequency factors and per-head query factors (given as ``learned=``, not in a config). Strict: every
  position key is read or refused (:class:`ConfigError` names the key, the value, the model type and what is
  supported); a ``model_type`` whose layer rule is not in :data:`helpers.model_types.MODEL_TYPES` is refused.
* :func:`rope_by_layer_type`, :func:`layer_table`, :func:`slow_pair_share`: notebook 08's views, built on it.
* ``python -m helpers.model_configs read CONFIG.json`` prints the table; ``python -m helpers.model_coverage`` prints
  every HF 5.24 model type with position fields, read right or refused (compared with HF's own code).

Frequencies come from :mod:`helpers.scaling`; temperatures from :mod:`helpers.temperature`; the layer rules from
:mod:`helpers.model_types`. Formulas: ``shared/design/reference-formulas.md``, "2025–26 position designs".
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from helpers._checks import check_int
from helpers._model_types_all import EXCLUDED, MROPE
from helpers.layer_schedules import no_rope_layers, sliding_layer_types
from helpers.model_types import MODEL_TYPES, NON_ATTENTION_LAYER_TYPES, REFUSED, ROTATION_RULES
from helpers.scaling import ROPE_SCALING, rope_parameters_from_config
from helpers.temperature import learned_log_temperature, llama4_attn_temperature, llama_4_scaling_temperature

__all__ = [
    "ConfigError",
    "LayerPosition",
    "LayerPositions",
    "LayerTypeRope",
    "ModelPositions",
    "RopeSchedule",
    "layer_table",
    "read_model_config",
    "rope_by_layer_type",
    "slow_pair_share",
]

#: HF's default base when a config gives none (``PreTrainedConfig.default_theta``).
DEFAULT_THETA = 10000.0

#: The rope types HF 5.24 reads (``ROPE_INIT_FUNCTIONS`` + default), plus the model-local ones read here.
READ_ROPE_TYPES: tuple[str, ...] = ("default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional")
_LOCAL_ROPE_TYPES = ("axial", "ntk_alpha", "mrope")

#: Top-level keys that describe position, and are read (anything else that looks like one is refused).
_TOP_READ = frozenset(
    {
        "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor", "partial_rotary_factors",
        "layer_types", "sliding_window", "sliding_window_pattern", "_sliding_window_pattern", "use_sliding_window",
        "max_window_layers", "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval",
        "attn_temperature_tuning", "attn_scale", "floor_scale", "qk_rope_head_dim", "qk_nope_head_dim",
        "global_head_dim", "layer_rope_theta", "position_embedding_type", "rope_interleave",
        "max_position_embeddings", "original_max_position_embeddings", "compress_rope_theta",
    }
)  # fmt: skip
_POSITION_KEY = re.compile(r"rope|rotary|theta|nope|position|temperature|^attn_scale$|^floor_scale$|^layer_types$|"
                           r"sliding|window|attention_chunk|partial_rotary|mrope|axial")  # fmt: skip
#: Keys that look like position keys but are not (head counts, learned-table sizes of other towers).
_NOT_POSITION = frozenset({"num_sliding_attention_heads", "num_position_embeddings"})
#: Layer types that attend (any other entry of layer_types must be a known non-attention type).
ATTENTION_LAYER_TYPES = frozenset({"full_attention", "sliding_attention", "chunked_attention", "indexed_attention",
                                   "compressed_sparse_attention", "heavily_compressed_attention"})  # fmt: skip
#: Model types whose ``rope_parameters`` is keyed by label, not by layer type: model type -> (labels, the label of
#: each layer type). DeepSeek-V4: sliding layers use "main", compressed (CSA / HCA) layers "compress"
#: (HF 5.24 DeepseekV4Attention.rope_layer_type, deepseek_v4/modeling_deepseek_v4.py l.785–787).
_ROPE_LABELS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "deepseek_v4": (
        ("main", "compress"),
        {"sliding_attention": "main", "compressed_sparse_attention": "compress",
         "heavily_compressed_attention": "compress"},
    ),
}  # fmt: skip
#: Model types whose rotary slice is the last qk_rope_head_dim = head_dim·partial_rotary_factor channels of a
#: head_dim head, in interleaved pairs (HF 5.24 deepseek_v4 apply_rotary_pos_emb l.353–370: ``x[..., -rope_dim:]``).
_TRAILING_INTERLEAVED = frozenset({"deepseek_v4"})
#: Model types whose code always lays the rotary pairs out interleaved (no rope_interleave key): DeepSeek-V4, and
#: Mistral Large 4 (apply_rotary_pos_emb_interleave, mistral_large4/modeling_mistral_large4.py l.149–190, 431–438).
_ALWAYS_INTERLEAVED = frozenset({"deepseek_v4", "mistral_large4", "mistral_large4_text"})
#: The learned tensors a model type's position design needs (not in its config): name -> (shape, checkpoint tensor).
#: Mistral Large 4: θ_i·exp(α_i) (LeRoPE, MistralLarge4TextRotaryEmbedding.alpha, l.96–98, 121–124) and, on every
#: layer, the query factor a_h·ln(p + 1) + b_h (MistralLarge4TextSoftmaxScaling, l.133–146, applied l.447–449).
LEARNED_TENSORS: dict[str, dict[str, str]] = {
    mt: {
        "rope_alpha": "(qk_rope_head_dim/2,): model.rotary_emb.alpha",
        "softmax_scale": "(num_hidden_layers, num_attention_heads): layers.ℓ.self_attn.softmax_scaling.scale",
        "softmax_bias": "(num_hidden_layers, num_attention_heads): layers.ℓ.self_attn.softmax_scaling.bias",
    }
    for mt in ("mistral_large4", "mistral_large4_text")
}
#: Model types whose ``dynamic`` + ``alpha`` is HF's static NTK-α (the rename is in their rotary class).
_NTK_ALPHA_MODELS = frozenset({"hunyuan_v1_dense", "hunyuan_v1_moe"})


class ConfigError(ValueError):
    """A config that the reader refuses: the message names the key (or model type), the value and what is read."""


def _refuse(model_type: str, key: str, value, supported: str) -> ConfigError:
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return ConfigError(f"model_type {model_type!r}: {key} = {text} is not read; supported: {supported}")


# --------------------------------------------------------------------------- result types
@dataclass(frozen=True)
class LayerPositions:
    """One layer's position design.

    ``inv_freq``: float64 (D/2,) in the order HF lays the head out (D = the query/key head dimension: for MLA
    qk_nope + qk_rope, the rotated slice last), exactly 0 for pairs that do not rotate; None for a layer that does
    not rotate or does not attend. ``attention_factor``: multiplies cos and sin (q·k scales by its square).
    ``temperature(positions)``: the factor the query at each position is multiplied by (1 if none).
    """

    layer: int
    layer_type: str
    rotates: bool
    inv_freq: np.ndarray | None
    attention_factor: float
    rope_type: str | None = None
    base: float | None = None
    head_dim: int | None = None
    axes: tuple[int, ...] | None = None  # M-RoPE sections (pairs per axis), or (D/4, D/4) for axial
    temperature_law: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    temperature_source: str | None = None

    def temperature(self, positions) -> np.ndarray:
        """Query temperature τ(p) at ``positions`` (an int T or an array (T,)); float64 (T,), 1 where none."""
        from helpers._checks import check_positions

        pos = check_positions("positions", positions)  # (T,)
        if self.temperature_law is None:
            return np.ones_like(pos)  # (T,)
        return self.temperature_law(pos)  # (T,)

    @property
    def rotated_pairs(self) -> int:
        """Pairs with θ > 0."""
        return 0 if self.inv_freq is None else int(np.count_nonzero(self.inv_freq))


@dataclass(frozen=True)
class ModelPositions:
    """A model's position design, layer by layer, as :func:`read_model_config` reads it."""

    model_type: str
    layers: list[LayerPositions]
    max_position_embeddings: int | None
    sliding_window: int | None
    attention_chunk_size: int | None
    rotation_rule: str
    layout: str = "half-split"

    def describe(self) -> str:
        """A short table: one row per distinct layer design (type, RoPE or NoPE, base, pairs, factor, temperature),
        with the layers that have it."""
        groups: dict[tuple, list[int]] = {}
        for lay in self.layers:
            key = (lay.layer_type, lay.rotates, lay.rope_type, lay.base, lay.rotated_pairs, lay.head_dim,
                   round(lay.attention_factor, 6), lay.temperature_source)  # fmt: skip
            groups.setdefault(key, []).append(lay.layer)
        rows = [f"{self.model_type}: {len(self.layers)} layers ({self.rotation_rule}; {self.layout} pairs)"]
        for (t, rot, rt, b, pairs, d, a, temp), idx in groups.items():
            rope = f"{rt}, base {b:,.0f}, {pairs} of {d // 2} pairs rotate, factor {a:.4g}" if rot else "NoPE"
            rows.append(f"  {t:20s} {rope}" + (f"; query temperature {temp}" if temp else "") + f"  [{_spans(idx)}]")
        return "\n".join(rows)


def _spans(idx: list[int]) -> str:
    """[0, 1, 2, 4, 8, 12] -> '0-2, 4, 8, 12' (at most 6 runs, then '…')."""
    runs, start = [], idx[0]
    for a, b in zip(idx, [*idx[1:], None], strict=True):
        if b != a + 1:
            runs.append(f"{start}" if a == start else f"{start}-{a}")
            start = b
    return ", ".join(runs[:6]) + (f", … ({len(idx)} layers)" if len(runs) > 6 else "")


# --------------------------------------------------------------------------- reading
def _load(config) -> dict:
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        if not path.is_file():
            raise ConfigError(f"config path {str(path)!r} is not a file; give a config.json path or a dict")
        try:
            config = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"config file {str(path)!r} is not JSON: {exc}") from None
    if not isinstance(config, Mapping):
        raise ConfigError(f"config must be a dict or a config.json path, got {type(config).__name__}")
    return dict(config)


def _text_part(config: dict) -> tuple[dict, str]:
    """The part that describes the language model, and its model type (a composite config's text_config)."""
    part = config
    if isinstance(config.get("text_config"), Mapping):
        part = dict(config["text_config"])
        part.setdefault("model_type", config.get("model_type"))
    model_type = part.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ConfigError(
            f"config has no model_type (got {model_type!r}); which layers rotate is decided by model code, so the "
            "reader needs it: give the model_type of HF 5.24 (e.g. 'llama', 'gemma3_text')"
        )
    if model_type in REFUSED:
        raise ConfigError(f"model_type {model_type!r} is refused: {REFUSED[model_type]}")
    if model_type in EXCLUDED:
        raise ConfigError(f"model_type {model_type!r} is refused: its default config failed the check against HF "
                          f"5.24: {EXCLUDED[model_type]}")  # fmt: skip
    if model_type not in MODEL_TYPES:
        raise ConfigError(
            f"model_type {model_type!r} is not in the reader's table of {len(MODEL_TYPES)} HF 5.24 model types "
            "(helpers.model_types.MODEL_TYPES); which of its layers rotate is decided by its model code, so it is "
            "refused rather than guessed"
        )
    return part, model_type


#: Position keys read only for model types whose code reads them (rotation rule or temperature rule).
_KEYS_OF_RULE = {
    "no_rope_layers": "no_rope_layers", "no_rope_layer_interval": "no_rope_layers",
    "layer_rope_theta": "layer_rope_theta", "position_embedding_type": "position_embedding_type",
    "attn_temperature_tuning": "llama4_tuning", "attn_scale": "llama4_tuning", "floor_scale": "llama4_tuning",
}  # fmt: skip


def _check_top_keys(part: dict, model_type: str) -> None:
    rules = MODEL_TYPES[model_type]
    for key, rule in _KEYS_OF_RULE.items():
        if part.get(key) not in (None, False) and rule not in rules:
            users = sorted(mt for mt, r in MODEL_TYPES.items() if rule in r)
            raise _refuse(model_type, key, part[key], f"{key} only for model types whose code reads it ({users})")
    for key, value in part.items():
        if key in _TOP_READ or not _POSITION_KEY.search(key):
            continue
        if key in _NOT_POSITION or value is None or value is False:
            continue  # absent / switched off
        raise _refuse(model_type, key, value, "the position keys " + ", ".join(sorted(_TOP_READ)))


def _int_or_none(part: dict, key: str) -> int | None:
    value = part.get(key)
    return None if value is None else check_int(key, value, minimum=1)


#: Model types whose HF config class maps ``head_dim`` to another key (its ``attribute_map``; a config.json carries
#: that key): JetMoe's ``kv_channels`` (HF 5.24 jetmoe/configuration_jetmoe.py l.47).
_HEAD_DIM_ALIAS = {"jetmoe": "kv_channels"}


def _head_dim(part: dict, model_type: str, layer_type: str = "full_attention") -> int:
    """The head dimension HF's rotary class sizes the pairs by: Gemma 4's ``global_head_dim`` on its full layers,
    else ``head_dim``, else MLA's ``qk_rope_head_dim``, else hidden_size / num_attention_heads."""
    alias = _HEAD_DIM_ALIAS.get(model_type)
    if alias is not None and part.get(alias) is not None:
        if part.get("head_dim") is not None and part["head_dim"] != part[alias]:
            raise _refuse(model_type, "head_dim", part["head_dim"], f"the same as {alias} = {part[alias]!r}")
        return check_int(alias, part[alias], minimum=2)
    if layer_type == "full_attention" and part.get("global_head_dim"):
        return check_int("global_head_dim", part["global_head_dim"], minimum=2)
    if part.get("head_dim"):
        return check_int("head_dim", part["head_dim"], minimum=2)
    if part.get("qk_rope_head_dim"):  # MLA: the rotary slice (HF's DeepseekV3Config sets head_dim to it)
        return check_int("qk_rope_head_dim", part["qk_rope_head_dim"], minimum=2)
    if part.get("hidden_size") and part.get("num_attention_heads"):
        return check_int("hidden_size", part["hidden_size"], minimum=1) // check_int(
            "num_attention_heads", part["num_attention_heads"], minimum=1
        )
    raise ConfigError(f"model_type {model_type!r}: the config gives neither head_dim nor hidden_size and "
                      "num_attention_heads, which size the rotary pairs")  # fmt: skip


def _per_layer_overrides(part: dict, model_type: str, n_layers: int) -> dict[int, dict]:
    """HF 5.x ``per_layer_config`` ({layer index: {key: value}}, e.g. Gemma 4's head_dim 512 on full layers):
    ``head_dim`` is read; a position key there is refused; other keys (KV heads, ...) do not touch position."""
    raw = part.get("per_layer_config") or {}
    if not isinstance(raw, Mapping):
        raise _refuse(model_type, "per_layer_config", raw, "a dict {layer index: {key: value}}")
    out = {}
    for k, v in raw.items():
        try:
            i = int(k)
        except (TypeError, ValueError):
            raise _refuse(model_type, "per_layer_config", k, f"layer indices 0..{n_layers - 1}") from None
        if not 0 <= i < n_layers or not isinstance(v, Mapping):
            raise _refuse(model_type, f"per_layer_config[{k!r}]", v, f"a dict for a layer 0..{n_layers - 1}")
        for key in v:
            if key != "head_dim" and _POSITION_KEY.search(key):
                raise _refuse(model_type, f"per_layer_config[{k!r}].{key}", v[key], "head_dim per layer")
        if "head_dim" in v:
            out[i] = {"head_dim": v["head_dim"], "global_head_dim": None}
    return out


def _layer_types(part: dict, n_layers: int, model_type: str) -> list[str]:
    types = part.get("layer_types")
    if types is None:
        pattern = part.get("sliding_window_pattern") or part.get("_sliding_window_pattern")
        if isinstance(pattern, str):  # EXAONE's "LLLG": HF 5.24 computes (i + 1) % pattern and fails on a string
            raise _refuse(model_type, "sliding_window_pattern", pattern, "an integer n (n−1 sliding, then one full), "
                          "or layer_types (HF 5.24 Exaone4Config.__post_init__ l.102–108 cannot expand a string)")  # fmt: skip
        if pattern and part.get("sliding_window"):
            return sliding_layer_types(n_layers, pattern)
        if part.get("use_sliding_window") and part.get("sliding_window"):
            start = check_int("max_window_layers", part.get("max_window_layers", n_layers), minimum=0)
            # HF Qwen2Config.__post_init__: sliding from layer max_window_layers on
            return ["sliding_attention" if i >= start else "full_attention" for i in range(n_layers)]
        return ["full_attention"] * n_layers
    if isinstance(types, (str, bytes)) or len(list(types)) != n_layers:
        raise _refuse(model_type, "layer_types", types, f"a list of num_hidden_layers = {n_layers} layer types")
    types = [str(t) for t in types]
    unknown = sorted(set(types) - ATTENTION_LAYER_TYPES - NON_ATTENTION_LAYER_TYPES)
    if unknown:
        raise _refuse(model_type, "layer_types", unknown, "attention types " + ", ".join(sorted(ATTENTION_LAYER_TYPES))
                      + " and non-attention types " + ", ".join(sorted(NON_ATTENTION_LAYER_TYPES)))  # fmt: skip
    return types


def _rope_specs(part: dict, model_type: str, layer_types: list[str]) -> dict[str, dict]:
    """Per layer type, the standardized rope parameters (both spellings; per-layer lists folded per type)."""
    params = part.get("rope_parameters")
    scaling = part.get("rope_scaling")
    theta = part.get("rope_theta")
    if params is not None and scaling is not None:
        raise _refuse(model_type, "rope_scaling", scaling, "rope_parameters or rope_scaling, not both")
    if params is None:  # the old spelling: rope_theta + rope_scaling (type or rope_type)
        if scaling is not None and not isinstance(scaling, Mapping):
            raise _refuse(model_type, "rope_scaling", scaling, "a dict or null")
        params = dict(scaling or {})
    if not isinstance(params, Mapping):
        raise _refuse(model_type, "rope_parameters", params, "a dict (flat, or keyed by layer type)")
    nested = {k: v for k, v in params.items() if isinstance(v, Mapping) or (v is None and k in ATTENTION_LAYER_TYPES)}
    if nested and len(nested) != len(params):
        flat_keys = sorted(set(params) - set(nested))
        raise _refuse(model_type, "rope_parameters", flat_keys, "either a flat dict or one dict per layer type")
    attention_types = sorted({t for t in layer_types if t in ATTENTION_LAYER_TYPES})
    if model_type in _ROPE_LABELS:
        return _labelled_specs(part, model_type, attention_types, dict(params), bool(nested))
    if part.get("compress_rope_theta") is not None:
        raise _refuse(model_type, "compress_rope_theta", part["compress_rope_theta"],
                      f"compress_rope_theta only for {sorted(_ROPE_LABELS)}")  # fmt: skip
    per_layer = isinstance(theta, (list, tuple)) or isinstance(part.get("partial_rotary_factors"), (list, tuple))
    if per_layer:  # Step-3.7: per-layer rope_theta / partial_rotary_factors, one value per layer type in HF
        if nested:
            raise _refuse(model_type, "rope_theta", theta, "a per-layer list only without per-type rope_parameters")
        return _per_layer_lists(part, model_type, layer_types, dict(params))
    if nested:
        unknown = sorted(set(nested) - ATTENTION_LAYER_TYPES)  # an unused attention type's entry: HF ignores it too
        missing = [t for t in attention_types if t not in nested]
        if missing:
            raise _refuse(model_type, "rope_parameters", sorted(nested),
                          f"one entry per attention layer type {attention_types} (missing {missing})")  # fmt: skip
        if unknown:
            raise _refuse(model_type, "rope_parameters", unknown,
                          f"keys that are layer types of this config {attention_types}")  # fmt: skip
        for t in set(nested) - set(attention_types):  # read (and checked) although no layer uses it
            if nested[t] is not None:
                _with_top(dict(nested[t]), part, model_type)
        return {t: _with_top(dict(nested[t]), part, model_type) for t in attention_types}
    flat = _with_top(dict(params), part, model_type)
    return {t: flat for t in attention_types}


def _labelled_specs(part: dict, model_type: str, attention_types: list[str], params: dict, nested: bool):
    """Per layer type, the rope dict of its label (DeepSeek-V4's ``main`` / ``compress``).

    Nested ``{"main": {...}, "compress": {...}}`` is read as is (HF drops the top-level rope keys then); a flat dict
    is split as HF 5.24 ``DeepseekV4Config.__post_init__`` (configuration_deepseek_v4.py l.297–315) does: main =
    default RoPE at ``rope_theta``; compress = the flat dict at ``compress_rope_theta``, and YaRN there gets
    ``attention_factor`` 1.0 unless given. Both get ``partial_rotary_factor``. A top-level value that disagrees
    with the nested one is refused."""
    labels, label_of = _ROPE_LABELS[model_type]
    prf = part.get("partial_rotary_factor")
    if prf is None and part.get("qk_rope_head_dim") and part.get("head_dim"):  # HF's legacy spelling
        prf = check_int("qk_rope_head_dim", part["qk_rope_head_dim"], minimum=2) / check_int(
            "head_dim", part["head_dim"], minimum=2
        )
    if nested:
        if set(params) != set(labels):
            raise _refuse(model_type, "rope_parameters", sorted(params), f"exactly the labels {list(labels)}")
        by_label = {k: dict(params[k]) for k in labels}
        for top, label in (("rope_theta", "main"), ("compress_rope_theta", "compress")):
            if part.get(top) is not None and by_label[label].get("rope_theta", part[top]) != part[top]:
                raise _refuse(model_type, top, part[top],
                              f"the same as rope_parameters[{label!r}].rope_theta = {by_label[label]['rope_theta']!r}")  # fmt: skip
        for label, spec in by_label.items():
            if prf is None and "partial_rotary_factor" not in spec:  # HF's fallback then differs by code path
                raise _refuse(model_type, f"rope_parameters[{label!r}]", spec,
                              "a partial_rotary_factor (in it or at the top level)")  # fmt: skip
    else:
        if prf is None:  # HF DeepseekV4Config.default_partial_rotary_factor (configuration_deepseek_v4.py l.135)
            prf = 64 / 512
        flat = {k: v for k, v in params.items() if k != "rope_theta"}
        main = {"rope_type": "default", "rope_theta": part.get("rope_theta", DEFAULT_THETA)}
        compress = {"rope_type": "default", **flat, "rope_theta": part.get("compress_rope_theta", 160000.0)}
        if compress.get("rope_type", compress.get("type")) == "yarn":
            compress.setdefault("attention_factor", 1.0)
        by_label = {"main": main, "compress": compress}
    for label, spec in by_label.items():
        if prf is not None:
            if spec.get("partial_rotary_factor", prf) != prf:
                raise _refuse(model_type, "partial_rotary_factor", prf,
                              f"the same as rope_parameters[{label!r}] = {spec['partial_rotary_factor']!r}")  # fmt: skip
            spec["partial_rotary_factor"] = prf
    qk_rope, head = part.get("qk_rope_head_dim"), part.get("head_dim")
    for label, spec in by_label.items():  # HF: qk_rope_head_dim = int(head_dim · partial_rotary_factor)
        fraction = spec.get("partial_rotary_factor", 1.0)
        if qk_rope is not None and head is not None and qk_rope != int(head * fraction):
            raise _refuse(model_type, "qk_rope_head_dim", qk_rope,
                          f"head_dim · partial_rotary_factor of {label!r} = {head} · {fraction} (HF derives it)")  # fmt: skip
    out = {}
    for t in attention_types:
        if t not in label_of:
            raise _refuse(model_type, "layer_types", t, f"layer types {sorted(label_of)}")
        out[t] = by_label[label_of[t]]
    return out


def _with_top(params: dict, part: dict, model_type: str) -> dict:
    """Fold the top-level rope_theta and partial_rotary_factor into one rope dict (HF standardize_rope_params)."""
    for key in ("rope_theta", "partial_rotary_factor"):
        top = part.get(key)
        if top is None:
            continue
        if key in params and params[key] != top:
            raise _refuse(model_type, key, top, f"one value (rope_parameters says {params[key]!r})")
        params[key] = top
    return params


def _per_layer_lists(part: dict, model_type: str, layer_types: list[str], extra: dict) -> dict[str, dict]:
    n = len(layer_types)
    out: dict[str, dict] = {}
    lists = {}
    for key, name in (("rope_theta", "rope_theta"), ("partial_rotary_factors", "partial_rotary_factor")):
        value = part.get(key)
        if value is None:
            continue
        if not isinstance(value, (list, tuple)):
            value = [value] * n
        if len(value) != n:
            raise _refuse(model_type, key, value, f"one entry per layer (num_hidden_layers = {n})")
        lists[name] = list(value)
    for t in sorted(set(layer_types) & ATTENTION_LAYER_TYPES):
        idx = [i for i, lt in enumerate(layer_types) if lt == t]
        params = {"rope_type": "default"}
        for name, values in lists.items():
            seen = sorted({values[i] for i in idx})
            if len(seen) > 1:  # HF takes the first layer's value for the whole type
                raise _refuse(model_type, name, seen, f"one value per layer type ({t!r} layers differ; HF 5.24 would "
                              "use the first)")  # fmt: skip
            params[name] = seen[0]
        if t == "full_attention" and extra:  # HF Step3p7Config: rope_scaling applies to full_attention
            params.update(extra)
        out[t] = params
    return out


def _inner_keys_allowed(rope_type: str, model_type: str, temperature_rule: str | None) -> set[str]:
    allowed = {"rope_type", "type", "rope_theta", "partial_rotary_factor"}
    if model_type in MROPE:  # M-RoPE splits the pairs by position axis; the frequencies are the method's
        allowed |= {"mrope_section", "mrope_interleaved"}
    if rope_type in ROPE_SCALING:
        allowed |= set(ROPE_SCALING[rope_type].config_keys)
    if temperature_rule == "llama_4_scaling_beta":
        allowed |= {"llama_4_scaling_beta", "max_position_embeddings"}
    return allowed


def _layer_rope(params: dict, part: dict, model_type: str, temperature_rule: str | None, head_dim: int):
    """(rope_type, base, inv_freq (D/2,) with zeros, attention factor, axes, entries the method computed) for one
    layer type's rope dict (D = the rotary head dimension)."""
    params = {k: v for k, v in params.items() if v is not None}
    rope_type = params.get("rope_type", params.get("type", "default"))
    if "type" in params and "rope_type" in params and params["type"] != params["rope_type"]:
        raise _refuse(
            model_type, "rope_parameters.type", params["type"], f"the same as rope_type {params['rope_type']!r}"
        )
    if rope_type == "mrope":  # Qwen2-VL's old name: HF 5.24 reads it as default with mrope_section
        rope_type = "default"
    if rope_type == "dynamic" and "alpha" in params:
        if model_type not in _NTK_ALPHA_MODELS:
            raise _refuse(model_type, "rope_parameters.alpha", params["alpha"],
                          f"alpha only for {sorted(_NTK_ALPHA_MODELS)} (HF's static NTK-α)")  # fmt: skip
        rope_type = "ntk_alpha"
    if rope_type not in (*READ_ROPE_TYPES, "axial", "ntk_alpha"):
        raise _refuse(model_type, "rope_type", rope_type, ", ".join((*READ_ROPE_TYPES, "axial", "ntk_alpha")))
    allowed = _inner_keys_allowed(rope_type, model_type, temperature_rule)
    if rope_type == "ntk_alpha":
        allowed |= {"factor"}  # a checkpoint's "dynamic" factor: HF's ntk_alpha does not read it
    extra = sorted(set(params) - allowed)
    if extra:
        raise _refuse(model_type, f"rope_parameters[{extra[0]!r}]", params[extra[0]],
                      f"the keys of rope_type {rope_type!r}: {sorted(allowed - {'type'})}")  # fmt: skip
    if "max_position_embeddings" in params and params["max_position_embeddings"] != part.get("max_position_embeddings"):
        raise _refuse(
            model_type,
            "rope_parameters.max_position_embeddings",
            params["max_position_embeddings"],
            f"a copy of max_position_embeddings = {part.get('max_position_embeddings')!r} (HF ignores it)",
        )
    base = float(params.get("rope_theta", DEFAULT_THETA))
    fraction = float(params.get("partial_rotary_factor", 1.0))
    axes = tuple(int(x) for x in params["mrope_section"]) if params.get("mrope_section") else None
    method = {k: v for k, v in params.items() if k in ROPE_SCALING.get(rope_type, ROPE_SCALING["default"]).config_keys}
    if rope_type == "axial":  # Qwen3.5 vision: θ_i = b^(−2i/(D/2)) over D/2, the same for rows and columns
        theta = base ** (-np.arange(0, head_dim // 2, 2, dtype=np.float64) / (head_dim // 2))  # (D/4,)
        return rope_type, base, np.concatenate([theta, theta]), 1.0, (head_dim // 4, head_dim // 4), head_dim // 2
    if rope_type == "ntk_alpha":
        inv, factor = ROPE_SCALING["ntk_alpha"](head_dim, base, alpha=float(params["alpha"]))
        return rope_type, base, inv, factor, axes, len(inv)
    kwargs = dict(head_dim=head_dim, partial_rotary_factor=fraction,
                  max_position_embeddings=part.get("max_position_embeddings"))  # fmt: skip
    if rope_type == "dynamic":  # HF builds the frequencies at seq_len = max_position_embeddings (s·l/L − (s − 1) = 1)
        kwargs["seq_len"] = part.get("max_position_embeddings")
    if rope_type == "llama3" and method.get("low_freq_factor") == method.get("high_freq_factor"):
        inv, factor = _llama3_hard_switch(head_dim, base, fraction, method)
    else:
        inv, factor = rope_parameters_from_config(
            {"rope_type": rope_type, "rope_theta": base, **method}, **kwargs
        )  # (D_r/2,) or (D/2,)
    full = np.zeros(head_dim // 2, dtype=np.float64)  # (D/2,)
    full[: len(inv)] = inv
    return rope_type, base, full, float(factor), axes, len(inv)


def _checked_rope(params: dict, part: dict, model_type: str, temperature_rule: str | None, head_dim: int):
    """:func:`_layer_rope`, with a value the scaling functions refuse turned into a :class:`ConfigError`."""
    try:
        return _layer_rope(params, part, model_type, temperature_rule, head_dim)
    except ConfigError:
        raise
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"model_type {model_type!r}: rope parameters {params!r} refused: {exc}") from None


def _llama3_hard_switch(head_dim: int, base: float, fraction: float, method: dict):
    """Llama 3.1 scaling with low_freq_factor == high_freq_factor (Llama 4 Scout's released config): HF accepts it;
    the smooth band is empty, so pairs with wavelength > L/low are divided by s and the others kept.
    Source: HF 5.24 ``_compute_llama3_parameters`` (``modeling_rope_utils.py`` l.625–663): its smooth factor
    divides by high − low only on the band low_freq_wavelen > λ > high_freq_wavelen, which is then empty."""
    from helpers.rope import partial_rotary_dim, rope_inv_freq

    d = partial_rotary_dim(head_dim, fraction)
    inv = rope_inv_freq(d, base)  # (d/2,)
    s = float(method["factor"])
    wavelen = 2 * math.pi / inv
    low_wavelen = float(method["original_max_position_embeddings"]) / float(method.get("low_freq_factor", 1.0))
    return np.where(wavelen > low_wavelen, inv / s, inv), 1.0  # (d/2,)


def _rotates(rule: str, part: dict, model_type: str, layer_types: list[str]) -> np.ndarray:
    n = len(layer_types)
    attends = np.array([t in ATTENTION_LAYER_TYPES for t in layer_types])  # (layers,)
    if rule == "all":
        return attends
    if rule == "none":
        return np.zeros(n, dtype=bool)
    if rule == "no_rope_layers":  # HF SmolLM3Config / Llama4TextConfig: default interval 4
        flags = no_rope_layers(n, no_rope_layers=part.get("no_rope_layers"),
                               no_rope_layer_interval=part.get("no_rope_layer_interval", 4))  # fmt: skip
        return attends & flags.astype(bool)
    sliding = np.array([t == "sliding_attention" for t in layer_types])  # (layers,)
    if rule == "sliding_only":
        return attends & sliding & (part.get("sliding_window") is not None)
    if rule == "global_nope":
        return attends & (sliding if part.get("sliding_window") is not None else True)
    if rule == "position_embedding_type":
        kind = part.get("position_embedding_type")
        if kind not in (None, "nope", "rope"):
            raise _refuse(model_type, "position_embedding_type", kind, "'rope', 'nope' or null")
        return attends & (kind == "rope")
    if rule == "layer_rope_theta":
        thetas = part.get("layer_rope_theta")
        if thetas is None:
            return attends
        if isinstance(thetas, (str, bytes)) or len(list(thetas)) != n:
            raise _refuse(model_type, "layer_rope_theta", thetas, f"one base per layer ({n}), 0 = NoPE")
        return attends & (np.asarray(thetas, dtype=np.float64) > 0)
    raise AssertionError(f"rule {rule!r} has no implementation ({sorted(ROTATION_RULES)})")


def _temperature(rule: str | None, part: dict, spec: dict, rotates: bool):
    if rule == "llama4_tuning":
        if not part.get("attn_temperature_tuning", True) or rotates:  # HF default: tuning on
            return None, None
        scale, floor = float(part.get("attn_scale", 0.1)), int(part.get("floor_scale", 8192))
        law = lambda p: llama4_attn_temperature(p, attn_scale=scale, floor_scale=floor)  # noqa: E731
        return law, f"1 + {scale:g}·ln(1 + ⌊(p + 1)/{floor}⌋)"
    if rule == "llama_4_scaling_beta":
        beta = spec.get("llama_4_scaling_beta")
        if beta is None:
            return None, None
        length = int(spec["original_max_position_embeddings"])
        law = lambda p: llama_4_scaling_temperature(p, beta=float(beta), original_max_position_embeddings=length)  # noqa: E731
        return law, f"1 + {float(beta):g}·ln(1 + ⌊p/{length}⌋)"
    return None, None


def _learned(learned, model_type: str, part: dict, n_layers: int) -> dict[str, np.ndarray] | None:
    """The learned tensors of a model type that needs them (:data:`LEARNED_TENSORS`), checked; None otherwise."""
    need = LEARNED_TENSORS.get(model_type)
    if need is None:
        if learned is not None:
            raise ConfigError(f"model_type {model_type!r}: learned = {sorted(learned)!r} is not read; learned "
                              f"tensors only for {sorted(LEARNED_TENSORS)}")  # fmt: skip
        return None
    wanted = "; ".join(f"{k} {v}" for k, v in need.items())
    if learned is None:
        raise ConfigError(f"model_type {model_type!r}: its per-frequency factors exp(α_i) and per-head query factor "
                          f"a_h·ln(p + 1) + b_h are learned weights, not config values; pass learned={{...}} with "
                          f"{wanted}")  # fmt: skip
    if not isinstance(learned, Mapping) or set(learned) != set(need):
        got = sorted(learned) if isinstance(learned, Mapping) else type(learned).__name__
        raise ConfigError(f"model_type {model_type!r}: learned = {got!r}; give exactly {wanted}")
    heads = check_int("num_attention_heads", part.get("num_attention_heads"), minimum=1)
    pairs = check_int("qk_rope_head_dim", part.get("qk_rope_head_dim"), minimum=2) // 2
    shapes = {"rope_alpha": (pairs,), "softmax_scale": (n_layers, heads), "softmax_bias": (n_layers, heads)}
    out = {}
    for key, shape in shapes.items():
        value = np.asarray(learned[key], dtype=np.float64)
        if value.shape != shape or not np.all(np.isfinite(value)):
            raise ConfigError(f"model_type {model_type!r}: learned[{key!r}] has shape {value.shape}; give finite "
                              f"values of shape {shape} ({need[key]})")  # fmt: skip
        out[key] = value
    return out


def _head_temperature(scale: np.ndarray, bias: np.ndarray):
    """τ_h(p) = a_h·ln(p + 1) + b_h for every head: positions (T,) -> float64 (H, T)."""
    for a, b in zip(scale, bias, strict=True):  # refuse a factor that can turn negative, before it is used
        learned_log_temperature(np.zeros(1), scale=float(a), bias=float(b))

    def law(p: np.ndarray) -> np.ndarray:
        return np.stack([learned_log_temperature(p, scale=float(a), bias=float(b)) for a, b in zip(scale, bias,
                                                                                                   strict=True)])  # fmt: skip

    return law


def read_model_config(config, learned: Mapping | None = None) -> ModelPositions:
    """A model's position design per layer, from its whole ``config.json`` (a dict or a path); strict.

    Reads the language model's part (``text_config`` of a composite config), keyed by its ``model_type``, which
    must be in :data:`helpers.model_types.MODEL_TYPES` (the rule of its HF 5.24 code for which layers rotate).
    Per layer: rotates or not; ``inv_freq`` (D/2,) float64, 0 for unrotated pairs (partial RoPE, proportional RoPE,
    MLA's nope part); the attention factor; the query temperature τ(p) ((T,), or (H, T) for a per-head law).
    ``learned``: the learned tensors of a model type that has them (:data:`LEARNED_TENSORS`, Mistral Large 4: its
    per-frequency factors and per-head query factors), refused for any other. Raises :class:`ConfigError` naming the key,
    the value and what is read, for any position key it does not read or a model type it does not know.
    Source: HF 5.24 ``RotaryEmbeddingConfigMixin.standardize_rope_params``, ``ROPE_INIT_FUNCTIONS``, and the
    modeling files cited in :mod:`helpers.model_types`; checked against HF's rotary classes by
    ``tests/test_model_configs_hf.py``.
    """
    try:
        return _read(config, learned)[0]
    except ValueError as exc:  # a learned value the temperature law refuses
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"learned tensors refused: {exc}") from None


def _read(config, learned: Mapping | None = None) -> tuple[ModelPositions, dict[str, LayerTypeRope]]:
    """The reader, plus each attention layer type's RoPE as :func:`rope_by_layer_type` reports it."""
    part, model_type = _text_part(_load(config))
    rule, temp_rule = MODEL_TYPES[model_type]
    _check_top_keys(part, model_type)
    if part.get("use_sliding_window") and part.get("layer_types") is None and not part.get("sliding_window"):
        raise _refuse(model_type, "use_sliding_window", True, "with a sliding_window")
    if "num_hidden_layers" not in part and isinstance(part.get("layers_block_type"), list):
        # Nemotron-H: one block kind per layer (HF NemotronHConfig.num_hidden_layers = len(layers_block_type))
        part = {**part, "num_hidden_layers": len(part["layers_block_type"]), "layer_types": part["layers_block_type"]}
    if "num_hidden_layers" not in part:
        raise ConfigError(f"model_type {model_type!r}: the config gives no num_hidden_layers")
    n_layers = check_int("num_hidden_layers", part["num_hidden_layers"], minimum=1)
    weights = _learned(learned, model_type, part, n_layers)
    if model_type == "jamba" and part.get("layer_types") is None:
        # HF JambaConfig.layers_block_type: attention iff ℓ % attn_layer_period == attn_layer_offset, else Mamba
        period = check_int("attn_layer_period", part.get("attn_layer_period", 8), minimum=1)
        offset = check_int("attn_layer_offset", part.get("attn_layer_offset", 4), minimum=0)
        part = {
            **part,
            "layer_types": ["full_attention" if i % period == offset else "linear_attention" for i in range(n_layers)],
        }  # HF JambaConfig.layer_types names Mamba so
    if model_type in ("llama4", "llama4_text") and part.get("layer_types") is None:
        # HF Llama4TextConfig.__post_init__ l.187–191: RoPE layers chunked (if attention_chunk_size), NoPE layers full
        flags = no_rope_layers(n_layers, no_rope_layers=part.get("no_rope_layers"),
                               no_rope_layer_interval=part.get("no_rope_layer_interval", 4))  # fmt: skip
        chunk = part.get("attention_chunk_size", 8192)
        part = {**part, "attention_chunk_size": chunk,
                "layer_types": ["chunked_attention" if f and chunk is not None else "full_attention" for f in flags]}  # fmt: skip
    layer_types = _layer_types(part, n_layers, model_type)
    rotates = _rotates(rule, part, model_type, layer_types)  # (layers,)
    specs = _rope_specs(part, model_type, layer_types)
    for spec in specs.values():  # MistralLarge4TextAttention: softmax scale ×mscale² (yarn_apply_mscale, l.326–332)
        if weights is not None and spec.get("mscale_all_dim") and spec.get("rope_type", "default") != "default":
            raise _refuse(model_type, "rope_parameters.mscale_all_dim", spec["mscale_all_dim"],
                          "0 or absent (it changes the softmax scale, which the reader does not give)")  # fmt: skip
    overrides = _per_layer_overrides(part, model_type, n_layers)

    def dims(t: str, i: int | None = None) -> tuple[int, int]:
        """(the dimension HF sizes the pairs by, the query/key head dimension D) of layer i (of type t)."""
        if i is None:  # the layer type's: its first layer's
            i = layer_types.index(t)
        rope_dim = _head_dim({**part, **overrides.get(i, {})}, model_type, t)
        if model_type in _TRAILING_INTERLEAVED:  # the rotary slice is part of head_dim (its last channels)
            return rope_dim, rope_dim
        if part.get("qk_rope_head_dim"):  # MLA: only the decoupled slice rotates, after the nope part
            rope = check_int("qk_rope_head_dim", part["qk_rope_head_dim"], minimum=2)
            return rope_dim, rope + check_int("qk_nope_head_dim", part.get("qk_nope_head_dim") or 0, minimum=0)
        return rope_dim, rope_dim

    cache: dict = {}
    layers = []
    for i, t in enumerate(layer_types):
        if t not in ATTENTION_LAYER_TYPES:
            layers.append(LayerPositions(i, t, False, None, 1.0))
            continue
        spec = specs[t]
        if rule == "layer_rope_theta" and part.get("layer_rope_theta") is not None and rotates[i]:
            spec = {**spec, "rope_theta": float(part["layer_rope_theta"][i])}
        key = (t, json.dumps(spec, sort_keys=True, default=str))
        rope_dim, qk_dim = dims(t, i)
        key = (*key, rope_dim)
        if key not in cache:
            cache[key] = _checked_rope(spec, part, model_type, temp_rule, rope_dim)
        rope_type, base, inv, factor, axes, n_raw = cache[key]
        law, law_text = _temperature(temp_rule, part, spec, bool(rotates[i]))
        if weights is not None:  # every layer scales its queries (MistralLarge4TextAttention.forward l.447–449)
            law = _head_temperature(weights["softmax_scale"][i], weights["softmax_bias"][i])
            law_text = "learned a_h·ln(p + 1) + b_h per head"
        if not rotates[i]:
            layers.append(LayerPositions(i, t, False, None, 1.0, None, None, qk_dim, None, law, law_text))
            continue
        if weights is not None:  # LeRoPE: θ_i·exp(α_i) on the rotary pairs
            inv = np.concatenate([inv[:n_raw] * np.exp(weights["rope_alpha"]), inv[n_raw:]])  # (D_r/2,)
        full = np.zeros(qk_dim // 2, dtype=np.float64)  # (D/2,)
        if part.get("qk_rope_head_dim") or model_type in _TRAILING_INTERLEAVED:  # the rotated slice comes last
            full[qk_dim // 2 - n_raw :] = inv[:n_raw]
        else:
            full[: len(inv)] = inv
        layers.append(LayerPositions(i, t, True, full, factor, rope_type, base, qk_dim, axes, law, law_text))
    by_type = {}
    for t in sorted(set(layer_types) & ATTENTION_LAYER_TYPES):
        rope_dim, qk_dim = dims(t)
        rope_type, base, inv, factor, _, n_raw = _checked_rope(specs[t], part, model_type, temp_rule, rope_dim)
        inv = inv if rope_type in ("proportional", "axial") else inv[:n_raw]  # (D/2,) or (D_r/2,)
        by_type[t] = LayerTypeRope(rope_type, base, qk_dim, inv, factor)
    positions = ModelPositions(
        model_type,
        layers,
        _int_or_none(part, "max_position_embeddings"),
        _int_or_none(part, "sliding_window") if "sliding_attention" in layer_types else None,
        _int_or_none(part, "attention_chunk_size"),
        rule,
        "interleaved" if part.get("rope_interleave") or model_type in _ALWAYS_INTERLEAVED else "half-split",
    )
    return positions, by_type


# --------------------------------------------------------------------------- notebook 08's views
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


def rope_by_layer_type(config: Mapping) -> RopeSchedule:
    """Each attention layer type's frequencies and attention factor, plus the per-layer schedule.

    ``config``: a model's ``config.json`` (dict or path) with its ``model_type``, read by :func:`read_model_config`
    (strict; refusals raise :class:`ConfigError`). ``by_type[t]``: the RoPE that layer type t's rope parameters
    give (also when its layers are NoPE, as Llama 4's full-attention layers); ``rotates``: bool (layers,).
    Shapes: ``by_type[t].inv_freq`` (D/2,) for proportional, (D_r/2,) for partial default / MLA, float64.
    Source: HF 5.24 rotary embeddings built with ``layer_type=`` (e.g. ``Gemma3RotaryEmbedding``).
    """
    positions, by_type = _read(config)
    types = [lay.layer_type for lay in positions.layers]
    rotates = np.array([lay.rotates for lay in positions.layers], dtype=bool)  # (layers,)
    return RopeSchedule(by_type, types, rotates, positions.sliding_window, positions.attention_chunk_size)


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
    on "chunked_attention" layers, none on full layers). Rotated pair i (θ_i > 0, after the layer's scaling)
    never completes a turn within what the layer sees iff Δ_max·θ_i < 2π. NoPE layers (and layers that do not
    attend) list no pairs and a rotated fraction of 0. Pair indices count the rotated pairs of the layer type
    (:func:`rope_by_layer_type`'s ``inv_freq``). Source: the config as :func:`read_model_config` reads it.
    """
    schedule = rope_by_layer_type(config)
    positions = read_model_config(config)
    if context_length is None:
        if not positions.max_position_embeddings:
            raise ValueError("give context_length, or a config with max_position_embeddings")
        context_length = positions.max_position_embeddings
    length = check_int("context_length", context_length, minimum=2)
    rows = []
    for lay in positions.layers:
        window = {"sliding_attention": schedule.sliding_window, "chunked_attention": schedule.attention_chunk_size}
        w = window.get(lay.layer_type)
        max_distance = min(w, length) - 1 if w else length - 1
        if not lay.rotates:
            rows.append(LayerPosition(lay.layer, lay.layer_type, False, None, None, 0.0, w, max_distance, ()))
            continue
        rope = schedule.by_type[lay.layer_type]
        theta = rope.inv_freq if lay.base == rope.base else lay.inv_freq[lay.inv_freq > 0]  # (pairs,)
        slow = np.flatnonzero((theta > 0) & (max_distance * theta < 2 * math.pi))
        fraction = 2 * int(np.count_nonzero(theta)) / rope.head_dim
        rows.append(
            LayerPosition(
                lay.layer,
                lay.layer_type,
                True,
                lay.rope_type,
                lay.base,
                fraction,
                w,
                max_distance,
                tuple(slow.tolist()),
            )  # fmt: skip
        )
    return rows


def slow_pair_share(config: Mapping, context_length: int | None = None) -> np.ndarray:
    """Per layer: the share of its rotated pairs that never complete a turn within what it sees (NaN: NoPE layer).

    share_ℓ = |{i : θ_i > 0, Δ_max·θ_i < 2π}| / |{i : θ_i > 0}|, with Δ_max and the pairs of :func:`layer_table`.
    Shapes: returns float64 (layers,). Used by notebook 08's gallery figure.
    """
    rows = layer_table(config, context_length)
    positions = read_model_config(config)
    share = np.full(len(rows), np.nan)  # (layers,)
    for row, lay in zip(rows, positions.layers, strict=True):
        if row.rotates:
            share[row.layer] = len(row.pairs_without_full_turn) / lay.rotated_pairs
    return share


def _main(argv: list[str]) -> int:
    """``python -m helpers.model_configs read CONFIG.json``: the per-layer table, or the refusal (exit 1)."""
    if len(argv) != 2 or argv[0] != "read":
        print("usage: python -m helpers.model_configs read CONFIG.json  (coverage: python -m helpers.model_coverage)",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        print(read_model_config(argv[1]).describe())
    except ConfigError as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
