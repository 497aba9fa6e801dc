"""The registry of RoPE scaling methods: one :class:`ScalingMethod` spec per method, and the one config builder.

A spec holds what the rest of the course needs to know about a method, so that no other module keeps a list of
method names:

* its function (``fn(dim, base, **params) -> (inv_freq, attention_factor)``); the keys of a config it reads are the
  function's parameter names (:attr:`ScalingMethod.config_keys`), whether it reads the current length is whether it
  takes ``seq_len`` (:attr:`ScalingMethod.reads_length`);
* whether its numbers are HF transformers 5.24's (``hf``), whether its scale comes from the current length
  (``scale_from_length``), the keys HF requires written out (``hf_defaults``);
* where the course shows it: the panels of notebooks 05 and 07 (``panels``, keys of :data:`PANELS`, drawn in the
  registry's order) and the tiny-model lab's group (``lab``, one of :data:`LAB_GROUPS`);
* its label, colour, line style, description and paper (``info``, a :class:`helpers.methods.MethodInfo`): the
  course's vocabulary for the method. Importing this module registers every spec's ``info`` in
  :data:`helpers.methods.SCALING_METHODS`, so :func:`helpers.methods.method_info` finds it; the vocabulary module
  stays plain data below every layer and never imports the registry.

:func:`scaling_config` builds a method's HF-style dict for a (factor, train length) pair; the lab, the real model
and notebook 05's comparison all call it. Adding a method: its function (in :mod:`~helpers.scaling.pi_ntk` or
:mod:`~helpers.scaling.by_parts`) and one spec in :data:`ROPE_SCALING` here; the panels it names, the lab's group,
notebook 07's list and the per-method tests then include it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from helpers._checks import check_choice
from helpers.methods import MethodInfo, register_scaling_method
from helpers.scaling._args import ScalingResult, check_factor, check_length
from helpers.scaling.by_parts import (
    llama3_inv_freq,
    longrope_inv_freq,
    yarn_inv_freq,
    yarn_paper_inv_freq,
)
from helpers.scaling.pi_ntk import (
    default_inv_freq,
    dynamic_ntk_inv_freq,
    linear_inv_freq,
    linear_keep_fast_inv_freq,
    ntk_alpha_inv_freq,
    ntk_chapter_inv_freq,
    ntk_inv_freq,
    proportional_inv_freq,
)

__all__ = [
    "CALLER_KEYS",
    "HF_ROPE_TYPES",
    "LAB_GROUPS",
    "PANELS",
    "ROPE_SCALING",
    "ScalingMethod",
    "methods_in",
    "scaling_config",
]

#: Where the course shows scaling methods; a spec's ``panels`` names some of these.
PANELS: dict[str, str] = {
    "slowdown": "notebook 05 §3: per-pair slowdown θ_i/θ′_i (helpers.plots.extension.Slowdown)",
    "yarn": "notebook 05 §5: θ′/θ of the methods YaRN is compared with (helpers.widgets.extension.YarnView)",
    "compare": "notebook 05 §7: θ′/θ and score of every method, one chosen (helpers.widgets.extension.METHODS_SHOWN)",
    "grid": "notebook 05 §7: small multiples, one column per method (helpers.plots.extension.GRID_METHODS)",
    "table": "notebook 05 §7: the printed table of θ′/θ per method and its checks",
    "real": "notebook 07: the methods measured on SmolLM2-135M (helpers.real.model.EVAL_METHODS)",
}

#: The tiny-model lab's groups for a method it runs zero-shot: the main comparison, or the ablations.
LAB_GROUPS: tuple[str, ...] = ("main", "ablation")

#: Arguments supplied by the caller (model-level values), not by a ``rope_scaling`` dict.
CALLER_KEYS = frozenset({"max_position_embeddings", "seq_len"})

# The keys a (factor, train length) pair determines.
_FROM_FACTOR_AND_LENGTH = frozenset({"factor", "original_max_position_embeddings"})


@functools.cache
def _signature_parameters(fn: Callable) -> tuple[inspect.Parameter, ...]:
    """``fn``'s parameters, read once (the panels ask for them on every slider move)."""
    return tuple(inspect.signature(fn).parameters.values())


@dataclass(frozen=True)
class ScalingMethod:
    """One RoPE scaling method: its function and what the course needs to configure, compare and show it.

    ``name``: the registry key (HF's ``rope_type`` where HF has the method). ``fn``: ``fn(dim, base, **params)``.
    ``info``: its label, colour, line style, description and paper (the course's vocabulary).
    ``hf``: its numbers are HF transformers 5.24's (the tests cross-check them). ``scale_from_length``: the
    method sets its scale from the current length l, so :func:`scaling_config` gives it factor 1 (dynamic NTK).
    ``hf_defaults``: keys HF 5.24 requires in the dict beyond factor and L, with the values the course uses (they
    equal the function's defaults). ``knobs``: course-wide setting names -> this method's parameter (``beta_fast``:
    the turns above which a pair is kept; ``keep_pairs``: how many fastest pairs are kept). ``panels``: keys of
    :data:`PANELS` (none: no panel shows it, as for a method that is not a length extension). ``lab``: a key of
    :data:`LAB_GROUPS`, or None if the lab does not run it zero-shot.
    """

    name: str
    fn: Callable[..., ScalingResult]
    info: MethodInfo
    hf: bool = False
    scale_from_length: bool = False
    hf_defaults: Mapping[str, float] = field(default_factory=dict)
    knobs: Mapping[str, str] = field(default_factory=dict)
    panels: tuple[str, ...] = ()
    lab: str | None = None

    def __post_init__(self):
        params = list(inspect.signature(self.fn).parameters)
        if params[:2] != ["dim", "base"]:
            raise ValueError(f"{self.name}: a scaling function's first parameters are (dim, base), got {params[:2]}")
        unknown = sorted({*self.hf_defaults, *self.knobs.values()} - set(self.parameters))
        if unknown:
            raise ValueError(f"{self.name}: {unknown} are not parameters of {self.fn.__name__}")
        for panel in self.panels:
            check_choice(f"{self.name}: panel", panel, tuple(PANELS))
        if self.lab is not None:
            check_choice(f"{self.name}: lab", self.lab, LAB_GROUPS)

    def __call__(self, dim: int, base: float, **params) -> ScalingResult:
        """``fn(dim, base, **params)``: ``ROPE_SCALING[name](...)`` calls the method."""
        return self.fn(dim, base, **params)

    def knob_params(self, knobs: Mapping[str, float]) -> dict:
        """``{parameter: value}`` for the course-wide knobs this method has (``knobs``: knob name -> value)."""
        return {self.knobs[k]: v for k, v in knobs.items() if k in self.knobs}

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every parameter of the function after (dim, base)."""
        return tuple(p.name for p in _signature_parameters(self.fn))[2:]

    @property
    def required(self) -> tuple[str, ...]:
        """The parameters without a default."""
        params = _signature_parameters(self.fn)[2:]
        return tuple(p.name for p in params if p.default is inspect.Parameter.empty)

    @property
    def config_keys(self) -> tuple[str, ...]:
        """The keys of a ``rope_scaling`` dict the method reads (its parameters minus the caller's arguments)."""
        return tuple(p for p in self.parameters if p not in CALLER_KEYS)

    @property
    def reads_length(self) -> bool:
        """Whether the method reads the current length (``seq_len``): dynamic NTK, LongRoPE's list switch."""
        return "seq_len" in self.parameters

    @property
    def undetermined(self) -> tuple[str, ...]:
        """Required config keys a (factor, train length) pair does not determine (LongRoPE's searched lists)."""
        return tuple(sorted(set(self.required) - _FROM_FACTOR_AND_LENGTH - CALLER_KEYS))


ROPE_SCALING: dict[str, ScalingMethod] = {
    spec.name: spec
    for spec in (
        ScalingMethod(
            "default",
            default_inv_freq,
            MethodInfo(
                "plain RoPE",
                "black",
                "-",
                "θ_i = b^(−2i/D) unchanged: extrapolate past L",
                "Su et al. 2021, arXiv 2104.09864",
            ),
            hf=True,
            panels=("compare", "table", "real"),
            lab="main",
        ),
        ScalingMethod(
            "linear",
            linear_inv_freq,
            MethodInfo(
                "PI",
                "tab:orange",
                "-",
                "Position Interpolation: every θ_i divided by s",
                "Chen et al. 2023, arXiv 2306.15595",
            ),
            hf=True,
            panels=("slowdown", "yarn", "compare", "grid", "table", "real"),
            lab="main",
        ),
        ScalingMethod(
            "linear_keep_fast",
            linear_keep_fast_inv_freq,
            MethodInfo(
                "PI, fast pairs kept",
                "tab:orange",
                ":",
                "ablation: PI on every pair except the keep_pairs fastest, which stay unchanged",
                "ablation of Chen et al. 2023, arXiv 2306.15595",
            ),
            knobs={"keep_pairs": "keep_pairs"},
            lab="ablation",
        ),
        ScalingMethod(
            "ntk",
            ntk_inv_freq,
            MethodInfo(
                "NTK-aware",
                "tab:green",
                "-",
                "static NTK-aware: base b·α^(D/(D−2)); pair 0 unchanged, slowest pair slowed by α",
                "bloc97 2023 (Reddit r/LocalLLaMA); Peng et al. 2023, arXiv 2309.00071 §3.1",
            ),
            panels=("slowdown", "yarn", "compare", "grid", "table", "real"),
            lab="main",
        ),
        # Hunyuan's fixed-α base change: NTK-aware at s = α, but a model constant (HF: a model-local type, not in
        # ROPE_INIT_FUNCTIONS, so ``hf`` stays False; tests check it against HF's Hunyuan rotary class).
        ScalingMethod(
            "ntk_alpha",
            ntk_alpha_inv_freq,
            MethodInfo(
                "static NTK-α",
                "darkgreen",
                "-.",
                "NTK-aware base b·α^(D/(D−2)) with a fixed α from the config (Hunyuan), whatever the length",
                "Tencent Hunyuan (HF 5.24 HunYuanDenseV1RotaryEmbedding.compute_ntk_alpha_rope_parameters)",
            ),
        ),
        ScalingMethod(
            "ntk_chapter",
            ntk_chapter_inv_freq,
            MethodInfo(
                "chapter's NTK (b·s)",
                "tab:red",
                ":",
                "the source chapter's approximation: base b·s (errata E4)",
                "source chapter",
            ),
            panels=("slowdown", "compare", "table"),
        ),
        ScalingMethod(
            "dynamic",
            dynamic_ntk_inv_freq,
            MethodInfo(
                "dynamic NTK",
                "tab:olive",
                "--",
                "NTK-aware with the scale recomputed from the current length (HF's formula)",
                "emozilla 2023 (Reddit r/LocalLLaMA); HF transformers",
            ),
            hf=True,
            scale_from_length=True,
            panels=("table", "real"),
            lab="main",
        ),
        ScalingMethod(
            "yarn",
            yarn_inv_freq,
            MethodInfo(
                "YaRN",
                "tab:purple",
                "-",
                "NTK-by-parts (ramp in the pair index, as the released code) + attention temperature 0.1·ln s + 1",
                "Peng et al. 2023, arXiv 2309.00071",
            ),
            hf=True,
            knobs={"beta_fast": "beta_fast"},
            panels=("yarn", "compare", "grid", "table", "real"),
            lab="main",
        ),
        ScalingMethod(
            "yarn_paper",
            yarn_paper_inv_freq,
            MethodInfo(
                "YaRN (paper ramp)",
                "tab:pink",
                "--",
                "YaRN with the paper's ramp, linear in r = L/λ",
                "Peng et al. 2023, arXiv 2309.00071 §3.2",
            ),
            knobs={"beta_fast": "beta"},
            panels=("yarn", "compare", "table"),
            lab="ablation",
        ),
        ScalingMethod(
            "llama3",
            llama3_inv_freq,
            MethodInfo(
                "Llama 3.1",
                "tab:brown",
                "-.",
                "wavelength thresholds: fast pairs kept, slow pairs divided by s, smooth blend between",
                "Meta 2024, arXiv 2407.21783",
            ),
            hf=True,
            hf_defaults={"low_freq_factor": 1.0, "high_freq_factor": 4.0},
            panels=("compare", "grid", "table", "real"),
            lab="ablation",
        ),
        ScalingMethod(
            "longrope",
            longrope_inv_freq,
            MethodInfo(
                "LongRoPE",
                "tab:cyan",
                "-.",
                "searched per-pair factors (short and long lists) + attention factor",
                "Ding et al. 2024, arXiv 2402.13753",
            ),
            hf=True,
        ),
        # Not a length extension: how Gemma 4 builds its global layers (some pairs carry no position), so no
        # panel of notebook 05 or 07 shows it and the lab does not run it.
        ScalingMethod(
            "proportional",
            proportional_inv_freq,
            MethodInfo(
                "proportional RoPE",
                "tab:gray",
                "--",
                "the first p·D/2 pairs keep full RoPE's θ_i (exponent over the full D), the others θ = 0 (NoPE)",
                "Gemma 4 (google-deepmind/gemma); HF 5.24 _compute_proportional_rope_parameters",
            ),
            hf=True,
        ),
    )
}

for _spec in ROPE_SCALING.values():
    register_scaling_method(_spec.name, _spec.info)

#: The methods whose numbers match HF transformers 5.24 (``ROPE_INIT_FUNCTIONS`` plus Llama's default).
HF_ROPE_TYPES: tuple[str, ...] = tuple(name for name, spec in ROPE_SCALING.items() if spec.hf)


def methods_in(panel: str) -> tuple[str, ...]:
    """The registry keys shown in ``panel`` (a key of :data:`PANELS`), in the registry's order."""
    check_choice("panel", panel, tuple(PANELS))
    return tuple(name for name, spec in ROPE_SCALING.items() if panel in spec.panels)


def scaling_config(name: str, factor: float, train_len: int, *, hf: bool = False, **params) -> dict:
    """The HF-style dict of method ``name`` for running a model trained on L = ``train_len`` positions at s·L.

    ``{"rope_type": name, "factor": s, "original_max_position_embeddings": L, **params}``, each of factor and L only
    if the method reads it. A method whose scale comes from the current length (dynamic NTK) gets factor 1: its
    scale is then the YaRN paper's max(1, l/L) (§3.3), equal to NTK-aware at l = s·L. ``hf=True``: the dict as a
    model's config carries it for HF 5.24: factor s for every method (HF's dynamic s·l/L − (s − 1)) and the keys HF
    requires written out (``hf_defaults``: Llama 3.1's frequency factors 1 and 4).
    ``params``: more of the method's keys (``keep_pairs``, ``attention_factor``, ...); one it does not read raises.
    Raises if the method needs keys that (s, L) do not determine and ``params`` does not give (LongRoPE's lists).

    Turn the dict into frequencies with :func:`helpers.scaling.rope_parameters_from_config` (with
    max_position_embeddings = L and the current length as seq_len). Used by notebooks 05 and 07 and the lab.
    """
    spec = ROPE_SCALING[check_choice("method", name, tuple(ROPE_SCALING))]
    config: dict = {"rope_type": name}
    if "factor" in spec.parameters:
        factor = float(check_factor(factor))
        config["factor"] = 1.0 if spec.scale_from_length and not hf else factor
    if "original_max_position_embeddings" in spec.parameters:
        config["original_max_position_embeddings"] = int(check_length("train_len", train_len))
    if hf:
        config.update(spec.hf_defaults)
    unknown = sorted(set(params) - set(spec.config_keys))
    if unknown:
        raise ValueError(f"method {name!r} does not read {unknown}; its keys are {list(spec.config_keys)}")
    config.update(params)
    missing = [k for k in spec.undetermined if k not in config]
    if missing:
        raise ValueError(
            f"method {name!r} needs {missing}, which a (factor, train length) pair does not determine; pass them"
        )
    return config
