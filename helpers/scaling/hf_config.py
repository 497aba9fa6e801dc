"""The HF config adapter: a pasted ``rope_scaling`` / ``rope_parameters`` dict -> frequencies or a ready Rotary.

:func:`rope_parameters_from_config` reads the method's keys by its function's signature
(:attr:`helpers.scaling.registry.ScalingMethod.config_keys`), as HF 5.24's ``RotaryEmbeddingConfigMixin`` and
``ROPE_INIT_FUNCTIONS`` do, and :func:`rotary_from_config` wraps the result in a :class:`helpers.rope.Rotary` (here,
not in :mod:`helpers.rope`, so that imports point one way: scaling -> rope). Used by notebooks 05 and 07 and the lab.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

from helpers._checks import check_choice, check_positive
from helpers.rope import LAYOUTS, Rotary, partial_rotary_dim
from helpers.scaling._args import ScalingResult, check_length
from helpers.scaling.registry import CALLER_KEYS, ROPE_SCALING, ScalingMethod

__all__ = ["rope_parameters_from_config", "rotary_from_config"]

# Keys that describe the base RoPE rather than the scaling method.
_COMMON_KEYS = frozenset({"type", "rope_type", "rope_theta", "partial_rotary_factor"})


def rope_parameters_from_config(
    config: Mapping | None,
    *,
    head_dim: int,
    base: float | None = None,
    partial_rotary_factor: float = 1.0,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
) -> ScalingResult:
    """Frequencies and attention factor for a pasted HF ``rope_scaling`` or ``rope_parameters`` dict.

    ``config``: e.g. Llama-3.1-8B's ``{"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192, "rope_type": "llama3"}``. The method is ``rope_type`` (5.x) or
    ``type`` (old ``rope_scaling``); ``None``, ``{}`` or no type means ``default``. Any method of
    :data:`ROPE_SCALING` is accepted. Keys equal to ``None`` count as missing.
    ``head_dim``: the model's head dimension; the rotary dimension is d = int(head_dim · partial_rotary_factor), except
    for a method that takes ``partial_rotary_factor`` itself (``proportional``: exponent over the full head, the
    unrotated pairs get θ = 0, so inv_freq has head_dim/2 entries).
    ``base`` / ``partial_rotary_factor``: the model's ``rope_theta`` / ``partial_rotary_factor``; a 5.x
    ``rope_parameters`` dict may carry them instead (a conflicting value raises). Base defaults to 10000
    (HF ``default_theta``).
    ``max_position_embeddings``: the model's value; needed by ``dynamic``, by YaRN without ``factor`` (HF's
    fallback s = max_position_embeddings / original_max_position_embeddings) and by LongRoPE without ``factor``.
    ``seq_len``: the current sequence length; needed by ``dynamic``, picks LongRoPE's long factors when > L.

    Returns inv_freq (d/2,) float64 and the attention factor. Unknown keys give a warning (as HF logs one).
    Source: HF ``RotaryEmbeddingConfigMixin.standardize_rope_params`` and ``ROPE_INIT_FUNCTIONS``.
    Used by notebook 05.
    """
    config = _checked_config(config)
    spec = ROPE_SCALING[_rope_type(config)]
    base, fraction = _base_and_fraction(config, base, partial_rotary_factor)
    kwargs = _method_kwargs(spec, config, max_position_embeddings, seq_len)
    if "partial_rotary_factor" in spec.parameters:
        # the method sizes its exponent by the full head and leaves pairs unrotated itself (proportional RoPE)
        return spec.fn(head_dim, base, **{**kwargs, "partial_rotary_factor": fraction})
    return spec.fn(partial_rotary_dim(head_dim, fraction), base, **kwargs)


def _checked_config(config) -> dict:
    """The dict without its None values, after checking it is one method's flat dict (not a whole model config)."""
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a dict (a model's rope_scaling / rope_parameters) or None, got {type(config).__name__}"
        )
    for wrapper in ("rope_scaling", "rope_parameters"):
        if wrapper in config:
            raise ValueError(
                f"config looks like a whole model config (it has a {wrapper!r} key): pass config[{wrapper!r}] "
                "and the model's head_dim and rope_theta instead"
            )
    nested = sorted(k for k, v in config.items() if isinstance(v, Mapping))
    if nested:
        raise ValueError(
            f"config has nested dicts under {nested} (per-layer-type RoPE, e.g. Gemma 3); pass one of them"
        )
    return {k: v for k, v in config.items() if v is not None}


def _rope_type(config: dict) -> str:
    """``rope_type`` (5.x) or ``type`` (old ``rope_scaling``), ``default`` if neither; a registry key."""
    rope_type = config.get("rope_type", config.get("type", "default"))
    if "rope_type" in config and "type" in config and config["type"] != config["rope_type"]:
        raise ValueError(f"config has conflicting rope_type={config['rope_type']!r} and type={config['type']!r}")
    if rope_type not in ROPE_SCALING:
        raise ValueError(f"unknown RoPE scaling method {rope_type!r}; known methods: {sorted(ROPE_SCALING)}")
    return rope_type


def _base_and_fraction(config: dict, base, partial_rotary_factor) -> tuple[float, float]:
    """The base b and the rotated fraction p, from the arguments or the dict's ``rope_theta`` /
    ``partial_rotary_factor`` (a conflicting value raises; b defaults to HF's 10000)."""
    if "rope_theta" in config:
        theta = check_positive("rope_theta", config["rope_theta"])
        if base is not None and check_positive("base", base) != theta:
            raise ValueError(f"base={base} conflicts with the config's rope_theta={theta}; give one of them")
        base = theta
    base = 10000.0 if base is None else base
    if "partial_rotary_factor" in config:
        prf = config["partial_rotary_factor"]
        if partial_rotary_factor != 1.0 and partial_rotary_factor != prf:
            raise ValueError(
                f"partial_rotary_factor={partial_rotary_factor} conflicts with the config's "
                f"partial_rotary_factor={prf}; give one of them"
            )
        partial_rotary_factor = prf
    return base, partial_rotary_factor


def _method_kwargs(spec: ScalingMethod, config: dict, max_position_embeddings, seq_len) -> dict:
    """The method's keyword arguments: its keys of the dict (others warn, as HF logs them) and the caller's
    max_position_embeddings / seq_len where it reads them; raises naming what is missing."""
    rope_type = spec.name
    names, required = set(spec.parameters), set(spec.required)
    kwargs = {k: v for k, v in config.items() if k in names and k not in CALLER_KEYS}
    # max_position_embeddings / seq_len are model-level arguments: in the dict they are ignored (and reported)
    unknown = sorted(set(config) - (names - CALLER_KEYS) - _COMMON_KEYS)
    if unknown:
        warnings.warn(
            f"ignoring keys {unknown} that rope_type {rope_type!r} does not use (it uses {sorted(names - CALLER_KEYS)})",
            stacklevel=3,  # the caller of rope_parameters_from_config
        )
    for key, value in (("max_position_embeddings", max_position_embeddings), ("seq_len", seq_len)):
        if key in names and value is not None:
            kwargs[key] = value

    if rope_type == "yarn" and "factor" not in kwargs and "original_max_position_embeddings" in kwargs:
        # HF ``_compute_yarn_parameters``: factor = max_position_embeddings / original_max_position_embeddings
        if max_position_embeddings is None:
            raise ValueError(
                "rope_type 'yarn' needs 'factor' in the config, or max_position_embeddings to compute "
                "factor = max_position_embeddings / original_max_position_embeddings"
            )
        train_len = check_length("original_max_position_embeddings", kwargs["original_max_position_embeddings"])
        kwargs["factor"] = check_length("max_position_embeddings", max_position_embeddings) / train_len

    missing = sorted(required - set(kwargs))
    if missing:
        where = {"max_position_embeddings": " (argument)", "seq_len": " (argument)"}
        described = ", ".join(f"{k!r}{where.get(k, '')}" for k in missing)
        raise ValueError(f"rope_type {rope_type!r} needs {described}; config keys given: {sorted(config)}")
    return kwargs


def rotary_from_config(
    dim: int,
    rope_scaling: Mapping | None = None,
    *,
    base: float | None = None,
    layout: str = "interleaved",
    partial_rotary_factor: float = 1.0,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
) -> Rotary:
    """A :class:`helpers.rope.Rotary` for a pasted HF ``rope_scaling`` / ``rope_parameters`` dict.

    ``dim``: the head dimension D; only the first int(D · partial_rotary_factor) dimensions are rotated.
    ``base``: the model's ``rope_theta``; leave it out when the dict carries ``rope_theta`` (a 5.x
    ``rope_parameters`` dict), so that a real model's config pastes as it is. An explicit ``base`` that differs
    from the dict's ``rope_theta`` raises; with neither, base = 10000 (HF ``default_theta``).
    The other arguments are those of :func:`rope_parameters_from_config`. The rotation uses θ'_i and the attention
    factor a of the chosen method (cos and sin both times a, so the logits scale by a²).

    Shapes: the returned object rotates x (..., T, D). Source: HF ``RotaryEmbeddingConfigMixin`` and
    ``ROPE_INIT_FUNCTIONS``. Used by notebook 05 and the tiny-model lab.
    """
    check_choice("layout", layout, LAYOUTS)
    inv_freq, attention_factor = rope_parameters_from_config(
        rope_scaling,
        head_dim=dim,
        base=base,
        partial_rotary_factor=partial_rotary_factor,
        max_position_embeddings=max_position_embeddings,
        seq_len=seq_len,
    )  # (D_rot/2,), float
    return Rotary(
        dim, layout=layout, inv_freq=inv_freq, attention_factor=attention_factor, rotary_dim=2 * len(inv_freq)
    )
