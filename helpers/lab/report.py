"""Results as data: reading ``results/results.json``, summarising over seeds, and writing the tables and figures.

Every table, figure and number of ``results/RESULTS.md``, of the README's lab section and of notebook 05 §8 comes from
the records of ``results.json`` through the functions here: :func:`seed_values` (one value per seed),
:func:`summary` (mean, min, max over seeds) and :func:`results_tables` (the Markdown tables).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from helpers.lab.data import N_WORDS
from helpers.lab.methods import ABLATIONS, LR_SWEEP, MAIN, METHODS, VARIANTS, lab_method
from helpers.lab.records import (
    RESULTS_DIR,
    RESULTS_JSON,
    at_scale,
    load_results,
    record,
    seed_values,
    seeds_of,
    summary,
)

RESULTS_MD = RESULTS_DIR / "RESULTS.md"
CHECKPOINT_SIZES_DIR = Path(__file__).resolve().parent / "checkpoints"
README = Path(__file__).resolve().parents[2] / "README.md"
PLOTS = {
    "loss_by_position": RESULTS_DIR / "loss_by_position.png",
    "passkey_by_length": RESULTS_DIR / "passkey_by_length.png",
    "learned_table": RESULTS_DIR / "learned_table.png",
    "passkey_by_length_small": RESULTS_DIR / "passkey_by_length_small.png",
}
TABLE_BEGIN, TABLE_END = "<!-- BEGIN GENERATED TABLE -->", "<!-- END GENERATED TABLE -->"


def _cell(s: dict, fmt: str) -> str:
    if math.isnan(s["mean"]):
        return "cannot run"
    return f"{s['mean']:{fmt}} [{s['min']:{fmt}}, {s['max']:{fmt}}]"


def _scales(results: dict) -> list[str]:
    return [results["meta"].get("scale", "tiny"), *results.get("scales", {})]


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
    """Loss, passkey, per-seed passkey and previous-token tables of the main methods at one scale (a view)."""
    meta = view["meta"]
    lengths, train_len = meta["lengths"], meta["train_len"]
    methods = [m for m in MAIN if m in view["methods"]]
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
    base = {"linear_keep_fast": "rope+linear", "yarn_paper": "rope+yarn", "llama3": "rope+yarn"}
    methods = []
    for m in pairs:
        spec = lab_method(m)
        ref = base.get(spec.scaling, f"rope+{spec.scaling}")
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
    scales = _scales(results)
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
    for scale in _scales(results):
        view = at_scale(results, scale)
        parts += [scale_tables(view), ablation_tables(view), lr_sweep_table(view)]
    parts.append(side_by_side(results))
    lines = [
        "Training runs (wall-clock seconds as measured when each checkpoint was made; 1 torch thread on the shared, "
        "loaded 2-core machine, so inflated and load-dependent):",
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
    times = "; ".join(f"`{s}` {_eval_time(at_scale(results, s)['meta'])}" for s in _scales(results))
    times += _wall_time(results)
    lines += [
        "",
        f"Total training time of the {len(results['checkpoints'])} checkpoints: {total / 60:.1f} min; {times}.",
    ]
    parts.append("\n".join(lines) + "\n")
    return "\n".join(p for p in parts if p)


def _wall_time(results: dict) -> str:
    """ "; everything: W s wall-clock with J processes" from the top-level meta (empty if not measured)."""
    wall = results["meta"].get("wall_seconds")
    if not wall:
        return ""
    return (
        f"; everything, both scales: {wall['all_scales']:.0f} s of wall-clock time with {wall['jobs']} "
        f"process(es) of one torch thread (`--jobs {wall['jobs']}`)"
    )


def _eval_time(meta: dict) -> str:
    full = meta.get("full_eval_seconds")
    text = f"evaluation: {full:.0f} s of work" if full else "evaluation time not measured"
    text += f" with {meta['torch_threads']} torch thread"
    if meta.get("reused_runs"):
        text += f" (the last update re-evaluated only changed checkpoints, in {meta['eval_seconds']:.1f} s)"
    return text


def update_block(path: Path, begin: str, end: str, text: str) -> Path:
    """Replace the text between the markers ``begin`` and ``end`` of ``path`` with ``text``."""
    path = Path(path)
    body = path.read_text()
    if begin not in body or end not in body:
        raise ValueError(f"{path} has no {begin} … {end} block to update")
    head, rest = body.split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{begin}\n{text}{end}{tail}")
    return path


def write_results(results: dict, directory: Path = RESULTS_DIR) -> list[Path]:
    """Write results.json, the PNG figures and the RESULTS.md tables into ``directory``; returns the paths."""
    from helpers.lab import plots

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / "results.json"]
    written[0].write_text(json.dumps(results, indent=1) + "\n")
    figures = {"loss_by_position": plots.loss_figure(results), "passkey_by_length": plots.passkey_figure(results)}
    if "small" in results.get("scales", {}):
        figures["passkey_by_length_small"] = plots.passkey_figure(at_scale(results, "small"))
    if "learned" in results["methods"]:
        from helpers.lab.checkpoints import load_model
        from helpers.lab.evaluate import learned_table, position_similarity
        from helpers.sinusoidal import sinusoidal_table

        model = load_model("learned", 0)
        table, reached = learned_table(model)  # (N, D)
        sin_table = sinusoidal_table(len(table), table.shape[1], model.config.sinusoidal_base)  # (N, D)
        figures["learned_table"] = plots.learned_table_figure(
            table, reached, position_similarity(table), position_similarity(sin_table)
        )
    for key, fig in figures.items():
        path = directory / PLOTS[key].name
        fig.savefig(path, dpi=100)
        written.append(path)
    md = directory / RESULTS_MD.name
    if not md.exists():
        blocks = [f"{begin}\n{end}\n" for begin, end in BLOCKS]
        md.write_text("# Tiny-model lab: results\n\n" + "\n".join(blocks))
    written.append(update_results_md(results, md))
    if directory == RESULTS_DIR:
        written.append(update_readme(results))
    return written


__all__ = [
    "METHODS",
    "PLOTS",
    "RESULTS_DIR",
    "RESULTS_JSON",
    "RESULTS_MD",
    "load_results",
    "record",
    "results_tables",
    "seed_values",
    "summary",
    "write_results",
]


# --------------------------------------------------------------------------- findings: sentences generated from the records
def _seed_phrase(flags, seeds) -> str:
    """ "on all 3 seeds" / "on 2 of 3 seeds (not seed 1)" / "on none of the 3 seeds"."""
    flags = [bool(f) for f in flags]
    n, k = len(flags), sum(flags)
    if k == n:
        return f"on all {n} seeds" if n > 1 else f"on the one seed trained ({seeds[0]})"
    if k == 0:
        return f"on none of the {n} seeds" if n > 1 else f"not on the one seed trained ({seeds[0]})"
    missing = ", ".join(str(s) for s, f in zip(seeds, flags, strict=True) if not f)
    return f"on {k} of {n} seeds (not seed {missing})"


def _per_seed(values, fmt: str = ".2f") -> str:
    return " / ".join("n/a" if math.isnan(v) else format(v, fmt) for v in np.asarray(values, dtype=float))


def _early_late(results: dict, method: str, length: int, seeds) -> tuple[np.ndarray, np.ndarray]:
    """Per seed: mean loss of the buckets before L and of the buckets at or past L, at length T. Shapes (n_seeds,)."""
    train_len = results["meta"]["train_len"]
    early, late = [], []
    for seed in seeds:
        m = record(results, method, seed, "lm", length)["metrics"]
        starts, losses = np.asarray(m["bucket_starts"]), np.asarray(m["loss_by_bucket"])
        early.append(losses[starts < train_len].mean())
        late.append(losses[starts >= train_len].mean())
    return np.asarray(early), np.asarray(late)


#: A model has learned the copy task at L when its loss there is at least 1 nat below a random word's ln 107: the
#: families that learned it sit at 2.5-2.9 nats, those that did not at about 4.2. A flat loss counts as evidence of
#: extrapolation only in such a model (the flatness of a model that ignores the context says nothing).
COPY_LEARNED_NATS = math.log(N_WORDS) - 1.0


def _by_position(results: dict, method: str, length: int, seeds, bounds) -> list[np.ndarray]:
    """Per seed: mean loss of the 16-token buckets starting in [bounds[k], bounds[k+1]) at length T; a list of
    len(bounds) − 1 arrays of shape (n_seeds,)."""
    rows = []
    for seed in seeds:
        m = record(results, method, seed, "lm", length)["metrics"]
        starts, losses = np.asarray(m["bucket_starts"]), np.asarray(m["loss_by_bucket"])
        rows.append(
            [losses[(starts >= lo) & (starts < hi)].mean() for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
        )
    return list(np.asarray(rows).T)


def findings(results: dict) -> list[dict]:
    """The lab's claims, each computed on every seed that all its methods have: ``{"key", "text", "holds", "n",
    "seeds"}`` (``holds`` = number of seeds on which the claim is true; the text names the seeds where it is not and
    gives the per-seed values)."""
    meta = results["meta"]
    L_ = meta["train_len"]
    present = set(results["methods"])
    lengths = (L_, 2 * L_, 4 * L_, 8 * L_)
    out = []
    ctx: dict = {}
    if not set(lengths) <= set(meta["lengths"]):
        return out  # the findings are defined on the standard grid L, 2L, 4L, 8L

    def use(*methods) -> bool:
        """Select the seeds common to ``methods`` for the next finding; False if a method is absent."""
        if not set(methods) <= present:
            return False
        ctx["seeds"] = seeds_of(results, *methods)
        return bool(ctx["seeds"])

    def acc(m, t):
        return seed_values(results, m, "accuracy", t, ctx["seeds"])

    def loss(m, t):
        return seed_values(results, m, "loss", t, ctx["seeds"])

    def prev(m, t):
        return seed_values(results, m, "previous_token_attention", t, ctx["seeds"])

    def add(key, flags, text):
        flags = [bool(f) for f in flags]
        seeds = ctx["seeds"]
        out.append(
            {
                "key": key,
                "holds": int(sum(flags)),
                "n": len(flags),
                "seeds": list(seeds),
                "text": text.replace("{seeds}", _seed_phrase(flags, seeds)),
            }
        )

    if use("rope+default"):
        a1, a4, a8 = acc("rope+default", L_), acc("rope+default", 4 * L_), acc("rope+default", 8 * L_)
        early, late = _early_late(results, "rope+default", 8 * L_, ctx["seeds"])
        add(
            "rope_breaks",
            (a1 >= 0.9) & (a4 <= 0.1) & (a8 <= 0.1) & (late > early + 1.0),
            f"Plain RoPE breaks past L (at least 90 % of the passkeys at L, at most 10 % at 4L and 8L, and a loss "
            f"more than 1 nat higher past L) {{seeds}}: passkey {_per_seed(a1)} at L, {_per_seed(a4)} at 4L and "
            f"{_per_seed(a8)} at 8L (per seed); at 8L its loss on positions ≥ L is {_per_seed(late)} nats against "
            f"{_per_seed(early)} before L.",
        )
    if use("learned"):
        a2 = acc("learned", 2 * L_)
        add(
            "learned_table",
            (a2 <= 0.1) & np.isnan(acc("learned", 4 * L_)),
            f"The learned table cannot run past its {2 * L_} rows, and on its never-trained rows (2L) passkey falls "
            f"from {_per_seed(acc('learned', L_))} to {_per_seed(a2)}: {{seeds}}.",
        )
    if use("rope+linear", "rope+default"):
        l_pi, l_rope = loss("rope+linear", 2 * L_), loss("rope+default", 2 * L_)
        p_pi, p_rope = prev("rope+linear", 2 * L_), prev("rope+default", 2 * L_)
        add(
            "pi_zero_shot",
            (l_pi > l_rope) & (p_pi < 0.5 * p_rope),
            f"Zero-shot PI is worse than doing nothing at 2L {{seeds}}: loss {_per_seed(l_pi)} vs plain RoPE "
            f"{_per_seed(l_rope)} nats, and its previous-token head drops to {_per_seed(p_pi)} (plain RoPE "
            f"{_per_seed(p_rope)}).",
        )
    if use("rope+yarn", "rope+ntk", "rope+default"):
        ly, ln, lr = loss("rope+yarn", 8 * L_), loss("rope+ntk", 8 * L_), loss("rope+default", 8 * L_)
        add(
            "loss_ranking",
            (ly < ln) & (ln < lr),
            f"Zero-shot loss at 8L ranks YaRN < NTK-aware < plain RoPE {{seeds}}: {_per_seed(ly)} < {_per_seed(ln)} "
            f"< {_per_seed(lr)} nats.",
        )
        others = [m for m in ("rope+default", "rope+linear", "rope+ntk", "rope+dynamic") if m in present]
        if use("rope+yarn", *others):
            n = len(ctx["seeds"])
            best = [all(acc("rope+yarn", t)[i] >= acc(m, t)[i] for m in others for t in lengths[1:]) for i in range(n)]
            add(
                "yarn_passkey",
                best,
                "Zero-shot YaRN's passkey accuracy at 2L / 4L / 8L is "
                + "; ".join(
                    f"{_per_seed([acc('rope+yarn', t)[i] for t in lengths[1:]])} on seed {s}"
                    for i, s in enumerate(ctx["seeds"])
                )
                + "; it is at least as good as plain RoPE, PI, NTK-aware and dynamic NTK (zero-shot) at every length "
                "> L {seeds}.",
            )
    if use("rope+yarn"):
        a8 = acc("rope+yarn", 8 * L_)
        add(
            "yarn_passkey_8L",
            a8 >= 0.4,
            f"Zero-shot YaRN still retrieves at least 40 % of the passkeys at 8L {{seeds}} ({_per_seed(a8)}).",
        )
    if use("rope+linear_ft", "rope+yarn_ft"):
        lf_y, lf_p = loss("rope+yarn_ft", 4 * L_), loss("rope+linear_ft", 4 * L_)
        af_y, af_p = acc("rope+yarn_ft", 4 * L_), acc("rope+linear_ft", 4 * L_)
        add(
            "ft_yarn_beats_pi",
            lf_y < lf_p,
            f"After the same 400-step fine-tune at 4L, YaRN has a lower loss than PI at 4L {{seeds}} "
            f"({_per_seed(lf_y)} vs {_per_seed(lf_p)} nats); passkey at 4L {_per_seed(af_y)} vs {_per_seed(af_p)}.",
        )
        add(
            "ft_yarn_passkey_4L",
            af_y >= af_p,
            "Fine-tuned YaRN retrieves at least as many passkeys as fine-tuned PI at 4L {seeds}.",
        )
    if use("rope+linear_ft", "rope+yarn_ft"):
        l8_y, l8_p = loss("rope+yarn_ft", 8 * L_), loss("rope+linear_ft", 8 * L_)
        a8_y, a8_p = acc("rope+yarn_ft", 8 * L_), acc("rope+linear_ft", 8 * L_)
        add(
            "ft_beyond_tuning",
            (l8_y < l8_p) & (a8_y >= a8_p),
            f"At 8L, twice the fine-tuning length, fine-tuned YaRN has a lower loss than fine-tuned PI and retrieves "
            f"at least as many passkeys {{seeds}}: loss {_per_seed(l8_y)} vs {_per_seed(l8_p)} nats, passkey "
            f"{_per_seed(a8_y)} vs {_per_seed(a8_p)}"
            + ("; neither retrieves any" if not (a8_y.any() or a8_p.any()) else "")
            + ".",
        )
    if use("rope+linear_ft", "rope+yarn_ft", "rope+default"):
        base = acc("rope+default", L_)
        add(
            "ft_costs_short",
            (acc("rope+linear_ft", L_) < base) & (acc("rope+yarn_ft", L_) < base),
            f"Both fine-tunes (which run with s = 4 at every length) lose passkeys at T = L {{seeds}}: PI "
            f"{_per_seed(acc('rope+linear_ft', L_))}, YaRN {_per_seed(acc('rope+yarn_ft', L_))}, against "
            f"{_per_seed(base)} before fine-tuning.",
        )
    if use("rope+linear_ft", "rope+linear"):
        a_ft, a_zs = acc("rope+linear_ft", 4 * L_), acc("rope+linear", 4 * L_)
        add(
            "ft_pi_fixes",
            a_ft > a_zs + 0.5,
            f"A 400-step PI fine-tune at 4L lifts passkey at 4L from {_per_seed(a_zs)} (zero-shot PI) to "
            f"{_per_seed(a_ft)} {{seeds}}.",
        )
    if use("nope"):
        add(
            "nope_passkey_at_L",
            acc("nope", L_) >= 0.9,
            f"NoPE retrieves the passkey at T = L {{seeds}} (accuracy {_per_seed(acc('nope', L_))}).",
        )
    if use("sinusoidal"):
        add(
            "sinusoidal_no_passkey",
            acc("sinusoidal", L_) <= 0.05,
            f"The sinusoidal model does not learn the passkey task (accuracy at most 0.05 at T = L) {{seeds}}: "
            f"{_per_seed(acc('sinusoidal', L_))}.",
        )
    for fam in ("alibi", "nope", "t5_bias"):
        if use(fam):
            l1 = loss(fam, L_)
            first, to_4l, past_4l = _by_position(results, fam, 8 * L_, ctx["seeds"], (0, L_, 4 * L_, 8 * L_))
            add(
                f"{fam}_flat",
                (to_4l <= first + 0.05) & (l1 < COPY_LEARNED_NATS),
                f"{lab_method(fam).label}'s loss by position at 8L does not rise past L, out to 4L (positions L–4L "
                f"no more than 0.05 nats above the first L), in a model that learned the copy task (loss at L below "
                f"ln {N_WORDS} − 1 = {COPY_LEARNED_NATS:.2f} nats) {{seeds}}: {_per_seed(first)} nats on the first L, "
                f"{_per_seed(to_4l)} on L–4L, {_per_seed(past_4l)} on 4L–8L; loss at L {_per_seed(l1)}.",
            )
    if use("alibi", "rope+yarn"):
        bounds = (0, L_, 4 * L_, 8 * L_)
        first, _, past_4l = _by_position(results, "alibi", 8 * L_, ctx["seeds"], bounds)
        yarn_past = _by_position(results, "rope+yarn", 8 * L_, ctx["seeds"], bounds)[2]
        add(
            "alibi_local_past_4L",
            (past_4l > first) & (past_4l > yarn_past + 0.3),
            f"Past 4L ALiBi looks locally: at 8L its loss on positions 4L–8L is above its loss on the first L and "
            f"more than 0.3 nats above zero-shot YaRN's on the same positions {{seeds}} ({_per_seed(past_4l)} "
            f"against {_per_seed(first)} on the first L and YaRN's {_per_seed(yarn_past)}).",
        )
    for fam in ("alibi", "t5_bias", "nope", "sinusoidal"):
        if not use(fam, "rope+default"):
            continue
        a = [acc(fam, t) for t in lengths]
        lo = [loss(fam, t) for t in lengths]
        add(
            f"{fam}_family",
            lo[3] < loss("rope+default", 8 * L_),
            f"{lab_method(fam).label}: passkey {' → '.join(_per_seed(x) for x in a)} and loss "
            f"{' → '.join(_per_seed(x) for x in lo)} nats at L → 2L → 4L → 8L (values per seed). Its 8L loss is "
            f"below plain RoPE's ({_per_seed(loss('rope+default', 8 * L_))}) {{seeds}}.",
        )
    for m in ("rope+yarn", "rope+ntk"):
        if use(m):
            add(
                f"{m}_long_context",
                loss(m, 2 * L_) < loss(m, L_),
                f"With {lab_method(m).label} the mean loss at 2L is below the loss at L {{seeds}} (long context "
                f"helps): {_per_seed(loss(m, 2 * L_))} vs {_per_seed(loss(m, L_))} nats.",
            )
    # ----- ablations and protocols (issue 12), at whichever scale they were evaluated
    if use("rope+linear_keep_fast", "rope+linear"):
        a_k, a_p = acc("rope+linear_keep_fast", 2 * L_), acc("rope+linear", 2 * L_)
        l_k, l_p = loss("rope+linear_keep_fast", 2 * L_), loss("rope+linear", 2 * L_)
        add(
            "pi_keep_fast",
            (a_k > a_p) & (l_k < l_p),
            f"Zero-shot PI with the pairs YaRN keeps left unchanged beats plain PI at 2L {{seeds}}: passkey "
            f"{_per_seed(a_k)} vs {_per_seed(a_p)}, loss {_per_seed(l_k)} vs {_per_seed(l_p)} nats.",
        )
    if use("rope+yarn_paper", "rope+yarn"):
        lp, lc = loss("rope+yarn_paper", 8 * L_), loss("rope+yarn", 8 * L_)
        ap, ac = acc("rope+yarn_paper", 2 * L_), acc("rope+yarn", 2 * L_)
        add(
            "yarn_paper_ramp",
            lp > lc + 0.5,
            f"YaRN with the paper's ramp is more than 0.5 nats worse than with the released code's ramp at 8L "
            f"{{seeds}}: {_per_seed(lp)} vs {_per_seed(lc)} nats (passkey at 2L {_per_seed(ap)} vs {_per_seed(ac)}).",
        )
    if use("rope+ntk_alpha2s", "rope+ntk"):
        l2, l1 = loss("rope+ntk_alpha2s", 8 * L_), loss("rope+ntk", 8 * L_)
        a2, a1 = acc("rope+ntk_alpha2s", 8 * L_), acc("rope+ntk", 8 * L_)
        add(
            "ntk_alpha2s",
            l2 < l1,
            f"NTK-aware with α = 2s has a lower loss at 8L than with α = s {{seeds}}: {_per_seed(l2)} vs "
            f"{_per_seed(l1)} nats; passkey at 8L {_per_seed(a2)} vs {_per_seed(a1)}.",
        )
    if use("rope+yarn_no_temperature", "rope+yarn"):
        l8t, l8n = loss("rope+yarn", 8 * L_), loss("rope+yarn_no_temperature", 8 * L_)
        early_t, _ = _early_late(results, "rope+yarn", 8 * L_, ctx["seeds"])
        early_n, _ = _early_late(results, "rope+yarn_no_temperature", 8 * L_, ctx["seeds"])
        add(
            "yarn_temperature",
            l8t < l8n,
            f"YaRN's attention temperature lowers the mean loss at 8L {{seeds}}: {_per_seed(l8t)} with it, "
            f"{_per_seed(l8n)} without (nats).",
        )
        add(
            "yarn_temperature_early",
            early_t > early_n,
            f"On the first L positions of the same 8L sequences the temperature raises the loss {{seeds}}: "
            f"{_per_seed(early_t)} with it, {_per_seed(early_n)} without.",
        )
    if use("rope+dynamic", "rope+dynamic_onepass"):
        lk, lo = loss("rope+dynamic", 8 * L_), loss("rope+dynamic_onepass", 8 * L_)
        ak, ao = acc("rope+dynamic", 8 * L_), acc("rope+dynamic_onepass", 8 * L_)
        ek, _ = _early_late(results, "rope+dynamic", 8 * L_, ctx["seeds"])
        eo, _ = _early_late(results, "rope+dynamic_onepass", 8 * L_, ctx["seeds"])
        add(
            "dynamic_kv_cache",
            ak <= ao,
            f"Dynamic NTK run as generation with a KV cache (stale keys) retrieves no more passkeys at 8L than "
            f"the same method scored in one pass {{seeds}}: {_per_seed(ak)} vs {_per_seed(ao)}; mean loss at 8L "
            f"{_per_seed(lk)} vs {_per_seed(lo)} nats, and on the first L positions {_per_seed(ek)} (KV cache = "
            f"plain RoPE there) vs {_per_seed(eo)} (one pass).",
        )
    if use("rope+default", "rope+linear_ft", "rope+yarn_ft", "rope+linear_ft_lr1e-4", "rope+yarn_ft_lr1e-4"):
        # "bring back" needs passkeys to lose: only the seeds whose pre-trained model retrieved them at L (>= 0.5)
        learned = acc("rope+default", L_) >= 0.5
        skipped = [s for s, ok in zip(ctx["seeds"], learned, strict=True) if not ok]
        ctx["seeds"] = [s for s, ok in zip(ctx["seeds"], learned, strict=True) if ok]
    else:
        skipped = None
    if skipped is not None and ctx["seeds"]:
        left_out = (
            f" (left out: seed{'s' if len(skipped) > 1 else ''} {' and '.join(map(str, skipped))}, whose "
            "pre-trained model retrieved fewer than half of the passkeys at L, so fine-tuning had none to lose)"
            if skipped
            else ""
        )
        a_hi = [acc("rope+linear_ft", L_), acc("rope+yarn_ft", L_)]
        a_lo = [acc("rope+linear_ft_lr1e-4", L_), acc("rope+yarn_ft_lr1e-4", L_)]
        add(
            "ft_lr_short",
            (a_lo[0] <= a_hi[0]) & (a_lo[1] <= a_hi[1]),
            f"A ten times smaller fine-tuning rate (1e-4) does not bring the passkeys at T = L back {{seeds}}"
            f"{left_out}: PI "
            f"{_per_seed(a_lo[0])} (lr 1e-4) vs {_per_seed(a_hi[0])} (lr 1e-3), YaRN {_per_seed(a_lo[1])} vs "
            f"{_per_seed(a_hi[1])}; in 400 steps PI at lr 1e-4 does not even adapt to s = 4 (loss at 4L "
            f"{_per_seed(loss('rope+linear_ft_lr1e-4', 4 * L_))} vs {_per_seed(loss('rope+linear_ft', 4 * L_))} nats).",
        )
    if use("rope+llama3", "rope+yarn"):
        l3, ly = loss("rope+llama3", 8 * L_), loss("rope+yarn", 8 * L_)
        add(
            "llama3_vs_yarn",
            l3 > ly,
            f"Zero-shot, Llama 3.1's thresholds lose to YaRN at 8L {{seeds}}: {_per_seed(l3)} vs {_per_seed(ly)} "
            "nats (Llama 3.1 was released with long-context continued pre-training, not for zero-shot use).",
        )
    return out


FINDINGS_BEGIN, FINDINGS_END = "<!-- BEGIN GENERATED FINDINGS -->", "<!-- END GENERATED FINDINGS -->"


def findings_markdown(results: dict) -> str:
    """The findings of every scale as Markdown lists, each finding with its seed count."""
    parts = []
    for scale in _scales(results):
        view = at_scale(results, scale)
        items = "".join(f"- {f['text']}\n" for f in findings(view))
        parts.append(f"At scale `{scale}` (L = {view['meta']['train_len']}):\n\n{items}")
    return "\n".join(parts)


# --------------------------------------------------------------------------- the README's lab section
README_HEADING = "## The tiny-model lab"


def readme_section(results: dict) -> str:
    """The README's lab section (from its heading to the next ``## `` heading), generated from ``results``."""
    meta = results["meta"]
    ck = results["checkpoints"]
    counts = [
        len(seeds_of(at_scale(results, sc), m)) for sc in _scales(results) for m in at_scale(results, sc)["methods"]
    ]
    n_seeds, max_seeds = min(counts), max(counts)
    per_model = f"{n_seeds} seeds" if n_seeds == max_seeds else f"{n_seeds}–{max_seeds} seeds"
    size = sum(p.stat().st_size for p in CHECKPOINT_SIZES_DIR.rglob("*.pt"))
    minutes = sum(c["training"]["seconds"] for c in ck.values()) / 60
    L_ = meta["train_len"]

    def row(view: dict, m: str) -> str:
        cells = []
        for metric, fmt in (("loss", ".2f"), ("accuracy", ".2f")):
            parts = []
            for t in view["meta"]["lengths"]:
                s = summary(view, m, metric, t)
                parts.append(
                    "n/a" if math.isnan(s["mean"]) else f"{s['mean']:{fmt}} ({s['min']:{fmt}}–{s['max']:{fmt}})"
                )
            cells.append(" / ".join(parts))
        return f"| `{m}`: {lab_method(m).label} | {cells[0]} | {cells[1]} |"

    lines = [
        f"{README_HEADING}: every family of encoding, two scales, {per_model} per model",
        "",
        "`helpers.lab` trains 0.12–0.15 M-parameter decoder-only transformers on a CPU (one torch thread) on two",
        "seeded synthetic tasks: a copy-LM task where long context lowers the loss (an induction head can copy earlier",
        "spans) and passkey retrieval in the style of the PI and YaRN papers. Position enters the model through one",
        "`Positional` object (add to the embeddings, rotate q and k, or add a bias to the scores), so the six families",
        "(`nope`, `sinusoidal`, `learned`, `rope`, `alibi`, `t5_bias`) train by the same recipe at L = "
        f"{L_} tokens (scale `tiny`; T5's table starts on ALiBi's lines and learns at 0.1× the rate, notebook 06 §5); `rope` is then evaluated zero-shot with every scaling method of `helpers.scaling`,",
        "with ablations of their mechanisms, and fine-tuned with PI (`rope+linear_ft`) and YaRN (`rope+yarn_ft`) at",
        "three learning rates. A second scale (`small`, L = 256, 32 RoPE pairs) is large enough for YaRN's three bands",
        f"to exist; there RoPE and its methods are run the same way. {len(ck)} checkpoints ({per_model} per model,",
        f"{size / 2**20:.1f} MB of tensors loaded with `torch.load(weights_only=True)`: float32, and float16 for the",
        "learning-rate sweep's extra runs, which the 25 MB budget would not hold otherwise) ship in",
        f"`helpers/lab/checkpoints/`; their runs took {minutes:.0f} min of wall-clock time in total, measured per run",
        "with several runs side by side on the shared, loaded 2-core machine (`nice -n 5 python -m helpers.lab train`:",
        "resumable, one progress bar per run, finished runs are never redone). `python -m helpers.lab evaluate`",
        "recomputes every record of `helpers/lab/results/results.json` ("
        + "; ".join(f"`{sc}`: {_eval_time(at_scale(results, sc)['meta'])}" for sc in _scales(results))
        + _wall_time(results)
        + "), and the tests re-evaluate a sample and compare.",
        "",
        "Mean over seeds, (min–max) over seeds, at L / 2L / 4L / 8L:",
        "",
        "| method | copy-LM loss, nats | passkey accuracy |",
        "|---|---|---|",
    ]
    for sc in _scales(results):
        view = at_scale(results, sc)
        lines.append(f"| **scale `{sc}`, L = {view['meta']['train_len']}** | | |")
        lines += [row(view, m) for m in MAIN if m in view["methods"] and m != "rope+default_window"]
    lines += [
        "",
        "Each claim below is generated from the records and says on how many seeds it holds:",
        "",
        findings_markdown(results).rstrip("\n"),
        "",
        "An independent re-run (issue 12) found zero-shot YaRN passkey accuracy 0.92 / 0.75 / 0.43, "
        "1.00 / 0.94 / 0.74 and 0.34 / 0.00 / 0.00 at 2L / 4L / 8L on three seeds of its own: at this scale passkey "
        "retrieval past L depends on the training run, so only statements that hold on every seed are kept.",
        "",
        "Every table (ablations and the learning-rate sweep included), the per-seed numbers, the loss-by-position",
        "figure, the set-up choices and the comparison with the PI, YaRN, ALiBi and NoPE papers are in",
        "[helpers/lab/results/RESULTS.md](helpers/lab/results/RESULTS.md); notebooks 03, 05 and 06 show them.",
        "",
        "![passkey accuracy against context length, mean and range over seeds](helpers/lab/results/passkey_by_length.png)",
        "",
    ]
    return "\n".join(lines) + "\n"


def update_readme(results: dict, path: Path = README) -> Path:
    """Replace the README's lab section (its heading up to the next ``## `` heading) with :func:`readme_section`."""
    text = Path(path).read_text()
    start = text.index(README_HEADING)
    end = text.find("\n## ", start + len(README_HEADING))
    end = len(text) if end < 0 else end + 1
    Path(path).write_text(text[:start] + readme_section(results) + text[end:])
    return Path(path)


def update_results_md(results: dict, path: Path = RESULTS_MD) -> Path:
    """Refresh both generated blocks of RESULTS.md: the tables and the findings."""
    update_block(path, TABLE_BEGIN, TABLE_END, results_tables(results))
    update_block(path, PAPERS_BEGIN, PAPERS_END, papers_markdown(results))
    update_block(path, EARLIER_BEGIN, EARLIER_END, earlier_claims_markdown(results))
    return update_block(path, FINDINGS_BEGIN, FINDINGS_END, findings_markdown(results))


#: The papers' claims set beside the lab's findings: (claim, source, finding keys, whether the first finding agrees
#: with the claim or contradicts it). The verdict is generated from the first finding's seed count.
PAPER_CLAIMS = (
    (
        "Extending RoPE past L by extrapolation fails (PI: attention scores can become catastrophically high)",
        "Chen et al. 2023, arXiv 2306.15595 (abstract); Peng et al. 2023, arXiv 2309.00071",
        ("rope_breaks",),
        True,
    ),
    (
        "PI reaches the longer window with a short fine-tune (within 1000 steps)",
        "arXiv 2306.15595 (abstract)",
        ("ft_pi_fixes",),
        True,
    ),
    (
        "Without fine-tuning, PI degrades but stays far better than extrapolation",
        "arXiv 2306.15595 (its results by fine-tuning step; step 0 = no fine-tuning)",
        ("pi_zero_shot",),
        False,
    ),
    (
        "A PI-extended model keeps its quality inside the original window relatively well",
        "arXiv 2306.15595 (abstract)",
        ("ft_costs_short",),
        False,
    ),
    (
        "NTK-aware and dynamic scaling work without fine-tuning; YaRN beats them and PI zero-shot",
        "arXiv 2309.00071 (§3.1 NTK-aware, §3.3 dynamic scaling, experiments)",
        ("loss_ranking", "yarn_passkey"),
        True,
    ),
    (
        "With the same fine-tune, YaRN beats PI",
        "arXiv 2309.00071 (experiments)",
        ("ft_yarn_beats_pi", "ft_yarn_passkey_4L"),
        True,
    ),
    (
        "Blind interpolation (PI) loses the high frequencies that resolve nearby tokens; YaRN keeps them",
        "arXiv 2309.00071 §3.2",
        ("pi_keep_fast",),
        True,
    ),
    (
        "NTK-aware scaling needs a factor above the extension ratio L'/L to work well",
        "arXiv 2309.00071 §3.1",
        ("ntk_alpha2s",),
        True,
    ),
    (
        "YaRN's attention temperature 0.1·ln s + 1 lowers perplexity at long lengths",
        "arXiv 2309.00071 §3.4",
        ("yarn_temperature",),
        True,
    ),
    (
        "ALiBi trains short and tests long: its perplexity does not rise past L with nothing changed",
        "Press et al. 2022, arXiv 2108.12409",
        ("alibi_flat", "alibi_local_past_4L"),
        True,
    ),
    (
        "A causal decoder without positional encoding (NoPE) generalises to longer inputs better than explicit "
        "encodings on their tasks",
        "Kazemnejad et al. 2023, arXiv 2305.19466",
        ("nope_flat", "nope_family"),
        True,
    ),
)


def _verdict(found: dict, agrees: bool) -> str:
    n, holds = found["n"], found["holds"]
    word = "agrees" if agrees else "not reproduced in the miniature"
    if holds == n:
        return f"**{word}** on all {n} seeds"
    if holds == 0:
        return f"**{'not reproduced' if agrees else 'consistent with the claim'}** on any of the {n} seeds"
    return f"**mixed**: {word} on {holds} of {n} seeds"


def papers_markdown(results: dict) -> str:
    """The papers' claims beside the lab's generated findings, with a verdict from the seed counts at each scale
    where the finding was measured."""
    scales = _scales(results)
    by_scale = {s: {f["key"]: f for f in findings(at_scale(results, s))} for s in scales}
    lines = ["| claim | source | this lab (scale `tiny`) | verdict |", "|---|---|---|---|"]
    for claim, source, keys, agrees in PAPER_CLAIMS:
        by_key = by_scale[scales[0]]
        found = [by_key[k] for k in keys if k in by_key]
        if not found or keys[0] not in by_key:
            continue
        verdicts = [f"`{s}`: {_verdict(by_scale[s][keys[0]], agrees)}" for s in scales if keys[0] in by_scale[s]]
        text = " ".join(f["text"] for f in found).replace("|", "/")
        lines.append(f"| {claim} | {source} | {text} | {'; '.join(verdicts)} |")
    return "\n".join(lines) + "\n"


PAPERS_BEGIN, PAPERS_END = "<!-- BEGIN GENERATED PAPERS -->", "<!-- END GENERATED PAPERS -->"
BLOCKS = (
    (TABLE_BEGIN, TABLE_END),
    (FINDINGS_BEGIN, FINDINGS_END),
    (PAPERS_BEGIN, PAPERS_END),
    ("<!-- BEGIN GENERATED EARLIER CLAIMS -->", "<!-- END GENERATED EARLIER CLAIMS -->"),
)


#: Claims of the one-seed write-up (README, RESULTS.md, notebook 05 §8, all from seed 0) and the findings that test
#: them now; the status is generated.
EARLIER_CLAIMS = (
    ("Plain RoPE breaks past L (passkey 1.00 at L, 0.00 at 4L and 8L)", "rope_breaks"),
    ("A learned table cannot run past its rows; on its untrained rows (2L) passkey drops to 0.00", "learned_table"),
    ("Zero-shot PI is the worst method, worse than plain extrapolation at 2L", "pi_zero_shot"),
    ("NTK-aware and YaRN work zero-shot; at 8L the loss ranks YaRN < NTK < plain RoPE", "loss_ranking"),
    ("Zero-shot YaRN is the best zero-shot method on passkeys past L", "yarn_passkey"),
    ("Zero-shot YaRN scores passkey 0.92 / 0.75 / 0.43 at 2L / 4L / 8L (at least 0.4 at 8L)", "yarn_passkey_8L"),
    ("After the same fine-tune, YaRN beats PI at 4L", "ft_yarn_beats_pi"),
    ("YaRN fine-tuned extrapolates past its tuning length better than PI fine-tuned (8L)", "ft_beyond_tuning"),
    ("A short PI fine-tune lifts passkey at 4L from 0.00 to 0.83 (a lift of more than 0.5)", "ft_pi_fixes"),
    ("Both fine-tunes lose passkey accuracy at T = L", "ft_costs_short"),
    ("NoPE learned the passkey (1.00 at L)", "nope_passkey_at_L"),
    ("The sinusoidal model never learned the passkey", "sinusoidal_no_passkey"),
    ("Once extension works, long context lowers the loss (YaRN: loss at 2L below loss at L)", "rope+yarn_long_context"),
)
EARLIER_BEGIN, EARLIER_END = "<!-- BEGIN GENERATED EARLIER CLAIMS -->", "<!-- END GENERATED EARLIER CLAIMS -->"


def earlier_claims_markdown(results: dict) -> str:
    """Each claim of the one-seed write-up beside what the seeds now say (generated status)."""
    by_key = {f["key"]: f for f in findings(results)}
    lines = ["| earlier claim (seed 0 only) | now | status |", "|---|---|---|"]
    for claim, key in EARLIER_CLAIMS:
        if key not in by_key:
            continue
        f = by_key[key]
        if f["holds"] == f["n"]:
            status = f"still holds, on all {f['n']} seeds" if f["n"] > 1 else "holds (one seed only)"
        elif f["holds"] == 0:
            status = "**changed**: holds on no seed"
        else:
            status = f"**changed**: holds on {f['holds']} of {f['n']} seeds only"
        lines.append(f"| {claim} | {f['text'].replace('|', '/')} | {status} |")
    return "\n".join(lines) + "\n"
