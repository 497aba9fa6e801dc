"""The course's one vocabulary: every method's identifier, label, colour, line style, description and paper.

Two tables, both plain data (no torch, no matplotlib), so that every layer can import them:

* :data:`SCALING_METHODS`: RoPE length-extension methods. Their keys are exactly the keys of
  :data:`helpers.scaling.ROPE_SCALING` (a test checks it), so ``"linear"`` is Position Interpolation everywhere: in the
  registry, in plots, in widgets, in the lab's results and in the notebooks.
* :data:`POSITIONAL_FAMILIES`: where position enters a transformer (added to the input, rotated into q and k, added
  to the scores, or nothing at all). Their keys are the lab's positional methods and the names in its results.

Adding a scaling method means: its function in a :mod:`helpers.scaling` module, its spec in
:data:`helpers.scaling.registry.ROPE_SCALING` (which panels show it, the lab's group), one line here; the panels of
notebooks 05 and 07, the lab's evaluation and the per-method tests then include it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["POSITIONAL_FAMILIES", "SCALING_METHODS", "MethodInfo", "method_info", "method_style"]


@dataclass(frozen=True)
class MethodInfo:
    """How one method is named and drawn everywhere in the course."""

    label: str  # short human-readable name for legends and tables
    color: str  # a matplotlib colour
    linestyle: str  # a matplotlib line style
    description: str  # one line: what the method does
    paper: str  # the source (authors year, arXiv id), or "" for the baseline


SCALING_METHODS: dict[str, MethodInfo] = {
    "default": MethodInfo(
        "plain RoPE", "black", "-", "θ_i = b^(−2i/D) unchanged: extrapolate past L", "Su et al. 2021, arXiv 2104.09864"
    ),
    "linear": MethodInfo(
        "PI", "tab:orange", "-", "Position Interpolation: every θ_i divided by s", "Chen et al. 2023, arXiv 2306.15595"
    ),
    "linear_keep_fast": MethodInfo(
        "PI, fast pairs kept",
        "tab:orange",
        ":",
        "ablation: PI on every pair except the keep_pairs fastest, which stay unchanged",
        "ablation of Chen et al. 2023, arXiv 2306.15595",
    ),
    "ntk": MethodInfo(
        "NTK-aware",
        "tab:green",
        "-",
        "static NTK-aware: base b·α^(D/(D−2)); pair 0 unchanged, slowest pair slowed by α",
        "bloc97 2023 (Reddit r/LocalLLaMA); Peng et al. 2023, arXiv 2309.00071 §3.1",
    ),
    "ntk_chapter": MethodInfo(
        "chapter's NTK (b·s)",
        "tab:red",
        ":",
        "the source chapter's approximation: base b·s (errata E4)",
        "source chapter",
    ),
    "dynamic": MethodInfo(
        "dynamic NTK",
        "tab:olive",
        "--",
        "NTK-aware with the scale recomputed from the current length (HF's formula)",
        "emozilla 2023 (Reddit r/LocalLLaMA); HF transformers",
    ),
    "yarn": MethodInfo(
        "YaRN",
        "tab:purple",
        "-",
        "NTK-by-parts (ramp in the pair index, as the released code) + attention temperature 0.1·ln s + 1",
        "Peng et al. 2023, arXiv 2309.00071",
    ),
    "yarn_paper": MethodInfo(
        "YaRN (paper ramp)",
        "tab:pink",
        "--",
        "YaRN with the paper's ramp, linear in r = L/λ",
        "Peng et al. 2023, arXiv 2309.00071 §3.2",
    ),
    "llama3": MethodInfo(
        "Llama 3.1",
        "tab:brown",
        "-.",
        "wavelength thresholds: fast pairs kept, slow pairs divided by s, smooth blend between",
        "Meta 2024, arXiv 2407.21783",
    ),
    "longrope": MethodInfo(
        "LongRoPE",
        "tab:cyan",
        "-.",
        "searched per-pair factors (short and long lists) + attention factor",
        "Ding et al. 2024, arXiv 2402.13753",
    ),
}

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
}


def method_info(name: str) -> MethodInfo:
    """The entry of ``name`` in :data:`SCALING_METHODS` or :data:`POSITIONAL_FAMILIES` (scaling first)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a method identifier (str), got {type(name).__name__}")
    for table in (SCALING_METHODS, POSITIONAL_FAMILIES):
        if name in table:
            return table[name]
    known = sorted({*SCALING_METHODS, *POSITIONAL_FAMILIES})
    raise ValueError(f"unknown method {name!r}; known methods: {known}")


def method_style(name: str) -> dict[str, str]:
    """Matplotlib keyword arguments (``color``, ``ls``, ``label``) for drawing ``name``."""
    info = method_info(name)
    return {"color": info.color, "ls": info.linestyle, "label": info.label}
