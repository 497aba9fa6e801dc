"""Measurements: every method × seed at 1×, 2×, 4× and 8× the training length, from the checkpoints.

Methods are :data:`helpers.lab.methods.METHODS`. Protocols (the ``protocol`` field of each record):

* ``one pass``: the whole sequence in one forward call.
* ``L-token windows`` (``rope+default_window``): the text cut into independent L-token windows; passkey sees only
  its last L tokens. What "long context" must beat.
* ``KV cache`` (``rope+dynamic``, T > L): dynamic NTK as generation runs it: the query of token t uses the
  frequencies for the t + 1 tokens seen so far (HF's ``dynamic_rope_update``; with factor 1 the base is
  b' = b·(l/L)^(d/(d−2)), the YaRN paper's s = max(1, l/L), §3.3), and each cached key keeps the rotation it was
  written with. One causal call with per-position cos/sin computes exactly that
  (:meth:`helpers.lab.positional.RopeRotation.kv_cache_cos_sin`; ``tests/test_lab.py`` checks it against a
  token-by-token loop with a KV cache). For passkey the query at the end then sees a key written at a smaller s.
* ``one pass`` for ``rope+dynamic_onepass``: how HF scores a whole sequence (perplexity evaluations): one scale
  s = T/L for every position, i.e. static NTK with α = T/L, and positions < L no longer equal plain RoPE.

Measurements (deterministic from ``EVAL_SEED``; the same tokens for every method and seed):

Two scales (:data:`helpers.lab.checkpoints.SCALES`): ``tiny`` (L = 64) and ``small`` (L = 256); lengths are L·(1, 2,
4, 8) and buckets L/4 at each; the small scale's evaluation is smaller (:data:`EVAL_SIZES`) to stay cheap.

* language modelling: ``N_LM`` documents of length T (:func:`helpers.lab.data.lm_batch`); mean next-token loss
  (nats), the loss in buckets of ``BUCKET`` = L/4 positions, and the diagnostic ``previous_token_attention``: the
  mean layer-0 attention weight a[t, t−1] of each head over ``N_ATTENTION`` documents (an induction head needs a
  previous-token head below it).
* passkey: ``N_PER_DEPTH`` random keys at each depth in ``DEPTHS``; accuracy = fraction of keys whose 5 digits are all
  predicted right (greedy), also by depth, plus the per-digit accuracy (chance 0.1).
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from helpers._checks import check_int
from helpers.lab.checkpoints import (
    CHECKPOINT_DIR,
    SCALE,
    SCALES,
    SEEDS,
    L,
    checkpoint_id,
    checkpoint_metadata,
    is_trained,
    load_model,
)
from helpers.lab.data import lm_batch, passkey_batch, random_keys
from helpers.lab.methods import METHODS, lab_method, rope_scaling_for
from helpers.lab.model import TinyTransformer
from helpers.learned import cosine_similarity_matrix
from helpers.scaling import yarn_ramp

LENGTH_MULTIPLES = (1, 2, 4, 8)
LENGTHS = tuple(m * L for m in LENGTH_MULTIPLES)
BUCKET = L // 4
N_LM = 24
N_ATTENTION = 4
N_PER_DEPTH = 12
DEPTHS = (0.0, 0.25, 0.5, 0.75, 1.0)
EVAL_SEED = 2024
TASKS = ("lm", "passkey")
#: Per scale: (LM documents, documents for the attention diagnostic, passkeys per depth).
EVAL_SIZES = {"tiny": (N_LM, N_ATTENTION, N_PER_DEPTH), "small": (8, 2, 4)}


def _scale(scale: str) -> str:
    if not isinstance(scale, str) or scale not in SCALES:
        raise ValueError(f"scale must be one of {list(SCALES)}, got {scale!r}")
    return scale


def lengths_of(scale: str = SCALE) -> tuple[int, ...]:
    """The evaluation lengths of ``scale``: L·(1, 2, 4, 8)."""
    return tuple(m * SCALES[_scale(scale)].train_len for m in LENGTH_MULTIPLES)


def _length(length: int) -> int:
    return check_int("length", length, minimum=16)


def model_for(method: str, seed: int = 0, *, scale: str = SCALE, directory: Path = CHECKPOINT_DIR) -> TinyTransformer:
    """The (cached, eval-mode) checkpoint that ``method`` evaluates at ``scale``, for pre-training seed ``seed``."""
    return load_model(SCALES[_scale(scale)].model_name(lab_method(method).checkpoint), seed, directory=directory)


def yarn_kept_pairs(model: TinyTransformer) -> int:
    """How many of the fastest pairs YaRN (the HF code's ramp, β_fast = 32, β_slow = 1) leaves unchanged in this
    model: 1 at the tiny scale (pair 0, kept only by the code's clamp), 2 at the small one."""
    cfg = model.config
    gamma = yarn_ramp(cfg.head_dim, cfg.rope_base, cfg.train_len, kind="code")  # (d_h/2,)
    return int((gamma == 1.0).sum())


def scaling_for(method: str, length: int, model: TinyTransformer) -> dict | None:
    """:func:`helpers.lab.methods.rope_scaling_for` with this model's L, trained dict and YaRN's kept pairs."""
    keep = yarn_kept_pairs(model) if model.config.family == "rope" else 1
    return rope_scaling_for(method, length, model.train_len, model.rope_scaling, keep_pairs=keep)


def protocol(method: str, length: int, task: str, train_len: int = L) -> str:
    """How ``method`` is run at length T for ``task``: "one pass", "L-token windows" or "KV cache"."""
    spec = lab_method(method)
    if spec.window and length > train_len:
        return "L-token windows"
    if spec.scaling == "dynamic" and not spec.finetune and spec.variant is None and length > train_len:
        return "KV cache"
    return "one pass"


def _logits(
    model: TinyTransformer,
    tokens: torch.Tensor,
    scaling: dict | None,
    how: str = "one pass",
    at: torch.Tensor | None = None,
) -> torch.Tensor:
    """Logits (B, T, V) of ``tokens`` (B, T) run with ``scaling`` and protocol ``how``; (B, n, V) at positions
    ``at`` (B, n) only."""
    if model.config.family == "rope":
        return model(tokens, rope_scaling=scaling, kv_cache=how == "KV cache", logits_at=at)  # (B, T|n, V)
    return model(tokens, logits_at=at)  # (B, T|n, V)


def token_losses(
    model: TinyTransformer, tokens: torch.Tensor, targets: torch.Tensor, scaling: dict | None, how: str = "one pass"
) -> torch.Tensor:
    """Next-token cross-entropy (nats) at every position, shape (B, T)."""
    logits = _logits(model, tokens, scaling, how)  # (B, T, V)
    return F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, T)


def bucket_means(values: np.ndarray, bucket: int) -> tuple[list[float], list[int]]:
    """Means of ``values`` (T,) over consecutive buckets of ``bucket`` positions. Returns (means, bucket starts)."""
    starts = list(range(0, len(values), bucket))
    return [float(values[s : s + bucket].mean()) for s in starts], starts


# --------------------------------------------------------------------------- language modelling
def evaluate_lm(
    method: str,
    length: int,
    *,
    seed: int = 0,
    n_sequences: int | None = None,
    data_seed: int = EVAL_SEED,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
) -> dict:
    """Language-modelling loss of ``method`` (checkpoint seed ``seed``, scale ``scale``; ``n_sequences`` documents,
    default the scale's :data:`EVAL_SIZES`) at length T: ``{"status": "ok", "loss",
    "loss_by_bucket", "bucket_starts", "rope_scaling", "protocol"}`` (losses in nats), or ``{"status": "cannot
    run", "message"}`` when the model has no row for some position (the learned table past its size)."""
    length = _length(length)
    model = model_for(method, seed, scale=scale, directory=directory)
    n_sequences = EVAL_SIZES[scale][0] if n_sequences is None else check_int("n_sequences", n_sequences, minimum=1)
    tokens, targets = lm_batch(n_sequences, length, (data_seed, length))  # (B, T), (B, T)
    scaling = scaling_for(method, length, model)
    how = protocol(method, length, "lm", model.train_len)
    L_ = model.train_len
    try:
        with torch.inference_mode():
            if how == "L-token windows":
                chunks = [
                    token_losses(model, tokens[:, s : s + L_], targets[:, s : s + L_], None)
                    for s in range(0, length, L_)
                ]
                losses = torch.cat(chunks, dim=1)  # (B, T)
            else:
                losses = token_losses(model, tokens, targets, scaling, how)  # (B, T)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    by_position = losses.mean(0).double().numpy()  # (T,)
    by_bucket, starts = bucket_means(by_position, L_ // 4)
    return {
        "status": "ok",
        "loss": float(by_position.mean()),
        "loss_by_bucket": by_bucket,
        "bucket_starts": starts,
        "rope_scaling": scaling,
        "protocol": how,
    }


# --------------------------------------------------------------------------- passkey retrieval
def evaluate_passkey(
    method: str,
    length: int,
    *,
    seed: int = 0,
    n_per_depth: int | None = None,
    depths: tuple[float, ...] = DEPTHS,
    data_seed: int = EVAL_SEED,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
) -> dict:
    """Passkey accuracy of ``method`` (checkpoint seed ``seed``) at length T: ``{"status", "accuracy",
    "accuracy_by_depth", "depths", "digit_accuracy", "rope_scaling", "protocol"}`` or ``{"status": "cannot run",
    "message"}``.

    Accuracy = fraction of keys with every digit right under greedy decoding (the argmax at each answer position
    given the right prefix; if all are right this is exactly what greedy generation produces).
    """
    length = _length(length)
    n_per_depth = (
        EVAL_SIZES[_scale(scale)][2] if n_per_depth is None else check_int("n_per_depth", n_per_depth, minimum=1)
    )
    model = model_for(method, seed, scale=scale, directory=directory)
    depth_of_row = np.repeat(np.asarray(depths, dtype=np.float64), n_per_depth)  # (B,)
    batch = passkey_batch(random_keys(len(depth_of_row), (data_seed, length, 1)), depth_of_row, length)
    scaling = scaling_for(method, length, model)
    how = protocol(method, length, "passkey", model.train_len)
    tokens, answer_positions = batch.tokens, batch.answer_positions  # (B, T), (B, n)
    if how == "L-token windows":
        tokens, answer_positions = tokens[:, -model.train_len :], answer_positions - (length - model.train_len)
    try:
        with torch.inference_mode():
            answer_logits = _logits(model, tokens, scaling, how, at=answer_positions)  # (B, n, V)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    digit_right = answer_logits.argmax(-1) == batch.keys  # (B, n)
    key_right = digit_right.all(1).double().numpy().reshape(len(depths), n_per_depth)  # (depths, n_per_depth)
    return {
        "status": "ok",
        "accuracy": float(key_right.mean()),
        "accuracy_by_depth": [float(a) for a in key_right.mean(1)],
        "depths": list(depths),
        "digit_accuracy": float(digit_right.double().mean()),
        "rope_scaling": scaling,
        "protocol": how,
    }


# --------------------------------------------------------------------------- attention (the model's own forward)
def attention_weights(
    method: str,
    length: int,
    *,
    seed: int = 0,
    layer: int = 0,
    n_sequences: int | None = None,
    data_seed: int = EVAL_SEED,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
) -> torch.Tensor:
    """Attention weights (B, H, T, T) of ``layer`` on ``n_sequences`` LM documents of length T, from the model's
    forward. The window baseline is run on the first window (T = L). Raises
    IndexError where the model cannot run (the learned table past its rows). Runs only the blocks up to
    ``layer`` (:meth:`TinyTransformer.layer_attention`)."""
    length = _length(length)
    model = model_for(method, seed, scale=scale, directory=directory)
    n_sequences = EVAL_SIZES[scale][1] if n_sequences is None else check_int("n_sequences", n_sequences, minimum=1)
    layer = check_int("layer", layer, minimum=0)
    if layer >= model.config.n_layers:
        raise IndexError(f"layer must be < n_layers = {model.config.n_layers}, got {layer}")
    tokens, _ = lm_batch(n_sequences, length, (data_seed, length))  # (B, T)
    if lab_method(method).window:
        length = min(length, model.train_len)
        tokens = tokens[:, :length]  # (B, L)
    kv_cache = protocol(method, length, "lm", model.train_len) == "KV cache"
    scaling = {"rope_scaling": scaling_for(method, length, model)} if model.config.family == "rope" else {}
    with torch.inference_mode():
        return model.layer_attention(tokens, layer, kv_cache=kv_cache, **scaling)  # (B, H, T, T)


def previous_token_attention(
    method: str, length: int, *, seed: int = 0, scale: str = SCALE, directory: Path = CHECKPOINT_DIR
) -> dict:
    """How sharply layer 0 attends to the previous token: for each head, the mean weight a[t, t−1] over positions
    t >= 1. Returns ``{"status", "by_head", "max"}``. If a scaling method moves the angle of distance 1 away from
    anything seen in training (PI divides it by s), this number drops and copying fails. Each method runs with its
    protocol (dynamic NTK with its KV-cache rotations)."""
    try:
        weights = attention_weights(method, length, seed=seed, scale=scale, directory=directory)  # (B, H, T, T)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    t = torch.arange(1, weights.shape[-1])  # (T-1,)
    on_previous = weights[:, :, t, t - 1].mean(dim=(0, 2))  # (H,)
    return {"status": "ok", "by_head": [float(w) for w in on_previous], "max": float(on_previous.max())}


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
    checkpoint is missing (default: only when ``seeds`` is None).
    """
    from helpers.lab.checkpoints import RECIPES

    info = SCALES[_scale(scale)]
    available = [m for m in METHODS if info.model_name(METHODS[m].checkpoint) in RECIPES]
    if methods is None:
        methods = available
    else:
        methods = [lab_method(m).name for m in methods]
        missing = [m for m in methods if m not in available]
        if missing:
            raise ValueError(f"methods {missing} have no checkpoint at scale {scale!r}; allowed there: {available}")
    lengths = list(lengths_of(scale)) if lengths is None else [_length(t) for t in lengths]
    # default: every seed of SEEDS whose checkpoint exists (missing ones are left out)
    optional = seeds is None if skip_untrained is None else skip_untrained
    seeds = list(SEEDS) if seeds is None else [check_int("seed", s, minimum=0) for s in seeds]
    evaluated: dict[str, list[int]] = {m: [] for m in methods}
    reused = 0
    start = time.perf_counter()
    done: dict[tuple, dict] = {}
    records = []
    checkpoints: dict[str, dict] = {}
    old_records = [r for r in (reuse or {}).get("records", []) if r.get("scale", "tiny") == scale]
    for m in methods:
        for seed in seeds:
            name = info.model_name(lab_method(m).checkpoint)
            if optional and not is_trained(name, seed, directory):
                continue
            evaluated[m].append(seed)
            model = model_for(m, seed, scale=scale, directory=directory)
            meta = checkpoint_metadata(name, seed, directory=directory)
            cid = checkpoint_id(name, seed)
            checkpoints[cid] = {
                key: meta[key] for key in ("name", "seed", "config", "settings", "init_from", "command", "n_parameters")
            } | {
                "training": {k: v for k, v in meta["training"].items() if k != "loss_every_50_steps"},
                "stored_dtype": meta.get("stored_dtype", "float32"),
            }
            if reuse is not None and reuse.get("checkpoints", {}).get(cid) == checkpoints[cid]:
                old = [r for r in old_records if r["method"] == m and r["seed"] == seed and r["length"] in lengths]
                if len(old) == len(lengths) * len(TASKS):
                    records.extend(old)
                    reused += 1
                    continue
            for t in lengths:
                for task in TASKS:
                    key = computation_key(m, t, task, seed, scale=scale, directory=directory)
                    if key not in done:
                        if task == "lm":
                            cell = evaluate_lm(m, t, seed=seed, scale=scale, directory=directory)
                            if cell["status"] == "ok":
                                previous = previous_token_attention(m, t, seed=seed, scale=scale, directory=directory)
                                cell["previous_token_attention"] = previous["max"]
                                cell["previous_token_by_head"] = previous["by_head"]
                        else:
                            cell = evaluate_passkey(m, t, seed=seed, scale=scale, directory=directory)
                        done[key] = cell
                    records.append(_record(m, seed, task, t, done[key], model, scale))
        if progress:
            print(f"evaluated {scale}/{m:<26} ({time.perf_counter() - start:.1f} s)", flush=True)
    n_lm, n_attention, n_per_depth = EVAL_SIZES[scale]
    return {
        "meta": {
            "scale": scale,
            "scale_why": info.why,
            "train_len": info.train_len,
            "lengths": lengths,
            "seeds": seeds,
            "bucket": info.train_len // 4,
            "n_lm_sequences": n_lm,
            "n_attention_sequences": n_attention,
            "passkey_depths": list(DEPTHS),
            "passkey_keys_per_depth": n_per_depth,
            "eval_seed": EVAL_SEED,
            "eval_seconds": round(time.perf_counter() - start, 1),
            "reused_runs": reused,
            "full_eval_seconds": (
                round(time.perf_counter() - start, 1)
                if not reused
                else _reused_meta(reuse, scale).get("full_eval_seconds")
            ),
            "torch_threads": torch.get_num_threads(),
            "torch_version": torch.__version__,
            "machine": platform.machine(),
        },
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
    order = {m: i for i, m in enumerate(METHODS)}
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


# --------------------------------------------------------------------------- inspecting a learned table (notebook 03)
def learned_table(model: TinyTransformer) -> tuple[np.ndarray, int]:
    """The learned position table P (max_seq_len, d_model) as float64, and ``rows_reached`` (rows ≥ it are untrained)."""
    if model.position_embedding is None:
        raise ValueError(f"model has no learned table (family={model.config.family!r}); load 'learned'")
    return model.position_embedding.table.detach().double().numpy().copy(), model.rows_reached  # (N, D)


def initial_learned_table(model: TinyTransformer) -> np.ndarray:
    """The table before training (rebuilt from the config's seed and init_std), shape (max_seq_len, d_model)."""
    from helpers.learned import LearnedPositionalEmbedding

    if model.position_embedding is None:
        raise ValueError(f"model has no learned table (family={model.config.family!r}); load 'learned'")
    cfg = model.config
    init = LearnedPositionalEmbedding(cfg.max_seq_len, cfg.d_model, init_std=cfg.learned_init_std, seed=cfg.seed)
    return init.table.detach().double().numpy()  # (N, D)


def position_similarity(table: np.ndarray) -> np.ndarray:
    """Cosine similarity of every pair of rows, S[p, q] = P_p·P_q / (‖P_p‖‖P_q‖) (a zero row gives 0): input (T, D),
    output (T, T). The course's one implementation, :func:`helpers.learned.cosine_similarity_matrix`, under the name
    notebook 03 uses for the lab."""
    return cosine_similarity_matrix(table)  # (T, T)


# --------------------------------------------------------------------------- one live run (notebook 05 §8's panel)
def sharpest_previous_token_head(weights: torch.Tensor) -> tuple[int, float]:
    """The head whose attention on the previous token is largest, and that mean weight a[t, t−1] over t >= 1:
    weights (B, H, T, T) → (head index, weight)."""
    t = torch.arange(1, weights.shape[-1])  # (T-1,)
    on_previous = weights[:, :, t, t - 1].mean(dim=(0, 2))  # (H,)
    head = int(on_previous.argmax())
    return head, float(on_previous[head])


def block_max(image: torch.Tensor, max_pixels: int) -> torch.Tensor:
    """Max over k × k blocks (k = ceil(T / max_pixels)) of a (T, T) map, so a sharp diagonal survives being shown
    at most max_pixels wide: (T, T) → (ceil(T/k), ceil(T/k))."""
    k = -(-image.shape[-1] // check_int("max_pixels", max_pixels, minimum=1))
    if k == 1:
        return image
    return F.max_pool2d(image[None, None], kernel_size=k, stride=k, ceil_mode=True)[0, 0]  # (T/k, T/k)


def live_run(
    method: str,
    length: int,
    *,
    seed: int = 0,
    scale: str = SCALE,
    n_sequences: int = 2,
    max_pixels: int = 256,
    data_seed: int = EVAL_SEED,
    directory: Path = CHECKPOINT_DIR,
) -> dict:
    """One forward pass of ``method`` at length T on ``n_sequences`` LM documents (the first ones the stored
    evaluation uses), with its protocol, returning what notebook 05 §8 draws: ``{"status", "loss_by_position"
    (T,) nats, mean over documents, "loss", "attention" (P, P) layer 0's sharpest previous-token head (block max,
    P <= max_pixels), "head", "previous_token", "block" (positions per pixel), "train_len", "rope_scaling",
    "protocol"}``; ``{"status": "cannot run", "message"}`` where the model cannot run.
    """
    length = _length(length)
    model = model_for(method, seed, scale=scale, directory=directory)
    n_sequences = check_int("n_sequences", n_sequences, minimum=1)
    tokens, targets = lm_batch(n_sequences, length, (data_seed, length))  # (B, T), (B, T)
    spec = lab_method(method)
    how = protocol(method, length, "lm", model.train_len)
    scaling = scaling_for(method, length, model)
    window = model.train_len if spec.window else length  # the baseline runs independent L-token windows
    kwargs = {"rope_scaling": scaling, "kv_cache": how == "KV cache"} if model.config.family == "rope" else {}
    try:
        with torch.inference_mode():
            logits = torch.cat(
                [model(tokens[:, s : s + window], **kwargs) for s in range(0, length, window)], dim=1
            )  # (B, T, V)
            weights = model.layer_attention(tokens[:, :window], 0, **kwargs)  # (B, H, W, W): the first window's
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    losses = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none").mean(0)  # (T,)
    head, previous = sharpest_previous_token_head(weights)
    image = block_max(weights[:, head].mean(0), max_pixels)  # (P, P) (the first window's for the baseline)
    return {
        "status": "ok",
        "loss_by_position": losses.double().numpy(),
        "loss": float(losses.mean()),
        "attention": image.double().numpy(),
        "head": head,
        "previous_token": previous,
        "block": -(-window // max_pixels),
        "map_length": window,
        "train_len": model.train_len,
        "rope_scaling": scaling,
        "protocol": how,
    }
