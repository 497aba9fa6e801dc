"""The lab's overview: one page with the set-up, the main table of every scale (mean and range over seeds at L, 2L,
4L, 8L), every finding, and a link to the full tables in ``results/RESULTS.md``; generated from ``results.json``
(``scripts/update_lab_results.py`` writes it).
"""

from __future__ import annotations

import math
from pathlib import Path

from helpers.lab.findings import findings_markdown
from helpers.lab.methods import MAIN, lab_method
from helpers.lab.positional import FAMILIES
from helpers.lab.records import at_scale, scales_of, seeds_of, summary
from helpers.lab.tables import eval_time, wall_time

__all__ = ["README_HEADING", "readme_section"]

CHECKPOINT_SIZES_DIR = Path(__file__).resolve().parent / "checkpoints"


def _number(n: int) -> str:
    return {5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}.get(n, str(n))


README_HEADING = "## The tiny-model lab"


def readme_section(results: dict) -> str:
    """The README's lab section (from its heading to the next ``## `` heading), generated from ``results``."""
    meta = results["meta"]
    ck = results["checkpoints"]
    counts = [
        len(seeds_of(at_scale(results, sc), m)) for sc in scales_of(results) for m in at_scale(results, sc)["methods"]
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
        "`Positional` object (add to the embeddings, rotate q and k, or add a bias to the scores), so the "
        f"{_number(len(FAMILIES))} families",
        f"({', '.join(f'`{f}`' for f in FAMILIES)}) train by the same recipe at L = "
        f"{L_} tokens (scale `tiny`); `rope` is then evaluated zero-shot with every scaling method of `helpers.scaling`,",
        "with ablations of their mechanisms, and fine-tuned with PI (`rope+linear_ft`) and YaRN (`rope+yarn_ft`) at",
        "three learning rates. A second scale (`small`, L = 256, 32 RoPE pairs) is large enough for YaRN's three bands",
        f"to exist; there RoPE and its methods are run the same way. {len(ck)} checkpoints ({per_model} per model,",
        f"{size / 2**20:.1f} MB of tensors loaded with `torch.load(weights_only=True)`: float32, and float16 for the",
        "learning-rate sweep's extra runs, which the 25 MB budget would not hold otherwise) ship in",
        f"`helpers/lab/checkpoints/`; their runs took {minutes:.0f} min of wall-clock time in total, measured per run",
        "with several runs side by side on the shared, loaded 2-core machine (`nice -n 5 python -m helpers.lab train`:",
        "resumable, one progress bar per run, finished runs are never redone). `python -m helpers.lab evaluate`",
        "recomputes every record of `helpers/lab/results/results.json` ("
        + "; ".join(f"`{sc}`: {eval_time(at_scale(results, sc)['meta'])}" for sc in scales_of(results))
        + wall_time(results)
        + "), and the tests re-evaluate a sample and compare.",
        "",
        "Mean over seeds, (min–max) over seeds, at L / 2L / 4L / 8L:",
        "",
        "| method | copy-LM loss, nats | passkey accuracy |",
        "|---|---|---|",
    ]
    for sc in scales_of(results):
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
