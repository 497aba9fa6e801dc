"""RoPE scores against distance: score(m, n) as a function of m − n, RoFormer's decay bound, random q and k.

Why RoPE's score depends on the distance only, and what "long-range decay" is and is not (notebook 04).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers._checks import check_dim, check_int, check_positive
from helpers.rope.frequencies import check_inv_freq, rope_inv_freq

__all__ = [
    "DecayCurves",
    "key_peaking_at",
    "long_range_decay",
    "pair_score_curve",
    "random_score_stats",
    "roformer_bound_factor",
    "rope_score_curve",
]


# --------------------------------------------------------------------------- scores against distance
def _cos_sin_table(inv_freq: np.ndarray, distances) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of Δ·θ_i for every pair i and distance Δ, float64, shape (D/2, T) each."""
    angles = np.outer(inv_freq, np.asarray(distances, dtype=np.float64))  # (D/2, T)
    return np.cos(angles), np.sin(angles)


def _scores_from_table(q, k, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Σ_i A_i cos_i(t) + B_i sin_i(t) for a precomputed (D/2, T) table (see :func:`pair_score_curve`)."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    qa, qb, ka, kb = q[..., 0::2], q[..., 1::2], k[..., 0::2], k[..., 1::2]  # (..., D/2) each
    a, b = qa * ka + qb * kb, qa * kb - qb * ka  # (..., D/2) each: A_i and B_i
    # einsum, not `@`: a matrix product this small goes to multi-threaded BLAS, whose threads can stall for
    # tens of milliseconds when the CPU is busy; einsum's single-threaded loop takes ~2 ms every time.
    return np.einsum("...i,it->...t", a, cos) + np.einsum("...i,it->...t", b, sin)  # (..., T)


def _bound_from_table(cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    # cos, sin: (D/2, T), the real and imaginary parts of e^{i(m−n)θ_k}
    partial_re, partial_im = np.cumsum(cos, axis=0), np.cumsum(sin, axis=0)  # (D/2, T): S_1 .. S_{D/2}
    return np.hypot(partial_re, partial_im).mean(axis=0)  # (T,)


def _random_stats(table, dim: int, n_samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, dim))  # (N, D)
    k = rng.standard_normal((n_samples, dim))  # (N, D)
    norms = np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1)  # (N,)
    s = _scores_from_table(q, k, *table) / norms[:, None]  # (N, T)
    return s.mean(axis=0), s.std(axis=0)  # (T,) each


def key_peaking_at(q: np.ndarray, distance: float, base: float = 10000.0) -> np.ndarray:
    """A key whose RoPE score with ``q`` is largest at distance m − n = ``distance``.

    k = R_Θ(distance)·q. Per pair, q̃·conj(k̃) = |q̃_i|²·e^{−i·distance·θ_i}, so
    score(m, n) = Σ_i |q̃_i|² cos((m − n − distance)·θ_i), which reaches its maximum |q|² exactly at
    m − n = distance (every cosine is 1 there). Barbero et al. 2024 (arXiv 2410.06205) use this kind of
    construction to show that RoPE does not force scores to decay with distance.

    ``q``: (D,) interleaved. Returns (D,) float64. Used by notebook 04.
    """
    q = np.asarray(q, dtype=np.float64)
    theta = rope_inv_freq(q.shape[-1], base)  # (D/2,)
    zq = q[0::2] + 1j * q[1::2]  # (D/2,) complex
    zk = zq * np.exp(1j * distance * theta)  # (D/2,)
    k = np.empty_like(q)  # (D,)
    k[0::2], k[1::2] = zk.real, zk.imag
    return k


def pair_score_curve(q: np.ndarray, k: np.ndarray, distances, base: float = 10000.0, *, inv_freq=None) -> np.ndarray:
    """score(m, n) = <R_Θ(m) q, R_Θ(n) k> as a function of the distance m − n alone.

    score = Σ_i Re[q̃_i·conj(k̃_i)·e^{i(m−n)θ_i}] = Σ_i A_i cos((m−n)θ_i) + B_i sin((m−n)θ_i), with
    A_i = q_a k_a + q_b k_b and B_i = q_a k_b − q_b k_a for pair i = (a, b) = (2i, 2i+1) (RoFormer arXiv
    2104.09864 §3.2.1 for one pair, §3.4.3 for the sum over pairs; the sine term is errata E2). Real
    arithmetic, no complex exp. ``q``, ``k``: (D,) or (N, D) interleaved; ``distances``: (T,).
    Frequencies: ``inv_freq`` (D/2,) if given (e.g. a scaling method's), else θ_i = base^(−2i/D).
    Returns (T,) or (N, T). Used by notebooks 04 and 05.
    """
    q = np.asarray(q, dtype=np.float64)
    theta = rope_inv_freq(q.shape[-1], base) if inv_freq is None else check_inv_freq(inv_freq)  # (D/2,)
    if 2 * theta.size != q.shape[-1]:
        raise ValueError(f"inv_freq has {theta.size} pairs but q has D = {q.shape[-1]} dimensions")
    return _scores_from_table(q, k, *_cos_sin_table(theta, distances))


def rope_score_curve(inv_freq, distances, attention_factor: float = 1.0) -> np.ndarray:
    """Score of q = k = (1, 1, …, 1) at relative distance Δ, divided by D: a²·mean_i cos(Δ·θ_i).

    :func:`pair_score_curve` with q = k = 1 (then A_i = 2, B_i = 0), divided by D, so 1 at Δ = 0 (times a², the
    attention factor applied to q and k alike). The classic RoFormer decay curve (arXiv 2104.09864 §3.4.3, Fig. 2
    shows a bound on it). ``inv_freq``: (D/2,); ``distances``: (N,); returns (N,) float64.
    Used by notebook 05 (sections 2 and 7) and :func:`helpers.scaling.toy_attention_entropy`.
    """
    inv_freq = check_inv_freq(inv_freq)  # (D/2,)
    a = check_positive("attention_factor", attention_factor)
    ones = np.ones(2 * inv_freq.size)  # (D,)
    return a * a * pair_score_curve(ones, ones, distances, inv_freq=inv_freq) / ones.size  # (N,)


def roformer_bound_factor(distances, dim: int, base: float = 10000.0) -> np.ndarray:
    """The distance factor of RoFormer's long-term-decay bound: (1/(D/2))·Σ_{j=1}^{D/2} |S_j|.

    S_j = Σ_{k=0}^{j−1} e^{i(m−n)θ_k}. Abel summation gives |score| ≤ (max_i |h_{i+1} − h_i|)·Σ_j |S_j|
    (RoFormer arXiv 2104.09864 §3.4.3; the paper plots this average in its Figure 2). It bounds the *magnitude*
    of the score; it says nothing about the score's sign or its expectation. Returns (T,). Used by notebook 04.
    """
    return _bound_from_table(*_cos_sin_table(rope_inv_freq(dim, base), distances))


def random_score_stats(distances, dim: int, base: float = 10000.0, *, n_samples: int = 128, seed: int = 0):
    """Mean and standard deviation of score/(|q||k|) over independent standard-normal q, k.

    For independent q, k with zero mean, E[q̃_i·conj(k̃_i)] = 0, so the expected score is 0 at every
    distance. Returns (mean (T,), std (T,)) over ``n_samples`` seeded draws. Used by notebook 04.
    """
    n_samples = check_int("n_samples", n_samples, minimum=1)
    return _random_stats(_cos_sin_table(rope_inv_freq(dim, base), distances), dim, n_samples, seed)


@dataclass(frozen=True)
class DecayCurves:
    """What "long-range decay" is and is not, against the distances 0..max_distance (:func:`long_range_decay`)."""

    distances: np.ndarray  # (T,) m − n
    bound: np.ndarray  # (T,) RoFormer's bound factor (1/(D/2))·Σ_j |S_j|
    same: np.ndarray  # (T,) score/(|q||k|) for q = k = all ones
    peaked: np.ndarray  # (T,) the same for q = all ones, k = key_peaking_at(q, peak)
    random_mean: np.ndarray  # (T,) mean over random q, k
    random_std: np.ndarray  # (T,) standard deviation over random q, k


def long_range_decay(
    dim: int = 128, base: float = 10000.0, peak: int = 300, *, max_distance: int = 1000, n_samples: int = 128
) -> DecayCurves:
    """All the curves of notebook 04's decay figure, from one cos/sin table (D/2, T) shared by all of them.

    Same numbers as :func:`roformer_bound_factor`, :func:`pair_score_curve` (divided by |q||k| = D for all-ones
    vectors) with :func:`key_peaking_at`, and :func:`random_score_stats` (seed 0); one table makes a slider redraw
    cheap. Source: RoFormer arXiv 2104.09864 §3.4.3; Barbero et al. arXiv 2410.06205. Used by notebook 04.
    """
    dim = check_dim("dim", dim)
    max_distance = check_int("max_distance", max_distance, minimum=1)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    d = np.arange(max_distance + 1)  # (T,)
    table = _cos_sin_table(rope_inv_freq(dim, base), d)  # (D/2, T) cos and sin, shared by all curves
    ones = np.ones(dim)  # (D,)
    mean, std = _random_stats(table, dim, n_samples, 0)  # (T,) each
    return DecayCurves(
        distances=d,
        bound=_bound_from_table(*table),
        same=_scores_from_table(ones, ones, *table) / dim,
        peaked=_scores_from_table(ones, key_peaking_at(ones, peak, base), *table) / dim,
        random_mean=mean,
        random_std=std,
    )
