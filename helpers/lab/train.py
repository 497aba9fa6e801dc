"""Training and fine-tuning: every setting in one dataclass, :class:`TrainSettings`.

Optimiser: AdamW (β = 0.9, 0.95), linear warm-up then cosine decay to 10 % of the peak rate, gradient clipping at
1.0, weight decay 0.01 on weight matrices only. Embeddings, the positional object's parameters (learned table, T5
bias table), LayerNorms and biases get no weight decay, so rows of the learned table that training never reaches
keep their initial values *exactly* (Adam's update is 0 for a parameter entry whose gradient has always been 0).
Loss: mean next-token cross-entropy.

Reproducibility: batch k of a run with data seed s is ``training_batch(B, T, (s, k))``, the model is initialised
from ``config.seed``, and training runs with a fixed number of threads; the same settings give the same weights
(bit-identical on the same machine and thread count).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import sys
import time
from typing import TextIO

import torch
import torch.nn.functional as F

from helpers._checks import check_int, check_positive
from helpers.lab.data import training_batch
from helpers.lab.model import LabConfig, TinyTransformer
from helpers.lab.positional import check_rope_scaling

__all__ = [
    "ProgressBar",
    "TrainLog",
    "TrainSettings",
    "fine_tune",
    "learning_rate",
    "run_training",
    "train_model",
]


@dataclasses.dataclass(frozen=True)
class TrainSettings:
    """Every setting of one training run (and nothing else: an unknown name raises TypeError).

    ``steps``: optimiser steps. ``length``: training sequence length (None = the model's ``train_len``).
    ``batch_size``: sequences per step. ``lr``: peak learning rate; ``warmup``: steps of linear warm-up, then cosine
    decay to 0.1·lr. ``seed``: data seed (batch k is ``training_batch(batch_size, length, (seed, k))``).
    ``passkey_fraction``: share of passkey rows in a batch; ``passkey_after``: the first ``passkey_after``·steps
    steps are language modelling only (the copy task is where the induction head forms, after a plateau of a few
    hundred steps; mixing passkey rows in from the start delayed it past 1500 steps).
    """

    steps: int = 3000
    length: int | None = None
    batch_size: int = 32
    lr: float = 3e-3
    warmup: int = 50
    seed: int = 0
    passkey_fraction: float = 0.5
    passkey_after: float = 0.3

    def __post_init__(self) -> None:
        check_int("steps", self.steps, minimum=1)
        if self.length is not None:
            check_int("length", self.length, minimum=16)
        check_int("batch_size", self.batch_size, minimum=1)
        check_positive("lr", self.lr)
        check_int("warmup", self.warmup, minimum=1)
        check_int("seed", self.seed, minimum=0)
        for name in ("passkey_fraction", "passkey_after"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")

    @classmethod
    def build(cls, settings: TrainSettings | None = None, **overrides) -> TrainSettings:
        """``settings`` (default: the defaults) with ``overrides`` replaced; unknown names raise TypeError."""
        if settings is not None and not isinstance(settings, cls):
            raise TypeError(f"settings must be a TrainSettings or None, got {type(settings).__name__}")
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise TypeError(f"unknown training settings {unknown}; allowed: {known}")
        return dataclasses.replace(settings if settings is not None else cls(), **overrides)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# --------------------------------------------------------------------------- progress bar
class ProgressBar:
    """A text progress bar: ``[#####.....] step 120/1200  loss 2.345  41.2 steps/s  eta 0:26``.

    On a terminal it rewrites one line with a carriage return at most every ``interval`` seconds; when the stream is
    not a terminal (a log file, a pipe) it writes one whole line at most every ``log_interval`` seconds and at the
    end, so a log stays readable. ``terminal`` forces either mode (default: ``stream.isatty()``). ``enabled=False``
    silences it. ``prefix`` is printed before the bar (e.g. ``"run 3/18 rope.seed1 "``).
    """

    def __init__(
        self,
        total: int,
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        interval: float = 0.25,
        prefix: str = "",
        log_interval: float = 30.0,
        terminal: bool | None = None,
    ):
        self.total, self.enabled, self.prefix = total, enabled, prefix
        self.stream = stream if stream is not None else sys.stderr
        if terminal is None:
            terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.terminal = terminal
        self.interval = interval if terminal else log_interval
        self.start = self.last = time.perf_counter()

    def render(self, step: int, loss: float) -> str:
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = step / elapsed
        eta = (self.total - step) / rate if rate > 0 else 0.0
        filled = int(20 * step / self.total)
        bar = "#" * filled + "." * (20 - filled)
        return (
            f"{self.prefix}[{bar}] step {step}/{self.total}  loss {loss:.3f}  {rate:.1f} steps/s  "
            f"eta {int(eta // 60)}:{int(eta % 60):02d}"
        )

    def update(self, step: int, loss: float) -> None:
        now = time.perf_counter()
        if self.enabled and (now - self.last >= self.interval or step == self.total):
            self.last = now
            self.stream.write("\r" + self.render(step, loss) if self.terminal else self.render(step, loss) + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.terminal:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------- training
@dataclasses.dataclass
class TrainLog:
    """What a run did: ``losses`` (one per step), wall-clock ``seconds``, the ``settings``, torch ``threads``."""

    losses: list[float]
    seconds: float
    settings: TrainSettings
    length: int
    threads: int

    @property
    def steps(self) -> int:
        return len(self.losses)

    @property
    def batch_size(self) -> int:
        return self.settings.batch_size

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
    """AdamW with weight decay 0.01 on weight matrices only (not embeddings, positional parameters, norms, biases).
    Every group carries ``lr_scale``: 1, except the groups the positional family asks for
    (:meth:`helpers.lab.positional.Positional.param_groups`, e.g. a T5 bias table at ``t5_table_lr_scale``), last."""
    own = model.positional.param_groups(lr)
    taken = {id(p) for g in own for p in g["params"]}
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if id(p) in taken:
            continue
        matrix = p.ndim == 2 and not name.startswith(("token_embedding", "positional."))
        (decay if matrix else no_decay).append(p)
    groups = [
        {"params": decay, "weight_decay": 0.01, "lr_scale": 1.0},
        {"params": no_decay, "weight_decay": 0.0, "lr_scale": 1.0},
        *own,
    ]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


def next_token_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of logits (B, T, V) against targets (B, T)."""
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())  # scalar


def run_training(
    model: TinyTransformer, settings: TrainSettings, *, progress: bool = True, prefix: str = ""
) -> TrainLog:
    """Train ``model`` in place with ``settings`` (curriculum: LM only for the first ``passkey_after`` of the steps,
    then ``passkey_fraction`` of every batch is passkey rows). Returns the :class:`TrainLog`."""
    if not isinstance(settings, TrainSettings):
        raise TypeError(f"settings must be a TrainSettings, got {type(settings).__name__}")
    length = model.train_len if settings.length is None else settings.length
    if model.position_embedding is not None and length > model.position_embedding.max_seq_len:
        raise ValueError(
            f"length must be <= the learned table's max_seq_len = {model.position_embedding.max_seq_len}, got {length}"
        )
    optimizer = make_optimizer(model, settings.lr)
    bar = ProgressBar(settings.steps, enabled=progress, prefix=prefix)
    losses: list[float] = []
    model.train()
    start = time.perf_counter()
    for step in range(settings.steps):
        for group in optimizer.param_groups:
            peak = settings.lr * group["lr_scale"]
            group["lr"] = learning_rate(step, peak=peak, warmup=settings.warmup, total=settings.steps)
        fraction = settings.passkey_fraction if step >= settings.passkey_after * settings.steps else 0.0
        tokens, targets = training_batch(settings.batch_size, length, (settings.seed, step), passkey_fraction=fraction)
        loss = next_token_loss(model(tokens), targets)  # scalar
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        bar.update(step + 1, losses[-1])
    bar.close()
    model.eval()
    model.rows_reached = max(model.rows_reached, length)
    return TrainLog(losses, time.perf_counter() - start, settings, length, torch.get_num_threads())


def train_model(
    config: LabConfig, settings: TrainSettings | None = None, *, progress: bool = True, **overrides
) -> tuple[TinyTransformer, TrainLog]:
    """Build a :class:`TinyTransformer` from ``config`` and train it.

    ``settings``: a :class:`TrainSettings` (default: its defaults); keyword ``overrides`` replace single fields,
    e.g. ``train_model(config, steps=40, passkey_after=0.0)``. An unknown keyword raises TypeError.
    """
    settings = TrainSettings.build(settings, **overrides)
    model = TinyTransformer(config)
    return model, run_training(model, settings, progress=progress)


#: The fine-tunes' settings: the papers' short fine-tune, shrunk (PI: <= 1000 steps; YaRN: 400 steps).
FINE_TUNE = TrainSettings(steps=400, length=256, batch_size=16, lr=1e-3, warmup=20, seed=0, passkey_after=0.0)


def fine_tune(
    model: TinyTransformer,
    rope_scaling: dict,
    settings: TrainSettings | None = None,
    *,
    progress: bool = True,
    prefix: str = "",
    **overrides,
) -> tuple[TinyTransformer, TrainLog]:
    """A copy of a RoPE ``model`` trained with ``rope_scaling`` (default settings :data:`FINE_TUNE`, passkey rows from
    the first step: the parent already retrieves). The returned model runs with ``rope_scaling`` by default; its
    ``train_len`` (L) stays the pre-training length, which YaRN and dynamic NTK use as
    ``original_max_position_embeddings``. The input model is not modified."""
    if model.config.family != "rope":
        raise ValueError(f"fine_tune needs a RoPE model, got family={model.config.family!r}")
    check_rope_scaling(rope_scaling)
    settings = TrainSettings.build(settings if settings is not None else FINE_TUNE, **overrides)
    config = model.config.replace_params(rope_scaling=dict(rope_scaling))
    tuned = TinyTransformer(config)
    tuned.load_state_dict(copy.deepcopy(model.state_dict()))
    return tuned, run_training(tuned, settings, progress=progress, prefix=prefix)
