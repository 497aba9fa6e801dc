"""The course's one vocabulary: every method's identifier, label, colour, line style, description and paper.

Two tables of :class:`MethodInfo`, plain data (no torch, no matplotlib, no import of any other helpers module), so
that every layer can import them:

* :data:`SCALING_METHODS`: RoPE scaling methods, keyed by :data:`helpers.scaling.ROPE_SCALING`'s keys, so
  ``"linear"`` is Position Interpolation everywhere: in the registry, in plots, in widgets, in the lab's results and
  in the notebooks. Each entry is written once, in its method's spec (``ScalingMethod.info`` in
  :mod:`helpers.scaling.registry`), and registered here when :mod:`helpers.scaling` is imported
  (:func:`register_scaling_method`): imports point down, from the registry to this module, never up.
* :data:`POSITIONAL_FAMILIES`: where position enters a transformer (added to the input, rotated into q and k, added
  to the scores, or nothing at all). Their keys are the lab's positional methods and the names in its results.

Adding a scaling method means: its function in a :mod:`helpers.scaling` module and its spec (with its
:class:`MethodInfo`) in :data:`helpers.scaling.registry.ROPE_SCALING`; the panels of notebooks 05 and 07, the lab's
evaluation and the per-method tests then include it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "POSITIONAL_FAMILIES",
    "SCALING_METHODS",
    "MethodInfo",
    "method_info",
    "method_style",
    "register_scaling_method",
]


@dataclass(frozen=True)
class MethodInfo:
    """How one method is named and drawn everywhere in the course."""

    label: str  # short human-readable name for legends and tables
    color: str  # a matplotlib colour
    linestyle: str  # a matplotlib line style
    description: str  # one line: what the method does
    paper: str  # the source (authors year, arXiv id), or "" for the baseline


#: RoPE scaling methods: registry key -> vocabulary. Filled by :func:`register_scaling_method` when
#: :mod:`helpers.scaling` is imported (each spec of :data:`helpers.scaling.ROPE_SCALING` carries its
#: :class:`MethodInfo`), in the registry's order. Empty until then: this module never imports the registry.
SCALING_METHODS: dict[str, MethodInfo] = {}

POSITIONAL_FAMILIES: dict[str, MethodInfo] = {
    "nope": MethodInfo(
        "no encoding (NoPE)",
        "tab:blue",
        "-",
        "no positional signal; a causal mask still leaks order",
        "Kazemnejad et al. 2023, arXiv 2305.19466",
    ),
    "sinusoidal": MethodInfo(
        "sinusoidal",
        "teal",
        "-",
        "fixed sin/cos table added to the token embeddings",
        "Vaswani et al. 2017, arXiv 1706.03762",
    ),
    "learned": MethodInfo(
        "learned table",
        "tab:gray",
        "-",
        "a trainable table of L rows added to the token embeddings",
        "Devlin et al. 2018",
    ),
    "rope": MethodInfo(
        "RoPE", "black", "-", "q and k rotated by angles proportional to position", "Su et al. 2021, arXiv 2104.09864"
    ),
    "alibi": MethodInfo(
        "ALiBi",
        "goldenrod",
        "-",
        "a per-head linear penalty on distance added to the scores",
        "Press et al. 2022, arXiv 2108.12409",
    ),
    "t5_bias": MethodInfo(
        "T5 relative bias",
        "slateblue",
        "-",
        "a learned per-head bias over log-spaced distance buckets added to the scores",
        "Raffel et al. 2020, arXiv 1910.10683",
    ),
    "conv_nope": MethodInfo(
        "short conv + NoPE attention",
        "darkgreen",
        "--",
        "NoPE attention whose queries and keys first pass a causal depthwise convolution of kernel 4",
        "the short convolution of Kimi Linear (arXiv 2510.26692), Jamba, Nemotron-H, Granite 4.0-H",
    ),
    "irope": MethodInfo(
        "iRoPE (RoPE / NoPE layers)",
        "deepskyblue",
        "--",
        "RoPE on some layers, no positional encoding on the others",
        "Meta 2025, Llama 4 (iRoPE)",
    ),
    "irope_temp": MethodInfo(
        "iRoPE + query temperature",
        "mediumblue",
        "--",
        "iRoPE whose NoPE layers scale the queries by 1 + α·ln(1 + ⌊(m + 1)/F⌋)",
        "Meta 2025, Llama 4; Nakanishi 2025, arXiv 2501.19399",
    ),
    "local_global": MethodInfo(
        "local (small base) / global (large base)",
        "chocolate",
        "--",
        "sliding-window layers with a small RoPE base beside full-attention layers with a large one",
        "Gemma Team 2025, arXiv 2503.19786",
    ),
}


def register_scaling_method(name: str, info: MethodInfo) -> None:
    """Add scaling method ``name``'s vocabulary to :data:`SCALING_METHODS` (called by :mod:`helpers.scaling.registry`
    for every spec it holds). A name that is a positional family, or is already registered with another entry,
    raises."""
    if not isinstance(name, str) or not isinstance(info, MethodInfo):
        raise TypeError(f"register_scaling_method takes a name (str) and a MethodInfo, got {name!r} and {info!r}")
    if name in POSITIONAL_FAMILIES:
        raise ValueError(f"{name!r} is a positional family; a scaling method needs another name")
    if SCALING_METHODS.get(name, info) != info:
        raise ValueError(f"scaling method {name!r} is already registered as {SCALING_METHODS[name]}")
    SCALING_METHODS[name] = info


def method_info(name: str) -> MethodInfo:
    """The entry of ``name`` in :data:`SCALING_METHODS` or :data:`POSITIONAL_FAMILIES` (scaling first)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a method identifier (str), got {type(name).__name__}")
    for table in (SCALING_METHODS, POSITIONAL_FAMILIES):
        if name in table:
            return table[name]
    known = sorted({*SCALING_METHODS, *POSITIONAL_FAMILIES})
    hint = "" if SCALING_METHODS else " (scaling methods are registered when helpers.scaling is imported)"
    raise ValueError(f"unknown method {name!r}; known methods: {known}{hint}")


def method_style(name: str) -> dict[str, str]:
    """Matplotlib keyword arguments (``color``, ``ls``, ``label``) for drawing ``name``."""
    info = method_info(name)
    return {"color": info.color, "ls": info.linestyle, "label": info.label}
