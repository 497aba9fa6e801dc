"""Tests for helpers.model_configs and the gallery of real configs (helpers.model_gallery).

Every gallery entry parses; for every entry, HF transformers 5.24's own config class is built from the entry's fields
and its rotary embedding (the class the model uses, with ``layer_type=`` for per-layer-type models) gives the same
inverse frequencies per layer type (float32 vs float64: rtol 1e-6) and the same attention factor, and HF's
``layer_types`` / ``no_rope_layers`` equal the schedule the course reads. Only configs and rotary embeddings are
built: no weights, nothing downloaded.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from helpers.model_configs import ConfigError, layer_table, rope_by_layer_type
from helpers.model_gallery import GALLERY
from helpers.rope import rope_cos_sin, rope_inv_freq
from helpers.scaling import proportional_inv_freq

transformers = pytest.importorskip("transformers")

#: model family -> (configuration class, rotary embedding class), as HF 5.24 names them
HF_CLASSES = {
    "llama": ("LlamaConfig", "LlamaRotaryEmbedding"),
    "llama4": ("Llama4TextConfig", "Llama4TextRotaryEmbedding"),
    "gemma3": ("Gemma3TextConfig", "Gemma3RotaryEmbedding"),
    "gemma4": ("Gemma4TextConfig", "Gemma4TextRotaryEmbedding"),
    "qwen3": ("Qwen3Config", "Qwen3RotaryEmbedding"),
    "qwen2_5_vl": ("Qwen2_5_VLTextConfig", "Qwen2_5_VLRotaryEmbedding"),
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3RotaryEmbedding"),
    "gpt_oss": ("GptOssConfig", "GptOssRotaryEmbedding"),
    "smollm3": ("SmolLM3Config", "SmolLM3RotaryEmbedding"),
}


def _hf(entry):
    family = entry["hf"]
    config_name, rotary_name = HF_CLASSES[family]
    config_mod = importlib.import_module(f"transformers.models.{family}.configuration_{family}")
    model_mod = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    # HF derives layer_types itself (from its pattern or no_rope_layers): leave ours out so that the test compares them
    kwargs = {k: v for k, v in entry["config"].items() if k not in ("layer_types", "model_type")}
    if family in ("llama", "qwen3", "qwen2_5_vl", "smollm3") and "hidden_size" not in kwargs:
        kwargs.update(hidden_size=kwargs["head_dim"] * 2, num_attention_heads=2)
    if family in ("gemma3", "gemma4", "llama4", "gpt_oss"):
        kwargs.setdefault("num_attention_heads", 2)
        kwargs.setdefault("hidden_size", 64)
    config = getattr(config_mod, config_name)(**kwargs)
    return config, getattr(model_mod, rotary_name)(config)


def test_gallery_has_at_least_twelve_models_with_sources():
    assert len(GALLERY) >= 12
    for name, entry in GALLERY.items():
        assert entry["sources"] and all(isinstance(v, str) and v for v in entry["sources"].values()), name
        assert entry["config"]["model_type"].startswith(entry["hf"]), name


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_every_entry_parses(name):
    entry = GALLERY[name]
    rows = layer_table(entry["config"], entry["context_length"])
    assert len(rows) == entry["config"]["num_hidden_layers"]
    for row in rows:
        assert 0.0 <= row.rotated_fraction <= 1.0
        assert row.rotates == (row.rotated_fraction > 0)
        if row.window is not None:
            assert row.max_distance == min(row.window, entry["context_length"]) - 1


@pytest.mark.parametrize("name", sorted(n for n, e in GALLERY.items() if e["hf"] in HF_CLASSES))
def test_entry_equals_hf_config_and_rotary_embedding(name):
    entry = GALLERY[name]
    config, emb = _hf(entry)
    ours = rope_by_layer_type(entry["config"])
    if "layer_types" in entry["config"]:
        assert list(config.layer_types) == ours.layer_types
    if hasattr(config, "no_rope_layers"):
        assert [bool(x) for x in config.no_rope_layers] == ours.rotates.tolist()
    per_type = hasattr(emb, "layer_types") and isinstance(getattr(emb, "rope_type", None), dict)
    for layer_type, rope in ours.by_type.items():
        if per_type:
            hf_inv = getattr(emb, f"{layer_type}_inv_freq")
            hf_factor = getattr(emb, f"{layer_type}_attention_scaling")
        else:
            hf_inv, hf_factor = emb.inv_freq, emb.attention_scaling
        hf_inv = hf_inv.double().numpy()
        assert hf_inv.shape == rope.inv_freq.shape, (layer_type, hf_inv.shape, rope.inv_freq.shape)
        np.testing.assert_allclose(rope.inv_freq, hf_inv, rtol=1e-6, atol=0, err_msg=f"{name} {layer_type}")
        assert rope.attention_factor == pytest.approx(hf_factor, rel=1e-6)


def test_gemma3_270m_schedule():
    rows = layer_table(GALLERY["Gemma 3 270M"]["config"])
    full = [r.layer for r in rows if r.layer_type == "full_attention"]
    assert full == [5, 11, 17]
    assert {r.base for r in rows if r.layer_type == "sliding_attention"} == {1e4}
    assert {r.window for r in rows if r.layer_type == "sliding_attention"} == {512}
    # sliding layers see distances < 512: pair i turns fully iff 511·1e4^(−2i/256) >= 2π
    theta = rope_inv_freq(256, 1e4)
    expected = tuple(np.flatnonzero(511 * theta < 2 * math.pi).tolist())
    assert rows[0].pairs_without_full_turn == expected and len(expected) == 66


def test_gemma4_global_layers_rotate_a_quarter_and_every_rotated_pair_turns():
    rows = layer_table(GALLERY["Gemma 4 26B-A4B"]["config"], GALLERY["Gemma 4 26B-A4B"]["context_length"])
    full = [r for r in rows if r.layer_type == "full_attention"]
    assert {r.rotated_fraction for r in full} == {0.25} and {r.rope_type for r in full} == {"proportional"}
    # the slowest rotated pair, θ_63 = 1e6^(−126/512), has a wavelength of 2π/θ_63 ≈ 188 tokens
    inv, _ = proportional_inv_freq(512, 1e6, partial_rotary_factor=0.25)
    assert 2 * math.pi / inv[63] == pytest.approx(188.0, abs=0.5)
    assert all(r.pairs_without_full_turn == () for r in full)


def test_nope_layers_of_smollm3_and_llama4():
    smol = layer_table(GALLERY["SmolLM3 3B"]["config"])
    assert [r.layer for r in smol if not r.rotates] == list(range(3, 36, 4))
    scout = layer_table(GALLERY["Llama 4 Scout 17B-16E"]["config"])
    assert all(r.layer_type == "full_attention" and r.window is None for r in scout if not r.rotates)
    assert all(r.layer_type == "chunked_attention" and r.window == 8192 for r in scout if r.rotates)


def test_deepseek_rotates_a_third_of_each_query_key_head():
    rows = layer_table(GALLERY["DeepSeek-V3"]["config"], GALLERY["DeepSeek-V3"]["context_length"])
    assert {r.rotated_fraction for r in rows} == {64 / 192}


@pytest.mark.parametrize(
    "config,match",
    [
        ({"head_dim": 64}, "no model_type"),
        ({"model_type": "llama", "head_dim": 64}, "num_hidden_layers"),
        ({"model_type": "llama", "num_hidden_layers": 2}, "head_dim"),
        ({"model_type": "llama", "num_hidden_layers": 2, "head_dim": 8, "layer_types": ["full_attention"]}, "2 layer"),
        (
            {"model_type": "gemma3_text", "num_hidden_layers": 1, "head_dim": 8,
             "rope_parameters": {"sliding_attention": {"rope_theta": 1e4}}},
            "missing \\['full_attention'\\]",
        ),
        (
            {"model_type": "gemma4_text", "num_hidden_layers": 1, "head_dim": 8,
             "rope_parameters": {"rope_type": "proportional", "beta": 1}},
            "proportional",
        ),
        ({"model_type": "not_a_model", "num_hidden_layers": 1, "head_dim": 8}, "not in the reader's table"),
    ],
)  # fmt: skip
def test_bad_configs(config, match):
    with pytest.raises(ConfigError, match=match):
        rope_by_layer_type(config)


def test_bad_context_length():
    with pytest.raises(ValueError, match="context_length"):
        layer_table({"model_type": "llama", "num_hidden_layers": 1, "head_dim": 8})


def test_gallery_is_plain_data():
    """helpers.model_gallery is layer 0 (plain data): importing it loads neither torch nor numpy."""
    import subprocess
    import sys

    code = "import sys, helpers.model_gallery; print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", ["Gemma 3 27B", "Gemma 4 26B-A4B"])
def test_cos_sin_equal_hf_forward_with_layer_type(name):
    """HF's per-layer-type forward (``layer_type=``) equals cos/sin of the course's frequencies (half-split cat).

    HF forms m·θ in float32, so its angle at position m is off by up to about m·2^-23 rad (the course's is float64):
    at m = 4095 that is 5e-4, the tolerance; at m = 60000 HF is already 4e-3 away.
    """
    import torch

    entry = GALLERY[name]
    _, emb = _hf(entry)
    positions = torch.tensor([[0, 1, 7, 511, 1000, 4095]])
    for layer_type, rope in rope_by_layer_type(entry["config"]).by_type.items():
        hf_cos, hf_sin = emb(torch.zeros(1), positions, layer_type)  # (1, T, D)
        cos, sin = rope_cos_sin(positions[0].numpy(), rope.inv_freq, attention_factor=rope.attention_factor)
        torch.testing.assert_close(torch.cat([cos, cos], -1), hf_cos[0], atol=5e-4, rtol=0)
        torch.testing.assert_close(torch.cat([sin, sin], -1), hf_sin[0], atol=5e-4, rtol=0)
