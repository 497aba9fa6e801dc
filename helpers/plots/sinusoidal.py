"""Figures for notebook 02 (sinusoidal position encoding). Pure matplotlib: each function takes ``ax=None``
(or ``axes=None``), draws, and returns the axes. No widgets here (see :mod:`helpers.widgets.sinusoidal`).

Tables come from :mod:`helpers.sinusoidal`; the two small measurements the figures need and the package does
not have (:func:`sign_changes`, :func:`nearest_row_distance`) are defined here and tested in
``tests/test_plots_sinusoidal.py`` against independent computations.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from helpers.plots._style import label, new_axes
from helpers.sinusoidal import closest_distinct_positions, sinusoidal_frequencies, sinusoidal_table

_CIRCLE = np.exp(1j * np.linspace(0.0, 2.0 * np.pi, 61))  # (61,) unit circle, drawn once per dial


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


def _fmt_wavelength(wavelength: float) -> str:
    """Short and exact enough to read: 6.28, 112, 6,283, 60,611, then 1.99e5 from 100,000 positions on."""
    if wavelength < 1000:
        return f"{wavelength:.3g}"
    if wavelength < 100_000:
        return f"{wavelength:,.0f}"
    mantissa, exponent = f"{wavelength:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _column_name(j: int, d_model: int, base: float) -> str:
    """'dim 3 = cos, pair 1 (λ ≈ 628)' for the interleaved layout (λ in positions)."""
    i = j // 2
    wavelength = 2.0 * np.pi * base ** (2 * i / d_model)
    return f"dim {j} = {'sin' if j % 2 == 0 else 'cos'}, pair {i} (λ ≈ {_fmt_wavelength(wavelength)})"


def plot_waves(d_model: int = 64, base: float = 10000.0, dims=(0, 20), n_positions: int = 100, ax=None):
    """Selected columns PE[:, j] of the interleaved table against position 0..n_positions−1 (one line each).

    Dots mark the integer positions a model actually uses; the thin line is the same formula between them.
    The legend gives each column's pair index and wavelength λ_i = 2π·base^(2i/d_model) in positions.
    ``dims`` must lie in 0..d_model−1 (ValueError otherwise).
    """
    ax = new_axes(ax)
    dims = [int(j) for j in dims]
    if any(j < 0 or j >= d_model for j in dims):
        raise ValueError(f"dims must lie in 0..{d_model - 1} for d_model = {d_model}, got {dims}")
    fine = np.linspace(0.0, n_positions - 1, min(20 * n_positions, 2000))  # (F,) between the integers
    ints = np.arange(n_positions)  # (T,)
    table_fine = sinusoidal_table(fine, d_model, base)  # (F, d)
    table_int = sinusoidal_table(ints, d_model, base)  # (T, d)
    for j in dims:
        (line,) = ax.plot(fine, table_fine[:, j], lw=0.8, label=_column_name(j, d_model, base))
        if n_positions <= 200:
            ax.plot(ints, table_int[:, j], ".", ms=3, color=line.get_color())
    ax.set_ylim(-1.5, 1.15)  # room for the legend under the waves
    ax.legend(loc="lower center", ncol=2, fontsize=7, framealpha=0.9)
    return label(
        ax,
        xlabel="position pos (tokens)",
        ylabel="PE[pos, dim] (no unit)",
        title=f"PE columns (d_model = {d_model}, base = {base:g})",
    )


def plot_pe_heatmap(n_positions: int = 200, d_model: int = 128, base: float = 10000.0, ax=None):
    """The whole table as an image: rows are positions 0..n_positions−1, columns are dimensions 0..d_model−1.

    Fast stripes on the left (low dimension index = high frequency), nearly constant columns on the right.
    """
    ax = new_axes(ax)
    table = sinusoidal_table(n_positions, d_model, base)  # (T, d)
    im = ax.imshow(table, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, label="PE value")
    return label(
        ax,
        xlabel="dimension j (0 = fastest)",
        ylabel="position pos (tokens)",
        title=f"Sinusoidal table, d_model = {d_model}, base = {base:g}",
    )


def plot_frequencies(d_model: int = 512, bases=(10000.0,), axes=None):
    """Two panels on log axes: ω_i (radians per position) and λ_i = 2π/ω_i (positions) against the pair index i.

    Pair 0 is the fastest for every base (ω_0 = 1 rad/position, λ_0 = 2π); the last pair is the slowest.
    """
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(6.4, 3.2), layout="constrained")
    ax_w, ax_l = axes
    for base in bases:
        omega = sinusoidal_frequencies(d_model, base)  # (d/2,)
        pairs = np.arange(len(omega))
        ax_w.semilogy(pairs, omega, label=f"base {base:g}")
        ax_l.semilogy(pairs, 2.0 * np.pi / omega, label=f"base {base:g}")
    ax_l.axhline(2.0 * np.pi, color="grey", lw=0.8, ls=":", label="2π (pair 0, any base)")
    ax_w.legend(fontsize=7)
    ax_l.legend(fontsize=7, loc="upper left")
    label(
        ax_w, xlabel="pair index i (dims 2i, 2i+1)", ylabel=r"$\omega_i$ (rad / position)", title="frequency per pair"
    )
    label(
        ax_l,
        xlabel="pair index i (dims 2i, 2i+1)",
        ylabel=r"wavelength $\lambda_i$ (positions)",
        title="wavelength per pair",
    )
    return axes


def plot_sign_changes(d_model: int = 512, n_positions: int = 2048, base: float = 10000.0, ax=None):
    """Measured sign changes of every column over positions 0..n_positions−1, and the count a pure wave gives.

    A wave with frequency ω crosses zero about (n−1)·ω/π times over n positions (capped at n−1, because at most
    one change fits between two consecutive positions). Column 0 changes sign about every π positions.
    """
    ax = new_axes(ax)
    counts = sign_changes(sinusoidal_table(n_positions, d_model, base))  # (d,)
    omega = np.repeat(sinusoidal_frequencies(d_model, base), 2)  # (d,) the frequency of each column
    expected = np.minimum((n_positions - 1) * omega / np.pi, n_positions - 1)  # (d,)
    ax.plot(np.arange(d_model), counts, ".", ms=3, label="measured (count in the table)")
    ax.plot(np.arange(d_model), expected, lw=0.8, color="k", label=r"wave prediction $(n-1)\,\omega_i/\pi$")
    ax.legend(fontsize=8)
    return label(
        ax,
        xlabel="dimension j (index; pair i = j // 2)",
        ylabel=f"sign changes in {n_positions} positions",
        title=f"How often each column changes sign (d_model = {d_model})",
    )


def plot_clocks(position: int = 10, d_model: int = 8, base: float = 10000.0, *, trail: int = 60, ax=None):
    """One dial per pair i, its hand at angle pos·ω_i (counter-clockwise from 3 o'clock).

    The hand's tip is (cos pos·ω_i, sin pos·ω_i) = (PE[pos, 2i+1], PE[pos, 2i]). A short grey tick at 3 o'clock
    marks angle 0 (every hand's start at position 0). Dots mark the last ``trail`` positions, so a slow pair shows
    how small an arc it has covered. Under each dial: the pair's wavelength and how many full turns its hand has
    made. The hands carry gids ``hand0``, ``hand1``, … (tests find them by gid).
    """
    if ax is None:
        ax = new_axes(ax, figsize=(6.4, 2.2))
    omega = sinusoidal_frequencies(d_model, base)  # (d/2,)
    past = np.arange(max(0, position - trail), position + 1)  # (P,)
    for i, w in enumerate(omega):
        cx = 2.6 * i
        ax.plot(cx + _CIRCLE.real, _CIRCLE.imag, color="0.6", lw=0.8)
        ax.plot([cx + 1.0, cx + 1.18], [0.0, 0.0], color="0.45", lw=1.2)  # angle 0: where every hand starts
        trail_pts = np.exp(1j * past * w)  # (P,)
        ax.plot(cx + 0.85 * trail_pts.real, 0.85 * trail_pts.imag, ".", ms=2, color="tab:orange")
        tip = np.exp(1j * position * w)
        ax.plot([cx, cx + tip.real], [0.0, tip.imag], color="tab:blue", lw=2.2, solid_capstyle="round", gid=f"hand{i}")
        turns = position * w / (2.0 * np.pi)
        turns_txt = f"{turns:.2f}" if turns >= 0.1 or turns == 0 else f"{turns:.2g}"  # 0.016, 0.0016
        ax.text(
            cx,
            -1.35,
            f"pair {i}\nλ = {_fmt_wavelength(2 * np.pi / w)}\n{turns_txt} turns",
            ha="center",
            va="top",
            fontsize=8 if len(omega) <= 5 else 7,
        )
    ax.set_xlim(-1.3, 2.6 * (len(omega) - 1) + 1.3)
    ax.set_ylim(-2.6 if len(omega) <= 5 else -3.1, 1.3)  # room for the three lines of text under each dial
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    return label(
        ax,
        xlabel=r"one dial per pair i: hand at angle $pos\cdot\omega_i$ (rad), counter-clockwise from 3 o'clock",
        ylabel="",
        title=f"position pos = {position} (d_model = {d_model}, base = {base:g})",
    )


def plot_distance_profile(d_model: int = 4, base: float = 10000.0, n_positions: int = 1000, ax=None):
    """‖PE(Δ) − PE(0)‖ for every offset Δ = 1..n_positions−1 (the same for any pair p, p+Δ), log x-axis.

    The red dot is the closest pair found by :func:`helpers.sinusoidal.closest_distinct_positions`; the dashed
    line is the neighbour distance ‖PE(1) − PE(0)‖.
    """
    ax = new_axes(ax)
    deltas = np.arange(1, n_positions)  # (n−1,)
    table = sinusoidal_table(np.concatenate([[0], deltas]), d_model, base)  # (n, d)
    dist = np.linalg.norm(table[1:] - table[0], axis=1)  # (n−1,)
    _, q, dmin = closest_distinct_positions(n_positions, d_model, base)
    ax.semilogx(deltas, dist, lw=0.7, label=f"d_model = {d_model}, base = {base:g}")
    ax.axhline(dist[0], color="grey", ls="--", lw=0.8, label="neighbours (Δ = 1)")
    ax.plot([q], [dmin], "o", color="tab:red", label=f"closest: Δ = {q}, {dmin:.3f}")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="best")
    return label(
        ax,
        xlabel="offset Δ = q − p (positions)",
        ylabel="‖PE(p+Δ) − PE(p)‖",
        title="How far apart are the encodings of p and p+Δ?",
    )


def plot_position_matrix(matrix: np.ndarray, ax=None, *, title: str = "", cbar_label: str = "score"):
    """A (T_q, T_k) matrix indexed by query position m (rows) and key position n (columns), with a colour bar.

    A matrix that depends only on m − n is constant along every diagonal (a Toeplitz matrix).
    """
    ax = new_axes(ax, figsize=(3.4, 3.0))
    matrix = np.asarray(matrix, dtype=np.float64)  # (T_q, T_k)
    lim = float(np.abs(matrix).max()) or 1.0
    im = ax.imshow(matrix, cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, label=cbar_label, shrink=0.85)
    label(ax, xlabel="key position n (tokens)", ylabel="query position m (tokens)")
    ax.set_title(title, fontsize=9)
    return ax


def plot_unseen_rows(d_model: int = 512, train_len: int = 512, n_positions: int = 2048, base: float = 10000.0, ax=None):
    """Distance from PE(p) to the nearest row a model trained on positions 0..train_len−1 has seen, for every p.

    Zero inside the training range; measured in units of the neighbour spacing ‖PE(1) − PE(0)‖, so a value of 1
    means "as far as the next position", and larger values mean a vector unlike any training row.
    """
    ax = new_axes(ax)
    train = sinusoidal_table(train_len, d_model, base)  # (L, d)
    positions = np.arange(n_positions)
    dist = nearest_row_distance(sinusoidal_table(positions, d_model, base), train)  # (n,)
    step = np.linalg.norm(train[1] - train[0])
    ax.plot(positions, dist / step, lw=0.8)
    ax.axvspan(0, train_len - 1, color="tab:green", alpha=0.12, label=f"training positions 0..{train_len - 1}")
    ax.axhline(1.0, color="grey", ls="--", lw=0.8, label="one neighbour step")
    ax.legend(fontsize=7, loc="lower right")
    return label(
        ax,
        xlabel="position p (tokens)",
        ylabel="distance to nearest seen row\n(neighbour steps)",
        title=f"Rows past the training length are new vectors (d_model = {d_model})",
    )
