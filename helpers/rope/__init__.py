"""Rotary position embedding (RoPE): frequencies, angles, rotation in both memory layouts.

Glossary (used with exactly these names everywhere in the course):

* **interleaved**: pair i is dimensions ``(2i, 2i+1)``. RoFormer paper (arXiv 2104.09864 §3.2),
  GPT-J, Meta's Llama reference code, the source chapter's code.
* **half_split**: pair i is dimensions ``(i, i + D/2)``. GPT-NeoX, HF transformers (``rotate_half``).

Both rotate pair i of a vector at position m by the angle ``m·θ_i`` with ``θ_i = base^(-2i/D)``; they are
the same maths a fixed permutation apart (:func:`interleaved_to_half_split`).

Modules, one idea each (everything is importable from here):

* :mod:`~helpers.rope.frequencies`: θ_i, wavelengths, angles m·θ_i, cos/sin, :func:`check_inv_freq`, partial rotary;
* :mod:`~helpers.rope.rotation`: applying the rotation (:func:`apply_rope`, :func:`rope`), :class:`RopeCache`,
  :class:`Rotary`;
* :mod:`~helpers.rope.scores`: the score against distance, RoFormer's decay bound, random q and k;
* :mod:`~helpers.rope.layouts`: the two layouts, :func:`permute_qk_rows`, the explicit matrix R_Θ(m).

Used by notebooks 04 and 05, by :mod:`helpers.attention` and by the tiny-model lab.
"""

from __future__ import annotations

from helpers.rope.frequencies import (
    check_inv_freq,
    degrees,
    partial_rotary_dim,
    rope_angles,
    rope_cos_sin,
    rope_inv_freq,
    rope_wavelengths,
)
from helpers.rope.layouts import (
    LAYOUTS,
    half_split_to_interleaved,
    interleaved_to_half_split,
    permute_qk_rows,
    rotation_matrix,
)
from helpers.rope.rotation import RopeCache, Rotary, apply_rope, rope
from helpers.rope.scores import (
    DecayCurves,
    key_peaking_at,
    long_range_decay,
    pair_score_curve,
    random_score_stats,
    roformer_bound_factor,
    rope_score_curve,
)

__all__ = [
    "LAYOUTS",
    "DecayCurves",
    "RopeCache",
    "Rotary",
    "apply_rope",
    "check_inv_freq",
    "degrees",
    "half_split_to_interleaved",
    "interleaved_to_half_split",
    "key_peaking_at",
    "long_range_decay",
    "pair_score_curve",
    "partial_rotary_dim",
    "permute_qk_rows",
    "random_score_stats",
    "roformer_bound_factor",
    "rope",
    "rope_angles",
    "rope_cos_sin",
    "rope_inv_freq",
    "rope_score_curve",
    "rope_wavelengths",
    "rotation_matrix",
]
