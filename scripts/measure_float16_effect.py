"""Measure what storing the learning-rate sweep's checkpoints as float16 changes in their records.

    python scripts/measure_float16_effect.py             # every sweep run (both scales, seeds 0-2), ~30 min CPU
    python scripts/measure_float16_effect.py --jobs 2    # the same on two processes
    python scripts/measure_float16_effect.py --scales small

The sweep's extra runs (``rope+linear_ft_lr3e-4`` ... at both scales) ship as float16 to fit the lab's 25 MB
budget, so their float32 originals are not in the repository. This script retrains each of them from its shipped
parent into a temporary directory, keeping float32, and checks first that the retrained weights rounded to
float16 equal the shipped file bit for bit (training is deterministic on one torch thread), so the retrained
float32 weights are the originals. It then evaluates every record of those runs from the float32 weights and
compares them with the shipped ``results.json`` (evaluated from the float16 files): the largest loss change and
the number of passkey cells that moved, and by how many keys. The result is what
``helpers.lab.checkpoints.FLOAT16_EFFECT`` records. Exit status 1 if a retrained run does not reproduce its
shipped file.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import multiprocessing
import shutil
import sys
import tempfile
from pathlib import Path

import torch


def sweep_runs(scales: list[str]) -> list[tuple[str, int]]:
    """(checkpoint name, seed) of every float16-stored recipe at ``scales``."""
    from helpers.lab.checkpoints import RECIPES, SHIPPED_SEEDS, scale_of

    return [
        (n, s) for n, r in RECIPES.items() if r.storage == "float16" and scale_of(n) in scales for s in SHIPPED_SEEDS
    ]


def retrain_float32(name: str, seed: int, directory: Path) -> dict:
    """Retrain one sweep run from its shipped parent into ``directory`` as float32; compare with the shipped file."""
    torch.set_num_threads(1)
    from helpers.lab import checkpoints as ck
    from helpers.lab.train_grid import train_recipe

    ck.RECIPES[name] = dataclasses.replace(ck.RECIPES[name], storage="float32")
    model, log = train_recipe(name, seed, directory=directory, progress=False)
    ck.save_checkpoint(model, name, seed, log, directory=directory)
    shipped = torch.load(ck.checkpoint_paths(name, seed, ck.CHECKPOINT_DIR)[0], weights_only=True)
    rounded = ck.stored_state(model.state_dict(), "float16")
    same = shipped.keys() == rounded.keys() and all(torch.equal(shipped[k], rounded[k]) for k in shipped)
    return {"name": name, "seed": seed, "reproduces_shipped_float16": bool(same), "seconds": round(log.seconds, 1)}


def main(argv: list[str] | None = None) -> int:
    from helpers.lab.checkpoints import CHECKPOINT_DIR, RECIPES, SCALES, checkpoint_paths
    from helpers.lab.grid import evaluate_all
    from helpers.lab.methods import METHODS
    from helpers.lab.records import RESULTS_JSON, load_results

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", nargs="+", choices=list(SCALES), default=list(SCALES))
    parser.add_argument("--jobs", type=int, default=1, help="processes for the retraining (default 1)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the float32 checkpoints in this directory")
    args = parser.parse_args(argv)
    runs = sweep_runs(args.scales)
    work = Path(tempfile.mkdtemp(prefix="float16_effect_")) if args.keep is None else args.keep
    try:
        for name, seed in runs:  # the parents (pre-trained models) the fine-tunes start from
            parent = RECIPES[name].init_from
            for src in checkpoint_paths(parent, seed, CHECKPOINT_DIR):
                dst = work / src.relative_to(CHECKPOINT_DIR)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
            names, seeds = [n for n, _ in runs], [s for _, s in runs]
            trained = list(pool.map(retrain_float32, names, seeds, [work] * len(runs)))
        for t in trained:
            print(json.dumps(t), flush=True)
        shipped = load_results(RESULTS_JSON)
        old = {(r["scale"], r["method"], r["seed"], r["task"], r["length"]): r for r in shipped["records"]}
        max_loss, moved, cells, by_keys = 0.0, 0, 0, 0
        for scale in args.scales:
            scale_loss, scale_moved = 0.0, []
            info = SCALES[scale]
            methods = [m for m in METHODS if info.model_name(METHODS[m].checkpoint) in {n for n, _ in runs}]
            new = evaluate_all(methods, scale=scale, directory=work)
            n_keys = len(new["meta"]["passkey_depths"]) * new["meta"]["passkey_keys_per_depth"]
            for r in new["records"]:
                o = old[(scale, r["method"], r["seed"], r["task"], r["length"])]
                if r["task"] == "lm":
                    scale_loss = max(scale_loss, abs(r["metrics"]["loss"] - o["metrics"]["loss"]))
                else:
                    cells += 1
                    keys = round(abs(r["metrics"]["accuracy"] - o["metrics"]["accuracy"]) * n_keys)
                    if keys:
                        scale_moved.append(f"{r['method']} seed {r['seed']} T = {r['length']}: {keys} key(s)")
                    moved += keys > 0
                    by_keys = max(by_keys, keys)
            max_loss = max(max_loss, scale_loss)
            print(f"{scale}: largest loss change {scale_loss:.5f} nats; passkey cells moved: {scale_moved or 'none'}")
        effect = {
            "max_loss_change_nats": round(max_loss, 5),
            "passkey_cells_changed": moved,
            "passkey_cells": cells,
            "by_keys": by_keys,
        }
        print(json.dumps({"runs": len(runs), "all_reproduce": all(t["reproduces_shipped_float16"] for t in trained)}))
        print("FLOAT16_EFFECT =", json.dumps(effect))
        return 0 if all(t["reproduces_shipped_float16"] for t in trained) else 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
