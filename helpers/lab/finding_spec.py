"""What a finding is, as data: :class:`Finding` (the claim), :class:`Diff` (a difference it compares over seeds) and
the readers of the per-seed numbers it names (:func:`value`).

Values are named ``(metric, method, multiple of L)``; ``metric`` is a record's metric (``accuracy``, ``loss``,
``previous_token_attention``), ``early`` / ``late`` (the mean loss of the buckets before L / at or past L) or a band
of positions (:data:`FIRST_L`, :data:`TO_4L`, :data:`PAST_4L`). The declarations are in :mod:`helpers.lab.claims`,
the loop that judges them in :mod:`helpers.lab.findings`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from helpers.lab.data import N_WORDS
from helpers.lab.records import record, seed_values

__all__ = [
    "ACC",
    "COPY_LEARNED_NATS",
    "Diff",
    "Finding",
    "describe",
    "kind_of",
    "loss_by_position",
    "LISTED_SEEDS",
    "per_seed",
    "value",
]

ACC, LOSS, PREV, EARLY, LATE = "accuracy", "loss", "previous_token_attention", "early", "late"
#: Loss by position bands at a length T: the mean loss of the buckets starting in [0, L), [L, 4L), [4L, 8L).
FIRST_L, TO_4L, PAST_4L = "first_L", "L_to_4L", "4L_to_8L"
_BANDS = {FIRST_L: (0, 1), TO_4L: (1, 4), PAST_4L: (4, 8)}
#: A model has learned the copy task at L when its loss there is at least 1 nat below a random word's ln 107: the
#: families that learned it sit at 2.5-2.9 nats, those that did not at about 4.2. A flat loss counts as evidence of
#: extrapolation only in such a model (the flatness of a model that ignores the context says nothing).
COPY_LEARNED_NATS = math.log(N_WORDS) - 1.0
Values = dict[str, np.ndarray]
Spec = tuple[str, str, int]


@dataclasses.dataclass(frozen=True)
class Diff:
    """A paired difference a finding claims is positive on its seeds: ``greater − factor · lesser − margin`` (each
    side a value name of the finding or a number). The findings report its Student-t interval over seeds
    (:func:`helpers.lab.stats.paired_interval`)."""

    greater: str | float
    lesser: str | float
    margin: float = 0.0
    factor: float = 1.0

    def of(self, values: Values) -> np.ndarray:
        """The per-seed difference (n_seeds,) before the margin: greater − factor · lesser."""
        side = lambda x: values[x] if isinstance(x, str) else np.full(len(next(iter(values.values()))), float(x))  # noqa: E731
        return side(self.greater) - self.factor * side(self.lesser)

    @property
    def threshold(self) -> bool:
        """True when one side is a fixed number: a per-seed threshold ("at least 40 % of the passkeys"), which only
        its seed count can support (an interval of the mean above the threshold says nothing about each seed)."""
        return not (isinstance(self.greater, str) and isinstance(self.lesser, str))

    def label(self, specs: dict[str, Spec], train_len: int) -> str:
        """E.g. "loss(`rope+linear_ft`, 4L) − loss(`rope+yarn_ft`, 4L)", with the margin it must exceed."""
        name = lambda x: describe(specs[x], train_len) if isinstance(x, str) else f"{x:g}"  # noqa: E731
        factor = "" if self.factor == 1.0 else f"{self.factor:g}·"
        margin = f" (must exceed {self.margin:g})" if self.margin else ""
        return f"{name(self.greater)} − {factor}{name(self.lesser)}{margin}"


@dataclasses.dataclass(frozen=True)
class Finding:
    """One claim. ``values``: name → (metric, method, multiple of L), or a function of the methods used (required
    and optional ones evaluated) returning that dict. ``holds``: values → one truth per seed. ``template``: the
    sentence (see :mod:`helpers.lab.findings`), or a function (formatted values, values, seeds, left-out seeds) →
    sentence. ``optional``: methods used when they were evaluated. ``only_if``: (metric, method, multiple,
    threshold): keep only the seeds where that value is >= threshold (the others are passed to the template as left
    out). ``diffs``: the paired differences the claim says are positive; when they are the whole claim
    (``holds`` is their conjunction, up to ties), each gets an interval, and all of them lying above their margins
    makes the claim robust whatever its seed count, unless one of them is a per-seed threshold
    (:attr:`Diff.threshold`): such a claim is robust only by its seed count."""

    key: str
    methods: tuple[str, ...]
    values: dict[str, Spec] | Callable[[list[str]], dict[str, Spec]]
    holds: Callable[[Values], object]
    template: str | Callable[[dict[str, str], Values, list[int], list[int]], str]
    optional: tuple[str, ...] = ()
    only_if: tuple[str, str, int, float] | None = None
    diffs: tuple[Diff, ...] = ()


#: Up to this many seeds a finding lists every seed's value; past it, the mean and the range over the seeds.
LISTED_SEEDS = 4


def per_seed(values, fmt: str = ".2f") -> str:
    """Per-seed values as text: "0.95 / 1.00 / n/a" for up to :data:`LISTED_SEEDS` seeds, else the mean and the
    range over the seeds: "mean 0.95 [0.80, 1.00]" (NaN seeds left out of both; "n/a" if every seed is NaN)."""
    v = np.asarray(values, dtype=float)  # (n_seeds,)
    if v.size <= LISTED_SEEDS:
        return " / ".join("n/a" if math.isnan(x) else format(x, fmt) for x in v)
    ok = v[~np.isnan(v)]
    if ok.size == 0:
        return "n/a"
    return f"mean {ok.mean():{fmt}} [{ok.min():{fmt}}, {ok.max():{fmt}}]"


def describe(spec: Spec, train_len: int) -> str:
    """``(metric, method, multiple)`` as text: "loss(`rope+yarn`, 8L)"."""
    metric, method, multiple = spec
    at = "L" if multiple == 1 else f"{multiple}L"
    word = {ACC: "passkey", LOSS: "loss", PREV: "previous-token weight", EARLY: "loss before L", LATE: "loss past L"}
    word |= {FIRST_L: "loss on [0, L)", TO_4L: "loss on [L, 4L)", PAST_4L: "loss on [4L, 8L)"}
    return f"{word.get(metric, metric)}(`{method}`, {at})"


def kind_of(spec: Spec) -> str:
    """ "passkey" for accuracies, "loss" for losses (nats), "attention" for attention weights."""
    return {ACC: "passkey", PREV: "attention"}.get(spec[0], "loss")


def _early_late(results: dict, method: str, length: int, seeds) -> tuple[np.ndarray, np.ndarray]:
    """Per seed: mean loss of the buckets before L and of the buckets at or past L, at length T. Shapes (n_seeds,)."""
    train_len = results["meta"]["train_len"]
    early, late = [], []
    for seed in seeds:
        m = record(results, method, seed, "lm", length)["metrics"]
        starts, losses = np.asarray(m["bucket_starts"]), np.asarray(m["loss_by_bucket"])
        early.append(losses[starts < train_len].mean())
        late.append(losses[starts >= train_len].mean())
    return np.asarray(early), np.asarray(late)


def loss_by_position(results: dict, method: str, length: int, seeds, bounds) -> list[np.ndarray]:
    """Per seed: mean loss of the buckets starting in [bounds[k], bounds[k+1]) (positions) at length T; a list of
    len(bounds) − 1 arrays of shape (n_seeds,)."""
    rows = []
    for seed in seeds:
        m = record(results, method, seed, "lm", length)["metrics"]
        starts, losses = np.asarray(m["bucket_starts"]), np.asarray(m["loss_by_bucket"])
        rows.append(
            [losses[(starts >= lo) & (starts < hi)].mean() for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
        )
    return list(np.asarray(rows).T)


def _band_loss(results: dict, method: str, length: int, seeds, band: str) -> np.ndarray:
    """Per seed: mean loss on one of :data:`_BANDS`' position ranges at length T (n_seeds,)."""
    train_len = results["meta"]["train_len"]
    lo, hi = (k * train_len for k in _BANDS[band])
    return loss_by_position(results, method, length, seeds, (lo, hi))[0]


def value(results: dict, spec: tuple[str, str, int], seeds: list[int]) -> np.ndarray:
    """One named value (n_seeds,): a metric of ``method`` at ``multiple``·L, its early / late loss, or its loss on a
    band of positions (:data:`FIRST_L`, :data:`TO_4L`, :data:`PAST_4L`)."""
    metric, method, multiple = spec
    length = multiple * results["meta"]["train_len"]
    if metric in (EARLY, LATE):
        return _early_late(results, method, length, seeds)[metric == LATE]
    if metric in _BANDS:
        return _band_loss(results, method, length, seeds, metric)
    return seed_values(results, method, metric, length, seeds)
