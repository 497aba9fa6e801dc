"""helpers.temperature against HF transformers 5.24: Llama 4's NoPE-layer temperature (measured on HF's attention
module), Ministral 3 / Mistral Small 4's ``get_llama_4_attn_scale``, YaRN's attention factor."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from helpers.temperature import llama4_attn_temperature, llama_4_scaling_temperature, yarn_logit_factor

POSITIONS = np.array([0, 1, 8190, 8191, 8192, 16383, 16384, 40000, 131071, 262143, 1_000_000])


def _hf_llama4_query_scale(positions: np.ndarray, attn_scale: float, floor_scale: int) -> np.ndarray:
    """The factor HF's Llama4TextAttention multiplies a NoPE layer's queries by, captured at the attention call."""
    from transformers.models.llama4 import modeling_llama4 as m

    config = m.Llama4TextConfig(
        hidden_size=8, head_dim=8, num_attention_heads=1, num_key_value_heads=1, num_hidden_layers=4,
        intermediate_size=8, intermediate_size_mlp=8, attn_scale=attn_scale, floor_scale=floor_scale,
        attn_temperature_tuning=True, no_rope_layers=[1, 1, 1, 0],
    )  # fmt: skip
    config._attn_implementation = "eager"
    attn = m.Llama4TextAttention(config, layer_idx=3)  # a NoPE layer
    assert not attn.use_rope
    with torch.no_grad():
        attn.q_proj.weight.copy_(torch.eye(8))
    seen = {}

    def capture(module, query, key, value, mask, **kw):
        seen["q"] = query
        return value.transpose(1, 2), None

    class Cache:  # a cache that already holds p tokens, so the query sits at position p
        def __init__(self, p: int):
            self.p = p

        def get_seq_length(self, layer_idx: int) -> int:
            return self.p

        def update(self, key, value, layer_idx, **kw):
            return key, value

    attn.double()
    x = torch.ones(1, 1, 8, dtype=torch.float64)  # (B, T, hidden)
    scales = []
    with pytest.MonkeyPatch.context() as mp, torch.no_grad():
        mp.setattr(m, "eager_attention_forward", capture)
        for p in positions:
            attn(x, position_embeddings=None, attention_mask=None, cache=Cache(int(p)))
            scales.append(float(seen.pop("q")[0, 0, 0, 0]))  # q = 1·τ(p) (identity q_proj, input ones)
    return np.array(scales)


def test_llama4_temperature_equals_hf_attention():
    ours = llama4_attn_temperature(POSITIONS, attn_scale=0.1, floor_scale=8192)
    assert ours[0] == 1.0 and ours[POSITIONS.tolist().index(8191)] > 1.0  # steps at p + 1 = F
    np.testing.assert_allclose(ours, _hf_llama4_query_scale(POSITIONS, 0.1, 8192), rtol=1e-6)  # HF: float32
    np.testing.assert_allclose(
        llama4_attn_temperature(POSITIONS, attn_scale=0.3, floor_scale=1000),
        _hf_llama4_query_scale(POSITIONS, 0.3, 1000),
        rtol=1e-6,
    )


@pytest.mark.parametrize("model", ["ministral3", "mistral4"])
@pytest.mark.parametrize(("beta", "length"), [(0.1, 16384), (0.1, 8192), (0.5, 100)])
def test_llama_4_scaling_equals_hf(model, beta, length):
    import importlib

    hf = importlib.import_module(f"transformers.models.{model}.modeling_{model}").get_llama_4_attn_scale
    pos = torch.tensor(POSITIONS, dtype=torch.float64)[None]  # (1, T)
    expected = hf(pos, beta, length)[0, 0, :, 0].numpy()  # (T,)
    ours = llama_4_scaling_temperature(POSITIONS, beta=beta, original_max_position_embeddings=length)
    np.testing.assert_allclose(ours, expected, rtol=1e-12)
    assert ours[POSITIONS < length].max() == 1.0


@pytest.mark.parametrize(
    "params",
    [
        {"factor": 8.0},
        {"factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0},
        {"factor": 40.0, "mscale": 0.707, "mscale_all_dim": 1.0},
        {"factor": 16.0, "mscale": 0, "mscale_all_dim": 1.0},
        {"factor": 16.0, "attention_factor": 1.0},
    ],
)
def test_yarn_logit_factor_is_hf_attention_factor_squared(params):
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    rope = {"rope_type": "yarn", "rope_theta": 10000.0, "original_max_position_embeddings": 4096, **params}
    config = LlamaConfig(head_dim=64, hidden_size=64, num_attention_heads=1, rope_parameters=rope)
    _, a = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    np.testing.assert_allclose(yarn_logit_factor(POSITIONS, **params), np.full(len(POSITIONS), a * a), rtol=1e-12)


def test_bad_arguments_are_refused_naming_them():
    with pytest.raises(ValueError, match="floor_scale"):
        llama4_attn_temperature(4, floor_scale=0)
    with pytest.raises(ValueError, match="llama_4_scaling_beta"):
        llama_4_scaling_temperature(4, beta=-1, original_max_position_embeddings=10)
    with pytest.raises(ValueError, match="positions"):
        yarn_logit_factor([-1], factor=2.0)
