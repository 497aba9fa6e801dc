"""The evaluation grid: every method × seed × length × task of a scale → records (``results.json``), each distinct
computation done once, optionally in several processes.

Cells come from :mod:`helpers.lab.evaluate` (one measurement each); :func:`evaluate_all` runs one scale,
:func:`evaluate_scales` several (in parallel processes of one torch thread each), :func:`merge_parts` puts the parts
back in the order one call would give. Reading the records back: :mod:`helpers.lab.records`.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import torch

from helpers._checks import check_int
from helpers.lab.checkpoints import CHECKPOINT_DIR, SCALE, SCALES, SEEDS, checkpoint_id, checkpoint_metadata, is_trained
from helpers.lab.evaluate import (
    DEFAULT_PROTOCOL,
    DEPTHS,
    EVAL_SEED,
    TASKS,
    check_length,
    check_scale,
    eval_sizes,
    evaluate_lm,
    evaluate_passkey,
    lengths_of,
    model_for,
    previous_token_attention,
    protocol,
    scaling_for,
)
from helpers.lab.methods import ALL_METHODS, METHODS, lab_method
from helpers.lab.model import TinyTransformer
from helpers.lab.records import SAMPLE_FIELDS

__all__ = ["computation_key", "evaluate_all", "evaluate_scales", "merge_parts"]


# --------------------------------------------------------------------------- everything → records
def computation_key(
    method: str, length: int, task: str, seed: int, *, scale: str = SCALE, directory: Path = CHECKPOINT_DIR
) -> tuple:
    """Two cells with the same key compute exactly the same numbers, so :func:`evaluate_all` computes them once:
    the same checkpoint run with the same frequencies, attention factor and protocol (every zero-shot method at
    T = L is plain RoPE; dynamic NTK's passkey at T is static NTK with s = T/L)."""
    spec = lab_method(method)
    model = model_for(method, seed, scale=scale, directory=directory)
    if model.config.family != "rope":
        return (scale, spec.checkpoint, seed, method, length, task)
    how = protocol(method, length, task, model.train_len)
    scaling = scaling_for(method, length, model)
    if how == "KV cache":
        cos, sin = model.positional.kv_cache_cos_sin(length, scaling)  # (T, d_h/2) each
    else:
        cos, sin = model.positional.cos_sin(length, scaling)  # (T, d_h/2) each
    return (scale, spec.checkpoint, seed, task, length, how, cos.numpy().tobytes(), sin.numpy().tobytes())


def _record(method: str, seed: int, task: str, length: int, cell: dict, model: TinyTransformer, scale: str) -> dict:
    spec = lab_method(method)
    metrics = {k: v for k, v in cell.items() if k not in ("status", "message", "rope_scaling", "protocol", "depths")}
    record = {
        "scale": scale,
        "method": method,
        "family": spec.family,
        "scaling": spec.scaling,
        "finetune": spec.finetune,
        "seed": seed,
        "task": task,
        "length": length,
        "status": cell["status"],
        "metrics": metrics,
        "config": {
            "checkpoint": checkpoint_id(SCALES[scale].model_name(spec.checkpoint), seed),
            "train_len": model.train_len,
            "rope_scaling": scaling_for(method, length, model),
            "protocol": protocol(method, length, task, model.train_len),
        },
    }
    if cell["status"] != "ok":
        record["message"] = cell["message"]
    return record


def _reused_meta(reuse: dict | None, scale: str) -> dict:
    """The meta of ``scale`` in earlier results (empty if absent)."""
    if not reuse:
        return {}
    if reuse["meta"].get("scale", "tiny") == scale:
        return reuse["meta"]
    return reuse.get("scales", {}).get(scale, {}).get("meta", {})


def sample_of(meta: dict) -> dict:
    """The evaluation sample a scale's meta describes (:data:`SAMPLE_FIELDS`)."""
    return {k: meta.get(k) for k in SAMPLE_FIELDS}


def _sample_meta(scale: str, eval_protocol: str, eval_seed: int) -> dict:
    n_lm, n_attention, n_per_depth = eval_sizes(scale, eval_protocol)
    return {
        "eval_protocol": eval_protocol,
        "n_lm_sequences": n_lm,
        "n_attention_sequences": n_attention,
        "passkey_depths": list(DEPTHS),
        "passkey_keys_per_depth": n_per_depth,
        "eval_seed": eval_seed,
    }


def _methods_at(scale: str, methods: list[str] | None) -> list[str]:
    """The methods to evaluate at ``scale``: every method of the shipped grid (:data:`METHODS`) with a checkpoint
    there, or ``methods`` (checked; hybrids too, :data:`helpers.lab.methods.HYBRID_METHODS`)."""
    from helpers.lab.checkpoints import RECIPES

    info = SCALES[check_scale(scale)]
    if methods is None:
        return [m for m in METHODS if info.model_name(METHODS[m].checkpoint) in RECIPES]
    available = [m for m in ALL_METHODS if info.model_name(ALL_METHODS[m].checkpoint) in RECIPES]
    methods = [lab_method(m).name for m in methods]
    missing = [m for m in methods if m not in available]
    if missing:
        raise ValueError(f"methods {missing} have no checkpoint at scale {scale!r}; allowed there: {available}")
    return methods


def _checkpoint_entry(meta: dict) -> dict:
    """What ``results.json`` keeps of a checkpoint's JSON: config, settings, command, size and training time."""
    keep = ("name", "seed", "config", "settings", "init_from", "command", "n_parameters")
    return {key: meta[key] for key in keep} | {
        "training": {k: v for k, v in meta["training"].items() if k != "loss_every_50_steps"},
        "stored_dtype": meta.get("stored_dtype", "float32"),
    }


def _cell(method: str, length: int, task: str, seed: int, scale: str, directory: Path, sample: dict) -> dict:
    """One measurement: the LM loss (with the previous-token diagnostic) or the passkey accuracy; ``sample``:
    ``{"eval_protocol", "data_seed"}``."""
    if task != "lm":
        return evaluate_passkey(method, length, seed=seed, scale=scale, directory=directory, **sample)
    cell = evaluate_lm(method, length, seed=seed, scale=scale, directory=directory, **sample)
    if cell["status"] == "ok":
        previous = previous_token_attention(method, length, seed=seed, scale=scale, directory=directory, **sample)
        cell["previous_token_attention"] = previous["max"]
        cell["previous_token_by_head"] = previous["by_head"]
    return cell


def _meta(
    scale: str, lengths: list[int], seeds: list[int], seconds: float, reused: int, reuse: dict | None, sample: dict
) -> dict:
    info = SCALES[scale]
    return {
        "scale": scale,
        "scale_why": info.why,
        "train_len": info.train_len,
        "lengths": lengths,
        "seeds": seeds,
        "bucket": info.train_len // 4,
        **sample,
        "eval_seconds": round(seconds, 1),
        "reused_runs": reused,
        "full_eval_seconds": round(seconds, 1) if not reused else _reused_meta(reuse, scale).get("full_eval_seconds"),
        "torch_threads": torch.get_num_threads(),
        "torch_version": torch.__version__,
        "machine": platform.machine(),
    }


def evaluate_all(
    methods: list[str] | None = None,
    lengths: list[int] | None = None,
    seeds: list[int] | None = None,
    *,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
    progress: bool = False,
    reuse: dict | None = None,
    skip_untrained: bool | None = None,
    eval_protocol: str = DEFAULT_PROTOCOL,
    eval_seed: int = EVAL_SEED,
) -> dict:
    """Every method × seed × length × task at one ``scale`` (defaults: every method of :data:`METHODS` that has a
    checkpoint at that scale, seeds 0 1 2, L..8L).

    ``reuse``: earlier results; the records of a (method, seed) whose checkpoint metadata is unchanged are copied
    instead of recomputed (they would be identical: evaluation is deterministic), and ``meta["reused_runs"]``
    counts them, so ``meta["eval_seconds"]`` then times only the new part.

    Returns ``{"meta", "methods", "checkpoints", "records"}``: one record per (scale, method, seed, task, length)
    with ``status``, ``metrics`` (lm: loss, loss_by_bucket, bucket_starts, previous_token_attention,
    previous_token_by_head; passkey: accuracy, accuracy_by_depth, digit_accuracy) and ``config`` (checkpoint,
    train_len, rope_scaling, protocol); ``checkpoints`` holds each checkpoint's config, settings and training time.
    Two scales' results are joined by :func:`helpers.lab.records.join_scales`; :func:`evaluate_scales` runs
    several scales, in parallel processes if asked. ``skip_untrained``: leave out (method, seed) runs whose
    checkpoint is missing (default: only when ``seeds`` is None). ``eval_protocol`` (a key of
    :data:`helpers.lab.evaluate.EVAL_PROTOCOLS`) and ``eval_seed`` choose the evaluation sample; records are reused
    only from results of the same sample.
    """
    info = SCALES[check_scale(scale)]
    methods = _methods_at(scale, methods)
    lengths = list(lengths_of(scale)) if lengths is None else [check_length(t) for t in lengths]
    # default: every seed of SEEDS whose checkpoint exists (missing ones are left out)
    optional = seeds is None if skip_untrained is None else skip_untrained
    seeds = list(SEEDS) if seeds is None else [check_int("seed", s, minimum=0) for s in seeds]
    sample_meta = _sample_meta(scale, eval_protocol, check_int("eval_seed", eval_seed, minimum=0))
    sample = {"eval_protocol": eval_protocol, "data_seed": eval_seed}
    if reuse is not None and sample_of(_reused_meta(reuse, scale)) != sample_of(sample_meta):
        reuse = None  # another evaluation sample: nothing to copy
    evaluated: dict[str, list[int]] = {m: [] for m in methods}
    reused, start = 0, time.perf_counter()
    done: dict[tuple, dict] = {}  # computation key -> cell: each distinct computation once
    records, checkpoints = [], {}
    old_records = [r for r in (reuse or {}).get("records", []) if r.get("scale", "tiny") == scale]
    for m in methods:
        for seed in seeds:
            name = info.model_name(lab_method(m).checkpoint)
            if optional and not is_trained(name, seed, directory):
                continue
            evaluated[m].append(seed)
            model = model_for(m, seed, scale=scale, directory=directory)
            cid = checkpoint_id(name, seed)
            checkpoints[cid] = _checkpoint_entry(checkpoint_metadata(name, seed, directory=directory))
            if reuse is not None and reuse.get("checkpoints", {}).get(cid) == checkpoints[cid]:
                old = [r for r in old_records if r["method"] == m and r["seed"] == seed and r["length"] in lengths]
                if len(old) == len(lengths) * len(TASKS):  # unchanged checkpoint: its records are the same
                    records.extend(old)
                    reused += 1
                    continue
            for t in lengths:
                for task in TASKS:
                    key = computation_key(m, t, task, seed, scale=scale, directory=directory)
                    if key not in done:
                        done[key] = _cell(m, t, task, seed, scale, directory, sample)
                    records.append(_record(m, seed, task, t, done[key], model, scale))
        if progress:
            print(f"evaluated {scale}/{m:<26} ({time.perf_counter() - start:.1f} s)", flush=True)
    return {
        "meta": _meta(scale, lengths, seeds, time.perf_counter() - start, reused, reuse, sample_meta),
        "methods": {m: {**lab_method(m).to_dict(), "seeds": evaluated[m]} for m in methods if evaluated[m]},
        "checkpoints": checkpoints,
        "records": records,
    }


def merge_parts(parts: list[dict], reuse: dict | None = None) -> dict:
    """One scale's results from :func:`evaluate_all` run in parts (per seed, per group of methods): records in the
    order one call would give (method, then seed), each method's seeds joined; ``eval_seconds`` is the sum of the
    parts' (the work of
    one process)."""
    scale = parts[0]["meta"]["scale"]
    if any(p["meta"]["scale"] != scale for p in parts):
        raise ValueError(f"parts must be of one scale, got {[p['meta']['scale'] for p in parts]}")
    order = {m: i for i, m in enumerate(ALL_METHODS)}
    records = sorted((r for p in parts for r in p["records"]), key=lambda r: (order[r["method"]], r["seed"]))
    methods = {}
    for m in sorted({m for p in parts for m in p["methods"]}, key=order.__getitem__):
        seeds = sorted(s for p in parts if m in p["methods"] for s in p["methods"][m]["seeds"])
        methods[m] = {**lab_method(m).to_dict(), "seeds": seeds}
    seconds = round(sum(p["meta"]["eval_seconds"] for p in parts), 1)
    reused = sum(p["meta"]["reused_runs"] for p in parts)
    meta = parts[0]["meta"] | {
        "seeds": sorted({s for p in parts for s in p["meta"]["seeds"]}),
        "eval_seconds": seconds,
        "reused_runs": reused,
        "full_eval_seconds": seconds if not reused else _reused_meta(reuse, scale).get("full_eval_seconds"),
    }
    checkpoints = dict(sorted((k, v) for p in parts for k, v in p["checkpoints"].items()))
    return {"meta": meta, "methods": methods, "checkpoints": checkpoints, "records": records}


def _evaluate_part(kwargs: dict) -> dict:
    torch.set_num_threads(1)
    return evaluate_all(**kwargs)


def evaluate_scales(
    plan: dict[str, list[str] | None],
    lengths: list[int] | None = None,
    seeds: list[int] | None = None,
    *,
    directory: Path = CHECKPOINT_DIR,
    progress: bool = False,
    reuse: dict | None = None,
    jobs: int = 1,
    eval_protocol: str = DEFAULT_PROTOCOL,
    eval_seed: int = EVAL_SEED,
) -> list[dict]:
    """:func:`evaluate_all` for each scale of ``plan`` ({scale: its methods, or None for all}; ``lengths`` apply to
    the first scale, the others use their own), one result per scale. ``jobs`` > 1: the parts (scale, seed,
    checkpoint) run in that many processes of one torch thread each (the
    numbers are the same: each part is deterministic and the records are put back in order), so the 2-core
    machine evaluates everything in about half the time."""
    jobs = check_int("jobs", jobs, minimum=1)
    calls = []
    for i, (scale, methods) in enumerate(plan.items()):
        calls.append(
            {
                "methods": methods,
                "lengths": lengths if i == 0 else None,
                "scale": scale,
                "directory": directory,
                "progress": progress,
                "reuse": reuse,
                "eval_protocol": eval_protocol,
                "eval_seed": eval_seed,
            }
        )
    if jobs == 1:
        return [evaluate_all(seeds=seeds, **call) for call in calls]
    import concurrent.futures
    import multiprocessing

    from helpers.lab.checkpoints import RECIPES

    parts = []
    for call in calls:
        info = SCALES[call["scale"]]
        names = call["methods"] or [m for m in METHODS if info.model_name(METHODS[m].checkpoint) in RECIPES]
        groups: dict[str, list[str]] = {}  # one part per checkpoint: its methods share the computations at T = L
        for m in names:
            groups.setdefault(lab_method(m).checkpoint, []).append(m)
        for s in seeds or list(SEEDS):
            parts += [call | {"methods": g, "seeds": [s], "skip_untrained": seeds is None} for g in groups.values()]
    # the longest parts first (cost ~ L² per method), so that the processes finish at about the same time
    parts.sort(key=lambda p: -(SCALES[p["scale"]].train_len ** 2) * len(p["methods"]))
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no torch thread pool inherited by fork
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        done = list(pool.map(_evaluate_part, parts))
    out = []
    for scale in plan:
        mine = [d for d in done if d["meta"]["scale"] == scale and d["records"]]
        if mine:
            out.append(merge_parts(mine, reuse))
    return out
