"""Sinusoidal absolute position encoding (Vaswani et al. 2017, arXiv 1706.03762 §3.5).

PE[pos, 2i] = sin(pos·ω_i), PE[pos, 2i+1] = cos(pos·ω_i), ω_i = base^(−2i/d_model).

Pair 0 is the *fastest* wave (ω_0 = 1 rad/position, period 2π); the last pair is the slowest
(errata E1: the source chapter has this backwards). Used by notebooks 01, 02, 03 and the lab.

Also two measurements notebook 02 makes on a table: how often each column changes sign (:func:`sign_changes`)
and how far a row is from the rows a model was trained on (:func:`nearest_row_distance`).
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


def sinusoidal_columns(positions, d_model: int, dims, base: float = 10000.0) -> np.ndarray:
    """Columns ``dims`` of the interleaved table at ``positions``, without building the whole table.

    PE[pos, j] = sin(pos·ω_{j//2}) for even j, cos(pos·ω_{j//2}) for odd j: the same operations as
    :func:`sinusoidal_table`, so the numbers are identical to that table's columns. ``positions``: (P,) (any
    real numbers >= 0, e.g. a fine grid between the integers); ``dims``: (k,) in 0..d_model−1. Returns (P, k).
    Used by notebook 02's wave figure and panel.
    """
    dims = np.asarray([int(j) for j in dims])  # (k,)
    if np.any((dims < 0) | (dims >= d_model)):
        raise ValueError(f"dims must lie in 0..{d_model - 1} for d_model = {d_model}, got {dims.tolist()}")
    omega = sinusoidal_frequencies(d_model, base)[dims // 2]  # (k,) the frequency of each chosen column
    is_sin = dims % 2 == 0  # (k,) even columns are sines, odd ones cosines
    angles = np.outer(check_positions("positions", positions), omega)  # (P, k)
    return np.where(is_sin, np.sin(angles), np.cos(angles))  # (P, k)


def sign_changes(table: np.ndarray) -> np.ndarray:
    """How often each column of ``table`` (T, d) changes sign between consecutive rows. Returns (d,) ints.

    An exact zero is treated as positive (sin at position 0 is exactly 0: the step to the next row counts as a
    change only if that row is negative), so a column that starts at 0 and stays positive has no change.
    """
    table = np.asarray(table, dtype=np.float64)  # (T, d)
    signs = np.sign(table)  # (T, d)
    signs[signs == 0] = 1.0  # treat an exact 0 as positive
    return (signs[1:] != signs[:-1]).sum(axis=0)  # (d,)


def nearest_row_distance(rows: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """For each row of ``rows`` (N, d): the Euclidean distance to its nearest row of ``reference`` (M, d). (N,)."""
    rows = np.asarray(rows, dtype=np.float64)  # (N, d)
    reference = np.asarray(reference, dtype=np.float64)  # (M, d)
    sq = (rows**2).sum(1)[:, None] + (reference**2).sum(1)[None, :] - 2.0 * rows @ reference.T  # (N, M)
    return np.sqrt(np.maximum(sq.min(axis=1), 0.0))  # (N,)
