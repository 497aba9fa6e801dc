"""Query temperatures as functions of position: the factor τ(p) a model multiplies the query at position p by.

Multiplying the query by τ multiplies every attention logit of that query by τ, so τ > 1 sharpens the softmax.
Laws that released models use (and one paper's), each a plain NumPy function of the positions (``positions``: an int T, meaning
0 .. T−1, or an array (T,) of positions >= 0; each returns float64 (T,)):

* :func:`llama4_attn_temperature`: Llama 4, on its NoPE layers only (``attn_temperature_tuning``):
  τ(p) = 1 + α·ln(1 + ⌊(p + 1)/F⌋).
* :func:`llama_4_scaling_temperature`: Ministral 3 and Mistral Small 4 (``rope_parameters.llama_4_scaling_beta``),
  on every layer, after RoPE: τ(p) = 1 + β·ln(1 + ⌊p/L⌋), L = ``original_max_position_embeddings``.
* :func:`yarn_logit_factor`: YaRN's constant factor, the same at every position: the attention factor a multiplies
  cos and sin (q and k), so the logits are multiplied by a² (the paper's 1/t); 1 when ``mscale == mscale_all_dim``.

Two more grow smoothly with ln(p + 1) (notebook 09 plots all five side by side):

* :func:`ssmax_temperature`: Scalable-Softmax (SSMax; Nakanishi 2025, arXiv 2501.19399): the logits of a query
  that sees n keys are multiplied by s·ln n; causal, n = p + 1: τ(p) = s·ln(p + 1).
* :func:`learned_log_temperature`: Mistral Large 4, learned per head h: τ_h(p) = a_h·ln(p + 1) + b_h.

The first three step or stay flat; notebook 08 plots them side by side. Source of every law: HF
``transformers==5.24.0`` (file and line in each docstring), checked in ``tests/test_temperature.py``; SSMax from the
paper (HF has no SSMax of its own; Llama 4's code cites the same paper).
"""

from __future__ import annotations

import numpy as np

from helpers._checks import check_int, check_positions, check_positive

__all__ = [
    "learned_log_temperature",
    "llama4_attn_temperature",
    "llama_4_scaling_temperature",
    "ssmax_temperature",
    "yarn_logit_factor",
]


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


def ssmax_temperature(positions, *, s: float) -> np.ndarray:
    """Scalable-Softmax's factor for a causal query at position p: τ(p) = s·ln n with n = p + 1 keys seen.

    SSMax replaces softmax(z) over n entries by softmax(s·ln(n)·z), with s a learned scalar (per layer or head) so
    that the top entry's weight does not fade as n grows: e^{s·ln(n)·z_max} = n^{s·z_max} keeps pace with the n
    terms of the denominator when s·(z_max − z_other) >= 1. τ(0) = 0 (a query seeing one key has weight 1 anyway).
    ``s`` > 0. Shapes: positions (T,) -> float64 (T,).
    Source: Nakanishi, "Scalable-Softmax Is Superior for Attention", arXiv 2501.19399 (§3, the definition of SSMax).
    """
    pos = check_positions("positions", positions)  # (T,)
    scale = check_positive("s", s)
    # τ(p) = s · ln(p + 1)
    return scale * np.log1p(pos)  # (T,)


def learned_log_temperature(positions, *, scale: float, bias: float) -> np.ndarray:
    """Mistral Large 4's learned query factor of one head: τ(p) = a·ln(p + 1) + b, a = ``scale``, b = ``bias``.

    Every layer multiplies each head's whole query (rotated and unrotated parts) by τ_h(p), with a_h and b_h learned
    per head; HF initialises a = 0 and b = 1 (τ = 1 until the released values are loaded). ``scale`` >= 0 and
    ``bias`` > 0 here (a factor that can turn negative would flip the softmax's preferences).
    Shapes: positions (T,) -> float64 (T,).
    Source: HF 5.24 ``models/mistral_large4/modeling_mistral_large4.py`` l.133–146
    (``MistralLarge4TextSoftmaxScaling.forward``: ``scale * log(position_ids + 1) + bias``, times the query), applied
    l.447–449; initial values l.704–707.
    """
    pos = check_positions("positions", positions)  # (T,)
    a = check_positive("scale", scale, inclusive=True)
    b = check_positive("bias", bias)
    # τ(p) = a · ln(p + 1) + b
    return a * np.log1p(pos) + b  # (T,)
