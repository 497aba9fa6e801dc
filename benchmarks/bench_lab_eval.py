"""Time the lab's evaluation shortcuts against the computation they replace, side by side in one run.

    python benchmarks/bench_lab_eval.py                 # the pieces, at 8·L of both scales, 7 repeats
    python benchmarks/bench_lab_eval.py --full          # also everything shipped, 1 process vs 2 (≈ 4 min)

Each pair is checked to give the same numbers first, then timed round-robin in one process (one torch thread),
median of the repeats, so the ratio does not depend on how loaded the machine was:

* passkey scoring: the full forward's logits, gathered at the answer positions, against ``logits_at`` (the last
  block computes only the answer queries);
* the previous-token diagnostic: every layer's weights (``return_attention=True``) against
  ``layer_attention(0)`` (only block 0, weights without the value product);
* a score bias (ALiBi) in PyTorch's fused attention: the (H, T, T) mask against the same mask as (1, H, T, T);
* ``--full``: ``python -m helpers.lab evaluate`` with ``--jobs 1`` and ``--jobs 2`` (wall-clock).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from helpers.lab import evaluate as E
from helpers.lab.data import lm_batch, passkey_batch, random_keys
from helpers.score_biases import alibi_bias, causal_additive_mask

ROOT = Path(__file__).resolve().parent.parent


def _median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def pairs(scale: str, length_multiple: int = 8) -> list[tuple[str, callable, callable]]:
    """(name, the replaced computation, the shortcut) at T = length_multiple·L of ``scale``, checked equal."""
    model = E.model_for("rope+yarn", 0, scale=scale)
    length = length_multiple * model.train_len
    scaling = E.scaling_for("rope+yarn", length, model)
    n_lm, n_attention, n_per_depth = E.EVAL_SIZES[scale]
    depths = np.repeat(np.asarray(E.DEPTHS), n_per_depth)  # (B,)
    batch = passkey_batch(random_keys(len(depths), (E.EVAL_SEED, length, 1)), depths, length)
    at = batch.answer_positions  # (B, n)
    docs, _ = lm_batch(n_attention, length, (E.EVAL_SEED, length))  # (B, T)

    def passkey_full():
        logits = model(batch.tokens, rope_scaling=scaling)  # (B, T, V)
        return logits.gather(1, at[..., None].expand(-1, -1, logits.shape[-1]))  # (B, n, V)

    def passkey_at():
        return model(batch.tokens, rope_scaling=scaling, logits_at=at)  # (B, n, V)

    def weights_all_layers():
        return model(docs, rope_scaling=scaling, return_attention=True)[1][0]  # (B, H, T, T)

    def weights_layer_0():
        return model.layer_attention(docs, 0, rope_scaling=scaling)  # (B, H, T, T)

    out = [
        (f"{scale}: passkey, {len(depths)} rows of T = {length}", passkey_full, passkey_at),
        (
            f"{scale}: previous-token weights, {n_attention} documents of T = {length}",
            weights_all_layers,
            weights_layer_0,
        ),
    ]
    if scale == "tiny":  # the score-bias families are trained at tiny only
        heads, d_h = model.config.n_heads, model.config.head_dim
        generator = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(n_lm, heads, length, d_h, generator=generator) for _ in range(3))
        mask = alibi_bias(heads, length) + causal_additive_mask(length)  # (H, T, T)
        out.append(
            (
                f"{scale}: ALiBi attention, {n_lm}×{heads} heads × T = {length}",
                lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask[None]),
            )
        )
    with torch.inference_mode():
        for name, slow, fast in out:
            torch.testing.assert_close(fast(), slow(), rtol=1e-4, atol=2e-5, msg=name)
    return out


def full_evaluation(jobs: int) -> float:
    """Wall-clock seconds of ``python -m helpers.lab evaluate --jobs J`` into a temporary directory."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "helpers.lab", "evaluate", "--jobs", str(jobs), "--out", out],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> list[tuple[str, float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats of each computation")
    parser.add_argument("--scales", nargs="+", default=["tiny", "small"], choices=["tiny", "small"])
    parser.add_argument("--length-multiple", type=int, default=8, help="T = this × L (default 8)")
    parser.add_argument("--full", action="store_true", help="also time the whole evaluation, 1 vs 2 processes")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"load average before: {os.getloadavg()[0]:.2f}; one torch thread")
    rows = []
    with torch.inference_mode():
        for scale in args.scales:
            for name, slow, fast in pairs(scale, args.length_multiple):
                slow(), fast()  # warm-up
                times = {"slow": [], "fast": []}
                for _ in range(args.repeats):  # round-robin: both see the same machine
                    times["slow"].append(_median_ms(slow, 1))
                    times["fast"].append(_median_ms(fast, 1))
                rows.append((name, statistics.median(times["slow"]), statistics.median(times["fast"])))
    print("\n| computation | replaced (ms) | shortcut (ms) | replaced ÷ shortcut |\n|---|---:|---:|---:|")
    for name, slow, fast in rows:
        print(f"| {name} | {slow:.1f} | {fast:.1f} | {slow / fast:.1f} |")
    if args.full:
        one, two = full_evaluation(1), full_evaluation(2)
        print(f"\neverything shipped: {one:.0f} s with 1 process, {two:.0f} s with 2 ({one / two:.2f}×)")
        rows.append(("everything shipped (s): --jobs 1 vs --jobs 2", one, two))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return rows


if __name__ == "__main__":
    main()
