"""Figures for notebook 04 (RoPE): rotation in 2-D, R_Θ(m), relative scores, frequencies, "long-range decay".

Every plotting function takes ``ax=None`` (or ``axes=None``), draws, and returns what it drew on. Pure matplotlib:
the sliders that drive these live in :mod:`helpers.widgets.rope`.

The numbers come from :mod:`helpers.rope` (frequencies, :func:`~helpers.rope.long_range_decay` and the score curves
behind it); nothing is computed here.

Conventions: interleaved layout (pair i = dimensions (2i, 2i+1)), score(m, n) = <R_Θ(m) q, R_Θ(n) k> with the
query at m and the key at n, θ_i = base^(-2i/D) (:func:`helpers.rope.rope_inv_freq`).
"""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

from helpers.i18n import pgettext, pN_
from helpers.plots._style import LiveLegend, cjk_font, label, log_limits, new_axes
from helpers.rope import long_range_decay, rope_inv_freq, rope_wavelengths


def token_labels(tokens, translations) -> list[str]:
    """Axis labels for Chinese tokens: "我 (I)" if a CJK font is installed, else the pinyin "wǒ (I)".

    ``translations``: a list of (pinyin, English) pairs, one per token. Without a CJK font matplotlib would
    draw empty boxes and warn "Glyph … missing" on stderr, so the fallback uses pinyin (DejaVu Sans has the
    tone marks).
    """
    tokens, translations = list(tokens), list(translations)
    if len(tokens) != len(translations):
        raise ValueError(f"need one (pinyin, English) pair per token: {len(tokens)} tokens, {len(translations)} pairs")
    if cjk_font("".join(tokens)) is not None:
        return [f"{t}\n({en})" for t, (_, en) in zip(tokens, translations, strict=True)]
    return [f"{py}\n({en})" for py, en in translations]


# --------------------------------------------------------------------------- figures


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _plain_log_label(v: float, _pos=None) -> str:
    """Log-axis tick label without mathtext (faster to draw): "100,000" up to 10⁵, then "10⁶", "10⁷", ..."""
    if v >= 1e6 and float(f"{v:.0e}") == v and f"{v:.0e}".startswith("1e"):
        return "10" + str(round(np.log10(v))).translate(_SUPERSCRIPT)
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


_PLAIN = FuncFormatter(_plain_log_label)


def _rot2(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


class Rotation2D:
    """One rotary pair as arrows, drawn once on ``ax`` and updated in place by :meth:`update`.

    q rotated by m·θ, k rotated by n·θ, their dot product in the title. Faint arrows are q and k before rotation
    (position 0). Moving m and n together leaves the title unchanged: only the angle between the arrows,
    (m − n)·θ plus the angle between q and k, enters the dot product.
    """

    COLORS = ("tab:blue", "tab:orange", "tab:blue", "tab:orange")
    ALPHAS = (0.3, 0.3, 1.0, 1.0)

    def __init__(self, ax):
        self.ax = ax
        colors = [matplotlib.colors.to_rgba(c, a) for c, a in zip(self.COLORS, self.ALPHAS, strict=True)]
        # One quiver for all four arrows: much cheaper to redraw than four annotations.
        zeros = np.zeros(4)
        self.quiver = ax.quiver(
            zeros, zeros, zeros, zeros, color=colors, angles="xy", scale_units="xy", scale=1, width=0.012
        )
        self.keys = [ax.plot([], [], color=c, alpha=a, lw=2)[0] for c, a in zip(self.COLORS, self.ALPHAS, strict=True)]
        self.circles = [ax.plot([], [], color=c, lw=0.5, alpha=0.3)[0] for c in self.COLORS[:2]]
        ax.set_aspect("equal")
        ax.axhline(0, color="0.85", lw=0.8, zorder=0)
        ax.axvline(0, color="0.85", lw=0.8, zorder=0)
        self.legend = ax.legend(self.keys, ["", "", "", ""], loc="lower left", fontsize=7, frameon=False)
        label(
            ax,
            xlabel=pgettext("figure", "dimension 2i (first of the pair)"),
            ylabel=pgettext("figure", "dimension 2i+1"),
        )

    def update(self, q, k, m: int, n: int, theta: float):
        q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
        qm, kn = _rot2(q, m * theta), _rot2(k, n * theta)
        uv = np.array([q, k, qm, kn])  # (4, 2)
        self.quiver.set_UVC(uv[:, 0], uv[:, 1])
        names = [
            pgettext("figure", "q (position 0)"),
            pgettext("figure", "k (position 0)"),
            pgettext("figure", "q rotated by m·θ = {angle:.2f} rad").format(angle=m * theta),
        ]
        names.append(pgettext("figure", "k rotated by n·θ = {angle:.2f} rad").format(angle=n * theta))
        for text, name in zip(self.legend.get_texts(), names, strict=True):
            text.set_text(name)
        for line, v in zip(self.circles, (q, k), strict=True):
            line.set_data(np.linalg.norm(v) * _CIRCLE.real, np.linalg.norm(v) * _CIRCLE.imag)
        r = 1.25 * max(np.linalg.norm(q), np.linalg.norm(k))
        self.ax.set_xlim(-r, r)
        self.ax.set_ylim(-r, r)
        self.ax.set_title(f"m={m}, n={n}, m−n={m - n}:  q_m·k_n = {qm @ kn:+.3f}")
        return self.ax


_CIRCLE = np.exp(1j * np.linspace(0, 2 * np.pi, 121))  # (121,) the unit circle


def plot_rotation_2d(q, k, m: int, n: int, theta: float, ax=None):
    """One rotary pair as arrows: q rotated by m·θ, k rotated by n·θ, and their dot product in the title.

    See :class:`Rotation2D` (what the rotation panel updates in place).
    """
    return Rotation2D(new_axes(ax, figsize=(4.6, 4.0))).update(q, k, m, n, theta)


def plot_rotation_matrix(r: np.ndarray, ax=None, *, title: str = "R_Θ(m)"):
    """Heatmap of a rotation matrix (e.g. :func:`helpers.rope.rotation_matrix`), with values −1 … 1.

    The block-diagonal structure of RoPE shows as 2×2 blocks on the diagonal and zeros elsewhere.
    """
    r = np.asarray(r, dtype=float)
    ax = new_axes(ax, figsize=(4.4, 3.6))
    im = ax.imshow(r, cmap="RdBu_r", vmin=-1, vmax=1)
    ax.figure.colorbar(im, ax=ax, label=pgettext("figure", "entry value"))
    ticks = np.arange(r.shape[0])
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    return label(
        ax,
        xlabel=pgettext("figure", "column (input dimension)"),
        ylabel=pgettext("figure", "row (output dimension)"),
        title=title,
    )


def plot_score_grid(scores: np.ndarray, ax=None, *, title: str = "score(m, n) = q_m·k_n"):
    """Heatmap of attention scores over query position m (rows) and key position n (columns).

    Under RoPE with the same content vectors at every position, the picture is constant along every diagonal
    m − n = const (a Toeplitz matrix).
    """
    scores = np.asarray(scores, dtype=float)
    ax = new_axes(ax, figsize=(4.6, 3.8))
    lim = np.abs(scores).max()
    im = ax.imshow(scores, cmap="RdBu_r", vmin=-lim, vmax=lim, origin="upper")
    ax.figure.colorbar(im, ax=ax, label=pgettext("figure", "score"))
    return label(
        ax,
        xlabel=pgettext("figure", "key position n (tokens)"),
        ylabel=pgettext("figure", "query position m (tokens)"),
        title=title,
    )


class Wavelengths:
    """Wavelength λ_i = 2π/θ_i of every rotary pair on a log scale, drawn once on ``ax``; :meth:`update` redraws.

    Pair 0 always turns 1 rad per position (λ = 2π ≈ 6.3); the slowest pair has λ = 2π·base^((D−2)/D). A larger
    base widens the range. ``reference_base`` draws a second, dashed curve for comparison; ``context`` draws a
    horizontal line at a context length (pairs above it never complete a turn inside that context).
    """

    def __init__(self, ax):
        self.ax = ax
        (self.line,) = ax.semilogy([1], [1], marker=".", ms=3, lw=1.5, color="tab:blue")
        (self.reference,) = ax.semilogy([1], [1], ls="--", lw=1.2, color="0.5")
        self.context = ax.axhline(1, color="tab:red", lw=0.8, ls=":")
        self.two_pi = ax.axhline(
            2 * np.pi, color="0.7", lw=0.8, label=pgettext("figure", "2π ≈ 6.3 (pair 0, every base)")
        )
        ax.yaxis.set_minor_locator(NullLocator())  # minor log ticks double the redraw time
        ax.yaxis.set_major_formatter(_PLAIN)  # "10,000" instead of mathtext 10^4: faster to draw
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        label(ax, xlabel=pgettext("figure", "pair index i"), ylabel=pgettext("figure", "wavelength λ_i (positions)"))
        self.legend = LiveLegend(ax, fontsize=8, frameon=False, loc="upper left")

    def update(self, dim: int, base: float, *, reference_base: float | None = 10000.0, context: int | None = None):
        i = np.arange(dim // 2)
        lam = rope_wavelengths(rope_inv_freq(dim, base))  # (D/2,)
        self.line.set_data(i, lam)
        self.line.set_label(pgettext("figure", "base {base:,.0f}").format(base=base))
        show_ref = reference_base is not None and reference_base != base
        self.reference.set_visible(show_ref)
        if show_ref:
            self.reference.set_data(i, rope_wavelengths(rope_inv_freq(dim, reference_base)))
            self.reference.set_label(
                pgettext("figure", "base {reference_base:,.0f}").format(reference_base=reference_base)
            )
        self.context.set_visible(context is not None)
        if context is not None:
            self.context.set_ydata([context, context])
            self.context.set_label(pgettext("figure", "context {context:,} positions").format(context=context))
        shown = [a for a in (self.line, self.reference, self.context, self.two_pi) if a.get_visible()]
        self.legend.update(shown, [a.get_label() for a in shown])
        ys = [lam, [2 * np.pi]]
        if show_ref:
            ys.append(self.reference.get_ydata())
        if context is not None:
            ys.append([context])
        self.ax.set_ylim(*log_limits(np.concatenate([np.ravel(y) for y in ys])))
        self.ax.set_xlim(-0.05 * (i.size - 1), 1.05 * (i.size - 1))  # autoscaling's 5 % margins
        self.ax.set_title(
            pgettext("figure", "D = {dim}: λ from {lam_min:.1f} to {lam_max:,.0f} positions").format(
                dim=dim, lam_min=lam[0], lam_max=lam[-1]
            )
        )
        return self.ax


def plot_wavelengths(
    dim: int, base: float, ax=None, *, reference_base: float | None = 10000.0, context: int | None = None
):
    """Wavelength λ_i = 2π/θ_i (positions per full turn) of every rotary pair, on a log scale (:class:`Wavelengths`)."""
    return Wavelengths(new_axes(ax)).update(dim, base, reference_base=reference_base, context=context)


class LongRangeDecay:
    """What RoPE's "long-range decay" is and is not, on two axes sharing the distance axis; :meth:`update` redraws.

    Top: RoFormer's bound factor (1/(D/2))·Σ_j |S_j|, which decays on average, with bumps.
    Bottom: actual normalised scores score/(|q||k|) against distance m − n for
    (a) q = k = all ones (decays, with bumps: the picture behind the claim),
    (b) q = all ones, k = :func:`helpers.rope.key_peaking_at` (q, ``peak``): the score peaks at m − n = ``peak``,
    (c) independent random q, k: mean over ``n_samples`` draws (≈ 0 everywhere) ± one standard deviation.
    The curves come from one cos/sin table (:func:`helpers.rope.long_range_decay`); few tick labels, three legend
    entries (the random band and its mean share one).
    """

    def __init__(self, axes):
        self.axes = axes
        top, bottom = axes
        (self.bound,) = top.plot([], [], color="tab:purple", lw=1)
        top.yaxis.set_major_locator(MaxNLocator(3))
        top.tick_params(axis="x", bottom=False)  # the bottom panel carries the distance axis
        label(top, xlabel="", ylabel=pgettext("figure", "bound factor\nΣ|S_j| / (D/2)"))
        (self.same,) = bottom.plot([], [], lw=1, color="tab:blue", label=pgettext("figure", "q = k (all ones)"))
        (self.peaked,) = bottom.plot([], [], lw=1, color="tab:green")
        self.band = bottom.fill_between([0, 1], [0, 0], [0, 0], color="tab:orange", alpha=0.25, lw=0)
        (self.mean,) = bottom.plot([], [], color="tab:orange", lw=1)
        self.peak_line = bottom.axvline(0, color="tab:green", lw=0.6, ls=":")
        bottom.set_ylim(-1.05, 1.05)
        bottom.yaxis.set_major_locator(FixedLocator([-1, -0.5, 0, 0.5, 1]))
        self.legend = bottom.legend(
            [self.same, self.peaked, (self.band, self.mean)],
            [pgettext("figure", "q = k (all ones)"), "", ""],
            fontsize=7,
            loc="lower right",
            framealpha=0.85,  # readable where small D puts curves under the legend
            edgecolor="none",
        )
        label(
            bottom,
            xlabel=pgettext("figure", "distance m − n (positions)"),
            ylabel=pgettext("figure", "score / (|q||k|)"),
        )

    def update(
        self, dim: int = 128, base: float = 10000.0, peak: int = 300, *, max_distance: int = 1000, n_samples: int = 128
    ):
        top, bottom = self.axes
        c = long_range_decay(dim, base, peak, max_distance=max_distance, n_samples=n_samples)  # (T,) curves
        d = c.distances
        self.bound.set_data(d, c.bound)
        top.relim()
        top.autoscale_view()
        top.set_title(
            pgettext("figure", "RoPE scores against distance (D = {dim}, base {base:,.0f})").format(dim=dim, base=base)
        )
        self.same.set_data(d, c.same)
        self.peaked.set_data(d, c.peaked)
        self.peaked.set_label(pgettext("figure", "k chosen to peak at {peak}").format(peak=peak))
        self.band.set_data(d, c.random_mean - c.random_std, c.random_mean + c.random_std)
        random_label = pgettext("figure", "random q, k: mean ± 1 std ({n_samples} draws)").format(n_samples=n_samples)
        self.mean.set_data(d, c.random_mean)
        self.mean.set_label(random_label)
        self.peak_line.set_xdata([peak, peak])
        bottom.set_xlim(0, max_distance)
        texts = self.legend.get_texts()
        texts[1].set_text(pgettext("figure", "k chosen to peak at {peak}").format(peak=peak))
        texts[2].set_text(random_label)
        return self.axes


def plot_long_range_decay(
    dim: int = 128, base: float = 10000.0, peak: int = 300, *, max_distance: int = 1000, n_samples: int = 128, axes=None
):
    """What RoPE's "long-range decay" is and is not, on two panels sharing the distance axis (:class:`LongRangeDecay`)."""
    if axes is None:
        _, axes = plt.subplots(2, 1, figsize=(6.0, 4.6), sharex=True, layout="constrained")
    return LongRangeDecay(axes).update(dim, base, peak, max_distance=max_distance, n_samples=n_samples)


def plot_attention_weights(weights: np.ndarray, labels, ax=None, *, title: str = pN_("figure", "attention weights")):
    """Heatmap of a (T_q, T_k) attention-weight matrix, each cell annotated with its weight (rows sum to 1)."""
    w = np.asarray(weights, dtype=float)
    ax = new_axes(ax, figsize=(4.4, 3.6))
    im = ax.imshow(w, cmap="Blues", vmin=0, vmax=1)
    ax.figure.colorbar(im, ax=ax, label=pgettext("figure", "weight"))
    for (r, c), v in np.ndenumerate(w):
        ax.text(c, r, f"{v:.2f}", ha="center", va="center", color="white" if v > 0.6 else "black", fontsize=9)
    name = cjk_font("".join(str(t) for t in labels))
    font = {"family": name} if name else {}
    ax.set_xticks(range(w.shape[1]), labels, fontsize=8, **font)
    ax.set_yticks(range(w.shape[0]), labels, fontsize=8, **font)
    return label(
        ax,
        xlabel=pgettext("figure", "key (attended to)"),
        ylabel=pgettext("figure", "query (attending)"),
        title=pgettext("figure", title),
    )


def plot_layout_pairs(dim: int = 8, ax=None):
    """Which dimensions form a rotary pair in each memory layout: one row per layout, colour = pair index.

    Interleaved: pair i = (2i, 2i+1). Half-split: pair i = (i, i + D/2).
    """
    ax = new_axes(ax, figsize=(6.0, 1.9))
    half = dim // 2
    rows = np.stack([np.arange(dim) // 2, np.arange(dim) % half])  # (2, D): pair index of each dimension
    ax.imshow(rows, cmap="tab10" if half <= 10 else "viridis", vmin=0, vmax=max(9, half - 1), aspect="auto")
    for (r, c), p in np.ndenumerate(rows):
        ax.text(c, r, f"d{c}\np{p}", ha="center", va="center", fontsize=7, color="white")
    ax.set_yticks([0, 1], [pgettext("figure", "interleaved"), pgettext("figure", "half-split")])
    ax.set_xticks(range(dim))
    return label(
        ax,
        xlabel=pgettext("figure", "dimension index within a head"),
        ylabel="",
        title=pgettext("figure", "same colour = same rotary pair (p = pair index)"),
    )


def plot_layout_mismatch(positions, vector_error, distances, score_error, axes=None, *, title: str | None = None):
    """The silent layout bug: errors when a checkpoint's layout and the code's layout disagree.

    Left: relative error of a rotated query ‖wrong − right‖/‖right‖ against its position (0 at position 0).
    Right: error of the attention score against the distance m − n, the key at position 0 (0 at m = n = 0).
    ``title``: a title over both panels (only when this function makes the figure).
    """
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.0), layout="constrained")
        if title:
            fig.suptitle(title, fontsize=11)
    left, right = axes
    left.plot(positions, vector_error, marker=".", ms=3, lw=1, color="tab:red")
    label(
        left,
        xlabel=pgettext("figure", "position m (tokens)"),
        ylabel=pgettext("figure", "‖wrong − right‖ / ‖right‖"),
        title=pgettext("figure", "rotated query"),
    )
    right.plot(distances, score_error, marker=".", ms=3, lw=1, color="tab:red")
    label(
        right,
        xlabel=pgettext("figure", "distance m − n (positions)"),
        ylabel=pgettext("figure", "|score error| / (|q||k|)"),
        title=pgettext("figure", "score, key at position 0"),
    )
    for a in axes:
        a.axhline(0, color="0.8", lw=0.8)
    return axes


def plot_angle_precision(
    positions, errors: dict, ax=None, *, title: str = pN_("figure", "angle error against float64")
):
    """Log-log plot of angle errors against position: one line per label in ``errors`` ({label: (T,) radians}).

    A dotted line marks π, the largest error an angle can have once whole turns are removed: an error near it
    means the angle is noise.
    """
    ax = new_axes(ax)
    positions = np.asarray(positions, dtype=float)
    for (name, err), marker in zip(errors.items(), "osd^v", strict=False):
        ax.loglog(positions, np.maximum(np.asarray(err, dtype=float), 1e-12), marker=marker, ms=4, lw=1.2, label=name)
    ax.axhline(np.pi, color="0.5", lw=0.8, ls=":", label=pgettext("figure", "π (largest possible error)"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.legend(fontsize=8, frameon=False)
    return label(
        ax,
        xlabel=pgettext("figure", "position m (tokens)"),
        ylabel=pgettext("figure", "angle error (rad)"),
        title=pgettext("figure", title),
    )
