"""Chapter 07's results file and the tables read from it: loss curves and loss runs per method, passkey counts.

The file (``helpers/real/results/results.json``, written run by run by :func:`helpers.real.evaluate.run_plan`) holds
``{"meta": ..., "runs": [...]}``; every function here reads that dict, nothing runs the model. Used by notebook 07,
:mod:`helpers.real.report` and :mod:`helpers.real.evaluate` (which re-exports everything here).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

__all__ = [
    "RESULTS_FILE",
    "TRY_IT_FILE",
    "load_results",
    "write_results",
    "loss_curves",
    "loss_table",
    "passkey_counts",
    "passkey_stats",
]

RESULTS_FILE = Path(__file__).with_name("results") / "results.json"
#: The try-it panel's precomputed settings (``python -m helpers.real try-it`` writes it).
TRY_IT_FILE = RESULTS_FILE.with_name("try_it.json")


def load_results(path: str | os.PathLike = RESULTS_FILE) -> dict:
    """The results file as a dict ``{"meta": ..., "runs": [...]}`` (empty runs if the file does not exist)."""
    path = Path(path)
    if not path.is_file():
        return {"meta": {}, "runs": []}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_results(results: dict, path: str | os.PathLike) -> None:
    """Write a results dict as indented JSON, atomically (a temporary file, then a rename: a reader never sees half)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def loss_curves(results: dict, *, text: str = "bible", factor: float = 2.0, merge: int = 4) -> dict:
    """Loss-by-position curves of one text at one scale: method key -> (positions (K,), losses (K,)).

    One-pass loss runs of ``text`` at scale ``factor``; the sliding-window run of ``text`` under "sliding" and
    dynamic NTK fed through a KV cache under "kv_cache" (when present). ``merge`` consecutive stored blocks are
    averaged into one point (4 x 128 = 512 tokens). The x value is the centre of the merged block; a block with
    no data is NaN.
    """
    merge = int(merge)
    if merge < 1:
        raise ValueError(f"merge must be an int >= 1, got {merge}")
    curves = {}
    for r in results["runs"]:
        if r["kind"] == "loss" and r["text"] == text and r["factor"] == factor:
            name = "kv_cache" if "kv_chunk" in r else r["method"]
        elif r["kind"] == "sliding" and r["text"] == text:
            name = "sliding"
        elif r["kind"] == "windowed" and r["text"] == text and r["factor"] == factor:
            name = f"{r['method']}_windowed"
        else:
            continue
        y = np.array([np.nan if v is None else v for v in r["loss_blocks"]], dtype=np.float64)  # (K0,)
        y = y[: y.size // merge * merge].reshape(-1, merge).mean(1)  # (K,)
        curves[name] = ((np.arange(y.size) + 0.5) * r["block"] * merge, y)
    return curves


def loss_table(results: dict, *, text: str = "bible", factor: float = 2.0) -> dict:
    """The loss runs of one text at one scale by name (as in :func:`loss_curves`): name -> run dict."""
    table = {}
    for r in results["runs"]:
        if r["kind"] == "loss" and r["text"] == text and r["factor"] == factor:
            table["kv_cache" if "kv_chunk" in r else r["method"]] = r
        elif r["kind"] == "sliding" and r["text"] == text:
            table["sliding"] = r
        elif r["kind"] == "windowed" and r["text"] == text and r["factor"] == factor:
            table[f"{r['method']}_windowed"] = r
    return table


def passkey_counts(results: dict, *, factor: float = 2.0) -> dict:
    """Passkey trials at scale ``factor``: method -> {prompt length: (keys found, trials)} (lengths ascending)."""
    counts: dict = {}
    for r in results["runs"]:
        if r["kind"] == "passkey" and r["factor"] == factor:
            found, trials = counts.setdefault(r["method"], {}).get(r["n_tokens"], (0, 0))
            counts[r["method"]][r["n_tokens"]] = (found + bool(r["correct"]), trials + 1)
    return {m: dict(sorted(c.items())) for m, c in counts.items()}


def passkey_stats(results: dict, *, factor: float = 2.0) -> dict:
    """Passkey trials at scale ``factor``: method -> {prompt length: {"trials", "exact", "digits"}} (lengths
    ascending). ``exact``: trials whose 6 answer tokens are all the argmax (a space, then the 5 digits);
    ``digits``: digit positions right, of 5 per trial (each scored given the correct earlier answer tokens)."""
    stats: dict = {}
    for r in results["runs"]:
        if r["kind"] == "passkey" and r["factor"] == factor:
            e = stats.setdefault(r["method"], {}).setdefault(r["n_tokens"], {"trials": 0, "exact": 0, "digits": 0})
            e["trials"] += 1
            e["exact"] += bool(r["correct"])
            e["digits"] += int(r["digits_correct"])
    return {m: dict(sorted(c.items())) for m, c in stats.items()}
