"""Sinusoidal absolute position encoding (Vaswani et al. 2017, arXiv 1706.03762 §3.5).

PE[pos, 2i] = sin(pos·ω_i), PE[pos, 2i+1] = cos(pos·ω_i), ω_i = base^(−2i/d_model).

Pair 0 is the *fastest* wave (ω_0 = 1 rad/position, period 2π); the last pair is the slowest
(errata E1: the source chapter has this backwards). Used by notebooks 01, 02, 03 and the lab.
"""

from __future__ import annotations

import numpy as np

from helpers._checks import check_choice, check_dim, check_int, check_positions, check_positive

SINUSOIDAL_LAYOUTS = ("interleaved", "concat")


def sinusoidal_frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """ω_i = base^(−2i/d_model) in radians per position, i = 0 .. d_model/2 − 1. Shape (d_model/2,)."""
    d_model = check_dim("d_model", d_model)
    base = check_positive("base", base)
    return base ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)  # (d_model/2,)


def sinusoidal_table(positions, d_model: int, base: float = 10000.0, *, layout: str = "interleaved") -> np.ndarray:
    """The position-encoding table, float64.

    ``positions``: an int T (meaning 0..T−1) or an array of shape (T,) of non-negative positions.
    ``layout``: "interleaved" = [sin ω_0 p, cos ω_0 p, sin ω_1 p, …] (Vaswani; the source chapter; XLM);
    "concat" = [sin ω_0 p, …, sin ω_{d/2−1} p, cos ω_0 p, …] (Marian, Pegasus).
    Returns shape (T, d_model).
    """
    check_choice("layout", layout, SINUSOIDAL_LAYOUTS)
    omega = sinusoidal_frequencies(d_model, base)  # (d/2,)
    angles = np.outer(check_positions("positions", positions), omega)  # (T, d/2)
    sin, cos = np.sin(angles), np.cos(angles)
    if layout == "concat":
        return np.concatenate([sin, cos], axis=-1)  # (T, d)
    return np.stack([sin, cos], axis=-1).reshape(len(angles), d_model)  # (T, d)


def shift_matrix(k: float, d_model: int, base: float = 10000.0, *, layout: str = "interleaved") -> np.ndarray:
    """The fixed matrix M_k with PE(pos + k) = M_k · PE(pos) for every pos (shape (d_model, d_model)).

    From sin(a+b) = sin a cos b + cos a sin b and cos(a+b) = cos a cos b − sin a sin b, each pair
    [sin, cos] is multiplied by the 2×2 block [[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]]: a rotation,
    so M_k is orthogonal and does not depend on pos. (True, but it does not make attention relative
    once W_Q and W_K act on X + PE: errata E8, notebook 02.)
    """
    check_choice("layout", layout, SINUSOIDAL_LAYOUTS)
    omega = sinusoidal_frequencies(d_model, base)  # (d/2,)
    c, s = np.cos(k * omega), np.sin(k * omega)
    half = d_model // 2
    i = np.arange(half)
    sin_idx, cos_idx = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)
    m = np.zeros((d_model, d_model))  # (d, d)
    m[sin_idx, sin_idx], m[sin_idx, cos_idx] = c, s
    m[cos_idx, sin_idx], m[cos_idx, cos_idx] = -s, c
    return m


def closest_distinct_positions(n_positions: int, d_model: int, base: float = 10000.0) -> tuple[int, int, float]:
    """The pair of distinct positions in 0..n−1 whose encodings are nearest (Euclidean).

    Returns (p, q, distance). Uses ‖PE(p) − PE(q)‖² = 2·Σ_i (1 − cos((p−q)ω_i)), which depends only on
    p − q, so only the n−1 distances need checking; of offsets tied to 1e-9 (relative) the smallest is returned, so
    the answer does not depend on the CPU's last-bit rounding. Notebook 02's uniqueness experiment.
    """
    n = check_int("n_positions", n_positions, minimum=2)
    omega = sinusoidal_frequencies(d_model, base)  # (d/2,)
    deltas = np.arange(1, n, dtype=np.float64)  # (n−1,)
    sq = 2.0 * (1.0 - np.cos(np.outer(deltas, omega))).sum(axis=1)  # (n−1,)
    # Offsets whose distances agree to 1e-9 (relative) tie: take the smallest, whatever the last bit of sin/cos says.
    j = int(np.flatnonzero(sq <= sq.min() * (1 + 1e-9) + 1e-300)[0])
    return 0, j + 1, float(np.sqrt(max(sq[j], 0.0)))
