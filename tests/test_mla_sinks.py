"""Tests for helpers.mla (DeepSeek-V3 decoupled RoPE) and helpers.sinks (gpt-oss learned sinks).

Each is compared with HF transformers 5.24's own module on a tiny random config built here (eager attention, float32,
no weights downloaded): ``DeepseekV3Attention``'s attention weights, with the course's YaRN frequencies and attention
factor (:func:`helpers.scaling.rope_parameters_from_config`), to atol 1e-6; gpt-oss's ``eager_attention_forward``
output and weights to atol 1e-6.
"""

from __future__ import annotations

import math
import types

import pytest
import torch

from helpers.mla import decoupled_rope_scores, mla_softmax_scale
from helpers.rope import rope_cos_sin
from helpers.scaling import rope_parameters_from_config
from helpers.sinks import sink_attention

transformers = pytest.importorskip("transformers")

YARN = {
    "rope_type": "yarn",
    "rope_theta": 10000.0,
    "factor": 40.0,
    "original_max_position_embeddings": 64,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
}


def _tiny_deepseek(rope_parameters, q_lora_rank):
    from transformers import DeepseekV3Config

    return DeepseekV3Config(
        hidden_size=48,
        num_attention_heads=4,
        num_key_value_heads=4,
        q_lora_rank=q_lora_rank,
        kv_lora_rank=16,
        qk_nope_head_dim=8,
        qk_rope_head_dim=8,
        v_head_dim=8,
        num_hidden_layers=1,
        intermediate_size=64,
        moe_intermediate_size=16,
        n_routed_experts=4,
        max_position_embeddings=2560,
        rope_parameters=dict(rope_parameters),
        attn_implementation="eager",
    )


@pytest.mark.parametrize("rope_parameters", [YARN, {"rope_type": "default", "rope_theta": 10000.0}])
@pytest.mark.parametrize("q_lora_rank", [None, 12])
def test_decoupled_rope_equals_hf_deepseek_v3(rope_parameters, q_lora_rank):
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention, DeepseekV3RotaryEmbedding

    torch.manual_seed(0)
    cfg = _tiny_deepseek(rope_parameters, q_lora_rank)
    attn = DeepseekV3Attention(cfg, 0).eval()
    t = 20
    x = torch.randn(1, t, 48)
    mask = torch.full((t, t), float("-inf")).triu(1)[None, None]  # (1, 1, T, T)
    with torch.no_grad():
        pos = torch.arange(t)[None]
        hf_out, hf_w = attn(x, DeepseekV3RotaryEmbedding(cfg)(x, pos), mask)

        # the same projections by hand, then the course's frequencies, rotation and scale
        q = attn.q_proj(x) if q_lora_rank is None else attn.q_b_proj(attn.q_a_layernorm(attn.q_a_proj(x)))
        q = q.view(1, t, 4, 16).transpose(1, 2)  # (1, H, T, d_nope + d_rope)
        q_nope, q_rot = q[..., :8], q[..., 8:]
        latent, k_rot = attn.kv_a_proj_with_mqa(x).split([16, 8], dim=-1)  # (1, T, 16), (1, T, 8)
        kv = attn.kv_b_proj(attn.kv_a_layernorm(latent)).view(1, t, 4, 16).transpose(1, 2)  # (1, H, T, 16)
        k_nope, v = kv[..., :8], kv[..., 8:]
        params = {k: v for k, v in rope_parameters.items()}
        inv_freq, factor = rope_parameters_from_config(params, head_dim=8, max_position_embeddings=2560)
        cos, sin = rope_cos_sin(t, inv_freq, attention_factor=factor)  # (T, 4)
        scale = mla_softmax_scale(8, 8, rope_parameters)
        assert scale == pytest.approx(attn.scaling, rel=1e-12)
        scores = decoupled_rope_scores(q_nope, q_rot, k_nope, k_rot[:, None], cos, sin, scale=scale)  # (1, H, T, T)
        w = torch.softmax(scores + mask, dim=-1)
        out = attn.o_proj((w @ v).transpose(1, 2).reshape(1, t, 32))
    torch.testing.assert_close(w, hf_w, atol=1e-6, rtol=0)
    torch.testing.assert_close(out, hf_out, atol=1e-6, rtol=0)


def test_mla_scale_worked_numbers():
    """DeepSeek-V3: d = 128 + 64, s = 40, mscale_all_dim 1: g = 0.1·ln 40 + 1 = 1.3689, c = g²/√192."""
    g = 0.1 * math.log(40) + 1
    assert mla_softmax_scale(128, 64, YARN) == pytest.approx(g * g / math.sqrt(192), rel=1e-15)
    assert mla_softmax_scale(128, 64, {"rope_type": "default"}) == pytest.approx(192**-0.5)
    assert mla_softmax_scale(128, 64, {**YARN, "mscale_all_dim": 0}) == pytest.approx(192**-0.5)


def test_rotated_key_is_shared_and_content_carries_no_position():
    """Shifting every position by the same offset leaves the scores unchanged (relative), and k_rot is per token."""
    torch.manual_seed(1)
    q_n, q_r = torch.randn(1, 2, 6, 4), torch.randn(1, 2, 6, 4)
    k_n, k_r = torch.randn(1, 2, 6, 4), torch.randn(1, 1, 6, 4)
    from helpers.rope import rope_inv_freq

    inv = rope_inv_freq(4, 100.0)
    a = decoupled_rope_scores(q_n, q_r, k_n, k_r, *rope_cos_sin(6, inv), scale=0.5)
    b = decoupled_rope_scores(q_n, q_r, k_n, k_r, *rope_cos_sin(torch.arange(6) + 37, inv), scale=0.5)
    torch.testing.assert_close(a, b, atol=1e-5, rtol=0)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: mla_softmax_scale(128, 63), "qk_rope_head_dim must be a positive even integer, got 63"),
        (lambda: mla_softmax_scale(128, 64, {"rope_type": "yarn", "mscale_all_dim": 1}), "no 'factor'"),
        (
            lambda: decoupled_rope_scores(
                *[torch.zeros(1, 2, 3, 4)] * 4, torch.ones(3, 2), torch.zeros(3, 2), scale=1.0
            ),
            r"k_rot must be \(B, 1, S, d_rope\)",
        ),
        (
            lambda: decoupled_rope_scores(
                *[torch.zeros(1, 2, 3, 4)] * 3, torch.zeros(1, 1, 3, 4), torch.ones(3, 2), torch.zeros(3, 2), scale=0.0
            ),
            "scale must be a finite number > 0",
        ),
    ],
)
def test_mla_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# --------------------------------------------------------------------------- sinks
@pytest.mark.parametrize("with_mask", [True, False])
def test_sinks_equal_hf_gpt_oss_eager(with_mask):
    from transformers.models.gpt_oss.modeling_gpt_oss import eager_attention_forward

    torch.manual_seed(0)
    b, h, t, d = 2, 4, 7, 8
    q, k, v = torch.randn(b, h, t, d), torch.randn(b, h, t, d), torch.randn(b, h, t, d)
    sinks = torch.randn(h) * 2
    mask = torch.full((t, t), float("-inf")).triu(1)[None, None] if with_mask else None
    module = types.SimpleNamespace(sinks=sinks, num_key_value_groups=1, training=False)
    hf_out, hf_w = eager_attention_forward(module, q, k, v, mask, scaling=d**-0.5)
    out, w = sink_attention(q, k, v, sinks, mask=mask)
    torch.testing.assert_close(w, hf_w, atol=1e-6, rtol=0)
    torch.testing.assert_close(out.transpose(1, 2), hf_out, atol=1e-6, rtol=0)
    assert torch.all(w.sum(-1) < 1)


def test_sink_weight_is_what_the_rows_lose():
    """Uniform scores (all 0) over n keys with sink logit z: each key gets 1/(n + e^z), the sink e^z/(n + e^z)."""
    q = torch.zeros(1, 1, 1, 4)
    kv = torch.zeros(1, 1, 5, 4)
    _, w = sink_attention(q, kv, kv, torch.tensor([math.log(5.0)]))
    torch.testing.assert_close(w, torch.full((1, 1, 1, 5), 0.1), atol=1e-7, rtol=0)


@pytest.mark.parametrize(
    "call,match",
    [
        (
            lambda: sink_attention(*[torch.zeros(1, 2, 3, 4)] * 3, torch.zeros(3)),
            r"sinks must have shape \(H,\) = \(2,\)",
        ),
        (lambda: sink_attention(*[torch.zeros(2, 3, 4)] * 3, torch.zeros(2)), r"shape \(B, H, T, D\)"),
        (lambda: sink_attention(*[torch.zeros(1, 2, 3, 4)] * 3, torch.zeros(2), scale=-1.0), "scale must be"),
        (lambda: sink_attention(*[torch.zeros(1, 2, 3, 4)] * 3, torch.zeros(2, dtype=torch.long)), "floating-point"),
    ],
)
def test_sinks_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
