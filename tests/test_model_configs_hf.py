"""The whole-config reader (helpers.model_configs.read_model_config) against HF transformers 5.24.

* every HF model type with position fields: read right or refused, none wrong (helpers.model_coverage compares
  frequencies with HF's rotary class, which layers rotate with HF's attention modules, temperatures with HF's code);
* released configs in both spellings, Hunyuan's static NTK-α, Llama 4 Scout's llama3 block with low == high,
  Step-3.7's per-layer lists, granite-swash's 0 = NoPE, EXAONE 4 / afmoe / hybrids, temperatures, DeepSeek-V4's
  main / compress labels, Mistral Large 4's learned factors and per-head temperatures, JetMoe's kv_channels;
* strictness: every unread position key, an unknown model type, a key of the wrong model type: refused, naming it.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from helpers.model_configs import ConfigError, read_model_config
from helpers.model_gallery import GALLERY
from helpers.model_types import MODEL_TYPES, REFUSED
from helpers.temperature import llama4_attn_temperature, llama_4_scaling_temperature

transformers = pytest.importorskip("transformers")

LLAMA31 = {  # config.json of meta-llama/Llama-3.1-8B, position part (old spelling)
    "model_type": "llama",
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
}


def _hf_inv(config_cls, rotary_cls, **kwargs) -> tuple[np.ndarray, float]:
    config = config_cls(**kwargs)
    rotary = rotary_cls(config=config)
    return rotary.inv_freq.double().numpy(), float(rotary.attention_scaling)


@pytest.fixture(scope="session")
def coverage():
    from helpers.model_coverage import coverage

    return coverage()


def test_every_hf_model_type_is_read_right_or_refused(coverage):
    wrong = {mt: why for mt, (status, why) in coverage.items() if status == "wrong"}
    assert not wrong, wrong
    assert len(coverage) > 300
    for mt, (status, why) in coverage.items():
        assert status in ("right", "refused") and why, mt
    must_read = ["llama", "llama4_text", "gemma3_text", "gemma4_text", "qwen3", "qwen2_5_vl", "qwen3_5",
                 "deepseek_v3", "gpt_oss", "smollm3", "exaone4", "afmoe", "cohere2", "jamba", "nemotron_h",
                 "granitemoehybrid", "kimi_linear", "ministral3", "mistral4", "hunyuan_v1_dense", "granite_swa",
                 "step3p7", "olmo3", "lfm2", "qwen3_next", "deepseek_v4"]  # fmt: skip
    assert [mt for mt in must_read if coverage[mt][0] != "right"] == []
    for mt in REFUSED:
        if mt in coverage:
            assert coverage[mt][0] == "refused" and "is refused: " in coverage[mt][1], mt


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_gallery_entries_are_read_as_hf_reads_them(name):
    """Every gallery config, built with HF's own config class of its model type, is read right (frequencies,
    unrotated pairs, which layers rotate, temperatures), and names its sources."""
    from transformers import CONFIG_MAPPING

    from helpers.model_coverage import check_config

    entry = GALLERY[name]
    fields = {k: v for k, v in entry["config"].items() if k != "model_type"}
    hf = CONFIG_MAPPING[entry["config"]["model_type"]](**fields)
    status, why = check_config(entry["config"], hf.get_text_config(decoder=True))
    assert status == "right", why
    assert entry["sources"] and all(isinstance(v, str) and v for v in entry["sources"].values())


def test_both_spellings_read_alike_and_equal_hf():
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    old = read_model_config(LLAMA31)
    new_cfg = {k: v for k, v in LLAMA31.items() if k not in ("rope_theta", "rope_scaling")}
    new_cfg["rope_parameters"] = {**LLAMA31["rope_scaling"], "rope_theta": 500000.0}
    new = read_model_config(new_cfg)
    type_spelling = copy.deepcopy(LLAMA31)
    type_spelling["rope_scaling"]["type"] = type_spelling["rope_scaling"].pop("rope_type")
    hf, factor = _hf_inv(LlamaConfig, LlamaRotaryEmbedding, **{k: v for k, v in LLAMA31.items() if k != "model_type"})
    for read in (old, new, read_model_config(type_spelling)):
        assert [lay.rope_type for lay in read.layers] == ["llama3"] * 32
        np.testing.assert_allclose(read.layers[0].inv_freq, hf, rtol=1e-6)
        assert read.layers[0].attention_factor == factor == 1.0
    assert old.layers[0].inv_freq[-1] == pytest.approx(500000.0 ** (-126 / 128) / 8, rel=1e-12)


def test_reads_a_config_json_path(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA31))
    assert read_model_config(path).layers[0].rope_type == "llama3"
    with pytest.raises(ConfigError, match="not a file"):
        read_model_config(tmp_path / "missing.json")


@pytest.mark.parametrize("model", ["hunyuan_v1_dense", "hunyuan_v1_moe"])
def test_hunyuan_static_ntk_alpha_equals_hf(model):
    import importlib

    cfg_mod = importlib.import_module(f"transformers.models.{model}.configuration_{model}")
    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    config_cls = next(v for k, v in vars(cfg_mod).items() if k.startswith("HunYuan") and k.endswith("Config"))
    rotary_cls = next(v for k, v in vars(mod).items() if k.endswith("RotaryEmbedding"))
    fields = {"num_hidden_layers": 4, "hidden_size": 1024, "num_attention_heads": 8, "head_dim": 128,
              "max_position_embeddings": 262144}  # fmt: skip
    scaling = {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}
    ours = read_model_config({"model_type": model, **fields, "rope_theta": 10000.0, "rope_scaling": scaling})
    hf, factor = _hf_inv(config_cls, rotary_cls, **fields, rope_parameters={"rope_theta": 10000.0, **scaling})
    np.testing.assert_allclose(ours.layers[0].inv_freq, hf, rtol=1e-6)
    assert ours.layers[0].rope_type == "ntk_alpha" and factor == 1.0
    # the slowest pair is 1000x slower than plain RoPE's: alpha is not dropped
    assert ours.layers[0].inv_freq[-1] == pytest.approx(10000.0 ** (-126 / 128) / 1000, rel=1e-9)
    with pytest.raises(ConfigError, match="alpha"):
        read_model_config({**LLAMA31, "rope_scaling": scaling})  # alpha on a model whose code has no NTK-α


def test_llama3_with_equal_frequency_factors_as_hf():
    """Llama 4 Scout's released block: low_freq_factor == high_freq_factor (a hard switch at one wavelength)."""
    from transformers import Llama4TextConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    scaling = {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
               "original_max_position_embeddings": 8192}  # fmt: skip
    fields = {"num_hidden_layers": 4, "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
              "max_position_embeddings": 262144}  # fmt: skip
    ours = read_model_config({"model_type": "llama4_text", **fields, "rope_theta": 500000.0, "rope_scaling": scaling})
    config = Llama4TextConfig(**fields, rope_parameters={"rope_theta": 500000.0, **scaling})
    hf, _ = ROPE_INIT_FUNCTIONS["llama3"](config, "cpu")
    np.testing.assert_allclose(ours.layers[0].inv_freq, hf.double().numpy(), rtol=1e-6)
    assert [lay.rotates for lay in ours.layers] == [True, True, True, False]


def test_step37_per_layer_lists_equal_hf():
    from transformers.models.step3p7.configuration_step3p7 import Step3p7TextConfig
    from transformers.models.step3p7.modeling_step3p7 import Step3p7RotaryEmbedding

    types = ["full_attention", "sliding_attention", "sliding_attention", "full_attention"]
    thetas, fractions = [5e6, 1e4, 1e4, 5e6], [0.5, 1.0, 1.0, 0.5]
    fields = {"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 4, "head_dim": 128,
              "layer_types": types, "sliding_window": 512}  # fmt: skip
    ours = read_model_config({"model_type": "step3p5", **fields, "rope_theta": thetas,  # Step-3.7's text model
                              "partial_rotary_factors": fractions})  # fmt: skip
    config = Step3p7TextConfig(**fields, rope_theta=thetas, partial_rotary_factors=fractions)
    rotary = Step3p7RotaryEmbedding(config)
    for lay in ours.layers:
        hf = getattr(rotary, f"{lay.layer_type}_inv_freq").double().numpy()
        np.testing.assert_allclose(lay.inv_freq[: len(hf)], hf, rtol=1e-6)
        assert np.all(lay.inv_freq[len(hf) :] == 0)
    assert [lay.rotated_pairs for lay in ours.layers] == [32, 64, 64, 32]
    with pytest.raises(ConfigError, match="rope_theta"):  # HF would silently use the first layer's value
        read_model_config({"model_type": "step3p5", **fields, "rope_theta": [5e6, 1e4, 2e4, 5e6]})


def test_mrope_sections_read_only_where_hf_reads_them():
    from helpers.model_gallery import GALLERY

    qwen = read_model_config(GALLERY["Qwen2.5-VL 7B"]["config"])
    assert {lay.axes for lay in qwen.layers} == {(16, 24, 24)}


def test_exaone_string_pattern_without_layer_types_is_refused():
    cfg = {"model_type": "exaone4", "num_hidden_layers": 8, "head_dim": 64, "sliding_window": 4096,
           "sliding_window_pattern": "LLLG", "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}}  # fmt: skip
    with pytest.raises(ConfigError, match="sliding_window_pattern"):
        read_model_config(cfg)
    types = ["sliding_attention"] * 3 + ["full_attention"]
    read = read_model_config({**cfg, "layer_types": types * 2})
    assert [lay.rotates for lay in read.layers] == [True, True, True, False] * 2


def test_granite_swash_zero_theta_means_nope():
    cfg = {"model_type": "granite_swa", "num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
           "layer_rope_theta": [1e4, 0, 5e5, 0], "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}}  # fmt: skip
    ours = read_model_config(cfg)
    assert [lay.rotates for lay in ours.layers] == [True, False, True, False]
    assert [lay.base for lay in ours.layers] == [1e4, None, 5e5, None]
    np.testing.assert_allclose(ours.layers[2].inv_freq, 5e5 ** (-np.arange(0, 64, 2) / 64), rtol=1e-12)


@pytest.mark.parametrize(
    ("model_type", "sliding_window", "expected"),
    [("exaone4", 4096, [True, True, True, False]), ("exaone4", None, [True] * 4),
     ("afmoe", 1024, [True, True, True, False]), ("cohere2", 4096, [True, True, True, False])],
)  # fmt: skip
def test_models_whose_code_leaves_global_layers_unrotated(model_type, sliding_window, expected):
    types = ["sliding_attention"] * 3 + ["full_attention"]
    cfg = {"model_type": model_type, "num_hidden_layers": 4, "head_dim": 64, "layer_types": types,
           "sliding_window": sliding_window, "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}}  # fmt: skip
    assert [lay.rotates for lay in read_model_config(cfg).layers] == expected


@pytest.mark.parametrize("model_type", ["jamba", "nemotron_h", "kimi_linear"])
def test_hybrids_never_rotate(model_type):
    cfg = {"model_type": model_type, "num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4}
    assert not any(lay.rotates for lay in read_model_config(cfg).layers)
    assert MODEL_TYPES[model_type][0] == "none"


def test_granite4_hybrid_rotates_only_with_rope():
    cfg = {"model_type": "granitemoehybrid", "num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4,
           "layer_types": ["mamba", "attention"][:1] + ["full_attention"], "position_embedding_type": None}  # fmt: skip
    assert [lay.rotates for lay in read_model_config(cfg).layers] == [False, False]
    assert [lay.rotates for lay in read_model_config({**cfg, "position_embedding_type": "rope"}).layers] == [
        False,
        True,
    ]


def test_temperatures_read_from_the_config():
    from transformers import CONFIG_MAPPING

    positions = np.array([0, 16383, 16384, 50000, 1_000_000])
    ministral = read_model_config(CONFIG_MAPPING["ministral3"]().to_dict())
    want = llama_4_scaling_temperature(positions, beta=0.1, original_max_position_embeddings=16384)
    for lay in ministral.layers:
        np.testing.assert_array_equal(lay.temperature(positions), want)
        assert lay.attention_factor == 1.0  # mscale == mscale_all_dim: YaRN's own factor is switched off
    scout = read_model_config(CONFIG_MAPPING["llama4_text"]().to_dict())
    for lay in scout.layers:
        want = np.ones(len(positions)) if lay.rotates else llama4_attn_temperature(positions)
        np.testing.assert_array_equal(lay.temperature(positions), want)
    off = read_model_config({**CONFIG_MAPPING["llama4_text"]().to_dict(), "attn_temperature_tuning": False})
    assert all(np.all(lay.temperature(positions) == 1) for lay in off.layers)
    assert np.all(read_model_config(LLAMA31).layers[0].temperature(positions) == 1)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"rope_scaling": {**LLAMA31["rope_scaling"], "llama_4_scaling_beta": 0.1}}, "llama_4_scaling_beta"),
        ({"rope_scaling": {**LLAMA31["rope_scaling"], "beta_fast": 32}}, "beta_fast"),
        ({"rope_scaling": {"rope_type": "ntk_chapter", "factor": 2.0}}, "ntk_chapter"),
        ({"rope_interpolation": 4}, "rope_interpolation"),
        ({"no_rope_layers": [1, 0] * 16}, None),  # llama's code has no NoPE layers: refused below
        ({"rope_parameters": {"rope_theta": 1e4}}, "rope_scaling"),
        ({"attn_temperature_tuning": True}, "attn_temperature_tuning"),
        ({"model_type": "no_such_model"}, "not in the reader's table"),
        ({"model_type": "mistral_large4_text"}, "learned"),
        ({"rope_scaling": {**LLAMA31["rope_scaling"], "mrope_section": [16, 24, 24]}}, "mrope_section"),
    ],
)
def test_unread_position_keys_are_refused_by_name(change, match):
    cfg = {**LLAMA31, **change}
    if match is None:
        cfg, match = {**cfg, "no_rope_layers": [1, 0] * 16}, "no_rope_layers"
    with pytest.raises(ConfigError, match=match) as info:
        read_model_config(cfg)
    assert "\n" not in str(info.value)


DEEPSEEK_V4_FIELDS = {  # HF DeepseekV4Config defaults, with sliding layers and YaRN on the compressed layers
    "num_hidden_layers": 6,
    "head_dim": 512,
    "hidden_size": 4096,
    "num_attention_heads": 64,
    "layer_types": ["sliding_attention", "sliding_attention", "compressed_sparse_attention",
                    "heavily_compressed_attention", "compressed_sparse_attention", "heavily_compressed_attention"],
    "rope_theta": 10000.0,
    "compress_rope_theta": 160000.0,
    "max_position_embeddings": 1048576,
    "rope_scaling": {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 65536,
                     "beta_fast": 32.0, "beta_slow": 1.0},
}  # fmt: skip


@pytest.mark.parametrize("spelling", ["flat", "nested"])
def test_deepseek_v4_labels_main_and_compress_equal_hf(spelling):
    """DeepSeek-V4: sliding layers use the "main" RoPE (base 10⁴), compressed layers "compress" (base 1.6·10⁵,
    YaRN, attention factor 1), on the last 64 of 512 channels in interleaved pairs; HF's rotary class per label and
    HF's attention module's rope_layer_type per layer; both the flat spelling HF splits and the nested one."""
    from transformers import DeepseekV4Config

    from helpers.model_coverage import check_config

    hf = DeepseekV4Config(**DEEPSEEK_V4_FIELDS)
    config = {"model_type": "deepseek_v4", **DEEPSEEK_V4_FIELDS} if spelling == "flat" else hf.to_dict()
    assert check_config(config, hf) == ("right", "rotary call unconditional")
    pos = read_model_config(config)
    assert pos.layout == "interleaved"
    assert [lay.base for lay in pos.layers] == [1e4, 1e4] + [1.6e5] * 4
    assert [lay.rope_type for lay in pos.layers] == ["default"] * 2 + ["yarn"] * 4
    for lay in pos.layers:
        assert lay.head_dim == 512 and lay.rotated_pairs == 32 and np.all(lay.inv_freq[:224] == 0)
        assert lay.attention_factor == 1.0


def test_deepseek_v4_disagreeing_values_are_refused():
    from transformers import DeepseekV4Config

    nested = DeepseekV4Config(**DEEPSEEK_V4_FIELDS).to_dict()
    for key, value, match in [("compress_rope_theta", 5e4, "compress_rope_theta"),
                              ("partial_rotary_factor", 0.25, "partial_rotary_factor"),
                              ("qk_rope_head_dim", 32, "qk_rope_head_dim")]:  # fmt: skip
        with pytest.raises(ConfigError, match=match):
            read_model_config({**nested, key: value})
    bare = copy.deepcopy(nested)
    del (
        bare["partial_rotary_factor"],
        bare["qk_rope_head_dim"],
        bare["rope_parameters"]["main"]["partial_rotary_factor"],
    )
    with pytest.raises(ConfigError, match="a partial_rotary_factor"):
        read_model_config(bare)
    bad = copy.deepcopy(nested)
    bad["rope_parameters"]["global"] = bad["rope_parameters"].pop("compress")
    with pytest.raises(ConfigError, match="labels"):
        read_model_config(bad)
    with pytest.raises(ConfigError, match="compress_rope_theta"):
        read_model_config({**LLAMA31, "compress_rope_theta": 1e5})


@pytest.mark.parametrize("model_type", ["mistral_large4", "mistral_large4_text"])
def test_mistral_large4_learned_factors_and_temperature_equal_hf(model_type):
    """Mistral Large 4: θ_i·exp(α_i) against HF's rotary forward with α loaded, every fourth layer NoPE (HF's
    attention modules), a_h·ln(p + 1) + b_h per layer and head against HF's SoftmaxScaling at several positions."""
    from transformers import CONFIG_MAPPING

    from helpers.model_coverage import POSITIONS, _random_learned, check_config

    hf = CONFIG_MAPPING[model_type]()
    text = hf.get_text_config(decoder=True)
    assert check_config(hf.to_dict(), text) == ("right", "MistralLarge4TextAttention: self.use_rope")
    learned = _random_learned(text)
    pos = read_model_config(hf.to_dict(), learned)
    assert pos.layout == "interleaved"
    assert [lay.rotates for lay in pos.layers] == [bool(r) for r in text.no_rope_layers]
    lay = pos.layers[0]
    assert lay.head_dim == 128 and np.all(lay.inv_freq[:32] == 0) and lay.rotated_pairs == 32
    assert pos.layers[3].temperature(POSITIONS).shape == (text.num_attention_heads, len(POSITIONS))


def test_mistral_large4_needs_its_learned_tensors():
    from transformers import CONFIG_MAPPING

    from helpers.model_coverage import _random_learned

    hf = CONFIG_MAPPING["mistral_large4"]()
    config, learned = hf.to_dict(), _random_learned(hf.get_text_config(decoder=True))
    with pytest.raises(ConfigError, match="learned weights, not config values; pass learned="):
        read_model_config(config)
    with pytest.raises(ConfigError, match="rope_alpha"):
        read_model_config(config, {**learned, "rope_alpha": learned["rope_alpha"][:-1]})
    with pytest.raises(ConfigError, match="give exactly"):
        read_model_config(config, {"rope_alpha": learned["rope_alpha"]})
    with pytest.raises(ConfigError, match="bias"):
        read_model_config(config, {**learned, "softmax_bias": -learned["softmax_bias"]})
    with pytest.raises(ConfigError, match="learned tensors only for"):
        read_model_config(LLAMA31, learned)


def test_jetmoe_head_dim_is_kv_channels_as_hf():
    """JetMoe's config maps head_dim to kv_channels (HF attribute_map): 128 channels, 64 pairs, as HF's rotary."""
    from transformers import JetMoeConfig

    from helpers.model_coverage import check_config

    hf = JetMoeConfig(kv_channels=96)
    assert check_config(hf.to_dict(), hf)[0] == "right"
    assert read_model_config(hf.to_dict()).layers[0].rotated_pairs == 48
    with pytest.raises(ConfigError, match="kv_channels"):
        read_model_config({**hf.to_dict(), "head_dim": 64})
