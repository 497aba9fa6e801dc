"""Tests for helpers.layer_schedules: partial vs proportional RoPE, NoPE schedules, Llama 4's query temperature.

Proportional RoPE itself is a scaling-registry method (``helpers.scaling.proportional_inv_freq``), cross-checked
against HF in tests/test_scaling.py; here it is the contrast to partial RoPE.
Cross-checked against HF transformers 5.24's own functions on small configs built here (nothing downloaded):
``Glm4RotaryEmbedding.compute_default_rope_parameters``,
``SmolLM3Config`` / ``Llama4TextConfig`` and a tiny ``Llama4TextAttention`` NoPE layer. HF computes frequencies in
float32: agreement to relative 1e-6; the attention output to 1e-5 (float32, T = 24).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from helpers.layer_schedules import (
    llama4_query_temperature,
    no_rope_layers,
    partial_default_inv_freq,
    sliding_layer_types,
    turns_within,
)
from helpers.rope import rope_cos_sin, rope_inv_freq
from helpers.scaling import proportional_inv_freq

transformers = pytest.importorskip("transformers")


# --------------------------------------------------------------------------- proportional
def test_proportional_keeps_full_rope_frequencies_and_partial_does_not():
    """Gemma 4 full layers (D = 512, p = 0.25, b = 1e6): the 64 rotated pairs are full RoPE's first 64 pairs."""
    full = rope_inv_freq(512, 1e6)
    prop, _ = proportional_inv_freq(512, 1e6, partial_rotary_factor=0.25)
    part, _ = partial_default_inv_freq(512, 1e6, partial_rotary_factor=0.25)
    np.testing.assert_array_equal(prop[:64], full[:64])
    assert np.all(prop[64:] == 0) and prop.shape == (256,) and part.shape == (64,)
    # partial RoPE's slowest pair is b^(−126/128), proportional's is b^(−126/512): 4 orders of magnitude apart
    assert part[-1] == pytest.approx(1e6 ** (-126 / 128)) and prop[63] == pytest.approx(1e6 ** (-126 / 512))


@pytest.mark.parametrize("head_dim,prf", [(128, 0.5), (96, 0.75), (64, 0.25), (64, 1.0)])
def test_partial_default_equals_hf(head_dim, prf):
    from transformers import Glm4Config
    from transformers.models.glm4.modeling_glm4 import Glm4RotaryEmbedding

    cfg = Glm4Config(
        head_dim=head_dim,
        hidden_size=2 * head_dim,
        num_attention_heads=2,
        partial_rotary_factor=prf,
        rope_parameters={"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": prf},
    )
    hf, _ = Glm4RotaryEmbedding.compute_default_rope_parameters(cfg)
    ours, att = partial_default_inv_freq(head_dim, 1e4, partial_rotary_factor=prf)
    assert att == 1.0
    np.testing.assert_allclose(ours, hf.double().numpy(), rtol=1e-6, atol=0)


def test_cos_sin_of_zero_frequencies_pass_those_pairs_through():
    """helpers.rope.rope_cos_sin takes proportional RoPE's θ = 0 pairs: cos = 1, sin = 0 (no rotation)."""
    inv, _ = proportional_inv_freq(16, 1e4, partial_rotary_factor=0.5)
    cos, sin = rope_cos_sin(5, inv)
    assert cos.shape == (5, 8)
    assert torch.all(cos[:, 4:] == 1) and torch.all(sin[:, 4:] == 0)
    assert cos[3, 0].item() == pytest.approx(math.cos(3.0))


# --------------------------------------------------------------------------- NoPE schedule and temperature
@pytest.mark.parametrize("layers,interval", [(36, 4), (48, 4), (10, 3), (4, 1)])
def test_no_rope_layers_equals_hf_configs(layers, interval):
    from transformers import Llama4TextConfig, SmolLM3Config

    smol = SmolLM3Config(num_hidden_layers=layers, no_rope_layer_interval=interval)
    llama4 = Llama4TextConfig(num_hidden_layers=layers, no_rope_layer_interval=interval)
    ours = no_rope_layers(layers, no_rope_layer_interval=interval)
    assert ours.tolist() == list(smol.no_rope_layers) == list(llama4.no_rope_layers)
    explicit = [1, 0] * (layers // 2) + [1] * (layers % 2)
    assert no_rope_layers(layers, no_rope_layers=explicit).tolist() == explicit


def test_no_rope_layers_default_pattern():
    assert np.flatnonzero(no_rope_layers(12) == 0).tolist() == [3, 7, 11]


def test_temperature_values():
    tau = llama4_query_temperature([0, 8190, 8191, 16383, 10**6])
    expected = [1.0, 1.0, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(3), 1 + 0.1 * math.log(1 + 10**6 // 8192)]
    np.testing.assert_allclose(tau, expected, rtol=1e-15)


def test_temperature_equals_hf_llama4_nope_layer():
    """A tiny Llama 4 NoPE layer (floor_scale 4, so τ grows within 24 tokens) equals our τ applied by hand."""
    from transformers import Llama4TextConfig
    from transformers.models.llama4.modeling_llama4 import Llama4TextAttention

    torch.manual_seed(0)
    cfg = Llama4TextConfig(
        hidden_size=32,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        num_hidden_layers=4,
        intermediate_size=64,
        intermediate_size_mlp=64,
        floor_scale=4,
        attn_scale=0.3,
        attn_implementation="eager",
    )
    layer = 3
    assert cfg.no_rope_layers[layer] == 0
    attn = Llama4TextAttention(cfg, layer).eval()
    t = 24
    x = torch.randn(1, t, 32)
    mask = torch.full((t, t), float("-inf")).triu(1)[None, None]  # (1, 1, T, T)
    with torch.no_grad():
        dummy = torch.ones(1, t, 4, dtype=torch.complex64)  # unused by a NoPE layer
        hf, _ = attn(x, dummy, mask)
        tau = torch.from_numpy(llama4_query_temperature(t, attn_scale=0.3, floor_scale=4)).float()  # (T,)
        q = attn.q_proj(x).view(1, t, 4, 8).transpose(1, 2) * tau[None, None, :, None]  # (1, H, T, D)
        k = attn.k_proj(x).view(1, t, 2, 8).transpose(1, 2).repeat_interleave(2, dim=1)  # (1, H, T, D)
        v = attn.v_proj(x).view(1, t, 2, 8).transpose(1, 2).repeat_interleave(2, dim=1)  # (1, H, T, D)
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8) + mask, dim=-1)  # (1, H, T, T)
        ours = attn.o_proj((w @ v).transpose(1, 2).reshape(1, t, 32))  # (1, T, d_model)
    assert torch.allclose(ours, hf, atol=1e-5, rtol=0)
    assert tau[-1] > tau[0]


def test_sliding_layer_types_equals_hf():
    from transformers import Gemma3TextConfig, GptOssConfig

    assert sliding_layer_types(18, 6) == Gemma3TextConfig(num_hidden_layers=18).layer_types
    assert sliding_layer_types(24, 2) == GptOssConfig(num_hidden_layers=24).layer_types


def test_turns_within():
    np.testing.assert_allclose(turns_within([2 * math.pi, 0.0], 10), [10.0, 0.0])


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: proportional_inv_freq(15, 1e4), "dim must be a positive even integer, got 15"),
        (
            lambda: proportional_inv_freq(16, 1e4, partial_rotary_factor=1.5),
            r"partial_rotary_factor must be in \(0, 1\]",
        ),
        (lambda: proportional_inv_freq(16, 1e4, 0.5), "factor must be a finite number >= 1, got 0.5"),
        (lambda: proportional_inv_freq(16, -1.0), "base must be a finite number > 0, got -1.0"),
        (lambda: no_rope_layers(4, no_rope_layers=[1, 0, 2, 1]), "each 1 \\(RoPE\\) or 0"),
        (lambda: no_rope_layers(4, no_rope_layers=[1, 0]), "num_hidden_layers = 4 entries"),
        (lambda: no_rope_layers(4, no_rope_layer_interval=0), "no_rope_layer_interval must be an integer >= 1, got 0"),
        (lambda: llama4_query_temperature(4, floor_scale=0), "floor_scale must be an integer >= 1, got 0"),
        (lambda: llama4_query_temperature([-1]), "positions must be >= 0"),
        (lambda: rope_cos_sin(4, [0.0, 0.0]), "at least one of them > 0"),
        (lambda: sliding_layer_types(0), "num_hidden_layers must be an integer >= 1, got 0"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
