"""Query temperatures as functions of position: the factor τ(p) a model multiplies the query at position p by.

Multiplying the query by τ multiplies every attention logit of that query by τ, so τ > 1 sharpens the softmax.
Three laws that released models use, each a plain NumPy function of the positions (``positions``: an int T, meaning
0 .. T−1, or an array (T,) of positions >= 0; each returns float64 (T,)):

* :func:`llama4_attn_temperature`: Llama 4, on its NoPE layers only (``attn_temperature_tuning``):
  τ(p) = 1 + α·ln(1 + ⌊(p + 1)/F⌋).
* :func:`llama_4_scaling_temperature`: Ministral 3 and Mistral Small 4 (``rope_parameters.llama_4_scaling_beta``),
  on every layer, after RoPE: τ(p) = 1 + β·ln(1 + ⌊p/L⌋), L = ``original_max_position_embeddings``.
* :func:`yarn_logit_factor`: YaRN's constant factor, the same at every position: the attention factor a multiplies
  cos and sin (q and k), so the logits are multiplied by a² (the paper's 1/t); 1 when ``mscale == mscale_all_dim``.

All three step or stay flat; the course's plots put them side by side (notebook 08). Source of every law: HF
``transformers==5.24.0`` (file and line in each docstring), checked in ``tests/test_temperature.py``.
"""

from __future__ import annotations

import numpy as np

from helpers._checks import check_int, check_positions, check_positive

__all__ = ["llama4_attn_temperature", "llama_4_scaling_temperature", "yarn_logit_factor"]


def llama4_attn_temperature(positions, *, attn_scale: float = 0.1, floor_scale: int = 8192) -> np.ndarray:
    """Llama 4's query temperature on its NoPE layers: τ(p) = 1 + α·ln(1 + ⌊(p + 1)/F⌋).

    α = ``attn_scale`` (> 0, HF default 0.1), F = ``floor_scale`` (integer >= 1, HF default 8192). τ = 1 for
    p < F − 1, then one step up every F positions. Applied only when ``attn_temperature_tuning`` is true and only on
    layers that do not rotate (``no_rope_layers[ℓ] == 0``); p counts from 0 (cache length + index in the chunk).
    Shapes: positions (T,) -> float64 (T,).
    Source: HF 5.24 ``models/llama4/modeling_llama4.py`` l.359–367 (``Llama4TextAttention.forward``:
    ``log1p(floor((positions + 1) / floor_scale)) * attn_scale + 1``), citing Nakanishi 2025, arXiv 2501.19399.
    """
    pos = check_positions("positions", positions)  # (T,)
    alpha = check_positive("attn_scale", attn_scale)
    floor = check_int("floor_scale", floor_scale, minimum=1)
    # τ(p) = 1 + α · ln(1 + ⌊(p + 1)/F⌋)
    return 1.0 + alpha * np.log1p(np.floor((pos + 1.0) / floor))  # (T,)


def llama_4_scaling_temperature(positions, *, beta: float, original_max_position_embeddings: int) -> np.ndarray:
    """Ministral 3 / Mistral Small 4's query temperature on every layer: τ(p) = 1 + β·ln(1 + ⌊p/L⌋).

    β = ``llama_4_scaling_beta`` (> 0; 0.1 in the released configs), L = ``original_max_position_embeddings`` of
    the same ``rope_parameters`` (16,384 for Ministral 3, 8,192 for Mistral Small 4). τ = 1 for p < L, then one step
    up every L positions. Note the floor of p/L here against (p + 1)/F in Llama 4's law.
    Shapes: positions (T,) -> float64 (T,).
    Source: HF 5.24 ``models/ministral3/modeling_ministral3.py`` l.105–107 (``get_llama_4_attn_scale``:
    ``1 + beta * log(1 + floor(positions_ids / max_position_embeddings))``), applied at l.146–150 with the
    ``rope_parameters``' ``llama_4_scaling_beta`` and ``original_max_position_embeddings``; the same function in
    ``models/mistral4/modeling_mistral4.py`` l.358–360 (applied l.476–480).
    """
    pos = check_positions("positions", positions)  # (T,)
    b = check_positive("llama_4_scaling_beta", beta)
    length = check_int("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    # τ(p) = 1 + β · ln(1 + ⌊p/L⌋)
    return 1.0 + b * np.log1p(np.floor(pos / length))  # (T,)


def yarn_logit_factor(
    positions,
    *,
    factor: float,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    attention_factor: float | None = None,
) -> np.ndarray:
    """YaRN's constant logit factor a² at every position, a = HF's YaRN ``attention_factor``.

    a = ``attention_factor`` when given (DeepSeek-V4's compressed layers force 1); else a = g(s, M)/g(s, M_all) when
    both ``mscale`` M and ``mscale_all_dim`` M_all are given and non-zero (DeepSeek, Ministral 3), else a = g(s, 1); g(s, M) = 0.1·M·ln s + 1 (1 for s <= 1). a multiplies cos and sin, i.e. q and k, so the
    logits are multiplied by a² whatever the position: the fixed-length cousin of the laws above. With M = M_all
    (Ministral 3, Mistral Small 4) a = 1 and the step temperature of :func:`llama_4_scaling_temperature` replaces it.
    Shapes: positions (T,) -> float64 (T,), all equal.
    Source: HF 5.24 ``modeling_rope_utils.py`` l.419–440 (``_compute_yarn_parameters``: ``get_mscale``; the
    attention factor multiplies cos/sin in every ``*RotaryEmbedding.forward``); YaRN arXiv 2309.00071 §3.4.
    """
    pos = check_positions("positions", positions)  # (T,)
    s = check_positive("factor", factor)

    def g(m: float) -> float:
        return 1.0 if s <= 1 else 0.1 * m * float(np.log(s)) + 1.0

    if attention_factor is not None:
        a = check_positive("attention_factor", attention_factor)
    elif mscale and mscale_all_dim:  # HF: ``if mscale and mscale_all_dim`` (0 or None falls back to g(s, 1))
        a = g(check_positive("mscale", mscale)) / g(check_positive("mscale_all_dim", mscale_all_dim))
    else:
        a = g(1.0)
    return np.full(pos.shape, a * a)  # (T,)
