"""Time RoPE implementations side by side, as ratios to a plain copy of the same tensor (the memory floor).

    python benchmarks/bench_rope.py            # (4, 8, 2048, 64) float32, CPU, prints a Markdown table
    python benchmarks/bench_rope.py --repeats 50 --shape 1 8 4096 128
    python benchmarks/bench_rope.py --shape 1 8 1024 64 --faults   # the table notebook 04 quotes

All variants run round-robin in one process (so a busy machine slows them alike), each repeat timed
with time.perf_counter; the table reports medians. The cos/sin tables are precomputed once, as any
real model caches them; only the application to x is timed.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import torch

try:
    import resource  # Unix only: this process's resource usage (page faults)
except ImportError:  # Windows
    resource = None

from helpers.rope import apply_rope, rope_cos_sin, rope_inv_freq


def chapter_stack_flatten(x, cos, sin):
    """The source chapter's apply_rope: even/odd slices, stack, flatten (interleaved)."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def hf_rotate_half(x, cos_full, sin_full):
    """HF Llama's formula: q·cos + rotate_half(q)·sin with cos/sin of width D (half-split)."""
    return x * cos_full + rotate_half(x) * sin_full


def half_split_formula(x, cos, sin):
    """The half-split rotation written plainly (for torch.compile to fuse into one pass)."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def faults_per_call(fn, calls: int = 20) -> float:
    """Minor page faults per call: fresh 4 KiB pages the OS had to map (and zero) for this process; NaN on Windows."""
    if resource is None:
        return float("nan")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", type=int, nargs=4, default=[4, 8, 2048, 64], metavar=("B", "H", "T", "D"))
    parser.add_argument("--repeats", type=int, default=101)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument(
        "--compile",
        action="store_true",
        help="also time torch.compile'd (fused) half-split rotation; needs a C++ compiler, compiles for ~10-40 s",
    )
    parser.add_argument(
        "--faults", action="store_true", help="add a column of minor page faults per call (Linux and macOS)"
    )
    args = parser.parse_args(argv)
    b, h, t, d = args.shape
    x = torch.randn(b, h, t, d, generator=torch.Generator().manual_seed(0))  # (B, H, T, D) float32
    cos, sin = rope_cos_sin(t, rope_inv_freq(d))  # (T, D/2)
    cos_full, sin_full = torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)  # (T, D)
    x_even, x_odd = x[..., 0::2], x[..., 1::2]  # (B, H, T, D/2) strided views
    new_even, new_odd = x_even * cos - x_odd * sin, x_even * sin + x_odd * cos  # the chapter's two halves, once

    variants = {
        "copy (x.clone())": lambda: x.clone(),
        "chapter stack/flatten (interleaved)": lambda: chapter_stack_flatten(x, cos, sin),
        "  its stack(dim=-1) line alone": lambda: torch.stack([new_even, new_odd], dim=-1),
        "HF rotate_half (half-split)": lambda: hf_rotate_half(x, cos_full, sin_full),
        "helpers.apply_rope interleaved": lambda: apply_rope(x, cos, sin, layout="interleaved"),
        "helpers.apply_rope half_split": lambda: apply_rope(x, cos, sin, layout="half_split"),
    }
    if args.compile:
        t0 = time.perf_counter()
        fused = torch.compile(half_split_formula, dynamic=False)
        fused(x, cos, sin)
        print(f"torch.compile of the half-split formula: {time.perf_counter() - t0:.1f} s to compile")
        variants["torch.compile(half-split formula)"] = lambda: fused(x, cos, sin)
    # Correctness first: a fast wrong answer is worthless.
    ref = chapter_stack_flatten(x, cos, sin)
    torch.testing.assert_close(variants["helpers.apply_rope interleaved"](), ref)
    perm = torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])
    torch.testing.assert_close(variants["helpers.apply_rope half_split"](), hf_rotate_half(x, cos_full, sin_full))
    torch.testing.assert_close(apply_rope(x[..., perm].contiguous(), cos, sin, layout="half_split"), ref[..., perm])
    for name, fn in variants.items():
        if "half" in name and "HF" not in name:
            torch.testing.assert_close(fn(), hf_rotate_half(x, cos_full, sin_full))

    times = {name: [] for name in variants}
    for i in range(args.warmup + args.repeats):
        for name, fn in variants.items():
            t0 = time.perf_counter()
            fn()
            dt = time.perf_counter() - t0
            if i >= args.warmup:
                times[name].append(dt)
    med = {name: statistics.median(v) for name, v in times.items()}
    floor = med["copy (x.clone())"]
    chapter = med["chapter stack/flatten (interleaved)"]
    mb = x.numel() * x.element_size() / 2**20
    print(
        f"shape {tuple(x.shape)} float32 ({mb:.0f} MiB), torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"{platform.processor() or platform.machine()}, median of {args.repeats}"
    )
    print()
    faults = {name: faults_per_call(fn) for name, fn in variants.items()} if args.faults else {}
    print("| variant | median (ms) | × copy | chapter ÷ variant |" + (" page faults/call |" if faults else ""))
    print("|---|---:|---:|---:|" + ("---:|" if faults else ""))
    for name, m in med.items():
        extra = f" {faults[name]:.0f} |" if faults else ""
        print(f"| {name} | {m * 1e3:.2f} | {m / floor:.2f} | {chapter / m:.2f} |{extra}")


if __name__ == "__main__":
    main()
