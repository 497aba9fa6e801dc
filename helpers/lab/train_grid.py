"""The resumable training grid: every (model, seed) of the recipes (the shipped models', and the hybrids' when named) trained from
:data:`helpers.lab.checkpoints.RECIPES` (a fine-tune from its parent of the same seed), parents first, each saved as
soon as it finishes; several processes may share the grid (each run is claimed by a lock file).

Command line: ``python -m helpers.lab train`` (``--force`` redoes finished runs, ``--steps`` overrides the step count).
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from helpers.lab.checkpoints import (
    _LOADED,
    CHECKPOINT_DIR,
    MODELS,
    RECIPES,
    SHIPPED_SEEDS,
    _seed,
    checkpoint_id,
    is_trained,
    load_model,
    recipe,
    save_checkpoint,
    write_checkpoint_index,
)
from helpers.lab.model import TinyTransformer
from helpers.lab.train import TrainLog, fine_tune, run_training

__all__ = ["pending_runs", "train_all", "train_recipe"]


def train_recipe(
    name: str,
    seed: int,
    *,
    directory: Path = CHECKPOINT_DIR,
    progress: bool = True,
    prefix: str = "",
    steps: int | None = None,
) -> tuple[TinyTransformer, TrainLog]:
    """Train checkpoint (``name``, ``seed``) from its recipe (a fine-tune loads its parent of the same seed).
    ``steps`` overrides the recipe's step count (smoke runs)."""
    spec = recipe(name)
    settings = spec.settings_for(_seed(seed))
    if steps is not None:
        settings = dataclasses.replace(settings, steps=steps)
    if spec.init_from is None:
        model = TinyTransformer(spec.config_for(seed))
        return model, run_training(model, settings, progress=progress, prefix=prefix)
    parent = load_model(spec.init_from, seed, directory=directory)
    return fine_tune(parent, spec.rope_scaling, settings, progress=progress, prefix=prefix)


def pending_runs(names, seeds, *, directory: Path = CHECKPOINT_DIR, force: bool = False) -> list[tuple[str, int]]:
    """The (model, seed) runs still to do, parents before fine-tunes (a fine-tune's parent is added if missing)."""
    wanted = {(recipe(n).name, _seed(s)) for n in names for s in seeds}
    for n, s in list(wanted):
        parent = recipe(n).init_from
        if parent and not is_trained(parent, s, directory):
            wanted.add((parent, s))
    names = list(RECIPES)  # the shipped models' and the hybrids' recipes, in one order
    order = sorted(wanted, key=lambda run: (recipe(run[0]).init_from is not None, run[1], names.index(run[0])))
    return [run for run in order if force or not is_trained(*run, directory)]


def _claim(name: str, seed: int, directory: Path) -> Path | None:
    """Create ``<id>.lock`` (holding this process id) unless another live process holds it; None if taken."""
    lock = Path(directory) / f"{checkpoint_id(name, seed)}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                os.kill(int(lock.read_text() or 0), 0)  # the holder is alive: leave the run to it
                return None
            except (ProcessLookupError, ValueError):
                lock.unlink(missing_ok=True)  # a stale lock from a run that was cut off
                continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return lock
    return None


def train_all(
    names=MODELS,
    seeds=SHIPPED_SEEDS,
    *,
    directory: Path = CHECKPOINT_DIR,
    progress: bool = True,
    force: bool = False,
    steps: int | None = None,
    log=print,
) -> list[dict]:
    """Train every missing (model, seed) of ``names`` × ``seeds``, saving each as soon as it finishes (a cut-off
    session loses at most the run in progress). Several processes may share the grid: each run is claimed with a
    lock file and re-checked before it starts, so no run is trained twice. Returns one dict per run done here:
    name, seed, seconds, final_loss."""
    runs = pending_runs(names, seeds, directory=directory, force=force)
    done = []
    start = time.perf_counter()
    for i, (name, seed) in enumerate(runs, 1):
        parent = recipe(name).init_from
        if (not force and is_trained(name, seed, directory)) or (parent and not is_trained(parent, seed, directory)):
            continue  # finished meanwhile by another process, or its parent is still being trained elsewhere
        lock = _claim(name, seed, directory)
        if lock is None:
            continue
        try:
            prefix = f"run {i}/{len(runs)} {checkpoint_id(name, seed):<22s} "
            model, train_log = train_recipe(
                name, seed, directory=directory, progress=progress, prefix=prefix, steps=steps
            )
            command = recipe(name).command(seed) + (f" --steps {steps}" if steps is not None else "")
            if Path(directory) != CHECKPOINT_DIR:
                command += f" --out {directory}"
            save_checkpoint(model, name, seed, train_log, directory=directory, command=command)
        finally:
            lock.unlink(missing_ok=True)
        _LOADED.pop((str(Path(directory)), name, seed), None)
        write_checkpoint_index(directory)
        done.append({"name": name, "seed": seed, "seconds": train_log.seconds, "final_loss": train_log.final_loss})
        log(
            f"{checkpoint_id(name, seed)}: {train_log.steps} steps in {train_log.seconds:.1f} s, final loss "
            f"{train_log.final_loss:.3f} (elapsed {(time.perf_counter() - start) / 60:.1f} min)"
        )
    return done
