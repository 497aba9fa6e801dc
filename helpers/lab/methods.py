"""The lab's evaluation methods: which checkpoint, and how RoPE is scaled at evaluation length T.

Every identifier is built from :mod:`helpers.methods` (the course's one vocabulary), and so are labels and colours:

==========================  ==================  ===============================================================
method                      checkpoint          at evaluation length T (s = T/L, L = the training length)
==========================  ==================  ===============================================================
every family but rope      the family's own    the family as trained (the learned table cannot run past its
(``positional.FAMILIES``)                       2L rows; the others run at any T with nothing changed)
rope+default                rope                plain RoPE: θ_i unchanged (extrapolation)
rope+linear                 rope                zero-shot Position Interpolation ``{"rope_type": "linear", "factor": s}``
rope+ntk                    rope                zero-shot static NTK-aware ``{"rope_type": "ntk", "factor": s}``
rope+dynamic                rope                zero-shot dynamic NTK ``{"rope_type": "dynamic", "factor": 1}``, run as
                                                generation with a KV cache (``rope+dynamic_onepass``: HF's one pass)
rope+yarn                   rope                zero-shot YaRN ``{"rope_type": "yarn", "factor": s, ...}``
rope+default_window         rope                a baseline, not a method: plain RoPE on independent L-token
                                                windows (passkey: only the last L tokens are seen)
rope+linear_ft              rope+linear_ft      fine-tuned 400 steps at 4L with PI s = 4; always runs with s = 4
rope+yarn_ft                rope+yarn_ft        fine-tuned 400 steps at 4L with YaRN s = 4; always runs with s = 4
hybrids (group ``hybrid``)  the family's own    as trained, at any T (:data:`HYBRID_METHODS`; not in :data:`METHODS`,
                                                the shipped grid: evaluated on request, ``--methods irope ...``)
==========================  ==================  ===============================================================

Zero-shot methods use s = max(1, T/L), so at T = L every one of them is plain RoPE.
"""

from __future__ import annotations

import dataclasses

from helpers.lab.hybrids import FAMILIES  # every family, the hybrids included
from helpers.methods import POSITIONAL_FAMILIES, SCALING_METHODS
from helpers.scaling import ROPE_SCALING, scaling_config

__all__ = [
    "ABLATIONS",
    "ALL_METHODS",
    "GROUPS",
    "HYBRIDS",
    "HYBRID_METHODS",
    "LR_SWEEP",
    "MAIN",
    "METHODS",
    "REMAPS",
    "REMAP_METHODS",
    "VARIANTS",
    "LabMethod",
    "lab_method",
    "rope_scaling_for",
]


#: Zero-shot variants of a scaling method (the ablations), each changing one thing of the method's HF-style dict.
VARIANTS = {
    "no_temperature": "YaRN without its attention temperature: attention_factor 1 (HF's ``attention_factor`` key)",
    "alpha2s": "NTK-aware with α = 2s instead of α = s for T > L (YaRN paper §3.1: NTK-aware needs α above L'/L)",
    "onepass": "dynamic NTK as HF scores a whole sequence in one call: one scale s = T/L for every position",
    "dca": "plain RoPE's frequencies with Dual Chunk Attention: positions remapped per chunk relation, chunk L, local "
    "window L/32, vLLM's logit factor past L (helpers.lab.dual_chunk)",
}


#: Where a method is listed: the main comparison, the ablations and protocols, the fine-tunes' learning-rate sweep,
#: the hybrid families (trained and evaluated on request, not shipped), the zero-shot methods that remap positions
#: in the attention instead of scaling frequencies (Dual Chunk Attention; evaluated on request).
GROUPS = ("main", "ablation", "sweep", "hybrid", "remap")

#: Colours of the fine-tuned models: darker shades of PI's orange and YaRN's purple.
FINE_TUNE_COLORS = {"linear": "#8c3b00", "yarn": "#3b1f6b"}


@dataclasses.dataclass(frozen=True)
class LabMethod:
    """One evaluation method of the lab.

    ``family``: a key of :data:`helpers.methods.POSITIONAL_FAMILIES`. ``scaling``: a key of
    :data:`helpers.methods.SCALING_METHODS` (RoPE methods only, else None). ``finetune``: the checkpoint was
    fine-tuned with that scaling (it then always runs with its own dict); ``lr``: the fine-tune's learning rate when
    it is not the shipped recipe's (the sweep). ``window``: the L-token-window baseline. ``variant``: a key of
    :data:`VARIANTS` (an ablation or a protocol of a zero-shot method). ``group``: where the tables list it, one of
    :data:`GROUPS` (not part of its identity: left out of :meth:`to_dict`). ``compared_with``: the method an
    ablation is set beside in the tables (required in group "ablation"; not part of its identity either).
    """

    family: str
    scaling: str | None = None
    finetune: bool = False
    window: bool = False
    variant: str | None = None
    lr: str | None = None
    group: str = dataclasses.field(default="main", compare=False)
    compared_with: str | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.group not in GROUPS:
            raise ValueError(f"group must be one of {GROUPS}, got {self.group!r}")
        if self.group == "ablation" and self.compared_with is None:
            raise ValueError(
                f"{self.name}: an ablation needs compared_with, the lab method the tables set it beside "
                "(for a registry method with lab='ablation': an entry in helpers.lab.methods._ABLATION_OF)"
            )

    @property
    def name(self) -> str:
        if self.scaling is None:
            return self.family
        suffix = "_ft" if self.finetune else "_window" if self.window else ""
        suffix += f"_lr{self.lr}" if self.lr else ""
        suffix += f"_{self.variant}" if self.variant else ""
        return f"{self.family}+{self.scaling}{suffix}"

    @property
    def checkpoint(self) -> str:
        """The model at scale ``tiny`` (a key of :data:`helpers.lab.checkpoints.RECIPES`) this method evaluates;
        at another scale it is ``<scale>/<checkpoint>``."""
        return self.name if self.finetune else self.family

    @property
    def reads_length(self) -> bool:
        """Whether its scaling reads the current length (:attr:`ScalingMethod.reads_length`, e.g. dynamic NTK)."""
        return self.scaling is not None and ROPE_SCALING[self.scaling].reads_length

    @property
    def zero_shot(self) -> bool:
        return self.family == "rope" and not self.finetune and not self.window

    @property
    def label(self) -> str:
        if self.scaling is None:
            return POSITIONAL_FAMILIES[self.family].label
        base = SCALING_METHODS[self.scaling].label
        if self.finetune:
            return f"{base} fine-tuned (s=4" + (f", lr {self.lr})" if self.lr else ")")
        if self.window:
            return f"{base}, L-token windows"
        extra = {
            "no_temperature": ", no temperature",
            "alpha2s": ", α = 2s",
            "onepass": ", one pass",
            "dca": " + Dual Chunk Attention",
        }.get(self.variant, ", KV cache" if self.reads_length else "")
        return base + extra if self.scaling == "default" else f"{base}{extra} zero-shot"

    @property
    def color(self) -> str:
        if self.window:
            return "0.6"
        if self.finetune:  # a darker shade of the method's colour, so a fine-tune never shares its zero-shot colour
            return FINE_TUNE_COLORS.get(self.scaling, "0.3")
        return (POSITIONAL_FAMILIES[self.family] if self.scaling is None else SCALING_METHODS[self.scaling]).color

    @property
    def linestyle(self) -> str:
        if self.window:
            return ":"
        if self.finetune:
            return "--" if self.lr is None else ":"
        if self.variant:
            return "-."
        return "-"

    def style(self) -> dict[str, str]:
        """Matplotlib keywords: ``color``, ``ls``, ``label``."""
        return {"color": self.color, "ls": self.linestyle, "label": self.label}

    def to_dict(self) -> dict:
        fields = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("group", "compared_with")}
        return {"name": self.name, **fields, "checkpoint": self.checkpoint, "label": self.label}


#: Lab entries that go with a registry method: plain RoPE's L-token-window baseline (in the main comparison) and the
#: zero-shot variants (ablations), each listed right after its method.
_COMPANIONS: dict[str, dict[str, tuple[LabMethod, ...]]] = {
    "main": {"default": (LabMethod("rope", "default", window=True),)},
    "ablation": {
        m: (LabMethod("rope", m, variant=v, group="ablation", compared_with=f"rope+{m}"),)
        for m, v in (("ntk", "alpha2s"), ("dynamic", "onepass"), ("yarn", "no_temperature"))
    },
}

#: The registry's ablation methods (``lab="ablation"``) and the method each one changes, which the tables set it
#: beside (``LabMethod.compared_with``): a new ablation without an entry here is refused at import.
_ABLATION_OF = {"linear_keep_fast": "linear", "yarn_paper": "yarn", "llama3": "yarn"}


def _zero_shot(group: str) -> tuple[LabMethod, ...]:
    """The registry's methods the lab runs zero-shot in ``group`` (their spec's ``lab`` field), in the registry's
    order, each followed by its companions."""
    out: list[LabMethod] = []
    for name, spec in ROPE_SCALING.items():
        if spec.lab == group:
            ref = _ABLATION_OF.get(name) if group == "ablation" else None
            out.append(LabMethod("rope", name, group=group, compared_with=ref and f"rope+{ref}"))
        out += _COMPANIONS[group].get(name, ())
    return tuple(out)


#: Every family of group "main" but RoPE, as trained (from the family registry, in the vocabulary's order).
_FAMILIES = tuple(LabMethod(family) for family, cls in FAMILIES.items() if family != "rope" and cls.group == "main")
_FINE_TUNES = (LabMethod("rope", "linear", finetune=True), LabMethod("rope", "yarn", finetune=True))
_SWEEP = tuple(
    LabMethod("rope", scaling, finetune=True, lr=lr, group="sweep")
    for scaling in ("linear", "yarn")
    for lr in ("3e-4", "1e-4")
)

METHODS: dict[str, LabMethod] = {
    m.name: m for m in (*_FAMILIES, *_zero_shot("main"), *_FINE_TUNES, *_zero_shot("ablation"), *_SWEEP)
}
#: The main comparison (the tables docs/lab-results.md and notebook 05b show first).
MAIN = tuple(name for name, m in METHODS.items() if m.group == "main")
#: The ablations and protocol variants of zero-shot methods.
ABLATIONS = tuple(name for name, m in METHODS.items() if m.group == "ablation")
#: The fine-tunes at every learning rate of the sweep (the shipped ones included).
LR_SWEEP = tuple(name for name, m in METHODS.items() if m.finetune)
#: The zero-shot RoPE methods, in the order tables list them.
ZERO_SHOT = tuple(name for name in MAIN if METHODS[name].zero_shot)
#: Families other than RoPE.
OTHER_FAMILIES = tuple(name for name, m in METHODS.items() if m.scaling is None)
FINE_TUNED = tuple(name for name in MAIN if METHODS[name].finetune)
#: The hybrid families, as trained (group "hybrid"): evaluated only when asked for, since their checkpoints do not ship.
HYBRID_METHODS: dict[str, LabMethod] = {
    family: LabMethod(family, group="hybrid") for family, cls in FAMILIES.items() if cls.group == "hybrid"
}
HYBRIDS = tuple(HYBRID_METHODS)
#: Zero-shot methods that remap positions in the attention (group "remap"): evaluated only when asked for
#: (``--methods rope+default_dca``), beside the zero-shot scalings on the same RoPE checkpoints.
REMAP_METHODS: dict[str, LabMethod] = {m.name: m for m in (LabMethod("rope", "default", variant="dca", group="remap"),)}
REMAPS = tuple(REMAP_METHODS)
#: Every lab method: the shipped grid's, the hybrids', the remappings' (the order of records and the names the CLI
#: accepts).
ALL_METHODS: dict[str, LabMethod] = {**METHODS, **HYBRID_METHODS, **REMAP_METHODS}


def lab_method(name: str) -> LabMethod:
    """The :class:`LabMethod` called ``name`` (a key of :data:`ALL_METHODS`: :data:`METHODS` or a hybrid)."""
    if not isinstance(name, str) or name not in ALL_METHODS:
        raise ValueError(f"method must be one of {list(ALL_METHODS)}, got {name!r}")
    return ALL_METHODS[name]


def rope_scaling_for(
    method: str, length: int, train_len: int, trained_scaling: dict | None = None, *, keep_pairs: int = 1
) -> dict | None:
    """The HF-style scaling dict ``method`` uses at evaluation length T (None = plain RoPE, or not a RoPE model).

    ``trained_scaling``: the fine-tuned checkpoint's own dict (fine-tuned methods return it unchanged).
    ``keep_pairs``: how many of the fastest pairs a method with that knob (``linear_keep_fast``) leaves unchanged
    (the lab passes the number YaRN keeps at that scale). The dict is :func:`helpers.scaling.scaling_config`'s at
    s = max(1, T/L): ``dynamic`` gets factor 1 (the YaRN paper's s = max(1, l/L)); its protocol variants change how
    it is run, not the dict.
    """
    spec = lab_method(method)
    if spec.family != "rope" or spec.window or spec.scaling == "default":
        return None
    if spec.finetune:
        return trained_scaling
    factor = max(1.0, length / train_len)
    if spec.variant == "alpha2s" and length > train_len:
        factor *= 2
    params = ROPE_SCALING[spec.scaling].knob_params({"keep_pairs": keep_pairs})
    if spec.variant == "no_temperature":
        params["attention_factor"] = 1.0
    return scaling_config(spec.scaling, factor, train_len, **params)
