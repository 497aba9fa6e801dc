"""Figures for notebook 02 (sinusoidal position encoding). Pure matplotlib: each function takes ``ax=None``
(or ``axes=None``), draws, and returns the axes. No widgets here (see :mod:`helpers.widgets.sinusoidal`).

Tables, columns and the measurements the figures draw (:func:`helpers.sinusoidal.sign_changes`,
:func:`helpers.sinusoidal.nearest_row_distance`) come from :mod:`helpers.sinusoidal`; nothing is computed here.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from helpers.i18n import pgettext, pN_
from helpers.plots._style import label, new_axes
from helpers.sinusoidal import (
    closest_distinct_positions,
    nearest_row_distance,
    sign_changes,
    sinusoidal_columns,
    sinusoidal_frequencies,
    sinusoidal_table,
)

_CIRCLE = np.exp(1j * np.linspace(0.0, 2.0 * np.pi, 61))  # (61,) unit circle, drawn once per dial


def _fmt_wavelength(wavelength: float) -> str:
    """Short and exact enough to read: 6.28, 112, 6,283, 60,611, then 1.99e5 from 100,000 positions on."""
    if wavelength < 1000:
        return f"{wavelength:.3g}"
    if wavelength < 100_000:
        return f"{wavelength:,.0f}"
    mantissa, exponent = f"{wavelength:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def column_name(j: int, d_model: int, base: float) -> str:
    """'dim 3 = cos, pair 1 (λ ≈ 628)' for the interleaved layout (λ in positions)."""
    i = j // 2
    wavelength = 2.0 * np.pi * base ** (2 * i / d_model)
    return pgettext("figure", "dim {j} = {fn}, pair {i} (λ ≈ {wavelength})").format(
        j=j, fn="sin" if j % 2 == 0 else "cos", i=i, wavelength=_fmt_wavelength(wavelength)
    )


def wave_columns(d_model: int, base: float, dims, n_positions: int):
    """The data :func:`plot_waves` draws: columns ``dims`` of the interleaved table, on a fine grid and at the integers.

    Returns ``(fine (F,), fine_cols (F, k), ints (T,), int_cols (T, k))`` with F = min(20·T, 2000) points
    between 0 and T − 1 and T = n_positions. Only the k requested columns are computed (a slider redraw needs 2
    of up to 128), by :func:`helpers.sinusoidal.sinusoidal_columns`. ``dims`` must lie in 0..d_model−1.
    """
    fine = np.linspace(0.0, n_positions - 1, min(20 * n_positions, 2000))  # (F,) between the integers
    ints = np.arange(n_positions)  # (T,)
    return fine, sinusoidal_columns(fine, d_model, dims, base), ints, sinusoidal_columns(ints, d_model, dims, base)


#: Wave figures: positions up to this many also get a dot per integer position.
MAX_DOTTED_POSITIONS = 200
WAVES_YLIM = (-1.5, 1.15)  # room for the legend under the waves


def waves_title(d_model: int, base: float) -> str:
    return pgettext("figure", "PE columns (d_model = {d_model}, base = {base:g})").format(d_model=d_model, base=base)


def label_waves(ax):
    """The fixed parts of a waves figure: y-range, axis labels."""
    ax.set_ylim(*WAVES_YLIM)
    return label(
        ax, xlabel=pgettext("figure", "position pos (tokens)"), ylabel=pgettext("figure", "PE[pos, dim] (no unit)")
    )


def plot_waves(d_model: int = 64, base: float = 10000.0, dims=(0, 20), n_positions: int = 100, ax=None):
    """Selected columns PE[:, j] of the interleaved table against position 0..n_positions−1 (one line each).

    Dots mark the integer positions a model actually uses; the thin line is the same formula between them.
    The legend gives each column's pair index and wavelength λ_i = 2π·base^(2i/d_model) in positions.
    ``dims`` must lie in 0..d_model−1 (ValueError otherwise).
    """
    ax = new_axes(ax)
    dims = [int(j) for j in dims]
    fine, fine_cols, ints, int_cols = wave_columns(d_model, base, dims, n_positions)  # (F,), (F, k), (T,), (T, k)
    for k, j in enumerate(dims):
        (line,) = ax.plot(fine, fine_cols[:, k], lw=0.8, label=column_name(j, d_model, base))
        if n_positions <= MAX_DOTTED_POSITIONS:
            ax.plot(ints, int_cols[:, k], ".", ms=3, color=line.get_color())
    ax.legend(loc="lower center", ncol=2, fontsize=7, framealpha=0.9)
    ax.set_title(waves_title(d_model, base))
    return label_waves(ax)


def plot_pe_heatmap(n_positions: int = 200, d_model: int = 128, base: float = 10000.0, ax=None):
    """The whole table as an image: rows are positions 0..n_positions−1, columns are dimensions 0..d_model−1.

    Fast stripes on the left (low dimension index = high frequency), nearly constant columns on the right.
    """
    ax = new_axes(ax)
    table = sinusoidal_table(n_positions, d_model, base)  # (T, d)
    im = ax.imshow(table, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, label=pgettext("figure", "PE value"))
    return label(
        ax,
        xlabel=pgettext("figure", "dimension j (0 = fastest)"),
        ylabel=pgettext("figure", "position pos (tokens)"),
        title=pgettext("figure", "Sinusoidal table, d_model = {d_model}, base = {base:g}").format(
            d_model=d_model, base=base
        ),
    )


def plot_frequencies(d_model: int = 512, bases=(10000.0,), axes=None):
    """Two panels on log axes: ω_i (radians per position) and λ_i = 2π/ω_i (positions) against the pair index i.

    Pair 0 is the fastest for every base (ω_0 = 1 rad/position, λ_0 = 2π); the last pair is the slowest.
    """
    if axes is None:
        _fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.2), layout="constrained")
    ax_w, ax_l = axes
    for base in bases:
        omega = sinusoidal_frequencies(d_model, base)  # (d/2,)
        pairs = np.arange(len(omega))
        ax_w.semilogy(pairs, omega, label=pgettext("figure", "base {base:g}").format(base=base))
        ax_l.semilogy(pairs, 2.0 * np.pi / omega, label=pgettext("figure", "base {base:g}").format(base=base))
    ax_l.axhline(2.0 * np.pi, color="grey", lw=0.8, ls=":", label=pgettext("figure", "2π (pair 0, any base)"))
    ax_w.legend(fontsize=7)
    ax_l.legend(fontsize=7, loc="upper left")
    label(
        ax_w,
        xlabel=pgettext("figure", "pair index i (dims 2i, 2i+1)"),
        ylabel=pgettext("figure", r"$\omega_i$ (rad / position)"),
        title=pgettext("figure", "frequency per pair"),
    )
    label(
        ax_l,
        xlabel=pgettext("figure", "pair index i (dims 2i, 2i+1)"),
        ylabel=pgettext("figure", r"wavelength $\lambda_i$ (positions)"),
        title=pgettext("figure", "wavelength per pair"),
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
    ax.plot(np.arange(d_model), counts, ".", ms=3, label=pgettext("figure", "measured (count in the table)"))
    ax.plot(
        np.arange(d_model),
        expected,
        lw=0.8,
        color="k",
        label=pgettext("figure", r"wave prediction $(n-1)\,\omega_i/\pi$"),
    )
    ax.legend(fontsize=8)
    return label(
        ax,
        xlabel=pgettext("figure", "dimension j (index; pair i = j // 2)"),
        ylabel=pgettext("figure", "sign changes in {n_positions} positions").format(n_positions=n_positions),
        title=pgettext("figure", "How often each column changes sign (d_model = {d_model})").format(d_model=d_model),
    )


CLOCK_SPACING = 2.6  # distance between dial centres (dial radius 1)
CLOCK_XLABEL = pN_(
    "figure", r"one dial per pair i: hand at angle $pos\cdot\omega_i$ (rad), counter-clockwise from 3 o'clock"
)


def _turns_text(turns: float) -> str:
    return f"{turns:.2f}" if turns >= 0.1 or turns == 0 else f"{turns:.2g}"  # 0.016, 0.0016


def _joined(segments) -> tuple[np.ndarray, np.ndarray]:
    """Complex point arrays joined into one (x, y) polyline with NaN gaps: one artist draws them all."""
    gap = np.array([np.nan + 1j * np.nan])
    pts = np.concatenate([p for seg in segments for p in (seg, gap)][:-1]) if segments else np.zeros(0, complex)
    return pts.real, pts.imag


def clock_parts(position: int = 10, d_model: int = 8, base: float = 10000.0, *, trail: int = 60) -> dict:
    """Everything :func:`plot_clocks` draws, as data (so a slider panel can update its artists in place).

    Keys: ``dials`` and ``ticks`` ((x, y) polylines, NaN-separated: every dial's circle, every angle-0 tick),
    ``trail`` ((x, y) of the dots for the last ``trail`` positions, all dials), ``hands`` (one (x, y) pair of
    points per dial: centre and tip (cx + cos pos·ω_i, sin pos·ω_i)), ``captions`` (the text under each dial),
    ``centres`` (x of each dial), ``xlim``, ``ylim``, ``fontsize`` and ``title``.
    """
    omega = sinusoidal_frequencies(d_model, base)  # (n,) one dial per pair
    n = len(omega)
    centres = CLOCK_SPACING * np.arange(n)  # (n,)
    past = np.arange(max(0, position - trail), position + 1)  # (P,)
    trail_pts = centres[:, None] + 0.85 * np.exp(1j * np.outer(omega, past))  # (n, P)
    tips = np.exp(1j * position * omega)  # (n,)
    turns = position * omega / (2.0 * np.pi)  # (n,)
    return {
        "dials": _joined([cx + _CIRCLE for cx in centres]),
        "ticks": _joined([np.array([cx + 1.0, cx + 1.18]) + 0j for cx in centres]),
        "trail": (trail_pts.real.ravel(), trail_pts.imag.ravel()),
        "hands": [(np.array([cx, cx + t.real]), np.array([0.0, t.imag])) for cx, t in zip(centres, tips, strict=True)],
        "captions": [
            pgettext("figure", "pair {i}\nλ = {wavelength}\n{turns} turns").format(
                i=i, wavelength=_fmt_wavelength(2 * np.pi / w), turns=_turns_text(t)
            )
            for i, (w, t) in enumerate(zip(omega, turns, strict=True))
        ],
        "centres": centres,
        "xlim": (-1.3, CLOCK_SPACING * (n - 1) + 1.3),
        "ylim": (-2.6 if n <= 5 else -3.1, 1.3),  # room for the three lines of text under each dial
        "fontsize": 8 if n <= 5 else 7,
        "title": pgettext("figure", "position pos = {position} (d_model = {d_model}, base = {base:g})").format(
            position=position, d_model=d_model, base=base
        ),
    }


#: Styles of the clock figure's artists (shared with the slider panel, which updates them in place).
CLOCK_STYLE = {
    "dials": {"color": "0.6", "lw": 0.8},
    "ticks": {"color": "0.45", "lw": 1.2},  # angle 0: where every hand starts
    "trail": {"ls": "none", "marker": ".", "ms": 2, "color": "tab:orange"},
    "hand": {"color": "tab:blue", "lw": 2.2, "solid_capstyle": "round"},
    "caption": {"ha": "center", "va": "top"},
}
CAPTION_Y = -1.35


def frame_clocks(ax):
    """The fixed parts of a clock figure: equal aspect, no ticks or spines, the x label."""
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    return label(ax, xlabel=pgettext("figure", CLOCK_XLABEL), ylabel="")


def plot_clocks(position: int = 10, d_model: int = 8, base: float = 10000.0, *, trail: int = 60, ax=None):
    """One dial per pair i, its hand at angle pos·ω_i (counter-clockwise from 3 o'clock).

    The hand's tip is (cos pos·ω_i, sin pos·ω_i) = (PE[pos, 2i+1], PE[pos, 2i]). A short grey tick at 3 o'clock
    marks angle 0 (every hand's start at position 0). Dots mark the last ``trail`` positions, so a slow pair shows
    how small an arc it has covered. Under each dial: the pair's wavelength and how many full turns its hand has
    made. The hands carry gids ``hand0``, ``hand1``, … (tests find them by gid); the circles, the angle-0 ticks and
    the trail dots of all dials are one line each (NaN gaps between dials), which keeps redraws cheap.
    """
    if ax is None:
        ax = new_axes(ax, figsize=(6.4, 2.2))
    parts = clock_parts(position, d_model, base, trail=trail)
    ax.plot(*parts["dials"], **CLOCK_STYLE["dials"])
    ax.plot(*parts["ticks"], **CLOCK_STYLE["ticks"])
    ax.plot(*parts["trail"], **CLOCK_STYLE["trail"])
    for i, (hand, cx, caption) in enumerate(zip(parts["hands"], parts["centres"], parts["captions"], strict=True)):
        ax.plot(*hand, gid=f"hand{i}", **CLOCK_STYLE["hand"])
        ax.text(cx, CAPTION_Y, caption, fontsize=parts["fontsize"], **CLOCK_STYLE["caption"])
    ax.set_xlim(*parts["xlim"])
    ax.set_ylim(*parts["ylim"])
    ax.set_title(parts["title"])
    return frame_clocks(ax)


def plot_distance_profile(d_model: int = 4, base: float = 10000.0, n_positions: int = 1000, ax=None):
    """‖PE(Δ) − PE(0)‖ for every offset Δ = 1..n_positions−1 (the same for any pair p, p+Δ), log x-axis.

    The red dot is the closest pair found by :func:`helpers.sinusoidal.closest_distinct_positions`; the dashed
    line is the neighbour distance ‖PE(1) − PE(0)‖.
    """
    ax = new_axes(ax)
    deltas = np.arange(1, n_positions)  # (n−1,)
    table = sinusoidal_table(np.concatenate([[0], deltas]), d_model, base)  # (n, d)
    dist = np.linalg.norm(table[1:] - table[0], axis=1)  # (n−1,)
    _p, q, dmin = closest_distinct_positions(n_positions, d_model, base)
    ax.semilogx(
        deltas,
        dist,
        lw=0.7,
        label=pgettext("figure", "d_model = {d_model}, base = {base:g}").format(d_model=d_model, base=base),
    )
    ax.axhline(dist[0], color="grey", ls="--", lw=0.8, label=pgettext("figure", "neighbours (Δ = 1)"))
    ax.plot(
        [q],
        [dmin],
        "o",
        color="tab:red",
        label=pgettext("figure", "closest: Δ = {q}, distance {dmin:.3f}").format(q=q, dmin=dmin),
    )
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="best")
    return label(
        ax,
        xlabel=pgettext("figure", "offset Δ = q − p (positions)"),
        ylabel="‖PE(p+Δ) − PE(p)‖",
        title=pgettext("figure", "How far apart are the encodings of p and p+Δ?"),
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
    label(
        ax, xlabel=pgettext("figure", "key position n (tokens)"), ylabel=pgettext("figure", "query position m (tokens)")
    )
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
    ax.axvspan(
        0,
        train_len - 1,
        color="tab:green",
        alpha=0.12,
        label=pgettext("figure", "training positions 0..{last}").format(last=train_len - 1),
    )
    ax.axhline(1.0, color="grey", ls="--", lw=0.8, label=pgettext("figure", "one neighbour step"))
    ax.legend(fontsize=7, loc="lower right")
    return label(
        ax,
        xlabel=pgettext("figure", "position p (tokens)"),
        ylabel=pgettext("figure", "distance to nearest seen row\n(neighbour steps)"),
        title=pgettext("figure", "Rows past the training length are new vectors (d_model = {d_model})").format(
            d_model=d_model
        ),
    )
