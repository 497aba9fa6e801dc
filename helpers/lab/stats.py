"""The uncertainty of a claim over training seeds: a paired Student-t interval of a mean difference, and the verdict
rule of the lab's findings.

A finding compares numbers measured on the same seeds (the same pre-trained model under two methods), so the
comparison is paired: with d_i = a_i − b_i on seed i, the 95 % interval of the mean difference is
d̄ ± t_{0.975, n−1} · s_d / √n (s_d the sample standard deviation, n − 1 degrees of freedom; Student 1908). A claim is
**robust** when it holds on at least :data:`ROBUST_SHARE` of its seeds, or when it compares measured values only and
every interval it declares lies above its margin (not merely above zero: a claim "more than 0.3 nats above" needs
the interval above 0.3); a claim with a per-seed threshold ("at least 40 % of the passkeys") is robust only by its
seed count. Otherwise it is **mixed (k of n)**, and a claim true on no seed **does not hold (0 of n)**. The
intervals are over training seeds on one evaluation sample: they do not include what another sample of documents
and keys would move. Plain NumPy
(the t quantile by bisection on the CDF, itself the regularised incomplete beta function by its continued fraction).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

__all__ = ["ROBUST_SHARE", "Interval", "paired_interval", "t_cdf", "t_quantile", "verdict"]

#: A claim holding on at least this share of its seeds is robust (9 of 10, 3 of 3).
ROBUST_SHARE = 0.9


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularised incomplete beta function (Lentz's method, Numerical Recipes §6.4)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function, for 0 <= x <= 1."""
    if x <= 0.0 or x >= 1.0:
        return float(x >= 1.0)
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom: 1 − I_{df/(df+t²)}(df/2, 1/2) / 2 for t >= 0."""
    if df <= 0:
        raise ValueError(f"df must be > 0, got {df!r}")
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = ``p`` (0 < p < 1), by bisection on :func:`t_cdf` (to 1e-10)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-10 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return 0.5 * (lo + hi)


@dataclasses.dataclass(frozen=True)
class Interval:
    """A mean difference over ``n`` paired seeds and its ``confidence`` interval [low, high] (±inf when n < 2)."""

    mean: float
    low: float
    high: float
    n: int
    confidence: float = 0.95

    def above(self, margin: float = 0.0) -> bool:
        """True when the whole interval lies above ``margin`` (for margin 0: it excludes zero, on the claimed side)."""
        return bool(self.low > margin)

    def text(self, fmt: str = ".2f") -> str:
        if not math.isfinite(self.low):
            return f"{self.mean:{fmt}} (one seed: no interval)"
        return f"{self.mean:{fmt}} [{self.low:{fmt}}, {self.high:{fmt}}]"


def paired_interval(a, b=0.0, confidence: float = 0.95) -> Interval:
    """The Student-t interval of mean(a − b) over seeds: ``a`` (n,) and ``b`` (n,) or a number. NaN seeds are
    dropped. n = 1 gives an unbounded interval; identical differences give a zero-width one."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)  # (n,)
    d = d[np.isfinite(d)]
    if d.size == 0:
        raise ValueError("paired_interval needs at least one finite difference, got none")
    mean = float(d.mean())
    if d.size < 2:
        return Interval(mean, -math.inf, math.inf, 1, confidence)
    half = t_quantile(0.5 + confidence / 2.0, d.size - 1) * float(d.std(ddof=1)) / math.sqrt(d.size)
    return Interval(mean, mean - half, mean + half, int(d.size), confidence)


def verdict(holds: int, n: int, intervals_above: bool = False) -> str:
    """ "robust" when the claim holds on at least :data:`ROBUST_SHARE` of its ``n`` seeds or ``intervals_above``
    (every declared interval lies above its margin, and the claim has no per-seed threshold: the caller decides);
    "does not hold (0 of n)" on no seed; else "mixed (k of n)"."""
    if not 0 <= holds <= n or n < 1:
        raise ValueError(f"holds must be in [0, n] with n >= 1, got holds={holds!r}, n={n!r}")
    if holds >= ROBUST_SHARE * n - 1e-9 or intervals_above:
        return "robust"
    if holds == 0:
        return f"does not hold (0 of {n})"
    return f"mixed ({holds} of {n})"
