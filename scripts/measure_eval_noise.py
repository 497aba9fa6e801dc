"""How much the lab's numbers move when only the evaluation sample changes, and what an evaluation costs.

Re-evaluates the shipped checkpoints of seeds 0-2 (both scales, every method) with each evaluation protocol of
:data:`helpers.lab.evaluate.EVAL_PROTOCOLS` on two evaluation samples (``eval_seed`` 2024, the shipped one, and
2025: other LM documents and other keys), then compares the two samples record by record and finding by finding,
and writes ``helpers/lab/results/eval_noise.json``::

    nice -n 10 python scripts/measure_eval_noise.py                  # resumable: parts are kept in --work
    python scripts/measure_eval_noise.py --analyse-only              # rewrite the JSON from the kept parts

Each (protocol, sample, scale, seed) part is one ``evaluate_all`` call in this process (one torch thread), timed:
that is the cost per (scale, seed) a learner pays under each protocol. The default protocol's 2024 sample is
``results.json`` itself (not recomputed). The measured changes are the noise a claim's number carries from the
evaluation sample alone (the tests use them as tolerances, e.g. when a retrained model is compared with the shipped
records).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from helpers.lab.evaluate import DEFAULT_PROTOCOL, EVAL_PROTOCOLS, EVAL_SEED, eval_sizes  # noqa: E402
from helpers.lab.grid import evaluate_all, merge_parts  # noqa: E402
from helpers.lab.records import RESULTS_DIR, RESULTS_JSON, at_scale, load_results  # noqa: E402

NOISE_JSON = RESULTS_DIR / "eval_noise.json"
SEEDS = (0, 1, 2)
SAMPLES = (EVAL_SEED, EVAL_SEED + 1)
SCALES = ("tiny", "small")


def part_path(work: Path, protocol: str, sample: int, scale: str, seed: int) -> Path:
    return work / f"{protocol}.sample{sample}.{scale}.seed{seed}.json"


def compute_parts(work: Path, protocols, log=print) -> None:
    """Every (protocol, sample, scale, seed) part not yet in ``work`` (the default protocol's 2024 sample is
    results.json and is skipped)."""
    work.mkdir(parents=True, exist_ok=True)
    for scale in SCALES:  # the cheap scale first, then seed by seed: each seed's comparison is complete early
        for protocol in protocols:
            for seed in SEEDS:
                for sample in SAMPLES:
                    if protocol == DEFAULT_PROTOCOL and sample == EVAL_SEED:
                        continue
                    path = part_path(work, protocol, sample, scale, seed)
                    if path.exists():
                        continue
                    start = time.perf_counter()
                    part = evaluate_all(seeds=[seed], scale=scale, eval_protocol=protocol, eval_seed=sample)
                    part["meta"]["part_seconds"] = round(time.perf_counter() - start, 1)
                    path.write_text(json.dumps(part) + "\n")
                    log(f"{path.name}: {part['meta']['part_seconds']} s")


def _only_seeds(view: dict, scale: str, seeds: list[int]) -> dict:
    """One scale's results restricted to ``seeds``: ``{"meta", "methods", "checkpoints", "records"}``."""
    methods = {m: {**info, "seeds": [x for x in info["seeds"] if x in seeds]} for m, info in view["methods"].items()}
    records = [r for r in view["records"] if r.get("scale", "tiny") == scale and r["seed"] in seeds]
    return {"meta": view["meta"], "methods": methods, "checkpoints": view["checkpoints"], "records": records}


def scale_results(work: Path, protocol: str, sample: int, scale: str, seeds: list[int]) -> tuple[dict, dict]:
    """(one scale's results on ``seeds``, seconds per seed) of one protocol and sample (the default protocol's
    shipped sample is results.json)."""
    if protocol == DEFAULT_PROTOCOL and sample == EVAL_SEED:
        return _only_seeds(at_scale(load_results(RESULTS_JSON), scale), scale, seeds), {}
    parts = [json.loads(part_path(work, protocol, sample, scale, s).read_text()) for s in seeds]
    seconds = {f"{scale}/seed{s}": p["meta"]["part_seconds"] for s, p in zip(seeds, parts, strict=True)}
    return merge_parts(parts), seconds


def seeds_done(work: Path, protocol: str, scale: str) -> list[int]:
    """The seeds of ``scale`` evaluated on both samples under ``protocol``."""

    def have(sample: int, seed: int) -> bool:
        shipped = protocol == DEFAULT_PROTOCOL and sample == EVAL_SEED  # results.json itself
        return shipped or part_path(work, protocol, sample, scale, seed).exists()

    return [s for s in SEEDS if all(have(sample, s) for sample in SAMPLES)]


def record_changes(a: dict, b: dict, scale: str) -> dict:
    """Largest and mean |change| of loss and passkey accuracy over the records of ``scale`` (same method, seed,
    length), and how many passkey cells moved."""
    key = lambda r: (r["method"], r["seed"], r["task"], r["length"])  # noqa: E731
    rb = {key(r): r for r in b["records"] if r.get("scale", "tiny") == scale}
    loss, acc, by_method = [], [], {}
    for r in a["records"]:
        if r.get("scale", "tiny") != scale or r["status"] != "ok" or key(r) not in rb:
            continue
        other = rb[key(r)]["metrics"]
        metric = "loss" if r["task"] == "lm" else "accuracy"
        change = abs(r["metrics"][metric] - other[metric])
        (loss if metric == "loss" else acc).append(change)
        mine = by_method.setdefault(r["method"], {"loss": 0.0, "accuracy": 0.0})
        mine[metric] = round(max(mine[metric], change), 4)
    loss, acc = np.asarray(loss), np.asarray(acc)
    return {
        "by_method_max": by_method,
        "loss_nats": {"max": round(float(loss.max()), 4), "mean": round(float(loss.mean()), 4), "cells": len(loss)},
        "passkey_accuracy": {
            "max": round(float(acc.max()), 4),
            "mean": round(float(acc.mean()), 4),
            "p95": round(float(np.quantile(acc, 0.95)), 4),
            "cells_moved": int((acc > 1e-9).sum()),
            "cells": len(acc),
        },
    }


def finding_changes(a: dict, b: dict, scale: str) -> dict:
    """Per finding: its seed count and verdict on each sample, and the largest |change| of its per-seed values
    (passkey values and loss values apart)."""
    from helpers.lab.findings import findings

    fa = {f["key"]: f for f in findings(a)}
    fb = {f["key"]: f for f in findings(b)}
    out = {}
    for k, f in fa.items():
        if k not in fb:
            continue
        moves: dict[str, float] = {}
        for name, values in f["values"].items():
            kind = f["kinds"][name]
            d = np.abs(np.asarray(values, dtype=float) - np.asarray(fb[k]["values"][name], dtype=float))
            d = d[np.isfinite(d)]
            if d.size:
                moves[kind] = max(moves.get(kind, 0.0), float(d.max()))
        out[k] = {
            "holds": [f["holds"], fb[k]["holds"]],
            "n": f["n"],
            "verdict": [f["verdict"], fb[k]["verdict"]],
            "max_change": {kind: round(v, 4) for kind, v in sorted(moves.items())},
        }
    return out


def analyse(work: Path, protocols) -> dict:
    """The JSON: per protocol its sizes and, per scale evaluated on both samples, the cost per seed and the changes
    of records and findings between the two samples."""
    out = {
        "what": "the same shipped checkpoints (seeds 0-2) evaluated on two evaluation samples (eval_seed "
        f"{SAMPLES[0]} and {SAMPLES[1]}: other LM documents, other passkeys); changes are |sample 2 - sample 1|",
        "script": "python scripts/measure_eval_noise.py",
        "torch_threads": 1,
        "protocols": {},
    }
    for protocol in protocols:
        entry = {"sizes": {}, "keys_per_length": {}, "seeds": {}, "seconds_per_scale_seed": {}, "seconds_per_seed": {}}
        entry |= {"records": {}, "findings": {}}
        for sc in SCALES:
            seeds = seeds_done(work, protocol, sc)
            if not seeds:
                continue
            (a, sec_a), (b, sec_b) = (scale_results(work, protocol, sample, sc, seeds) for sample in SAMPLES)
            seconds = sec_b or sec_a
            n_lm, n_attention, per_depth = eval_sizes(sc, protocol)
            entry["sizes"][sc] = {"lm_documents": n_lm, "attention_documents": n_attention, "keys_per_depth": per_depth}
            entry["keys_per_length"][sc] = per_depth * len(a["meta"]["passkey_depths"])
            entry["seeds"][sc] = seeds
            entry["seconds_per_scale_seed"] |= seconds
            entry["seconds_per_seed"][sc] = round(float(np.median(list(seconds.values()))), 1)
            entry["records"][sc] = record_changes(a, b, sc)
            entry["findings"][sc] = finding_changes(a, b, sc)
        if entry["records"]:
            out["protocols"][protocol] = entry
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/lab_eval_noise"), help="where the parts are kept")
    parser.add_argument("--out", type=Path, default=NOISE_JSON, help="the JSON to write")
    parser.add_argument("--protocols", nargs="+", choices=list(EVAL_PROTOCOLS), default=list(EVAL_PROTOCOLS))
    parser.add_argument("--analyse-only", action="store_true", help="write the JSON from the parts already kept")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if not args.analyse_only:
        compute_parts(args.work, args.protocols, log=lambda line: print(line, flush=True))
    args.out.write_text(json.dumps(analyse(args.work, args.protocols), indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
