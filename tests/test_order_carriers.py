"""The conv_nope family (helpers.lab.order_carriers): its convolution against torch's depthwise Conv1d (the layer
Kimi Linear, Jamba, Nemotron-H and Granite 4.0-H use), causality, what it changes in the model, its recipe."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from helpers.lab.checkpoints import HYBRID_MODELS, RECIPES
from helpers.lab.model import LabConfig, TinyTransformer
from helpers.lab.order_carriers import CONV_KERNEL, ShortConvLayer, ShortConvNoPE, causal_depthwise_conv
from helpers.lab.positional import FAMILIES

SMALL = {"d_model": 32, "n_layers": 2, "n_heads": 2, "d_ff": 64, "train_len": 16}


def test_conv_equals_torch_depthwise_conv1d_with_causal_padding():
    """HF 5.24's KimiLinearDeltaAttention / Mamba layers: nn.Conv1d(groups=channels, padding=K−1), the first T
    outputs. Its tap K−1 is the current token: our weight[j] is its kernel[K−1−j]."""
    gen = torch.Generator().manual_seed(0)
    b, h, t, d, k = 2, 3, 11, 4, 4
    x = torch.randn(b, h, t, d, generator=gen)
    weight = torch.randn(k, h, d, generator=gen)
    conv = torch.nn.Conv1d(h * d, h * d, kernel_size=k, groups=h * d, padding=k - 1, bias=False)
    with torch.no_grad():
        conv.weight.copy_(weight.flip(0).permute(1, 2, 0).reshape(h * d, 1, k))
        channels = x.permute(0, 1, 3, 2).reshape(b, h * d, t)  # (B, H·d, T)
        expected = conv(channels)[..., :t].reshape(b, h, d, t).permute(0, 1, 3, 2)  # (B, H, T, d)
    torch.testing.assert_close(causal_depthwise_conv(x, weight), expected)


def test_conv_is_causal_and_looks_back_kernel_minus_one_tokens():
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(1, 2, 12, 4, generator=gen)
    weight = torch.randn(CONV_KERNEL, 2, 4, generator=gen)
    y = causal_depthwise_conv(x, weight)
    x2 = x.clone()
    x2[:, :, 7] += 1.0  # change token 7
    changed = (causal_depthwise_conv(x2, weight) - y).abs().amax(dim=(0, 1, 3)) > 0  # (T,)
    assert changed.tolist() == [t in range(7, 7 + CONV_KERNEL) for t in range(12)]


def test_family_is_registered_as_a_hybrid_with_nope_attention_and_its_filters_only():
    assert FAMILIES["conv_nope"] is ShortConvNoPE and ShortConvNoPE.group == "hybrid"
    cfg = LabConfig.build("conv_nope", shared=True, **SMALL, seed=3)
    model = TinyTransformer(cfg)
    nope = TinyTransformer(dataclasses.replace(cfg, family="nope", positional={}))
    ours = {k: v for k, v in model.state_dict().items() if not k.startswith("positional.")}
    assert ours.keys() == nope.state_dict().keys()  # the same weights as nope at this seed, plus the filters
    assert all(torch.equal(v, nope.state_dict()[k]) for k, v in ours.items())
    layers = [model.positional.layer(i) for i in range(2)]
    assert all(isinstance(x, ShortConvLayer) for x in layers) and layers[0] is not layers[1]
    assert layers[0].q_filter.shape == (CONV_KERNEL, 2, 16) and layers[0].q_filter.abs().max() <= 0.5
    assert model.positional.score_bias(8) is None and torch.equal(
        model.positional.add_to_embeddings(torch.ones(3)), torch.ones(3)
    )
    again = TinyTransformer(cfg)  # the filters come from the config's seed
    assert torch.equal(again.positional.layer(1).k_filter, layers[1].k_filter)


def test_model_runs_past_L_and_refuses_rope_options_and_bad_kernels():
    model = TinyTransformer(LabConfig.build("conv_nope", shared=True, **SMALL)).eval()
    tokens = torch.randint(0, 128, (2, 40))  # T = 40 > L = 16
    with torch.no_grad():
        logits, weights = model(tokens, return_attention=True)
        at = torch.tensor([[3, 39], [0, 20]])
        torch.testing.assert_close(model(tokens, logits_at=at), logits.gather(1, at[..., None].expand(-1, -1, 128)))
    assert logits.shape == (2, 40, 128) and weights[0].shape == (2, 2, 40, 40)
    with pytest.raises(ValueError, match="only applies to a RoPE model"):
        model(tokens, rope_scaling={"rope_type": "linear", "factor": 2.0})
    with pytest.raises(ValueError, match="conv_kernel"):
        LabConfig.build("conv_nope", conv_kernel=1)


def test_recipe_is_the_tiny_recipe_and_not_shipped():
    spec, nope = RECIPES["conv_nope"], RECIPES["nope"]
    assert "conv_nope" in HYBRID_MODELS and spec.settings == nope.settings and spec.init_from is None
    assert spec.config.conv_kernel == CONV_KERNEL == 4
    assert dataclasses.replace(spec.config, family="nope", positional={}) == dataclasses.replace(
        nope.config, positional={}
    )
