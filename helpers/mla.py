"""Decoupled RoPE in multi-head latent attention (DeepSeek-V2/V3): position lives in a small extra slice of q and k.

MLA caches one compressed latent c_t per token instead of every head's key; a head's key content is k_nope = W_UK·c_t,
so at inference W_UK can be folded into the query (q_nope·W_UK·c = (W_UKᵀ q_nope)·c) and keys never need to be
rebuilt. A rotated key could not be folded that way: R_m sits between W_UK and c and changes with the position. So
the position goes into a separate slice: each head's query has a content part q_nope (``qk_nope_head_dim``) and a
rotated part q_rot (``qk_rope_head_dim``), while the key's rotated part k_rot is **one** vector per token, shared by
all heads and cached beside the latent. The score is the sum of the two dot products.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch

from helpers._checks import check_dim, check_float_tensor, check_int
from helpers.rope import apply_rope
from helpers.scaling import yarn_get_mscale

__all__ = ["decoupled_rope_scores", "mla_softmax_scale"]


def mla_softmax_scale(qk_nope_head_dim: int, qk_rope_head_dim: int, rope_parameters: Mapping | None = None) -> float:
    """The softmax scale of DeepSeek-V3's attention: c = (d_nope + d_rope)^(−1/2) · g², g from ``mscale_all_dim``.

    g = 0.1·M·ln s + 1 with M = ``mscale_all_dim`` and s = ``factor`` (g = 1 if s <= 1), applied only when the
    ``rope_parameters`` name a scaling method (``rope_type`` not "default") and M is set and non-zero. With YaRN's
    rotary attention factor g(s, mscale)/g(s, mscale_all_dim) on cos and sin (:func:`helpers.scaling.yarn_inv_freq`),
    DeepSeek-V3 (mscale = mscale_all_dim = 1) ends up with the rotated part's logits scaled by g² overall, like the
    content part's, rather than by g² only on the rotated part as plain YaRN would.
    Source: HF 5.24 ``models/deepseek_v3/modeling_deepseek_v3.yarn_apply_mscale`` and ``DeepseekV3Attention``
    (``self.scaling``); DeepSeek-AI 2024, arXiv 2412.19437 (DeepSeek-V3) and arXiv 2405.04434 §2.1.3 (decoupled RoPE).
    """
    d_nope = check_int("qk_nope_head_dim", qk_nope_head_dim, minimum=0)
    d_rope = check_dim("qk_rope_head_dim", qk_rope_head_dim)
    scale = (d_nope + d_rope) ** -0.5
    if rope_parameters is None:
        return scale
    if not isinstance(rope_parameters, Mapping):
        raise TypeError(f"rope_parameters must be a dict (a model's rope_parameters) or None, got {rope_parameters!r}")
    if rope_parameters.get("rope_type", rope_parameters.get("type", "default")) != "default":
        m = rope_parameters.get("mscale_all_dim", 0)
        if m:
            if "factor" not in rope_parameters:
                raise ValueError(f"rope_parameters set mscale_all_dim = {m} but no 'factor': {dict(rope_parameters)}")
            g = yarn_get_mscale(rope_parameters["factor"], m)
            scale = scale * g * g  # c · g²
    return float(scale)


def decoupled_rope_scores(
    q_nope: torch.Tensor,
    q_rot: torch.Tensor,
    k_nope: torch.Tensor,
    k_rot: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    *,
    scale: float,
) -> torch.Tensor:
    """Attention logits of decoupled RoPE: c·(q_nope·k_nope + R_m q_rot · R_n k_rot), k_rot shared by all heads.

    ``q_nope``: (B, H, T, d_nope); ``q_rot``: (B, H, T, d_rope); ``k_nope``: (B, H, S, d_nope); ``k_rot``:
    (B, 1, S, d_rope), one rotated key per token for every head (MQA-style); ``cos``/``sin``: (T, d_rope/2) for
    the queries' positions (T = S here: self-attention over one sequence), e.g. from
    :func:`helpers.rope.rope_cos_sin` with the YaRN frequencies; ``scale``: :func:`mla_softmax_scale`.
    The rotation is interleaved (pairs (2i, 2i+1)), as DeepSeek's weights are laid out (``rope_interleave``).
    Only q_rot and k_rot are rotated; the content part carries no position.
    Shapes: returns (B, H, T, S) logits (add a causal mask, then softmax).
    Source: HF 5.24 ``DeepseekV3Attention.forward`` with ``apply_rotary_pos_emb_interleave`` (which also regroups
    the pairs into half-split order for q and k alike, leaving every dot product unchanged); DeepSeek-V2,
    arXiv 2405.04434 §2.1.3, eq. for q_{t,i} = [q^C; q^R], k_{t,i} = [k^C; k^R].
    """
    for name, x in (("q_nope", q_nope), ("q_rot", q_rot), ("k_nope", k_nope), ("k_rot", k_rot)):
        check_float_tensor(name, x)
        if x.ndim != 4:
            raise ValueError(f"{name} must have 4 dimensions (B, H, T, d), got shape {tuple(x.shape)}")
    b, h, t, _ = q_nope.shape
    if q_rot.shape[:3] != (b, h, t):
        raise ValueError(f"q_rot must be (B, H, T, d_rope) = ({b}, {h}, {t}, d), got {tuple(q_rot.shape)}")
    if k_nope.shape[:2] != (b, h) or k_nope.shape[-1] != q_nope.shape[-1]:
        raise ValueError(
            f"k_nope must be (B, H, S, d_nope) matching q_nope {tuple(q_nope.shape)}, got {tuple(k_nope.shape)}"
        )
    s = k_nope.shape[2]
    if k_rot.shape != (b, 1, s, q_rot.shape[-1]):
        raise ValueError(
            f"k_rot must be (B, 1, S, d_rope) = ({b}, 1, {s}, {q_rot.shape[-1]}): one rotated key per token shared by "
            f"all heads, got {tuple(k_rot.shape)}"
        )
    if t != s:
        raise ValueError(f"queries and keys must cover the same positions (self-attention), got T = {t} and S = {s}")
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    q_r = apply_rope(q_rot, cos, sin, layout="interleaved")  # (B, H, T, d_rope)
    k_r = apply_rope(k_rot, cos, sin, layout="interleaved")  # (B, 1, S, d_rope)
    content = q_nope @ k_nope.transpose(-2, -1)  # (B, H, T, S)
    position = q_r @ k_r.transpose(-2, -1)  # (B, H, T, S): k_r broadcasts over heads
    return (content + position) * scale  # (B, H, T, S)
