"""Which layers rotate, and how much of each head: partial and proportional RoPE, NoPE layers, layer-type patterns.

2025–26 models no longer give every layer the same positional encoding:

* **proportional** RoPE (Gemma 4's full-attention layers): the first p·D/2 pairs keep the frequencies full RoPE
  gives them and the other pairs get θ = 0 (they carry no position). A method of the scaling registry (HF's
  ``rope_type`` "proportional"): :func:`helpers.scaling.proportional_inv_freq`; its cos/sin are
  :func:`helpers.rope.rope_cos_sin`'s (θ = 0 gives cos = a, sin = 0).
* **partial** RoPE under ``default`` (GPT-NeoX, Phi, GLM): D_r = int(p·D) dimensions rotate with their *own*
  exponent, as if the head were D_r wide. :func:`partial_default_inv_freq` (the contrast).
* **NoPE layers** (SmolLM3's ``no_rope_layers``, Llama 4's iRoPE): some layers do not rotate at all.
  :func:`no_rope_layers`; Llama 4 scales the queries of those layers by a temperature that grows with position,
  :func:`llama4_query_temperature`.
* **layer types** (Gemma 3/4, gpt-oss, OLMo 3): ``layer_types`` lists "sliding_attention" / "full_attention" per layer.
  :func:`sliding_layer_types` builds the "n−1 sliding, then one full" pattern HF builds when a config has none.

Plain NumPy maths on top of :mod:`helpers.rope`; the per-layer-type config reader that also needs the scaling
methods is :func:`helpers.model_configs.rope_by_layer_type`. Formulas: ``shared/design/reference-formulas.md``,
section "2025–26 position designs".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from helpers._checks import check_int, check_positive
from helpers.rope import partial_rotary_dim

__all__ = [
    "llama4_query_temperature",
    "no_rope_layers",
    "partial_default_inv_freq",
    "sliding_layer_types",
    "turns_within",
]

ScalingResult = tuple[np.ndarray, float]


# --------------------------------------------------------------------------- partial RoPE
def partial_default_inv_freq(dim: int, base: float, *, partial_rotary_factor: float = 1.0) -> ScalingResult:
    """Partial RoPE under ``default`` (GPT-NeoX, Phi, GLM): D_r = int(p·D) dimensions rotate as a D_r-wide RoPE.

    θ_i = b^(−2i/D_r), i = 0 .. D_r/2 − 1; attention factor 1. The slowest rotated pair is the slowest pair of a
    D_r-dimensional RoPE (much slower than pair D_r/2 − 1 of a D-wide one), and the other D − D_r dimensions of
    each head are passed through (``apply_rope(..., rotary_dim=D_r)``): the output has D_r/2 entries, not D/2.

    ``dim``: the full head dimension D. Shapes: returns inv_freq (D_r/2,) float64 and 1.0.
    Source: HF 5.24 ``Glm4RotaryEmbedding.compute_default_rope_parameters`` (``dim = int(head_dim ·
    partial_rotary_factor)``), GPT-NeoX (Black et al. 2022, arXiv 2204.06745 §2.1, 25 % of dimensions rotated).
    """
    rotary = partial_rotary_dim(dim, partial_rotary_factor)
    base = check_positive("base", base)
    # θ_i = b^(−2i/D_r)
    return base ** (-np.arange(0, rotary, 2, dtype=np.float64) / rotary), 1.0  # (D_r/2,)


# --------------------------------------------------------------------------- NoPE layers
def no_rope_layers(
    num_hidden_layers: int, *, no_rope_layers: Sequence[int] | None = None, no_rope_layer_interval: int = 4
) -> np.ndarray:
    """Which layers rotate: 1 where layer ℓ uses RoPE, 0 where it is a NoPE layer (SmolLM3, Llama 4).

    Without an explicit list, layer ℓ (0-based) rotates iff (ℓ + 1) mod n ≠ 0 (n = ``no_rope_layer_interval``): every
    n-th layer has no positional encoding (layers 3, 7, 11, … for n = 4). An explicit ``no_rope_layers`` (HF's name,
    despite what it holds: 1 = RoPE) is checked (one 0/1 entry per layer) and returned. HF treats an empty list
    like ``None``; so does this function.
    Shapes: returns an int array (num_hidden_layers,) of 0/1.
    Source: HF 5.24 ``SmolLM3Config.__post_init__`` and ``Llama4TextConfig.__post_init__``; Llama 4's "iRoPE"
    (Meta 2025, model card); NoPE: Kazemnejad et al. 2023, arXiv 2305.19466.
    """
    n_layers = check_int("num_hidden_layers", num_hidden_layers, minimum=1)
    if no_rope_layers:
        if isinstance(no_rope_layers, (str, bytes)):
            raise TypeError(f"no_rope_layers must be a list of 0/1, got {no_rope_layers!r}")
        arr = np.asarray(list(no_rope_layers))
        if arr.shape != (n_layers,) or not np.isin(arr, (0, 1)).all() or arr.dtype == bool:
            raise ValueError(
                f"no_rope_layers must be a list of num_hidden_layers = {n_layers} entries, each 1 (RoPE) or 0 "
                f"(NoPE), got {list(no_rope_layers)!r}"
            )
        return arr.astype(int)  # (layers,)
    interval = check_int("no_rope_layer_interval", no_rope_layer_interval, minimum=1)
    # rotates iff (ℓ + 1) mod n ≠ 0
    return np.array([int((i + 1) % interval != 0) for i in range(n_layers)])  # (layers,)


def llama4_query_temperature(positions, *, attn_scale: float = 0.1, floor_scale: int = 8192) -> np.ndarray:
    """Llama 4's query temperature in its NoPE layers: τ(m) = 1 + α·ln(1 + ⌊(m + 1)/F⌋).

    The query at position m is multiplied by τ(m) (only in layers that do not rotate, and only when
    ``attn_temperature_tuning``); τ = 1 for m < F − 1, then it grows by steps every F positions, like the log-length
    scaling of attention logits that keeps softmax from flattening over long contexts.
    ``positions``: an int T (0 .. T−1) or an array (T,) of positions >= 0; α = ``attn_scale`` (> 0, default 0.1),
    F = ``floor_scale`` (integer >= 1, default 8192).
    Shapes: returns float64 (T,).
    Source: HF 5.24 ``Llama4TextAttention.forward`` (``log1p(floor((positions + 1) / floor_scale)) * attn_scale +
    1``), citing Nakanishi 2025, arXiv 2501.19399 (scalable softmax).
    """
    from helpers.temperature import llama4_attn_temperature

    # τ(m) = 1 + α · ln(1 + ⌊(m + 1)/F⌋): one implementation, helpers.temperature
    return llama4_attn_temperature(positions, attn_scale=attn_scale, floor_scale=floor_scale)  # (T,)


# --------------------------------------------------------------------------- layer types
LAYER_TYPES = ("sliding_attention", "full_attention", "chunked_attention")


def sliding_layer_types(num_hidden_layers: int, sliding_window_pattern: int = 6) -> list[str]:
    """HF's default ``layer_types``: layer ℓ is "full_attention" iff (ℓ + 1) mod n = 0, else "sliding_attention".

    n = 6 gives five sliding layers then one full, repeated (Gemma 3, Gemma 4); n = 2 alternates (gpt-oss).
    Shapes: a list of num_hidden_layers strings. Source: HF 5.24 ``Gemma3TextConfig.__post_init__``
    (``sliding_window_pattern``), ``Gemma4TextConfig.__post_init__``, ``GptOssConfig.__post_init__``.
    """
    n_layers = check_int("num_hidden_layers", num_hidden_layers, minimum=1)
    n = check_int("sliding_window_pattern", sliding_window_pattern, minimum=1)
    return ["sliding_attention" if (i + 1) % n else "full_attention" for i in range(n_layers)]


def turns_within(inv_freq, length: int) -> np.ndarray:
    """L·θ_i/(2π): full turns pair i makes within ``length`` positions (0 for θ = 0). Shapes: (D/2,) float64."""
    theta = np.asarray(inv_freq, dtype=np.float64)  # (D/2,)
    length = check_int("length", length, minimum=1)
    return length * theta / (2 * math.pi)  # (D/2,)
