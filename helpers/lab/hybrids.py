"""The hybrid families of the lab: layer-wise mixtures of the single families of :mod:`helpers.lab.positional`.

A hybrid gives each layer its own :class:`HybridLayer` (RoPE with its own base or none, an optional query
temperature, an optional sliding window); :class:`Hybrid` holds one per block and returns the ℓ-th from
``layer(ℓ)``. Defining the classes registers their families in :data:`helpers.lab.positional.FAMILIES` (group
``hybrid``: trained and evaluated on request, ``python -m helpers.lab train hybrid``; their checkpoints do not ship).
:data:`FAMILIES` is re-exported here: import it from this module to see every family, hybrids included.

* ``irope``: RoPE on some layers, none on the others (Llama 4's "iRoPE", Meta 2025); which layers rotate is
  :func:`helpers.layer_schedules.no_rope_layers` with ``no_rope_layer_interval`` n (every n-th layer NoPE; n = 2 in
  a 2-layer model: layer 0 RoPE, layer 1 NoPE). Llama 4's RoPE layers also attend within 8192-token chunks and
  L2-normalise q and k; the lab's do neither, so the only difference from ``rope`` is the NoPE layers.
* ``irope_temp``: ``irope`` with Llama 4's query temperature in the NoPE layers, q_m ← τ(m)·q_m with
  τ(m) = 1 + α·ln(1 + ⌊(m + 1)/F⌋) (:func:`helpers.layer_schedules.llama4_query_temperature`; HF 5.24
  ``Llama4TextAttention``, ``attn_temperature_tuning``).
* ``local_global``: sliding-window layers (query m sees keys m − W + 1 .. m, :func:`helpers.score_biases.
  causal_additive_mask` with ``window``) rotating with a small base beside full-attention layers rotating with a
  large base (Gemma 3, Gemma Team 2025, arXiv 2503.19786 §2: 5 local layers of window 1024 and base 10⁴ per global
  layer of base 10⁶); which layers are local is :func:`helpers.layer_schedules.sliding_layer_types`.
"""

from __future__ import annotations

import torch
from torch import nn

from helpers._checks import check_choice, check_int, check_positive
from helpers.lab.positional import FAMILIES, Positional, RopeRotation
from helpers.layer_schedules import llama4_query_temperature, no_rope_layers, sliding_layer_types
from helpers.rope import LAYOUTS
from helpers.score_biases import causal_additive_mask

__all__ = ["FAMILIES", "Hybrid", "HybridLayer", "IRope", "IRopeTemperature", "LocalGlobal"]


class HybridLayer(Positional, register=False):
    """One layer of a hybrid family: RoPE with its own base (or none), an optional query temperature, an optional
    sliding window. Not a family: a :class:`Hybrid` holds one per layer and returns it from ``layer(ℓ)``.

    ``rope``: a :class:`RopeRotation` (plain RoPE of its base, no scaling dict) or None (a NoPE layer: q and k
    untouched). ``temperature``: (α, F) = (``attn_scale``, ``floor_scale``) or None; q at position m is multiplied
    by τ(m) = 1 + α·ln(1 + ⌊(m + 1)/F⌋) (:func:`helpers.layer_schedules.llama4_query_temperature`), k never (HF 5.24
    ``Llama4TextAttention``: after the rotation, only where the layer does not rotate). ``window``: W, or None for
    full causal attention; the score bias is then −inf where m − n >= W (:func:`helpers.score_biases.
    causal_additive_mask`), 0 elsewhere, (H, T, T). ``kind``: what the layer is, for the schedule's description.
    """

    def __init__(
        self,
        *,
        n_heads: int,
        rope: RopeRotation | None = None,
        temperature: tuple[float, int] | None = None,
        window: int | None = None,
    ):
        super().__init__()
        if rope is not None and not isinstance(rope, RopeRotation):
            raise TypeError(f"rope must be a RopeRotation or None, got {rope!r}")
        if temperature is not None and rope is not None:
            raise ValueError("temperature applies to a NoPE layer only (Llama 4's rule); this layer rotates")
        self.n_heads = check_int("n_heads", n_heads, minimum=1)
        self.rope = rope
        if temperature is not None:
            temperature = (
                check_positive("attn_scale", temperature[0]),
                check_int("floor_scale", temperature[1], minimum=1),
            )
        self.temperature = temperature
        self.window = None if window is None else check_int("sliding_window", window, minimum=1)
        self._tau: dict[int, torch.Tensor] = {}
        self._masks: dict[int, torch.Tensor] = {}

    @property
    def kind(self) -> str:
        """E.g. "RoPE b=500, window 16" or "NoPE, τ(α=0.1, F=2)"."""
        parts = [f"RoPE b={self.rope.base:g}" if self.rope is not None else "NoPE"]
        if self.temperature is not None:
            parts.append(f"query temperature (attn_scale {self.temperature[0]:g}, floor_scale {self.temperature[1]})")
        parts.append(f"window {self.window}" if self.window is not None else "full causal attention")
        return ", ".join(parts)

    def query_temperature(self, length: int) -> torch.Tensor:
        """τ(0..T−1) as float32 (T,) (ones without a temperature)."""
        if length not in self._tau:
            if self.temperature is None:
                self._tau[length] = torch.ones(length)
            else:
                alpha, floor = self.temperature
                tau = llama4_query_temperature(length, attn_scale=alpha, floor_scale=floor)  # (T,) float64
                self._tau[length] = torch.from_numpy(tau).float()  # (T,)
        return self._tau[length]

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (B, H, T, d_h): rotated by this layer's RoPE (if any), then q scaled by τ(m) (if a temperature)."""
        if self.rope is not None:
            q, k = self.rope.rotate(q, k)  # (B, H, T, d_h) each
        if self.temperature is not None:
            q = q * self.query_temperature(q.shape[-2])[:, None]  # (B, H, T, d_h) · (T, 1)
        return q, k

    def score_bias(self, length: int) -> torch.Tensor | None:
        """(H, T, T): 0 inside the window (and above the diagonal, which the causal mask removes), −inf beyond it;
        None without a window."""
        if self.window is None:
            return None
        if length not in self._masks:
            mask = causal_additive_mask(length, window=self.window)  # (T, T)
            self._masks[length] = mask.expand(self.n_heads, length, length)  # (H, T, T), a view
        return self._masks[length]


class Hybrid(Positional, register=False):
    """A family whose layers differ: ``layers`` holds one :class:`HybridLayer` per block, ``layer(ℓ)`` returns the
    ℓ-th. The model-level hooks stay the base class's (nothing added to the embeddings); no per-call options (RoPE
    scaling methods are not defined for hybrids here: a ``rope_scaling`` raises)."""

    group = "hybrid"

    def __init__(self, layers: list[HybridLayer]):
        super().__init__()
        if not layers or not all(isinstance(x, HybridLayer) for x in layers):
            raise TypeError(f"layers must be a non-empty list of HybridLayer, got {layers!r}")
        self.layers = nn.ModuleList(layers)

    def layer(self, index: int) -> HybridLayer:
        index = check_int("layer", index, minimum=0)
        if index >= len(self.layers):
            raise IndexError(f"layer must be < n_layers = {len(self.layers)}, got {index}")
        return self.layers[index]

    @property
    def schedule(self) -> list[str]:
        """Each layer's :attr:`HybridLayer.kind`, in order."""
        return [x.kind for x in self.layers]


def _rope(config, base: float) -> RopeRotation:
    return RopeRotation(config.head_dim, base, layout=config.rope_layout, train_len=config.train_len)


class IRope(Hybrid):
    """``irope``: layer ℓ rotates with RoPE (base ``rope_base``) where :func:`helpers.layer_schedules.no_rope_layers`
    (ℓ, ``no_rope_layer_interval`` n) is 1, and is a NoPE layer where it is 0 (every n-th layer, 1-based). Every layer
    attends to all earlier keys. A schedule without a NoPE layer or without a RoPE layer raises (not a hybrid)."""

    family = "irope"
    defaults = {"rope_base": 10000.0, "rope_layout": "half_split", "no_rope_layer_interval": 2}

    @classmethod
    def check(cls, params: dict) -> None:
        check_positive("rope_base", params["rope_base"], minimum=1.0)
        check_choice("rope_layout", params["rope_layout"], LAYOUTS)
        check_int("no_rope_layer_interval", params["no_rope_layer_interval"], minimum=2)

    @classmethod
    def rotates(cls, config) -> list[bool]:
        """Per layer: True where it rotates (checked: at least one of each)."""
        schedule = no_rope_layers(config.n_layers, no_rope_layer_interval=config.no_rope_layer_interval)  # (layers,)
        rotates = [bool(x) for x in schedule]
        if all(rotates):
            raise ValueError(
                f"no_rope_layer_interval = {config.no_rope_layer_interval} leaves no NoPE layer among n_layers = "
                f"{config.n_layers}; it must be <= n_layers"
            )
        return rotates

    @classmethod
    def nope_temperature(cls, config) -> tuple[float, int] | None:
        return None

    @classmethod
    def from_config(cls, config) -> IRope:
        temperature = cls.nope_temperature(config)
        return cls(
            [
                HybridLayer(n_heads=config.n_heads, rope=_rope(config, config.rope_base))
                if rotates
                else HybridLayer(n_heads=config.n_heads, temperature=temperature)
                for rotates in cls.rotates(config)
            ]
        )


class IRopeTemperature(IRope):
    """``irope_temp``: :class:`IRope` with Llama 4's query temperature in its NoPE layers, τ(m) = 1 + α·ln(1 +
    ⌊(m + 1)/F⌋) with α = ``attn_scale`` and F = ``floor_scale`` (defaults: Llama 4's 0.1 and 8192; the lab's recipe
    scales F to its L)."""

    family = "irope_temp"
    defaults = {**IRope.defaults, "attn_scale": 0.1, "floor_scale": 8192}

    @classmethod
    def check(cls, params: dict) -> None:
        super().check(params)
        check_positive("attn_scale", params["attn_scale"])
        check_int("floor_scale", params["floor_scale"], minimum=1)

    @classmethod
    def nope_temperature(cls, config) -> tuple[float, int]:
        return (config.attn_scale, config.floor_scale)


class LocalGlobal(Hybrid):
    """``local_global``: layer ℓ is a sliding-window layer (window W = ``sliding_window``, RoPE base ``rope_base``)
    where :func:`helpers.layer_schedules.sliding_layer_types` (n = ``sliding_window_pattern``) says
    "sliding_attention", else a full-attention layer with RoPE base ``global_rope_base`` (n = 2: they alternate,
    local first). Defaults: Gemma 3's bases 10⁴ and 10⁶ and HF's default window 4096; a schedule without a layer of
    each kind raises."""

    family = "local_global"
    defaults = {
        "rope_base": 10000.0,
        "global_rope_base": 1000000.0,
        "rope_layout": "half_split",
        "sliding_window": 4096,
        "sliding_window_pattern": 2,
    }

    @classmethod
    def check(cls, params: dict) -> None:
        check_positive("rope_base", params["rope_base"], minimum=1.0)
        check_positive("global_rope_base", params["global_rope_base"], minimum=1.0)
        check_choice("rope_layout", params["rope_layout"], LAYOUTS)
        check_int("sliding_window", params["sliding_window"], minimum=1)
        check_int("sliding_window_pattern", params["sliding_window_pattern"], minimum=2)

    @classmethod
    def layer_types(cls, config) -> list[str]:
        """Per layer: "sliding_attention" or "full_attention" (checked: at least one of each)."""
        types = sliding_layer_types(config.n_layers, config.sliding_window_pattern)
        if "full_attention" not in types:
            raise ValueError(
                f"sliding_window_pattern = {config.sliding_window_pattern} leaves no full-attention layer among "
                f"n_layers = {config.n_layers}; it must be <= n_layers"
            )
        return types

    @classmethod
    def from_config(cls, config) -> LocalGlobal:
        return cls(
            [
                HybridLayer(n_heads=config.n_heads, rope=_rope(config, config.rope_base), window=config.sliding_window)
                if kind == "sliding_attention"
                else HybridLayer(n_heads=config.n_heads, rope=_rope(config, config.global_rope_base))
                for kind in cls.layer_types(config)
            ]
        )
