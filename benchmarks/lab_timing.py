"""Time the tiny-model lab on this machine: training steps per second per positional method, and the full evaluation.

    python benchmarks/lab_timing.py               # 50 steps per method, evaluation repeated 3 times
    python benchmarks/lab_timing.py --steps 100 --repeats 5 --threads 1

Prints the load average before and after (the machine is shared: numbers vary with other jobs) and a Markdown
table. Training steps use the shipped recipes' batch sizes and lengths; the estimate for a full checkpoint is
steps/s × the recipe's step count. Evaluation is :func:`helpers.lab.evaluate_all` from the shipped checkpoints
(models loaded once, outside the timing), reported as the median of the repeats.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time

import torch

from helpers.lab import RECIPES, SEEDS, evaluate_all, load_model
from helpers.lab.methods import METHODS
from helpers.lab.model import TinyTransformer
from helpers.lab.train import run_training


def steps_per_second(name: str, steps: int) -> float:
    """Training speed of recipe ``name`` (a fine-tune starts from its shipped parent of seed 0)."""
    recipe = RECIPES[name]
    model = load_model(recipe.init_from, 0, cache=False) if recipe.init_from else TinyTransformer(recipe.config_for(0))
    if recipe.rope_scaling is not None:
        model.rope_scaling = recipe.rope_scaling
    settings = dataclasses.replace(
        recipe.settings_for(0), steps=steps, warmup=min(recipe.settings.warmup, steps), passkey_after=0.0
    )
    start = time.perf_counter()
    run_training(model, settings, progress=False)
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="training steps timed per recipe")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats of the full evaluation")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"load average before: {os.getloadavg()[0]:.2f}, torch threads: {args.threads}")
    steps_per_second("nope", 5)  # warm-up: the first steps of a process pay one-off allocation costs
    print("\n| recipe | steps/s | recipe steps | estimated seconds |\n|---|---|---|---|")
    for name, recipe in RECIPES.items():
        rate = steps_per_second(name, args.steps)
        print(f"| {name} | {rate:.1f} | {recipe.settings.steps} | {recipe.settings.steps / rate:.0f} |")
    for method in METHODS.values():
        for seed in SEEDS:
            load_model(method.checkpoint, seed)
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        evaluate_all()
        times.append(time.perf_counter() - start)
    print(
        f"\nfull evaluation ({len(METHODS)} methods × {len(SEEDS)} seeds × 4 lengths): median {statistics.median(times):.1f} s of {args.repeats}"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
