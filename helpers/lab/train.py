"""Training, fine-tuning, checkpoints and the recipes that produce the shipped checkpoints.

Optimiser: AdamW (β = 0.9, 0.95), linear warm-up then cosine decay to 10 % of the peak rate, gradient clipping at
1.0, weight decay 0.01 on weight matrices only. Embeddings, the learned position table, LayerNorms and biases get no
weight decay, so rows of the learned table that training never reaches keep their initial values *exactly* (Adam's
update is 0 for a parameter entry whose gradient has always been 0). Loss: mean next-token cross-entropy.

Reproducibility: batch k of a run with seed s is ``training_batch(B, T, (s, k))``, the model is initialised from
``config.seed``, and training runs with a fixed number of threads; the same command gives the same checkpoint up to
floating-point summation order (bit-identical on the same machine and thread count: re-training ``rope`` reproduced
the shipped ``rope.pt`` exactly).

Recipes (:data:`RECIPES`): the four pre-trainings run 3000 steps of batch 32 at L = 64 (language modelling only for
the first 30 %, then half passkey rows); the two fine-tunes start from ``rope`` and run 400 steps of batch 16 at
4·L = 256 with scale factor 4, PI (``linear``) or YaRN.

Checkpoints are two files: ``<name>.pt`` holds the float32 ``state_dict`` (tensors only; loaded with
``torch.load(weights_only=True)``) and ``<name>.json`` holds the config, the recipe, the exact command that
reproduces it, and the measured training time.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import sys
import time
from pathlib import Path
from typing import TextIO

import torch
import torch.nn.functional as F

from helpers._checks import check_int, check_positive
from helpers.lab.data import training_batch
from helpers.lab.model import LabConfig, TinyTransformer, check_rope_scaling

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"


# --------------------------------------------------------------------------- recipes
@dataclasses.dataclass(frozen=True)
class Recipe:
    """Everything that determines a shipped checkpoint.

    ``config``: the :class:`LabConfig` (pre-training) or None for a fine-tune of ``init_from``.
    ``length``: training sequence length; ``rope_scaling``: the scaling a fine-tune trains with.
    """

    name: str
    description: str
    steps: int
    length: int
    batch_size: int = 32
    lr: float = 3e-3
    warmup: int = 50
    seed: int = 0
    config: LabConfig | None = None
    init_from: str | None = None
    rope_scaling: dict | None = None

    @property
    def command(self) -> str:
        return f"python -m helpers.lab train {self.name}"


L = 64  # the pre-training length of every model
FT_FACTOR = 4  # fine-tunes run at FT_FACTOR·L with scale factor FT_FACTOR
ROPE_BASE = 500.0

_BASE = {"train_len": L, "max_seq_len": 2 * L, "rope_base": ROPE_BASE}
PRETRAIN_STEPS = 3000
PASSKEY_FRACTION = 0.5
PASSKEY_AFTER = 0.3
FT_STEPS = 400

RECIPES: dict[str, Recipe] = {
    "none": Recipe(
        "none",
        "no positional encoding (causal mask only)",
        PRETRAIN_STEPS,
        L,
        config=LabConfig(positional="none", **_BASE),
    ),
    "sinusoidal": Recipe(
        "sinusoidal",
        "sinusoidal table added to the token embeddings",
        PRETRAIN_STEPS,
        L,
        config=LabConfig(positional="sinusoidal", **_BASE),
    ),
    "learned": Recipe(
        "learned",
        f"learned table with {2 * L} rows, trained at L = {L}",
        PRETRAIN_STEPS,
        L,
        config=LabConfig(positional="learned", **_BASE),
    ),
    "rope": Recipe("rope", "RoPE (half_split layout)", PRETRAIN_STEPS, L, config=LabConfig(positional="rope", **_BASE)),
    "rope_pi_ft": Recipe(
        "rope_pi_ft",
        f"rope fine-tuned with Position Interpolation (factor {FT_FACTOR}) at {FT_FACTOR * L} tokens",
        FT_STEPS,
        FT_FACTOR * L,
        batch_size=16,
        lr=1e-3,
        warmup=20,
        init_from="rope",
        rope_scaling={"rope_type": "linear", "factor": float(FT_FACTOR)},
    ),
    "rope_yarn_ft": Recipe(
        "rope_yarn_ft",
        f"rope fine-tuned with YaRN (factor {FT_FACTOR}) at {FT_FACTOR * L} tokens",
        FT_STEPS,
        FT_FACTOR * L,
        batch_size=16,
        lr=1e-3,
        warmup=20,
        init_from="rope",
        rope_scaling={"rope_type": "yarn", "factor": float(FT_FACTOR), "original_max_position_embeddings": L},
    ),
}
CHECKPOINT_NAMES = tuple(RECIPES)


# --------------------------------------------------------------------------- progress bar
class ProgressBar:
    """A one-line text progress bar: ``[#####.....] step 120/1200  loss 2.345  41.2 steps/s  eta 0:26``.

    Rewrites its line with a carriage return at most every ``interval`` seconds; ``enabled=False`` silences it.
    """

    def __init__(self, total: int, *, enabled: bool = True, stream: TextIO | None = None, interval: float = 0.25):
        self.total, self.enabled, self.interval = total, enabled, interval
        self.stream = stream if stream is not None else sys.stderr
        self.start = self.last = time.perf_counter()

    def render(self, step: int, loss: float) -> str:
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = step / elapsed
        eta = (self.total - step) / rate if rate > 0 else 0.0
        filled = int(20 * step / self.total)
        bar = "#" * filled + "." * (20 - filled)
        return (
            f"[{bar}] step {step}/{self.total}  loss {loss:.3f}  {rate:.1f} steps/s  "
            f"eta {int(eta // 60)}:{int(eta % 60):02d}"
        )

    def update(self, step: int, loss: float) -> None:
        now = time.perf_counter()
        if self.enabled and (now - self.last >= self.interval or step == self.total):
            self.last = now
            self.stream.write("\r" + self.render(step, loss))
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------- training
@dataclasses.dataclass
class TrainLog:
    """What a run did: ``losses`` (one per step), wall-clock ``seconds``, ``steps``, ``length``, ``threads``."""

    losses: list[float]
    seconds: float
    steps: int
    length: int
    batch_size: int
    threads: int

    @property
    def final_loss(self) -> float:
        """Mean loss over the last 10 % of steps (at least one)."""
        tail = self.losses[-max(1, len(self.losses) // 10) :]
        return float(sum(tail) / len(tail))


def learning_rate(step: int, *, peak: float, warmup: int, total: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup`` steps, then cosine decay to 0.1·peak at ``total``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress)))


def make_optimizer(model: TinyTransformer, lr: float) -> torch.optim.AdamW:
    """AdamW with weight decay 0.01 on weight matrices only (not embeddings, position table, norms, biases)."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        matrix = p.ndim == 2 and not name.startswith(("token_embedding", "position_embedding"))
        (decay if matrix else no_decay).append(p)
    groups = [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


def next_token_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of logits (B, T, V) against targets (B, T)."""
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())  # scalar


def run_training(
    model: TinyTransformer,
    *,
    steps: int,
    length: int,
    batch_size: int = 32,
    lr: float = 3e-3,
    warmup: int = 50,
    seed: int = 0,
    passkey_fraction: float = PASSKEY_FRACTION,
    passkey_after: float = PASSKEY_AFTER,
    progress: bool = True,
) -> TrainLog:
    """Train ``model`` in place for ``steps`` steps on the training mixture at sequence length ``length``.

    Curriculum: the first ``passkey_after`` fraction of the steps are language modelling only (the copy task is where
    the induction head forms, after a plateau of a few hundred steps); after that a ``passkey_fraction`` of every
    batch is passkey rows. Mixing passkey rows in from the start delayed the induction head past 1500 steps.
    """
    steps = check_int("steps", steps, minimum=1)
    length = check_int("length", length, minimum=16)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    lr = check_positive("lr", lr)
    warmup = check_int("warmup", warmup, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    if model.position_embedding is not None and length > model.position_embedding.max_seq_len:
        raise ValueError(
            f"length must be <= the learned table's max_seq_len = {model.position_embedding.max_seq_len}, got {length}"
        )
    optimizer = make_optimizer(model, lr)
    bar = ProgressBar(steps, enabled=progress)
    losses: list[float] = []
    model.train()
    start = time.perf_counter()
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, peak=lr, warmup=warmup, total=steps)
        fraction = passkey_fraction if step >= passkey_after * steps else 0.0
        tokens, targets = training_batch(batch_size, length, (seed, step), passkey_fraction=fraction)
        loss = next_token_loss(model(tokens), targets)  # scalar
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        bar.update(step + 1, losses[-1])
    bar.close()
    model.eval()
    model.rows_reached = max(model.rows_reached, length) if model.position_embedding is not None else 0
    return TrainLog(losses, time.perf_counter() - start, steps, length, batch_size, torch.get_num_threads())


def train_model(
    config: LabConfig,
    *,
    steps: int,
    length: int | None = None,
    batch_size: int = 32,
    lr: float = 3e-3,
    warmup: int = 50,
    seed: int = 0,
    passkey_fraction: float = PASSKEY_FRACTION,
    passkey_after: float = PASSKEY_AFTER,
    progress: bool = True,
) -> tuple[TinyTransformer, TrainLog]:
    """Build a :class:`TinyTransformer` from ``config`` and train it at ``length`` (default ``config.train_len``)."""
    model = TinyTransformer(config)
    log = run_training(
        model,
        steps=steps,
        length=config.train_len if length is None else length,
        batch_size=batch_size,
        lr=lr,
        warmup=warmup,
        seed=seed,
        passkey_fraction=passkey_fraction,
        progress=progress,
    )
    return model, log


def fine_tune(
    model: TinyTransformer,
    rope_scaling: dict,
    length: int,
    *,
    steps: int,
    batch_size: int = 16,
    lr: float = 1e-3,
    warmup: int = 20,
    seed: int = 1,
    progress: bool = True,
) -> tuple[TinyTransformer, TrainLog]:
    """The papers' short fine-tune: a copy of a RoPE ``model`` trained ``steps`` steps at ``length`` with ``rope_scaling``.

    The data mixture has passkey rows from the first step (the parent already retrieves). The returned model runs
    with ``rope_scaling`` by default; its ``train_len`` (L) stays the pre-training length,
    which YaRN and dynamic NTK use as ``original_max_position_embeddings``. The input model is not modified.
    """
    if model.config.positional != "rope":
        raise ValueError(f"fine_tune needs a RoPE model, got positional={model.config.positional!r}")
    check_rope_scaling(rope_scaling)
    config = dataclasses.replace(model.config, rope_scaling=dict(rope_scaling))
    tuned = TinyTransformer(config)
    tuned.load_state_dict(copy.deepcopy(model.state_dict()))
    log = run_training(
        tuned,
        steps=steps,
        length=length,
        batch_size=batch_size,
        lr=lr,
        warmup=warmup,
        seed=seed,
        passkey_after=0.0,
        progress=progress,
    )
    return tuned, log


def train_recipe(
    name: str, *, directory: Path = CHECKPOINT_DIR, progress: bool = True
) -> tuple[TinyTransformer, TrainLog]:
    """Train the shipped checkpoint ``name`` from its :data:`RECIPES` entry (a fine-tune loads its parent first)."""
    recipe = _recipe(name)
    if recipe.init_from is None:
        return train_model(
            recipe.config,
            steps=recipe.steps,
            length=recipe.length,
            batch_size=recipe.batch_size,
            lr=recipe.lr,
            warmup=recipe.warmup,
            seed=recipe.seed,
            progress=progress,
        )
    parent = load_model(recipe.init_from, directory=directory)
    return fine_tune(
        parent,
        recipe.rope_scaling,
        recipe.length,
        steps=recipe.steps,
        batch_size=recipe.batch_size,
        lr=recipe.lr,
        warmup=recipe.warmup,
        seed=recipe.seed,
        progress=progress,
    )


# --------------------------------------------------------------------------- checkpoints
def _recipe(name: str) -> Recipe:
    if not isinstance(name, str) or name not in RECIPES:
        raise ValueError(f"checkpoint name must be one of {list(RECIPES)}, got {name!r}")
    return RECIPES[name]


def save_checkpoint(
    model: TinyTransformer, name: str, log: TrainLog, *, directory: Path = CHECKPOINT_DIR, command: str | None = None
) -> Path:
    """Write ``<name>.pt`` (float32 state_dict, tensors only) and ``<name>.json`` (config, command, timing)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    path = directory / f"{name}.pt"
    torch.save(state, path)
    recipe = RECIPES.get(name)
    meta = {
        "name": name,
        "description": recipe.description if recipe else "",
        "command": command or (recipe.command if recipe else ""),
        "config": model.config.to_dict(),
        "rows_reached": model.rows_reached,
        "n_parameters": model.n_parameters,
        "init_from": recipe.init_from if recipe else None,
        "training": {
            "steps": log.steps,
            "length": log.length,
            "batch_size": log.batch_size,
            "seconds": round(log.seconds, 1),
            "threads": log.threads,
            "final_loss": round(log.final_loss, 4),
            "loss_every_50_steps": [round(x, 4) for x in log.losses[::50]],
        },
        "torch_version": torch.__version__,
    }
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    return path


def checkpoint_metadata(name: str, *, directory: Path = CHECKPOINT_DIR) -> dict:
    """The JSON written next to checkpoint ``name``."""
    _recipe(name)
    path = Path(directory) / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(
            f"checkpoint {name!r} is not trained yet: {path} is missing; run `{RECIPES[name].command}`"
        )
    return json.loads(path.read_text())


def load_model(name: str, *, directory: Path = CHECKPOINT_DIR) -> TinyTransformer:
    """Load shipped checkpoint ``name`` (one of :data:`CHECKPOINT_NAMES`) in eval mode.

    Safe loading: ``torch.load(weights_only=True)`` (plain tensors; no arbitrary unpickling) plus a JSON config.
    """
    meta = checkpoint_metadata(name, directory=directory)
    model = TinyTransformer(LabConfig.from_dict(meta["config"]))
    state = torch.load(Path(directory) / f"{name}.pt", map_location="cpu", weights_only=True)
    model.load_state_dict({k: v.float() for k, v in state.items()})
    model.rows_reached = int(meta["rows_reached"])
    return model.eval()


def list_checkpoints(*, directory: Path = CHECKPOINT_DIR) -> list[dict]:
    """One dict per shipped checkpoint: name, positional, train_len, steps, length, seconds, size_bytes, command."""
    rows = []
    for name in CHECKPOINT_NAMES:
        path = Path(directory) / f"{name}.json"
        if not path.exists():
            continue
        meta = json.loads(path.read_text())
        weights = Path(directory) / f"{name}.pt"
        rows.append(
            {
                "name": name,
                "positional": meta["config"]["positional"],
                "rope_scaling": meta["config"]["rope_scaling"],
                "train_len": meta["config"]["train_len"],
                "steps": meta["training"]["steps"],
                "length": meta["training"]["length"],
                "seconds": meta["training"]["seconds"],
                "final_loss": meta["training"]["final_loss"],
                "size_bytes": weights.stat().st_size + path.stat().st_size,
                "command": meta["command"],
            }
        )
    return rows


def write_checkpoint_index(directory: Path = CHECKPOINT_DIR) -> Path:
    """Write ``README.md`` in the checkpoint directory: one row per checkpoint with its size, measured training time
    and the exact command that reproduces it (generated from the JSON files, never typed in)."""
    rows = list_checkpoints(directory=directory)
    lines = [
        "# Lab checkpoints",
        "",
        "Generated by `python -m helpers.lab train …` from the JSON next to each checkpoint. Weights are float32",
        "`state_dict`s (tensors only; `torch.load(weights_only=True)`); configs are JSON. Times are wall-clock seconds",
        "on the shared 2-core machine with 1 torch thread, measured when the checkpoint was made (other jobs were",
        "running: see `helpers/lab/results/RESULTS.md`).",
        "",
        "| checkpoint | positional | RoPE scaling | steps | length | seconds | final loss | size (KB) | command |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        scaling = json.dumps(r["rope_scaling"]) if r["rope_scaling"] else "-"
        lines.append(
            f"| {r['name']} | {r['positional']} | `{scaling}` | {r['steps']} | {r['length']} | {r['seconds']:.1f} | "
            f"{r['final_loss']:.3f} | {r['size_bytes'] / 1024:.0f} | `{r['command']}` |"
        )
    total = sum(r["size_bytes"] for r in rows)
    lines += ["", f"Total: {total / 1024:.0f} KB; total training time {sum(r['seconds'] for r in rows):.0f} s.", ""]
    path = Path(directory) / "README.md"
    path.write_text("\n".join(lines))
    return path
