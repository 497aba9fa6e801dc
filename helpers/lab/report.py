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

from helpers.lab.methods import METHODS, lab_method

RESULTS_DIR = Path(__file__).resolve().parent / "results"
RESULTS_JSON = RESULTS_DIR / "results.json"
RESULTS_MD = RESULTS_DIR / "RESULTS.md"
PLOTS = {
    "loss_by_position": RESULTS_DIR / "loss_by_position.png",
    "passkey_by_length": RESULTS_DIR / "passkey_by_length.png",
    "learned_table": RESULTS_DIR / "learned_table.png",
}
TABLE_BEGIN, TABLE_END = "<!-- BEGIN GENERATED TABLE -->", "<!-- END GENERATED TABLE -->"
METRICS = {
    "lm": ("loss", "loss_by_bucket", "bucket_starts", "previous_token_attention", "previous_token_by_head"),
    "passkey": ("accuracy", "accuracy_by_depth", "digit_accuracy"),
}


def load_results(path: Path = RESULTS_JSON) -> dict:
    """The stored evaluation results (``results/results.json``), as written by :func:`write_results`."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no stored results at {path}; run `python -m helpers.lab evaluate`")
    return json.loads(path.read_text())


def _task_of(metric: str) -> str:
    for task, names in METRICS.items():
        if metric in names:
            return task
    raise ValueError(f"metric must be one of {[m for names in METRICS.values() for m in names]}, got {metric!r}")


def record(results: dict, method: str, seed: int, task: str, length: int) -> dict:
    """The one record of (method, seed, task, length); KeyError naming it if absent."""
    for r in results["records"]:
        if r["method"] == method and r["seed"] == seed and r["task"] == task and r["length"] == length:
            return r
    raise KeyError(f"no record for method={method!r}, seed={seed}, task={task!r}, length={length}")


def seed_values(results: dict, method: str, metric: str, length: int) -> np.ndarray:
    """``metric`` of ``method`` at length T for every seed of ``results["meta"]["seeds"]``, shape (n_seeds, ...);
    NaN where the method cannot run."""
    task = _task_of(metric)
    out = []
    for seed in results["meta"]["seeds"]:
        r = record(results, method, seed, task, length)
        out.append(r["metrics"][metric] if r["status"] == "ok" else np.nan)
    return np.asarray(out, dtype=np.float64)


def summary(results: dict, method: str, metric: str, length: int) -> dict:
    """``{"mean", "min", "max", "values"}`` of a scalar metric over seeds (NaN everywhere if it cannot run)."""
    v = seed_values(results, method, metric, length)  # (n_seeds,)
    if np.isnan(v).any():
        return {"mean": math.nan, "min": math.nan, "max": math.nan, "values": v.tolist()}
    return {"mean": float(v.mean()), "min": float(v.min()), "max": float(v.max()), "values": v.tolist()}


def _cell(s: dict, fmt: str) -> str:
    if math.isnan(s["mean"]):
        return "cannot run"
    return f"{s['mean']:{fmt}} [{s['min']:{fmt}}, {s['max']:{fmt}}]"


def results_tables(results: dict) -> str:
    """The generated Markdown: loss, passkey and previous-token tables (mean [min, max] over seeds), passkey per
    seed for the RoPE methods, and the training runs."""
    meta = results["meta"]
    lengths, train_len, seeds = meta["lengths"], meta["train_len"], meta["seeds"]
    methods = list(results["methods"])
    heads = " | ".join(f"{t} ({t / train_len:g}×L)" for t in lengths)
    rule = "|".join(["---"] * (len(lengths) + 1))
    n_keys = len(meta["passkey_depths"]) * meta["passkey_keys_per_depth"]
    lines = [
        f"Seeds {', '.join(map(str, seeds))}; each cell is the mean over seeds and [min, max]. "
        f"Evaluation: {meta['n_lm_sequences']} LM documents and {n_keys} passkeys per length "
        f"(seed {meta['eval_seed']}), the same for every method.",
        "",
        "Mean next-token loss on the copy-LM task (nats; lower is better; a fresh random word costs ln 107 = 4.67):",
        "",
        f"| method | {heads} |",
        f"|{rule}|",
    ]
    for m in methods:
        cells = " | ".join(_cell(summary(results, m, "loss", t), ".3f") for t in lengths)
        lines.append(f"| `{m}` ({lab_method(m).label}) | {cells} |")
    lines += [
        "",
        f"Passkey accuracy (all 5 digits right; {n_keys} keys per length; chance ≈ 0):",
        "",
        f"| method | {heads} |",
        f"|{rule}|",
    ]
    for m in methods:
        cells = " | ".join(_cell(summary(results, m, "accuracy", t), ".2f") for t in lengths)
        lines.append(f"| `{m}` ({lab_method(m).label}) | {cells} |")
    lines += [
        "",
        "Passkey accuracy per seed (seed 0 / 1 / 2 …):",
        "",
        f"| method | {heads} |",
        f"|{rule}|",
    ]
    for m in methods:
        cells = []
        for t in lengths:
            v = seed_values(results, m, "accuracy", t)
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
        cells = " | ".join(_cell(summary(results, m, "previous_token_attention", t), ".2f") for t in lengths)
        lines.append(f"| `{m}` | {cells} |")
    lines += [
        "",
        "Training runs (wall-clock seconds as measured when each checkpoint was made; 1 torch thread on the shared, "
        "loaded 2-core machine, so inflated and load-dependent):",
        "",
        "| checkpoint | parameters | steps | length | batch | seconds | final loss |",
        "|---|---|---|---|---|---|---|",
    ]
    for cid, c in sorted(results["checkpoints"].items()):
        t = c["training"]
        lines.append(
            f"| `{cid}` | {c['n_parameters']:,} | {t['steps']} | {t['length']} | {t['batch_size']} | "
            f"{t['seconds']:.1f} | {t['final_loss']:.3f} |"
        )
    total = sum(c["training"]["seconds"] for c in results["checkpoints"].values())
    lines += [
        "",
        f"Total training time of the {len(results['checkpoints'])} checkpoints: {total / 60:.1f} min; "
        f"evaluating everything: {meta['eval_seconds']:.1f} s ({meta['torch_threads']} thread).",
    ]
    return "\n".join(lines) + "\n"


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
        md.write_text(f"# Tiny-model lab: results\n\n{TABLE_BEGIN}\n{TABLE_END}\n")
    written.append(update_block(md, TABLE_BEGIN, TABLE_END, results_tables(results)))
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
