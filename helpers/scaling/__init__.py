"""RoPE length extension: one function per method, all returning ``(inv_freq, attention_factor)``.

Every method has the signature ``fn(dim, base, **params) -> (inv_freq, attention_factor)``, in the style of HF
transformers' ``ROPE_INIT_FUNCTIONS`` registry, and accepts HF's parameter names (``factor``,
``original_max_position_embeddings``, ``beta_fast``, ``low_freq_factor``, ...):

* ``inv_freq``: float64 array of shape (D/2,), θ'_i in radians per position, computed in float64.
  HF computes the same numbers in float32; they agree to about 1e-6 relative (float32 rounding).
* ``attention_factor``: a float ``a`` that multiplies cos and sin, hence q and k alike, so the attention logits are
  multiplied by ``a²`` (YaRN's temperature, LongRoPE's factor; 1.0 for the other methods). Pass it to
  :func:`helpers.rope.rope_cos_sin`.

Methods (:data:`ROPE_SCALING`): ``default``, ``linear`` (PI), ``linear_keep_fast`` (PI with the fastest pairs
unchanged, an ablation), ``ntk`` (static NTK-aware), ``ntk_alpha`` (Hunyuan's
fixed-α NTK, = ``ntk`` at s = α), ``ntk_chapter`` (the source
chapter's b·s approximation, errata E4), ``dynamic`` (HF dynamic NTK), ``yarn`` (as HF computes it), ``yarn_paper``
(the paper's ramp, for teaching), ``llama3``, ``longrope``, ``proportional`` (Gemma 4's global layers: the first
p·D/2 pairs keep full RoPE's θ_i, the others θ = 0; not a length extension, so no panel shows it). :func:`rope_parameters_from_config` turns a pasted HF
``rope_scaling`` / ``rope_parameters`` dict into frequencies, :func:`rotary_from_config` into a ready
:class:`helpers.rope.Rotary`. The training length is ``train_len`` (L) in the course's own functions and HF's key
``original_max_position_embeddings`` in the methods and their configs.

Modules, one idea each (everything is importable from here):

* :mod:`~helpers.scaling.pi_ntk`: one rule for every pair (default, proportional, PI, NTK-aware, dynamic NTK);
* :mod:`~helpers.scaling.by_parts`: pairs treated by parts (YaRN, its paper ramp, Llama 3.1, LongRoPE);
* :mod:`~helpers.scaling.registry`: one :class:`ScalingMethod` spec per method (:data:`ROPE_SCALING`) and the
  config builder :func:`scaling_config`;
* :mod:`~helpers.scaling.hf_config`: the HF config adapter;
* :mod:`~helpers.scaling.diagnostics`: the methods side by side and the teaching diagnostics.

Private: ``_args`` (the argument checks the methods share).

Formulas and the HF 5.24 conventions they follow: ``shared/design/reference-formulas.md``. Used by notebook 05.
"""

from __future__ import annotations

from helpers.scaling._args import ScalingResult
from helpers.scaling.by_parts import (
    llama3_inv_freq,
    longrope_inv_freq,
    rotations_in_context,
    yarn_correction_dim,
    yarn_correction_range,
    yarn_get_mscale,
    yarn_inv_freq,
    yarn_paper_inv_freq,
    yarn_ramp,
)
from helpers.scaling.diagnostics import (
    extension_frequencies,
    out_of_range_pairs,
    still_out_of_range,
    toy_attention_entropy,
)
from helpers.scaling.hf_config import rope_parameters_from_config, rotary_from_config
from helpers.scaling.pi_ntk import (
    default_inv_freq,
    dynamic_ntk_inv_freq,
    dynamic_ntk_scale,
    linear_inv_freq,
    linear_keep_fast_inv_freq,
    ntk_alpha_inv_freq,
    ntk_chapter_inv_freq,
    ntk_inv_freq,
    ntk_scaled_base,
    proportional_inv_freq,
    proportional_rotated_pairs,
)
from helpers.scaling.registry import (
    HF_ROPE_TYPES,
    LAB_GROUPS,
    PANELS,
    ROPE_SCALING,
    ScalingMethod,
    methods_in,
    scaling_config,
)

__all__ = [
    "HF_ROPE_TYPES",
    "LAB_GROUPS",
    "PANELS",
    "ROPE_SCALING",
    "ScalingMethod",
    "ScalingResult",
    "default_inv_freq",
    "dynamic_ntk_inv_freq",
    "dynamic_ntk_scale",
    "extension_frequencies",
    "linear_inv_freq",
    "linear_keep_fast_inv_freq",
    "llama3_inv_freq",
    "longrope_inv_freq",
    "methods_in",
    "ntk_alpha_inv_freq",
    "ntk_chapter_inv_freq",
    "ntk_inv_freq",
    "ntk_scaled_base",
    "out_of_range_pairs",
    "proportional_inv_freq",
    "proportional_rotated_pairs",
    "rope_parameters_from_config",
    "rotary_from_config",
    "rotations_in_context",
    "scaling_config",
    "still_out_of_range",
    "toy_attention_entropy",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_get_mscale",
    "yarn_inv_freq",
    "yarn_paper_inv_freq",
    "yarn_ramp",
]
