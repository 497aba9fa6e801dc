"""Chapter 07's measurements: loss by position, a sliding-window baseline and passkey retrieval, per method.

Every measurement is a *run* with an ``id``; a plan is a list of runs. :func:`run_plan` skips ids already in the
results file and appends each finished run to it at once (write to a temporary file, then rename), so an
interrupted evaluation loses at most the run in progress and resumes where it stopped.
``python -m helpers.real evaluate`` runs the default plan (:func:`default_plan`) into the shipped
``helpers/real/results/results.json``.

Three modules, one idea each, all importable from here: this one plans and runs the measurements (and the try-it
panel's table); :mod:`helpers.real.passkey` builds and scores a passkey trial; :mod:`helpers.real.results` reads the
results file into tables. Used by notebook 07.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import numpy as np
import torch

from helpers.real.fetch import WHEELS
from helpers.real.model import EVAL_METHODS, RealLlama, rope_parameters
from helpers.real.passkey import DEPTHS, FILLER, KEY_LINE, QUESTION, TASK, passkey_keys, passkey_prompt, passkey_trial
from helpers.real.results import (
    POSITIVE_CONTROL_FILE,
    RESULTS_FILE,
    TRY_IT_FILE,
    check_results_model,
    load_positive_control,
    load_results,
    loss_curves,
    loss_table,
    passkey_counts,
    passkey_stats,
    write_results,
)
from helpers.real.texts import TEXTS, text_tokens, tokens_sha256
from helpers.scaling import ROPE_SCALING

__all__ = [
    "BLOCK",
    "DEPTHS",
    "FILLER",
    "KEY_LINE",
    "PARTS",
    "POSITIVE_CONTROL_FILE",
    "QUESTION",
    "RESULTS_FILE",
    "TASK",
    "TRY_IT_FILE",
    "block_means",
    "default_plan",
    "effective_scale",
    "load_positive_control",
    "load_results",
    "loss_curves",
    "measure_positive_control",
    "loss_table",
    "passkey_counts",
    "passkey_stats",
    "passkey_keys",
    "passkey_prompt",
    "passkey_trial",
    "run_one",
    "run_plan",
    "try_it_table",
]

#: Positions per block when loss-by-position curves are stored (16384 tokens -> 128 numbers per run).
BLOCK = 128


def block_means(losses, block: int = BLOCK) -> list[float | None]:
    """Mean of consecutive blocks of ``block`` losses (the last block may be shorter), rounded to 5 decimals.

    NaN marks a loss that was not measured; a block with no measured loss gives None.
    """
    x = np.asarray(losses, dtype=np.float64)
    out = []
    for a in range(0, x.size, block):
        part = x[a : a + block]
        part = part[~np.isnan(part)]
        out.append(round(float(part.mean()), 5) if part.size else None)
    return out


def effective_scale(model: RealLlama, method: str, factor: float, seq_len: int) -> tuple[float, float]:
    """How much ``method`` at ``factor`` slows the slowest and the fastest rotary pair at length ``seq_len``:
    (θ_slowest / θ'_slowest, θ_fastest / θ'_fastest), from the frequencies the model rotates with.

    PI slows every pair by s; NTK-aware, YaRN and Llama 3 slow the slowest pair by s and leave the fastest alone;
    dynamic NTK slows the slowest by its effective scale s·l/L − s + 1 (l = max(seq_len, L); HF's formula), so at
    l = 2L a factor of 2 runs at 3, and a factor of 1 at l/L = 2.
    """
    plain = model.rotary("default")[0]  # (D/2,)
    scaled = model.rotary(method, factor, seq_len=seq_len)[0]  # (D/2,)
    return float(plain[-1] / scaled[-1]), float(plain[0] / scaled[0])


# ------------------------------------------------------------------ runs
def _run_id(spec: dict) -> str:
    keys = ("kind", "text", "n_tokens", "method", "factor", "depth", "key", "kv_chunk", "window")
    return "/".join(f"{k}={spec[k]}" for k in keys if k in spec)


PARTS = ("loss", "sliding", "windowed", "passkey", "cached")


def default_plan(
    *,
    context_length: int,
    text: str = "bible",
    n_tokens: int | None = None,
    factor: float = 2.0,
    methods=EVAL_METHODS,
    passkey_lengths=None,
    trials: int = 3,
    parts=("loss", "sliding", "passkey", "cached"),
    first=("default", "yarn", "dynamic", "linear"),
    window: int | None = None,
    kv_chunk: int = 1024,
) -> list[dict]:
    """The chapter's table, in priority order, so that a cut-short evaluation holds the most important runs.

    ``context_length`` is the model's trained context L (``config.context_length``, read from the GGUF); the
    defaults follow it: ``n_tokens`` = 2L, ``window`` = L, ``passkey_lengths`` = 2L, L, L/2, L/4, L/8.

    1. loss by position on ``n_tokens`` tokens of ``text`` at scale ``factor`` for the methods in ``first``;
    2. plain RoPE with a sliding window of ``window`` tokens (stride window/2) for the queries past L;
    3. (part ``windowed``) every other method with the same sliding window and the rotation of its full-context
       run (for dynamic NTK: the frequencies at l = ``n_tokens``), so that it differs from that run only in how
       much text each query sees;
    4. loss by position for the other methods;
    5. passkey: the first trial at the longest length for every method, then every trial (key, depth) at
       every other length from long to short for every method, then the remaining trials at the longest length;
    6. dynamic NTK fed through a KV cache 1024 tokens at a time (keys keep the rotation they were written with).
    """
    L = int(context_length)
    n_tokens = 2 * L if n_tokens is None else n_tokens
    window = L if window is None else window
    if passkey_lengths is None:
        passkey_lengths = (2 * L, L, L // 2, L // 4, L // 8)
    methods = tuple(methods)
    first = tuple(m for m in first if m in methods)
    rest = tuple(m for m in methods if m not in first)
    keys = passkey_keys(trials)
    lengths = sorted(passkey_lengths, reverse=True)

    def loss(m, **extra):
        return {"kind": "loss", "text": text, "n_tokens": n_tokens, "method": m, "factor": factor, **extra}

    def passkey(length, m, t):
        depth = DEPTHS[t % len(DEPTHS)]
        return {"kind": "passkey", "n_tokens": length, "method": m, "factor": factor, "depth": depth, "key": keys[t]}

    plan = []
    if "loss" in parts:
        plan += [loss(m) for m in first]
    if "sliding" in parts:
        plan.append({"kind": "sliding", "text": text, "n_tokens": n_tokens, "method": "default", "window": window})
    if "windowed" in parts:
        plan += [
            {"kind": "windowed", "text": text, "n_tokens": n_tokens, "method": m, "factor": factor, "window": window}
            for m in first + rest
            if m != "default"  # plain RoPE's windowed run is the "sliding" run
        ]
    if "loss" in parts:
        plan += [loss(m) for m in rest]
    if "passkey" in parts and lengths and trials:
        plan += [passkey(lengths[0], m, 0) for m in first + rest]
        plan += [passkey(n, m, t) for n in lengths[1:] for t in range(trials) for m in methods]
        plan += [passkey(lengths[0], m, t) for t in range(1, trials) for m in methods]
    if "cached" in parts and "dynamic" in methods:
        plan.append(loss("dynamic", kv_chunk=kv_chunk))
    for spec in plan:
        spec["id"] = _run_id(spec)
    return plan


def run_one(model: RealLlama, tokenizer, spec: dict) -> dict:
    """Execute one run spec; returns the spec plus its measurements and timing."""
    L = model.config.context_length
    out = dict(spec)
    t0 = time.perf_counter()
    if spec["kind"] in ("loss", "sliding", "windowed"):
        ids = text_tokens(spec["text"], spec["n_tokens"], tokenizer, quiet=True)
        if spec["kind"] == "loss":
            out["rope_parameters"] = rope_parameters(spec["method"], spec["factor"], original_max_position_embeddings=L)
            losses = model.token_losses(
                ids, method=spec["method"], factor=spec["factor"], kv_chunk=spec.get("kv_chunk")
            )  # (T-1,)
        else:  # inside L the window changes nothing: only the queries at positions >= L are scored
            W = spec["window"]
            rope = {}
            if spec["kind"] == "windowed":  # the full-context run's rotation (dynamic NTK: at l = len(ids))
                rope = {"method": spec["method"], "factor": spec["factor"], "rope_seq_len": len(ids)}
                out["rope_parameters"] = rope_parameters(
                    spec["method"], spec["factor"], original_max_position_embeddings=L
                )
                out["rope_seq_len"] = len(ids)
            outside = model.sliding_window_losses(ids, window=W, stride=W // 2, start=L, **rope)  # (T-1-L,)
            losses = np.concatenate([np.full(L, np.nan), outside])  # (T-1,)
        out["tokens_sha256"] = tokens_sha256(ids)
        out["block"] = BLOCK
        # losses[t] = loss of predicting token t+1 from the query at position t; block b = queries b·BLOCK ..
        out["loss_blocks"] = block_means(losses)
        # inside: queries at positions < L (every rotation angle seen in training); outside: positions >= L
        out["mean_inside"] = None if np.isnan(losses[:L]).all() else round(float(losses[:L].mean()), 5)
        out["mean_outside"] = round(float(losses[L:].mean()), 5) if losses.size > L else None
        out["mean_last_1k"] = round(float(np.nanmean(losses[-1024:])), 5)
    elif spec["kind"] == "passkey":
        out["rope_parameters"] = rope_parameters(spec["method"], spec["factor"], original_max_position_embeddings=L)
        out.update(
            passkey_trial(
                model,
                tokenizer,
                spec["n_tokens"],
                spec["depth"],
                spec["key"],
                method=spec["method"],
                factor=spec["factor"],
            )
        )
    else:
        raise ValueError(f"unknown run kind {spec['kind']!r}")
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["torch_threads"] = torch.get_num_threads()
    out["load_average_1min"] = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    try:  # peak resident memory of this process so far (Linux: KiB)
        import resource

        out["peak_rss_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2)
    except ImportError:  # Windows
        pass
    out["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return out


def try_it_table(
    model: RealLlama,
    tokenizer,
    ids,
    methods=EVAL_METHODS,
    factors=(1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0),
    lengths=(128, 256, 512),
    *,
    key: int = 51937,
    block: int = 32,
) -> dict:
    """Everything the try-it panel offers, computed once: ``{"method/s/length": entry}``.

    Each entry holds the block means (``block`` tokens) of the method's loss on ``ids[:length]``, plain RoPE's,
    their mean difference and one passkey trial (key ``key`` at depth 0.5, ``length`` tokens). One pass over
    ``ids[:max(lengths)]`` per (method, s) gives every length's losses: attention is causal and, for prompts of at
    most L tokens, no method's frequencies depend on the length (dynamic NTK's are plain RoPE's there, so its
    entries are plain RoPE's, reused: the table records ``same_as``). Plain RoPE is stored under s = 1.
    """
    L = model.config.context_length
    lengths = sorted(int(n) for n in lengths)
    if lengths[-1] > min(L, len(ids)):
        raise ValueError(f"lengths must be <= min(L = {L}, len(ids) = {len(ids)}), got {lengths}")
    ids = list(ids[: lengths[-1]])
    methods = ["default", *(m for m in methods if m != "default")]  # every entry is compared with plain RoPE
    losses: dict = {}
    table: dict = {}
    for m in methods:
        for s in (1.0,) if m == "default" else factors:
            s = float(s)
            reads_length = ROPE_SCALING[m].reads_length  # e.g. dynamic NTK: plain RoPE's frequencies inside L
            same = reads_length and np.array_equal(model.rotary(m, s, seq_len=lengths[-1])[0], model.rotary()[0])
            if same:  # dynamic NTK inside L: plain RoPE's frequencies, so plain RoPE's results
                for n in lengths:
                    table[f"{m}/{s:g}/{n}"] = {**table[f"default/1/{n}"], "same_as": f"default/1/{n}"}
                continue
            losses[(m, s)] = model.token_losses(ids, method=m, factor=s)  # (T-1,)
            for n in lengths:
                ours, plain = losses[(m, s)][: n - 1], losses[("default", 1.0)][: n - 1]  # (n-1,) each
                trial = passkey_trial(model, tokenizer, n, 0.5, key, method=m, factor=s)
                table[f"{m}/{s:g}/{n}"] = {
                    "method": block_means(ours, block),
                    "default": block_means(plain, block),
                    "mean_diff": round(float(ours.mean() - plain.mean()), 5),
                    "passkey": {k: trial[k] for k in ("correct", "digits_correct", "predicted")},
                }
    return {
        "context_length": L,
        "key": key,
        "block": block,
        "lengths": lengths,
        "factors": [float(f) for f in factors],
        "table": table,
    }


def _meta() -> dict:
    w = WHEELS["model"]
    return {
        "model": f"{w.name}=={w.version}:{w.member}",
        "model_wheel_sha256": w.sha256,
        "texts": {k: v for k, v in TEXTS.items()},
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}",
        "note": "float32 CPU forward pass of the dequantised Q4_1 weights; times are wall-clock on a shared machine",
    }


def measure_positive_control(
    model: RealLlama,
    sequences: dict,
    *,
    method: str = "yarn",
    factor: float = 2.0,
    tail: int = 256,
    path: str | os.PathLike = POSITIVE_CONTROL_FILE,
) -> dict:
    """One pass per labelled sequence (``label -> token ids``) with ``method`` at ``factor``; the per-token losses
    of the last ``tail`` predictions are written to ``path`` (with each sequence's SHA-256, so
    :func:`load_positive_control` can check it reads the same tokens). Returns label -> losses, ``(tail,)``.

    Notebook 07's positive control: a 256-token passage repeated 8,704 positions later, with and without its
    first copy (two passes of 8,960 tokens: minutes each on one torch thread)."""
    if method not in EVAL_METHODS:
        raise ValueError(f"method must be one of {list(EVAL_METHODS)}, got {method!r}")
    if not (isinstance(tail, int) and tail >= 1):
        raise ValueError(f"tail must be a positive integer number of tokens, got {tail!r}")
    short = {label: len(ids) for label, ids in sequences.items() if len(ids) <= tail}
    if short:
        raise ValueError(f"every sequence must be longer than tail = {tail} tokens; these are not: {short}")
    runs, out = [], {}
    for label, ids in sequences.items():
        t0 = time.perf_counter()
        losses = np.asarray(model.token_losses(ids, method=method, factor=factor), dtype=np.float64)[-tail:]
        out[label] = losses
        runs.append(
            {
                "label": label,
                "method": method,
                "factor": float(factor),
                "n_tokens": len(ids),
                "tokens_sha256": tokens_sha256(ids),
                "tail": tail,
                "seconds": round(time.perf_counter() - t0, 1),
                "tail_losses": [round(float(x), 6) for x in losses],
            }
        )
    write_results({"meta": _meta(), "runs": runs}, path)
    return out


def run_plan(
    model: RealLlama,
    tokenizer,
    plan: list[dict],
    path: str | os.PathLike = RESULTS_FILE,
    *,
    progress=True,
    budget_seconds: float | None = None,
):
    """Run every spec of ``plan`` whose id is not yet in ``path``; append each result as soon as it is done.

    ``budget_seconds``: start no new run once this much wall-clock time has passed since the call (the run in
    progress is finished, not cut); the runs not started stay in the plan for the next call.
    """
    if budget_seconds is not None and not budget_seconds >= 0:
        raise ValueError(f"budget_seconds must be >= 0 or None, got {budget_seconds!r}")
    start = time.monotonic()
    path = Path(path)
    results = check_results_model(path, "smollm2")  # another model's results file is refused before any run
    results["meta"] = _meta()
    done = {r["id"] for r in results["runs"]}
    todo = [s for s in plan if s["id"] not in done]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc="chapter 07 runs", unit="run")
    for spec in todo:
        if budget_seconds is not None and time.monotonic() - start >= budget_seconds:
            if bar is not None:
                bar.write(f"time budget of {budget_seconds:.0f} s used: {spec['id']} and the rest not started")
            break
        if bar is not None:
            bar.set_postfix_str(spec["id"][:60])
        res = run_one(model, tokenizer, spec)
        results = check_results_model(path, "smollm2")  # re-read: another process may have appended meanwhile
        results["meta"] = _meta()
        results["runs"] = [r for r in results["runs"] if r["id"] != spec["id"]] + [res]
        write_results(results, path)
        if bar is not None:
            bar.update(1)
            bar.write(f"{spec['id']}: {res['seconds']} s")
    if bar is not None:
        bar.close()
    return load_results(path)
