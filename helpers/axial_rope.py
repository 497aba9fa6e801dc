"""Axial 2-D RoPE for image patches: half of each head rotates by the patch's row, the other half by its column.

HF ``transformers==5.24`` documents it as the rope type ``axial`` (vision towers of Qwen3.5 and Step-3.7, among
others). A head of D dimensions has D/2 rotary pairs; the first D/4 pairs turn with the row h, the last D/4 with the
column w, and **both halves use the same frequencies**, computed over D/2 dimensions::

    θ_i = base^(−2i/(D/2)),  i = 0 … D/4 − 1
    angle of pair i        = h·θ_i        (row half)
    angle of pair D/4 + i  = w·θ_i        (column half)

laid out half-split (HF: ``cat([h·θ, w·θ])`` twice, then ``rotate_half``; HF passes the ids as (N, 2)). The score of a query patch (h, w) against
a key patch (h′, w′) therefore depends on (h − h′, w − w′) only, and a row step and a column step change it alike:
unlike sectioned M-RoPE (:mod:`helpers.mrope`), where the width axis gets only the slowest slots.

* :func:`axial_inv_freq`: θ_i (D/4,);
* :func:`axial_position_ids`: (2, h·w) row and column ids of a grid, row-major;
* :func:`axial_angles`: (N, D/2) angles in HF's order, row half then column half;
* :func:`axial_grid_scores`: unit-pair score of one query patch against every patch of a grid.

Source: HF 5.24 ``models/qwen3_5/modeling_qwen3_5.py`` l.76–133 (``Qwen3_5VisionRotaryEmbedding``: "Simple axial
2D rope with same freqs used for H and W grids"; ``compute_axial_rope_parameters``; ``recomposition_frequencies``);
``modeling_rope_utils.py`` (``RopeParameters``: ``axial``; ``_validate_axial_rope_parameters``). Checked in
``tests/test_axial_rope.py``; used by notebook 09.
"""

from __future__ import annotations

import numpy as np

from helpers._checks import check_int, check_positive
from helpers.rope import check_inv_freq

__all__ = ["axial_angles", "axial_grid_scores", "axial_inv_freq", "axial_position_ids"]


def axial_inv_freq(head_dim: int, base: float = 10000.0) -> np.ndarray:
    """θ_i = base^(−2i/(D/2)) for i = 0 … D/4 − 1: one set of frequencies, shared by the row and the column half.

    ``head_dim`` D: a multiple of 4 (D/2 pairs, half for rows, half for columns). Returns float64 (D/4,).
    HF: ``1 / base ** (arange(0, D/2, 2) / (D/2))``.
    """
    dim = check_int("head_dim", head_dim, minimum=4)
    if dim % 4:
        raise ValueError(f"head_dim must be a multiple of 4 (a row half and a column half of pairs), got {dim}")
    b = check_positive("base", base, minimum=1.0)
    spatial = dim // 2
    return b ** (-np.arange(0, spatial, 2, dtype=np.float64) / spatial)  # (D/4,)


def axial_position_ids(height: int, width: int) -> np.ndarray:
    """(2, height·width) int64 ids of a grid's patches in row-major order: row 0 is h, row 1 is w."""
    h = check_int("height", height, minimum=1)
    w = check_int("width", width, minimum=1)
    rows, cols = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")  # (h, w) each
    return np.stack([rows.ravel(), cols.ravel()]).astype(np.int64)  # (2, h·w)


def axial_angles(position_ids, inv_freq) -> np.ndarray:
    """(N, D/2) angles: [h·θ_0 … h·θ_{D/4−1}, w·θ_0 … w·θ_{D/4−1}] for ids (2, N) of rows h and columns w.

    Pair k of the half-split layout (dimensions k and k + D/2) turns by column k of the result (HF's cos/sin are
    ``cat([angles, angles])``).
    """
    ids = np.asarray(position_ids)
    if ids.ndim != 2 or ids.shape[0] != 2 or not np.issubdtype(ids.dtype, np.integer) or (ids.size and ids.min() < 0):
        raise ValueError(f"position_ids must be (2, N) integers >= 0 (rows, columns), got {ids.dtype} {ids.shape}")
    theta = check_inv_freq(inv_freq)  # (D/4,)
    return np.concatenate([np.outer(ids[0], theta), np.outer(ids[1], theta)], axis=1)  # (N, D/2)


def axial_grid_scores(height: int, width: int, inv_freq, query: tuple[int, int] | None = None) -> np.ndarray:
    """(height, width) scores q·k / (D/2) of one query patch against every patch, every pair of q and k (1, 0).

    With unit pairs the score is the mean over pairs of cos(angle difference): 1 at the query's own patch, and a
    function of (Δh, Δw) only. ``query``: (row, column), default the centre (height // 2, width // 2).
    """
    ids = axial_position_ids(height, width)  # (2, N)
    qh, qw = (height // 2, width // 2) if query is None else query
    if not (0 <= qh < height and 0 <= qw < width):
        raise ValueError(f"query must be a patch (row, column) of the {height} x {width} grid, got {query!r}")
    angles = axial_angles(ids, inv_freq)  # (N, D/2)
    q_angles = axial_angles(np.array([[qh], [qw]]), inv_freq)  # (1, D/2)
    return np.cos(angles - q_angles).mean(axis=1).reshape(height, width)  # (height, width)
