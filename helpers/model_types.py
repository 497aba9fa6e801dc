"""Which layers of a model rotate: the rule each HF 5.24 model type's code applies (plain data, no imports).

A config says which RoPE a model has; often only the model's code says which layers apply it: Llama 4 skips RoPE on
the layers its ``no_rope_layers`` marks 0, EXAONE 4 on its global layers, Cohere 2 and Arcee Trinity (``afmoe``) on
every non-sliding layer, and hybrids such as Jamba, Nemotron-H, Granite 4.0-H and Kimi Linear never call a rotary
function in attention at all. :data:`ROTATION_RULES` names each rule with the HF file and line it is read from;
:data:`MODEL_TYPES` maps every model type the reader accepts to its rule. A model type that is not in
:data:`MODEL_TYPES` is refused by :func:`helpers.model_configs.read_model_config`, never guessed;
:data:`REFUSED` lists the model types with position fields that are refused on purpose, with the reason.

``MODEL_TYPES`` entries whose rule is ``"all"`` come from an audit of HF 5.24's modeling files (every call of a
rotary function in an attention class's ``forward`` is unconditional, or conditional only on the pair layout or on
a cross-attention / shared-KV branch) plus a comparison of the frequencies with HF's own rotary class; both are
re-run by ``tests/test_model_configs_hf.py`` and printed by ``python -m helpers.model_configs coverage``.
"""

from __future__ import annotations

__all__ = ["MODEL_TYPES", "NON_ATTENTION_LAYER_TYPES", "REFUSED", "ROTATION_RULES", "TEMPERATURE_RULES"]

_M = "transformers/models/"

#: Rule name -> what it means and where HF 5.24's code decides it.
ROTATION_RULES: dict[str, str] = {
    "all": "every attention layer rotates (the rotary call in the attention's forward is unconditional)",
    "no_rope_layers": "layer ℓ rotates iff no_rope_layers[ℓ] == 1 (Llama4TextAttention.use_rope, "
    + _M
    + "llama4/modeling_llama4.py l.318, 350; SmolLM3Attention.use_rope, smollm3/modeling_smollm3.py l.216)",
    "sliding_only": "only sliding_attention layers rotate (Cohere2Attention: `if self.sliding_window is not None`, "
    + _M
    + "cohere2/modeling_cohere2.py l.190, 222; AfmoeAttention: `if self.is_local_attention`, "
    "afmoe/modeling_afmoe.py l.332, 360)",
    "global_nope": "with a sliding_window, only sliding_attention layers rotate; without one, every layer "
    "(Exaone4Attention: `if self.sliding_window is None or self.is_sliding`, " + _M + "exaone4/modeling_exaone4.py "
    "l.233–235; the same in exaone4_5 l.440–442 and exaone_moe l.184–186)",
    "none": "no attention layer rotates: the modeling file builds no rotary embedding or never applies it "
    "(Jamba, Nemotron-H: apply_rotary_pos_emb defined but never called; Kimi Linear: 'MLA … with NoPE', "
    + _M
    + "kimi_linear/modeling_kimi_linear.py l.192)",
    "position_embedding_type": "every attention layer rotates iff position_embedding_type == 'rope', none if it is "
    "None ('nope' too) (" + _M + "granitemoehybrid/modeling_granitemoehybrid.py l.1057, 1110–1112)",
    "layer_rope_theta": "layer ℓ rotates with base layer_rope_theta[ℓ]; 0 means NoPE (GraniteSWAModel, "
    + _M
    + "granite_swa/modeling_granite_swa.py l.392–398; GraniteSWAAttention l.171)",
}

#: Rule name -> the query temperature law and where HF applies it (helpers.temperature has the functions).
TEMPERATURE_RULES: dict[str, str] = {
    "llama4_tuning": "NoPE layers, when attn_temperature_tuning: 1 + attn_scale·ln(1 + ⌊(p + 1)/floor_scale⌋) ("
    + _M
    + "llama4/modeling_llama4.py l.359–367)",
    "llama_4_scaling_beta": "every layer: 1 + β·ln(1 + ⌊p / original_max_position_embeddings⌋) ("
    + _M
    + "ministral3/modeling_ministral3.py l.105–107, 146–150; mistral4/modeling_mistral4.py l.358–360, 476–480)",
}

#: Layer types that are not attention (no RoPE there): recurrent, convolution and state-space layers.
NON_ATTENTION_LAYER_TYPES: frozenset[str] = frozenset(
    {
        "linear_attention",
        "mamba",
        "conv",
        "mamba2",
        "recurrent",
        "gated_deltanet",
        "kda",
        "ssm",
        "short_conv",
        "moe",
        "mlp",
    }
)

#: Model types with a rule other than "all" (from the modeling files cited in ROTATION_RULES), and their
#: temperature rule if any: model type -> (rotation rule, temperature rule or None).
_SPECIAL: dict[str, tuple[str, str | None]] = {
    "llama4": ("no_rope_layers", "llama4_tuning"),
    "llama4_text": ("no_rope_layers", "llama4_tuning"),
    "smollm3": ("no_rope_layers", None),
    "cohere2": ("sliding_only", None),
    "afmoe": ("sliding_only", None),
    "exaone4": ("global_nope", None),
    "exaone4_5": ("global_nope", None),
    "exaone4_5_text": ("global_nope", None),
    "exaone_moe": ("global_nope", None),
    "granitemoehybrid": ("position_embedding_type", None),
    "granite_swa": ("layer_rope_theta", None),
    "granitemoe_swa": ("layer_rope_theta", None),
    "jamba": ("none", None),
    "nemotron_h": ("none", None),
    "kimi_linear": ("none", None),
    "ministral3": ("all", "llama_4_scaling_beta"),
    "mistral4": ("all", "llama_4_scaling_beta"),
    # no_rope_layers as Llama 4 (MistralLarge4TextAttention.use_rope, l.340, 432); learned frequencies and query
    # factors come with read_model_config(..., learned=...) (helpers.model_configs.LEARNED_TENSORS)
    "mistral_large4": ("no_rope_layers", None),
    "mistral_large4_text": ("no_rope_layers", None),
}

#: Model types with position fields refused on purpose: model type -> reason (the coverage command prints them).
REFUSED: dict[str, str] = {
    "ernie4_5_vl_moe": "M-RoPE whose axes take interleaved and slowest pairs (H/W alternate over the fastest 44 "
    "pairs, T the slowest 20), which permutes the frequencies (" + _M + "ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py "
    "l.96–130): not read",
    "ernie4_5_vl_moe_text": "as ernie4_5_vl_moe: its M-RoPE permutes the frequencies; not read",
    "cohere2_moe": "rotation decided by `self.sliding_window is not None or self.force_rope` ("
    + _M
    + "cohere2_moe/modeling_cohere2_moe.py l.321): not in the reader's table yet",
}

#: Every model type the reader accepts: model type -> (rotation rule, temperature rule or None). The "all" entries
#: are filled from helpers/_model_types_all.py (generated from the audit; see the module docstring).
MODEL_TYPES: dict[str, tuple[str, str | None]] = {}


def _build() -> None:
    from helpers._model_types_all import ALL_ROTATE

    for name in ALL_ROTATE:
        MODEL_TYPES[name] = ("all", None)
    MODEL_TYPES.update(_SPECIAL)
    for name in REFUSED:
        MODEL_TYPES.pop(name, None)


_build()
