"""The lab's claims, declared once each as data (:class:`helpers.lab.finding_spec.Finding`): key, methods, the
per-seed numbers it reads, the predicate that must hold on a seed, the sentence, and (:data:`DIFFS`) the paired
differences it says are positive, whose intervals over seeds :mod:`helpers.lab.findings` reports.

In a template, ``{name}`` is that value per seed ("0.95 / 1.00 / 0.90"; past four seeds "mean 0.95 [0.80, 1.00]"), ``{seeds}`` the seed count ("on all 3
seeds", "on 2 of 3 seeds (not seed 1)"), ``{L2}`` is 2L. The papers' claims and the one-seed write-up's are set
beside the findings by key in :mod:`helpers.lab.results_md`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.lab.data import N_WORDS
from helpers.lab.finding_spec import (
    ACC,
    COPY_LEARNED_NATS,
    EARLY,
    FIRST_L,
    LATE,
    LISTED_SEEDS,
    LOSS,
    PAST_4L,
    PREV,
    TO_4L,
    Diff,
    Finding,
    Values,
    per_seed,
)
from helpers.lab.methods import HYBRIDS, lab_method

__all__ = ["DIFFS", "FINDINGS"]


# --------------------------------------------------------------------------- sentences that are not one template
def _yarn_passkey_values(used: list[str]) -> dict[str, tuple[str, str, int]]:
    return {f"{m}@{k}": (ACC, m, k) for m in used for k in (2, 4, 8)}


def _yarn_passkey_holds(v: Values) -> np.ndarray:
    others = sorted({key.split("@")[0] for key in v} - {"rope+yarn"})
    return np.all([v[f"rope+yarn@{k}"] >= v[f"{m}@{k}"] for m in others for k in (2, 4, 8)], axis=0)


def _yarn_passkey_text(_: dict, v: Values, seeds: list[int], __: list[int]) -> str:
    if len(seeds) > LISTED_SEEDS:  # mean [min, max] over the seeds at each length
        by_seed = " / ".join(per_seed(v[f"rope+yarn@{k}"]) for k in (2, 4, 8))
    else:
        by_seed = "; ".join(
            f"{per_seed([v[f'rope+yarn@{k}'][i] for k in (2, 4, 8)])} on seed {s}" for i, s in enumerate(seeds)
        )
    return (
        f"Zero-shot YaRN's passkey accuracy at 2L / 4L / 8L is {by_seed}; it is at least as good as plain RoPE, PI, "
        "NTK-aware and dynamic NTK (zero-shot) at every length > L {seeds}."
    )


def _ft_beyond_text(f: dict, v: Values, _: list[int], __: list[int]) -> str:
    neither = "; neither retrieves any" if not (v["a_y"].any() or v["a_p"].any()) else ""
    return (
        "At 8L, twice the fine-tuning length, fine-tuned YaRN has a lower loss than fine-tuned PI and retrieves "
        f"at least as many passkeys {{seeds}}: loss {f['l_y']} vs {f['l_p']} nats, passkey {f['a_y']} vs {f['a_p']}"
        f"{neither}."
    )


def _ft_lr_short_text(f: dict, _: Values, __: list[int], skipped: list[int]) -> str:
    left_out = (
        f" (left out: seed{'s' if len(skipped) > 1 else ''} {' and '.join(map(str, skipped))}, whose "
        "pre-trained model retrieved fewer than half of the passkeys at L, so fine-tuning had none to lose)"
        if skipped
        else ""
    )
    return (
        f"A ten times smaller fine-tuning rate (1e-4) does not bring the passkeys at T = L back {{seeds}}{left_out}: "
        f"PI {f['pi_lo']} (lr 1e-4) vs {f['pi_hi']} (lr 1e-3), YaRN {f['y_lo']} vs {f['y_hi']}; in 400 steps PI at "
        f"lr 1e-4 does not even adapt to s = 4 (loss at 4L {f['l_lo']} vs {f['l_hi']} nats)."
    )


def _family_findings() -> list[Finding]:
    """The per-family findings: a flat loss by position to 4L (ALiBi, NoPE, T5), ALiBi's local look past 4L, and each
    family against plain RoPE."""
    flat = [
        Finding(
            f"{fam}_flat",
            (fam,),
            {"l1": (LOSS, fam, 1), "first": (FIRST_L, fam, 8), "to4": (TO_4L, fam, 8), "past4": (PAST_4L, fam, 8)},
            lambda v: (v["to4"] <= v["first"] + 0.05) & (v["l1"] < COPY_LEARNED_NATS),
            f"{lab_method(fam).label}'s loss by position at 8L does not rise past L, out to 4L (positions L–4L "
            f"no more than 0.05 nats above the first L), in a model that learned the copy task (loss at L below "
            f"ln {N_WORDS} − 1 = {COPY_LEARNED_NATS:.2f} nats) {{seeds}}: {{first}} nats on the first L, "
            "{to4} on L–4L, {past4} on 4L–8L; loss at L {l1}.",
        )
        for fam in ("alibi", "nope", "t5_bias")
    ]
    alibi_local = Finding(
        "alibi_local_past_4L",
        ("alibi", "rope+yarn"),
        {"first": (FIRST_L, "alibi", 8), "past4": (PAST_4L, "alibi", 8), "yarn_past": (PAST_4L, "rope+yarn", 8)},
        lambda v: (v["past4"] > v["first"]) & (v["past4"] > v["yarn_past"] + 0.3),
        "Past 4L ALiBi looks locally: at 8L its loss on positions 4L–8L is above its loss on the first L and more "
        "than 0.3 nats above zero-shot YaRN's on the same positions {seeds} ({past4} against {first} on the first L "
        "and YaRN's {yarn_past}).",
    )
    versus_rope = [
        Finding(
            f"{fam}_family",
            (fam, "rope+default"),
            {**{f"a{k}": (ACC, fam, k) for k in (1, 2, 4, 8)}, **{f"l{k}": (LOSS, fam, k) for k in (1, 2, 4, 8)}}
            | {"rope8": (LOSS, "rope+default", 8)},
            lambda v: v["l8"] < v["rope8"],
            f"{lab_method(fam).label}: passkey {{a1}} → {{a2}} → {{a4}} → {{a8}} and loss {{l1}} → {{l2}} → {{l4}} → "
            "{l8} nats at L → 2L → 4L → 8L. Its 8L loss is below plain RoPE's ({rope8}) {seeds}.",
        )
        for fam in ("alibi", "t5_bias", "nope", "sinusoidal", *HYBRIDS)
    ]
    return [*flat, alibi_local, *versus_rope, *_hybrid_findings()]


def _hybrid_findings() -> list[Finding]:
    """The hybrids (issue 25): passkeys past L against plain RoPE's, and what Llama 4's query temperature changes.
    Judged only where the results hold the hybrids' records (the shipped results do not: these are then absent)."""
    passkey = [
        Finding(
            f"{fam}_passkey_past_L",
            (fam, "rope+default"),
            {f"a{k}": (ACC, fam, k) for k in (2, 4, 8)} | {f"r{k}": (ACC, "rope+default", k) for k in (2, 4, 8)},
            lambda v: v["a8"] > v["r8"],
            f"{lab_method(fam).label} retrieves more passkeys at 8L than plain RoPE {{seeds}}: {{a2}} / {{a4}} / "
            "{a8} at 2L / 4L / 8L against plain RoPE's {r2} / {r4} / {r8}.",
        )
        for fam in HYBRIDS
    ]
    temperature = Finding(
        "irope_temperature",
        ("irope_temp", "irope"),
        {
            "t8": (LOSS, "irope_temp", 8),
            "p8": (LOSS, "irope", 8),
            "ta8": (ACC, "irope_temp", 8),
            "pa8": (ACC, "irope", 8),
        },
        lambda v: v["t8"] < v["p8"],
        "Llama 4's query temperature in the NoPE layer lowers iRoPE's loss at 8L {seeds}: {t8} against {p8} nats "
        "(passkey at 8L {ta8} against {pa8}).",
    )
    return [*passkey, temperature]


# --------------------------------------------------------------------------- the findings, in the order they are listed
_DECLARED: tuple[Finding, ...] = (
    Finding(
        "rope_breaks",
        ("rope+default",),
        {
            "a1": (ACC, "rope+default", 1),
            "a4": (ACC, "rope+default", 4),
            "a8": (ACC, "rope+default", 8),
            "early": (EARLY, "rope+default", 8),
            "late": (LATE, "rope+default", 8),
        },
        lambda v: (v["a1"] >= 0.9) & (v["a4"] <= 0.1) & (v["a8"] <= 0.1) & (v["late"] > v["early"] + 1.0),
        "Plain RoPE breaks past L (at least 90 % of the passkeys at L, at most 10 % at 4L and 8L, and a loss more "
        "than 1 nat higher past L) {seeds}: passkey {a1} at L, {a4} at 4L and {a8} at 8L; at 8L its loss "
        "on positions ≥ L is {late} nats against {early} before L.",
    ),
    Finding(  # the papers' claim alone, without rope_breaks' condition on the passkeys at L
        "rope_fails_past_L",
        ("rope+default",),
        {
            "a4": (ACC, "rope+default", 4),
            "a8": (ACC, "rope+default", 8),
            "early": (EARLY, "rope+default", 8),
            "late": (LATE, "rope+default", 8),
        },
        lambda v: (v["a4"] <= 0.1) & (v["a8"] <= 0.1) & (v["late"] > v["early"] + 1.0),
        "Past L plain RoPE fails (at most 10 % of the passkeys at 4L and 8L, and a loss more than 1 nat higher past "
        "L) {seeds}: passkey {a4} at 4L and {a8} at 8L; at 8L its loss on positions ≥ L is {late} nats against "
        "{early} before L.",
    ),
    Finding(
        "learned_table",
        ("learned",),
        {"a1": (ACC, "learned", 1), "a2": (ACC, "learned", 2), "a4": (ACC, "learned", 4)},
        lambda v: (v["a2"] <= 0.1) & np.isnan(v["a4"]),
        "The learned table cannot run past its {L2} rows, and on its never-trained rows (2L) passkey falls from {a1} "
        "to {a2}: {seeds}.",
    ),
    Finding(
        "pi_zero_shot",
        ("rope+linear", "rope+default"),
        {
            "l_pi": (LOSS, "rope+linear", 2),
            "l_rope": (LOSS, "rope+default", 2),
            "p_pi": (PREV, "rope+linear", 2),
            "p_rope": (PREV, "rope+default", 2),
        },
        lambda v: (v["l_pi"] > v["l_rope"]) & (v["p_pi"] < 0.5 * v["p_rope"]),
        "Zero-shot PI is worse than doing nothing at 2L {seeds}: loss {l_pi} vs plain RoPE {l_rope} nats, and its "
        "previous-token head drops to {p_pi} (plain RoPE {p_rope}).",
    ),
    Finding(
        "loss_ranking",
        ("rope+yarn", "rope+ntk", "rope+default"),
        {"ly": (LOSS, "rope+yarn", 8), "ln": (LOSS, "rope+ntk", 8), "lr": (LOSS, "rope+default", 8)},
        lambda v: (v["ly"] < v["ln"]) & (v["ln"] < v["lr"]),
        "Zero-shot loss at 8L ranks YaRN < NTK-aware < plain RoPE {seeds}: {ly} < {ln} < {lr} nats.",
    ),
    Finding(
        "yarn_passkey",
        ("rope+yarn", "rope+ntk", "rope+default"),
        _yarn_passkey_values,
        _yarn_passkey_holds,
        _yarn_passkey_text,
        optional=("rope+linear", "rope+dynamic"),
    ),
    Finding(
        "yarn_passkey_8L",
        ("rope+yarn",),
        {"a8": (ACC, "rope+yarn", 8)},
        lambda v: v["a8"] >= 0.4,
        "Zero-shot YaRN still retrieves at least 40 % of the passkeys at 8L {seeds} ({a8}).",
    ),
    Finding(
        "ft_yarn_beats_pi",
        ("rope+linear_ft", "rope+yarn_ft"),
        {
            "l_y": (LOSS, "rope+yarn_ft", 4),
            "l_p": (LOSS, "rope+linear_ft", 4),
            "a_y": (ACC, "rope+yarn_ft", 4),
            "a_p": (ACC, "rope+linear_ft", 4),
        },
        lambda v: v["l_y"] < v["l_p"],
        "After the same 400-step fine-tune at 4L, YaRN has a lower loss than PI at 4L {seeds} ({l_y} vs {l_p} nats); "
        "passkey at 4L {a_y} vs {a_p}.",
    ),
    Finding(
        "ft_yarn_passkey_4L",
        ("rope+linear_ft", "rope+yarn_ft"),
        {"a_y": (ACC, "rope+yarn_ft", 4), "a_p": (ACC, "rope+linear_ft", 4)},
        lambda v: v["a_y"] >= v["a_p"],
        "Fine-tuned YaRN retrieves at least as many passkeys as fine-tuned PI at 4L {seeds}.",
    ),
    Finding(
        "ft_beyond_tuning",
        ("rope+linear_ft", "rope+yarn_ft"),
        {
            "l_y": (LOSS, "rope+yarn_ft", 8),
            "l_p": (LOSS, "rope+linear_ft", 8),
            "a_y": (ACC, "rope+yarn_ft", 8),
            "a_p": (ACC, "rope+linear_ft", 8),
        },
        lambda v: (v["l_y"] < v["l_p"]) & (v["a_y"] >= v["a_p"]),
        _ft_beyond_text,
    ),
    Finding(
        "ft_costs_short",
        ("rope+linear_ft", "rope+yarn_ft", "rope+default"),
        {"pi": (ACC, "rope+linear_ft", 1), "yarn": (ACC, "rope+yarn_ft", 1), "base": (ACC, "rope+default", 1)},
        lambda v: (v["pi"] < v["base"]) & (v["yarn"] < v["base"]),
        "Both fine-tunes (which run with s = 4 at every length) lose passkeys at T = L {seeds}: PI {pi}, YaRN {yarn}, "
        "against {base} before fine-tuning.",
    ),
    Finding(
        "ft_pi_fixes",
        ("rope+linear_ft", "rope+linear"),
        {"a_ft": (ACC, "rope+linear_ft", 4), "a_zs": (ACC, "rope+linear", 4)},
        lambda v: v["a_ft"] > v["a_zs"] + 0.5,
        "A 400-step PI fine-tune at 4L lifts passkey at 4L from {a_zs} (zero-shot PI) to {a_ft} {seeds}.",
    ),
    Finding(
        "nope_passkey_at_L",
        ("nope",),
        {"a1": (ACC, "nope", 1)},
        lambda v: v["a1"] >= 0.9,
        "NoPE retrieves the passkey at T = L {seeds} (accuracy {a1}).",
    ),
    Finding(
        "sinusoidal_no_passkey",
        ("sinusoidal",),
        {"a1": (ACC, "sinusoidal", 1)},
        lambda v: v["a1"] <= 0.05,
        "The sinusoidal model does not learn the passkey task (accuracy at most 0.05 at T = L) {seeds}: {a1}.",
    ),
    *_family_findings(),
    # No finding compares one method across lengths ("long context helps": loss at 2L below loss at L): the
    # documents differ per length, so such a comparison flips with the evaluation sample (eval_noise.json).
    # ----- ablations and protocols, at whichever scale they were evaluated
    Finding(
        "pi_keep_fast",
        ("rope+linear_keep_fast", "rope+linear"),
        {
            "a_k": (ACC, "rope+linear_keep_fast", 2),
            "a_p": (ACC, "rope+linear", 2),
            "l_k": (LOSS, "rope+linear_keep_fast", 2),
            "l_p": (LOSS, "rope+linear", 2),
        },
        lambda v: (v["a_k"] > v["a_p"]) & (v["l_k"] < v["l_p"]),
        "Zero-shot PI with the pairs YaRN keeps left unchanged beats plain PI at 2L {seeds}: passkey {a_k} vs {a_p}, "
        "loss {l_k} vs {l_p} nats.",
    ),
    Finding(
        "yarn_paper_ramp",
        ("rope+yarn_paper", "rope+yarn"),
        {
            "lp": (LOSS, "rope+yarn_paper", 8),
            "lc": (LOSS, "rope+yarn", 8),
            "ap": (ACC, "rope+yarn_paper", 2),
            "ac": (ACC, "rope+yarn", 2),
        },
        lambda v: v["lp"] > v["lc"] + 0.5,
        "YaRN with the paper's ramp is more than 0.5 nats worse than with the released code's ramp at 8L {seeds}: "
        "{lp} vs {lc} nats (passkey at 2L {ap} vs {ac}).",
    ),
    Finding(
        "ntk_alpha2s",
        ("rope+ntk_alpha2s", "rope+ntk"),
        {
            "l2": (LOSS, "rope+ntk_alpha2s", 8),
            "l1": (LOSS, "rope+ntk", 8),
            "a2": (ACC, "rope+ntk_alpha2s", 8),
            "a1": (ACC, "rope+ntk", 8),
        },
        lambda v: v["l2"] < v["l1"],
        "NTK-aware with α = 2s has a lower loss at 8L than with α = s {seeds}: {l2} vs {l1} nats; passkey at 8L {a2} "
        "vs {a1}.",
    ),
    Finding(
        "yarn_temperature",
        ("rope+yarn_no_temperature", "rope+yarn"),
        {"with": (LOSS, "rope+yarn", 8), "without": (LOSS, "rope+yarn_no_temperature", 8)},
        lambda v: v["with"] < v["without"],
        "YaRN's attention temperature lowers the mean loss at 8L {seeds}: {with} with it, {without} without (nats).",
    ),
    Finding(
        "yarn_temperature_early",
        ("rope+yarn_no_temperature", "rope+yarn"),
        {"with": (EARLY, "rope+yarn", 8), "without": (EARLY, "rope+yarn_no_temperature", 8)},
        lambda v: v["with"] > v["without"],
        "On the first L positions of the same 8L sequences the temperature raises the loss {seeds}: {with} with it, "
        "{without} without.",
    ),
    Finding(
        "dynamic_kv_cache",
        ("rope+dynamic", "rope+dynamic_onepass"),
        {
            "lk": (LOSS, "rope+dynamic", 8),
            "lo": (LOSS, "rope+dynamic_onepass", 8),
            "ak": (ACC, "rope+dynamic", 8),
            "ao": (ACC, "rope+dynamic_onepass", 8),
            "ek": (EARLY, "rope+dynamic", 8),
            "eo": (EARLY, "rope+dynamic_onepass", 8),
        },
        lambda v: v["ak"] <= v["ao"],
        "Dynamic NTK run as generation with a KV cache (stale keys) retrieves no more passkeys at 8L than the same "
        "method scored in one pass {seeds}: {ak} vs {ao}; mean loss at 8L {lk} vs {lo} nats, and on the first L "
        "positions {ek} (KV cache = plain RoPE there) vs {eo} (one pass).",
    ),
    Finding(  # "bring back" needs passkeys to lose: only the seeds whose pre-trained model retrieved them at L
        "ft_lr_short",
        ("rope+default", "rope+linear_ft", "rope+yarn_ft", "rope+linear_ft_lr1e-4", "rope+yarn_ft_lr1e-4"),
        {
            "pi_hi": (ACC, "rope+linear_ft", 1),
            "y_hi": (ACC, "rope+yarn_ft", 1),
            "pi_lo": (ACC, "rope+linear_ft_lr1e-4", 1),
            "y_lo": (ACC, "rope+yarn_ft_lr1e-4", 1),
            "l_lo": (LOSS, "rope+linear_ft_lr1e-4", 4),
            "l_hi": (LOSS, "rope+linear_ft", 4),
        },
        lambda v: (v["pi_lo"] <= v["pi_hi"]) & (v["y_lo"] <= v["y_hi"]),
        _ft_lr_short_text,
        only_if=(ACC, "rope+default", 1, 0.5),
    ),
    Finding(
        "llama3_vs_yarn",
        ("rope+llama3", "rope+yarn"),
        {"l3": (LOSS, "rope+llama3", 8), "ly": (LOSS, "rope+yarn", 8)},
        lambda v: v["l3"] > v["ly"],
        "Zero-shot, Llama 3.1's thresholds lose to YaRN at 8L {seeds}: {l3} vs {ly} nats (Llama 3.1 was released "
        "with long-context continued pre-training, not for zero-shot use).",
    ),
)


#: Per finding: the paired differences it claims are positive on every seed (its predicate, up to ties).
DIFFS: dict[str, tuple[Diff, ...]] = {
    "rope_breaks": (Diff("a1", 0.9), Diff(0.1, "a4"), Diff(0.1, "a8"), Diff("late", "early", 1.0)),
    "rope_fails_past_L": (Diff(0.1, "a4"), Diff(0.1, "a8"), Diff("late", "early", 1.0)),
    "pi_zero_shot": (Diff("l_pi", "l_rope"), Diff("p_rope", "p_pi", factor=2.0)),
    "loss_ranking": (Diff("ln", "ly"), Diff("lr", "ln")),
    "yarn_passkey_8L": (Diff("a8", 0.4),),
    "ft_yarn_beats_pi": (Diff("l_p", "l_y"),),
    "ft_yarn_passkey_4L": (Diff("a_y", "a_p"),),
    "ft_beyond_tuning": (Diff("l_p", "l_y"), Diff("a_y", "a_p")),
    "ft_costs_short": (Diff("base", "pi"), Diff("base", "yarn")),
    "ft_pi_fixes": (Diff("a_ft", "a_zs", 0.5),),
    "nope_passkey_at_L": (Diff("a1", 0.9),),
    "sinusoidal_no_passkey": (Diff(0.05, "a1"),),
    **{
        f"{fam}_flat": (Diff("first", "to4", -0.05), Diff(COPY_LEARNED_NATS, "l1"))
        for fam in ("alibi", "nope", "t5_bias")
    },
    "alibi_local_past_4L": (Diff("past4", "first"), Diff("past4", "yarn_past", 0.3)),
    **{f"{fam}_family": (Diff("rope8", "l8"),) for fam in ("alibi", "t5_bias", "nope", "sinusoidal", *HYBRIDS)},
    **{f"{fam}_passkey_past_L": (Diff("a8", "r8"),) for fam in HYBRIDS},
    "irope_temperature": (Diff("p8", "t8"),),
    "pi_keep_fast": (Diff("a_k", "a_p"), Diff("l_p", "l_k")),
    "yarn_paper_ramp": (Diff("lp", "lc", 0.5),),
    "ntk_alpha2s": (Diff("l1", "l2"),),
    "yarn_temperature": (Diff("without", "with"),),
    "yarn_temperature_early": (Diff("with", "without"),),
    "dynamic_kv_cache": (Diff("ao", "ak"),),
    "ft_lr_short": (Diff("pi_hi", "pi_lo"), Diff("y_hi", "y_lo")),
    "llama3_vs_yarn": (Diff("l3", "ly"),),
}
FINDINGS: tuple[Finding, ...] = tuple(dataclasses.replace(f, diffs=DIFFS.get(f.key, ())) for f in _DECLARED)


# --------------------------------------------------------------------------- issue 34: order without rotation, remapping
#: Where order comes from when no attention layer rotates (``conv_nope``: NoPE attention, q and k through a causal
#: depthwise convolution of kernel 4, :mod:`helpers.lab.order_carriers`), and Dual Chunk Attention zero-shot on the
#: RoPE checkpoints (``rope+default_dca``, :mod:`helpers.lab.dual_chunk`) beside YaRN. Judged where their records are
#: (conv_nope: trained on request; DCA: on the shipped RoPE checkpoints' seeds).
_ISSUE34: tuple[Finding, ...] = (
    Finding(
        "conv_nope_vs_nope",
        ("conv_nope", "nope"),
        {
            "c1": (LOSS, "conv_nope", 1),
            "n1": (LOSS, "nope", 1),
            "c8": (LOSS, "conv_nope", 8),
            "n8": (LOSS, "nope", 8),
            "ca8": (ACC, "conv_nope", 8),
            "na8": (ACC, "nope", 8),
        },
        lambda v: v["c8"] < v["n8"],
        "A causal short convolution (kernel 4) on q and k before NoPE attention lowers NoPE's loss at 8L {seeds}: "
        "{c8} against {n8} nats (at L: {c1} against {n1}); passkey at 8L {ca8} against {na8}.",
    ),
    Finding(
        "conv_nope_passkey_vs_nope",
        ("conv_nope", "nope"),
        {f"c{k}": (ACC, "conv_nope", k) for k in (1, 2, 4, 8)} | {f"n{k}": (ACC, "nope", k) for k in (1, 2, 4, 8)},
        lambda v: (v["c2"] > v["n2"]) & (v["c4"] > v["n4"]) & (v["c8"] > v["n8"]),
        "With the short convolution, NoPE attention retrieves more passkeys than plain NoPE at 2L, 4L and 8L {seeds}: "
        "at L {c1} against {n1}; at 2L {c2} against {n2}; at 4L {c4} against {n4}; at 8L {c8} against {n8}.",
    ),
    Finding(
        "conv_nope_at_L",
        ("conv_nope", "rope+default"),
        {"c1": (LOSS, "conv_nope", 1), "r1": (LOSS, "rope+default", 1)},
        lambda v: v["c1"] < v["r1"],
        "Inside the training length the short convolution with NoPE attention has a lower loss than RoPE {seeds}: "
        "{c1} against {r1} nats at L.",
    ),
    Finding(
        "dca_loss_past_L",
        ("rope+default_dca", "rope+yarn"),
        {f"d{k}": (LOSS, "rope+default_dca", k) for k in (2, 4, 8)}
        | {f"y{k}": (LOSS, "rope+yarn", k) for k in (2, 4, 8)},
        lambda v: (v["d2"] < v["y2"]) & (v["d4"] < v["y4"]) & (v["d8"] < v["y8"]),
        "Zero-shot, remapping positions (Dual Chunk Attention: chunk L, local window L/32) gives a lower loss than "
        "zero-shot YaRN at 2L, 4L and 8L {seeds}: at 2L {d2} against {y2}; at 4L {d4} against {y4}; at 8L {d8} "
        "against {y8} nats.",
    ),
    Finding(
        "dca_passkey_vs_yarn",
        ("rope+default_dca", "rope+yarn"),
        {f"d{k}": (ACC, "rope+default_dca", k) for k in (2, 4, 8)}
        | {f"y{k}": (ACC, "rope+yarn", k) for k in (2, 4, 8)},
        lambda v: (v["d2"] >= v["y2"]) & (v["d4"] >= v["y4"]) & (v["d8"] >= v["y8"]),
        "Zero-shot Dual Chunk Attention retrieves at least as many passkeys as zero-shot YaRN at 2L, 4L and 8L "
        "{seeds}: at 2L {d2} against {y2}; at 4L {d4} against {y4}; at 8L {d8} against {y8}.",
    ),
    Finding(
        "dca_vs_rope",
        ("rope+default_dca", "rope+default", "rope+linear", "rope+ntk"),
        {
            "d8": (LOSS, "rope+default_dca", 8),
            "r8": (LOSS, "rope+default", 8),
            "p8": (LOSS, "rope+linear", 8),
            "n8": (LOSS, "rope+ntk", 8),
            "da8": (ACC, "rope+default_dca", 8),
            "ra8": (ACC, "rope+default", 8),
            "pa8": (ACC, "rope+linear", 8),
            "na8": (ACC, "rope+ntk", 8),
        },
        lambda v: (
            (v["d8"] < np.minimum(np.minimum(v["r8"], v["p8"]), v["n8"]))
            & (v["da8"] > np.maximum(np.maximum(v["ra8"], v["pa8"]), v["na8"]))
        ),
        "At 8L Dual Chunk Attention has a lower loss and more passkeys than plain RoPE, zero-shot PI and zero-shot "
        "NTK-aware scaling {seeds}: loss {d8} against {r8} (plain), {p8} (PI) and {n8} (NTK) nats; passkey {da8} "
        "against {ra8}, {pa8} and {na8}.",
    ),
)
DIFFS.update(
    {
        "conv_nope_vs_nope": (Diff("n8", "c8"),),
        "conv_nope_passkey_vs_nope": (Diff("c2", "n2"), Diff("c4", "n4"), Diff("c8", "n8")),
        "conv_nope_at_L": (Diff("r1", "c1"),),
        "dca_loss_past_L": (Diff("y2", "d2"), Diff("y4", "d4"), Diff("y8", "d8")),
        "dca_vs_rope": (
            Diff("r8", "d8"),
            Diff("p8", "d8"),
            Diff("n8", "d8"),
            Diff("da8", "ra8"),
            Diff("da8", "pa8"),
            Diff("da8", "na8"),
        ),
    }
)
FINDINGS += tuple(dataclasses.replace(f, diffs=DIFFS.get(f.key, ())) for f in _ISSUE34)
