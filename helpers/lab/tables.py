"""The lab's Markdown tables, generated from the records of ``results.json``: per scale the main comparison
(:func:`scale_tables`), the ablations beside what each changes (:func:`ablation_tables`), the fine-tunes' learning
rates (:func:`lr_sweep_table`), both scales side by side (:func:`side_by_side`), and all of them with the training
runs and evaluation times (:func:`results_tables`, the generated block of ``results/RESULTS.md``). Each cell is the
mean over seeds and [min, max] over them.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.lab.methods import ABLATIONS, HYBRIDS, LR_SWEEP, MAIN, VARIANTS, lab_method
from helpers.lab.records import at_scale, scales_of, seed_values, seeds_of, summary

__all__ = [
    "ablation_tables",
    "chosen_learning_rate",
    "eval_time",
    "lr_sweep_table",
    "results_tables",
    "scale_tables",
    "side_by_side",
    "wall_time",
]


def _cell(s: dict, fmt: str) -> str:
    if math.isnan(s["mean"]):
        return "cannot run"
    return f"{s['mean']:{fmt}} [{s['min']:{fmt}}, {s['max']:{fmt}}]"


def _metric_table(view: dict, methods, metric: str, fmt: str, lengths) -> list[str]:
    train_len = view["meta"]["train_len"]
    heads = " | ".join(f"{t} ({t / train_len:g}×L)" for t in lengths)
    rule = "|".join(["---"] * (len(lengths) + 1))
    lines = [f"| method | {heads} |", f"|{rule}|"]
    for m in methods:
        cells = " | ".join(_cell(summary(view, m, metric, t), fmt) for t in lengths)
        lines.append(f"| `{m}` ({lab_method(m).label}) | {cells} |")
    return lines


def scale_tables(view: dict) -> str:
    """Loss, passkey, per-seed passkey and previous-token tables of the main methods at one scale (a view), and of
    the hybrid families where the view has their records (the shipped results have none: then no row)."""
    meta = view["meta"]
    lengths, train_len = meta["lengths"], meta["train_len"]
    methods = [m for m in (*MAIN, *HYBRIDS) if m in view["methods"]]
    heads = " | ".join(f"{t} ({t / train_len:g}×L)" for t in lengths)
    rule = "|".join(["---"] * (len(lengths) + 1))
    n_keys = len(meta["passkey_depths"]) * meta["passkey_keys_per_depth"]
    lines = [
        f"#### Scale `{meta['scale']}` (L = {train_len}): the main comparison",
        "",
        f"{meta.get('scale_why', '')}. Each cell is the mean over the seeds evaluated and [min, max] over them. "
        f"Evaluation: {meta['n_lm_sequences']} LM documents and {n_keys} passkeys per length "
        f"(seed {meta['eval_seed']}), the same for every method.",
        "",
        "Mean next-token loss on the copy-LM task (nats; lower is better; a fresh random word costs ln 107 = 4.67):",
        "",
        *_metric_table(view, methods, "loss", ".3f", lengths),
        "",
        f"Passkey accuracy (all 5 digits right; {n_keys} keys per length; chance ≈ 0):",
        "",
        *_metric_table(view, methods, "accuracy", ".2f", lengths),
        "",
        "Passkey accuracy per seed:",
        "",
        f"| method | seeds | {heads} |",
        f"|{rule}|---|",
    ]
    for m in methods:
        cells = [" / ".join(map(str, seeds_of(view, m)))]
        for t in lengths:
            v = seed_values(view, m, "accuracy", t)
            cells.append("cannot run" if np.isnan(v).any() else " / ".join(f"{x:.2f}" for x in v))
        lines.append(f"| `{m}` | {' | '.join(cells)} |")
    lines += [
        "",
        "Diagnostic: attention weight of the sharpest layer-0 head on the previous token (mean over positions; the "
        "previous-token head the induction circuit is built on):",
        "",
        f"| method | {heads} |",
        f"|{rule}|",
    ]
    for m in methods:
        cells = " | ".join(_cell(summary(view, m, "previous_token_attention", t), ".2f") for t in lengths)
        lines.append(f"| `{m}` | {cells} |")
    return "\n".join(lines) + "\n"


def ablation_tables(view: dict) -> str:
    """The ablations and protocol variants beside the method each one changes (loss and passkey at 2L..8L)."""
    meta = view["meta"]
    lengths = meta["lengths"][1:]
    pairs = [m for m in ABLATIONS if m in view["methods"]]
    if not pairs:
        return ""
    methods = []
    for m in pairs:
        ref = lab_method(m).compared_with
        methods += [x for x in (ref, m) if x in view["methods"] and x not in methods]
    what = "; ".join(f"`{k}`: {v}" for k, v in VARIANTS.items())
    lines = [
        f"#### Scale `{meta['scale']}` (L = {meta['train_len']}): ablations and protocols, each beside what it changes",
        "",
        f"Variants: {what}. `rope+linear_keep_fast`: PI except on the pairs YaRN keeps unchanged at this scale; "
        "`rope+yarn_paper`: YaRN with the paper's ramp (linear in r = L/λ) instead of the released code's (linear in "
        "the pair index); `rope+llama3`: Llama 3.1's wavelength thresholds (low_freq_factor 1, high_freq_factor 4).",
        *_loss_and_passkey(view, methods, lengths),
    ]
    return "\n".join(lines) + "\n"


def _loss_and_passkey(view: dict, methods, lengths) -> list[str]:
    """A loss table and a passkey table (mean [min, max] over seeds) of ``methods`` at ``lengths``."""
    return [
        "",
        "Loss (nats):",
        "",
        *_metric_table(view, methods, "loss", ".3f", lengths),
        "",
        "Passkey accuracy:",
        "",
        *_metric_table(view, methods, "accuracy", ".2f", lengths),
    ]


def chosen_learning_rate(view: dict) -> tuple[str | None, str]:
    """The fine-tune learning rate with the lowest mean loss at 4L (the fine-tuning length), averaged over both
    fine-tunes and every seed, and a sentence with the numbers that chose it."""
    L_ = view["meta"]["train_len"]
    rates = {}
    for m in LR_SWEEP:
        if m not in view["methods"]:
            continue
        lr = lab_method(m).lr or "1e-3"
        rates.setdefault(lr, []).append(seed_values(view, m, "loss", 4 * L_))
    rates = {lr: np.concatenate(v) for lr, v in rates.items() if len(v) == 2}
    if len(rates) < 2:
        return None, ""
    best = min(rates, key=lambda lr: rates[lr].mean())
    text = ", ".join(f"lr {lr}: {v.mean():.3f}" for lr, v in rates.items())
    return best, f"mean loss at 4L over both fine-tunes and all seeds: {text}; lowest: lr {best}"


def lr_sweep_table(view: dict) -> str:
    """The fine-tunes at three learning rates: loss and passkey at L, 4L (the fine-tuning length) and 8L."""
    meta = view["meta"]
    L_ = meta["train_len"]
    methods = [m for m in LR_SWEEP if m in view["methods"]]
    if len(methods) <= 2:
        return ""
    lengths = [L_, 4 * L_, 8 * L_]
    _, why = chosen_learning_rate(view)
    lines = [
        f"#### Scale `{meta['scale']}` (L = {L_}): the fine-tunes' learning rate (pre-training peak 3e-3)",
        "",
        f"The shipped fine-tunes use lr 1e-3; {why}.",
        *_loss_and_passkey(view, methods, lengths),
    ]
    return "\n".join(lines) + "\n"


def side_by_side(results: dict) -> str:
    """The RoPE methods at both scales: loss and passkey at 2L and 8L (mean [min, max] over seeds)."""
    scales = scales_of(results)
    if len(scales) < 2:
        return ""
    views = [at_scale(results, s) for s in scales]
    methods = [m for m in MAIN + ABLATIONS if all(m in v["methods"] for v in views)]
    heads, rule = [], ["---"]
    for v in views:
        L_ = v["meta"]["train_len"]
        heads += [f"{v['meta']['scale']} loss 2L", f"{v['meta']['scale']} loss 8L"]
        heads += [f"{v['meta']['scale']} passkey 2L", f"{v['meta']['scale']} passkey 8L"]
    rule += ["---"] * len(heads)
    lines = [
        "#### Both scales side by side (RoPE methods; L = "
        + ", ".join(f"{v['meta']['train_len']} at `{v['meta']['scale']}`" for v in views)
        + ")",
        "",
        f"| method | {' | '.join(heads)} |",
        f"|{'|'.join(rule)}|",
    ]
    for m in methods:
        cells = []
        for v in views:
            L_ = v["meta"]["train_len"]
            cells += [_cell(summary(v, m, "loss", t), ".2f") for t in (2 * L_, 8 * L_)]
            cells += [_cell(summary(v, m, "accuracy", t), ".2f") for t in (2 * L_, 8 * L_)]
        lines.append(f"| `{m}` | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def results_tables(results: dict) -> str:
    """The generated Markdown: per scale the main tables, the ablations and the learning-rate sweep; both scales
    side by side; the training runs and the evaluation times."""
    parts = []
    for scale in scales_of(results):
        view = at_scale(results, scale)
        parts += [scale_tables(view), ablation_tables(view), lr_sweep_table(view)]
    parts.append(side_by_side(results))
    lines = [
        "Training runs (the wall-clock seconds recorded when each checkpoint was trained, with one torch thread; a "
        "run's time depends on the CPU and on what else it runs, `docs/benchmarks.md` times retraining on a free core):",
        "",
        "| checkpoint | parameters | steps | length | batch | lr | seconds | final loss |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cid, c in sorted(results["checkpoints"].items()):
        t = c["training"]
        lines.append(
            f"| `{cid}` | {c['n_parameters']:,} | {t['steps']} | {t['length']} | {t['batch_size']} | "
            f"{c['settings']['lr']:g} | {t['seconds']:.1f} | {t['final_loss']:.3f} |"
        )
    total = sum(c["training"]["seconds"] for c in results["checkpoints"].values())
    times = "; ".join(f"`{s}` {eval_time(at_scale(results, s)['meta'])}" for s in scales_of(results))
    times += wall_time(results)
    lines += [
        "",
        f"Total training time of the {len(results['checkpoints'])} checkpoints: {total / 60:.1f} min; {times}.",
    ]
    parts.append("\n".join(lines) + "\n")
    return "\n".join(p for p in parts if p)


def wall_time(results: dict) -> str:
    """ "; everything: W s wall-clock with J processes" from the top-level meta (empty if not measured)."""
    wall = results["meta"].get("wall_seconds")
    if not wall:
        return ""
    return (
        f"; everything, both scales: {wall['all_scales']:.0f} s of wall-clock time with {wall['jobs']} "
        f"process(es) of one torch thread (`--jobs {wall['jobs']}`)"
    )


def eval_time(meta: dict) -> str:
    full = meta.get("full_eval_seconds")
    text = f"evaluation: {full:.0f} s of work" if full else "evaluation time not measured"
    text += f" with {meta['torch_threads']} torch thread"
    if meta.get("reused_runs"):
        text += f" (the last update re-evaluated only changed checkpoints, in {meta['eval_seconds']:.1f} s)"
    return text
