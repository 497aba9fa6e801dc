"""Figures for notebook 08 (position in 2025–26 models): rotated fraction, bases per layer type, M-RoPE on an image
grid, a learned sink's weight, the gallery of real configs on one page, and Gemma 3 270M's measurements (attention by
distance per layer, loss by position with RoPE scaled on the global layers or on every layer).

Drawing classes behind the sliders (built once on their axes, ``update(...)`` sets data in place, as
:class:`helpers.plots.rope.Wavelengths`): :class:`RotaryFraction`, :class:`LayerTypeBases`, :class:`MropeGrid`,
:class:`SinkWeights`, :class:`AttentionByDistance`, :class:`LossByPosition`. Static figures: :func:`plot_gallery`,
:func:`plot_query_temperature`. The numbers come from
the maths modules (:mod:`helpers.scaling`, :mod:`helpers.layer_schedules`, :mod:`helpers.mrope`,
:mod:`helpers.model_configs`); no torch here (the sink weights are computed by the caller, :mod:`helpers.sinks`).
Used by notebook 08 and :mod:`helpers.widgets.modern`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import LogNorm, Normalize
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator, NullLocator

from helpers.i18n import pgettext, pN_
from helpers.layer_schedules import partial_default_inv_freq, turns_within
from helpers.mrope import mrope_grid_scores, mrope_slot_axes
from helpers.plots._style import as_array, label, mark_trained_length, new_axes
from helpers.rope import rope_inv_freq, rope_wavelengths
from helpers.scaling import proportional_inv_freq

__all__ = [
    "AttentionByDistance",
    "LayerTypeBases",
    "LossByPosition",
    "MropeGrid",
    "RotaryFraction",
    "SinkWeights",
    "mrope_sections",
    "plot_gallery",
    "plot_query_temperature",
]


def _log_limits(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v) & (v > 0)]
    return 10 ** math.floor(math.log10(v.min())), 10 ** math.ceil(math.log10(v.max()))


class RotaryFraction:
    """Wavelength of every pair of a D-wide head when a fraction p of it rotates: proportional vs partial ``default``.

    Proportional (Gemma 4): pairs i < int(p·D // 2) keep full RoPE's λ_i = 2π·b^(2i/D); the others have θ = 0 (no
    position, shaded). Partial ``default`` (GPT-NeoX, Phi): D_r = int(p·D) dimensions rotate as a D_r-wide RoPE,
    λ_i = 2π·b^(2i/D_r): the same number of pairs, stretched over the whole range of wavelengths.
    """

    def __init__(self, ax):
        self.ax = ax
        (self.full,) = ax.semilogy(
            [0], [1], ls="--", lw=1.0, color="0.6", label=pgettext("figure", "full RoPE (all D/2 pairs)")
        )
        (self.prop,) = ax.semilogy(
            [0], [1], ".", ms=4, color="tab:blue", label=pgettext("figure", "proportional: rotated pairs")
        )
        (self.partial,) = ax.semilogy(
            [0], [1], ".", ms=4, color="tab:orange", label=pgettext("figure", "partial 'default'")
        )
        self.nope = Rectangle((0, 0), 1, 1, transform=ax.get_xaxis_transform(), color="tab:blue", alpha=0.08, lw=0)
        ax.add_patch(self.nope)
        self.nope_text = ax.text(0, 0.04, "", transform=ax.get_xaxis_transform(), fontsize=8, color="tab:blue")
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        label(ax, xlabel=pgettext("figure", "pair index i"), ylabel=pgettext("figure", "wavelength λ_i (positions)"))
        ax.legend(fontsize=8, frameon=False, loc="upper left")

    def update(self, dim: int, base: float, fraction: float):
        theta_p, _scaling = proportional_inv_freq(dim, base, partial_rotary_factor=fraction)  # (D/2,), zeros after r
        theta_d, _scaling = partial_default_inv_freq(dim, base, partial_rotary_factor=fraction)  # (D_r/2,)
        r = int(np.count_nonzero(theta_p))
        full = rope_wavelengths(rope_inv_freq(dim, base))  # (D/2,)
        lam_p = rope_wavelengths(theta_p[:r])  # (r,)
        lam_d = rope_wavelengths(theta_d)  # (D_r/2,)
        self.full.set_data(np.arange(dim // 2), full)
        self.prop.set_data(np.arange(r), lam_p)
        self.partial.set_data(np.arange(lam_d.size), lam_d)
        self.nope.set_x(r - 0.5)
        self.nope.set_width(dim // 2 - r)
        self.nope.set_visible(r < dim // 2)
        self.nope_text.set_position((r + 0.5, 0.04))
        self.nope_text.set_text(pgettext("figure", "θ = 0: no position") if r < dim // 2 else "")
        self.ax.set_xlim(-0.5, dim // 2 - 0.5)
        self.ax.set_ylim(*_log_limits(np.concatenate([full, lam_d])))
        self.ax.set_title(  # English in every language: notebook 08's checks read this title
            f"p = {fraction:.4g}: {r} of {dim // 2} pairs rotate; slowest λ: proportional {lam_p[-1]:,.0f}, "
            f"partial {lam_d[-1]:,.0f}",
            fontsize=9,
        )
        return self.ax


class LayerTypeBases:
    """Wavelengths of a sliding layer's base and a full layer's base, against the distances each layer sees.

    A sliding layer sees distances up to W − 1 (W the window), a full layer up to L − 1. Pairs whose wavelength
    exceeds what the layer sees never complete a turn there (the title counts them, as
    :func:`helpers.model_configs.layer_table` does).
    """

    def __init__(self, ax):
        self.ax = ax
        (self.local,) = ax.semilogy([0], [1], ".", ms=3, color="tab:green")
        (self.glob,) = ax.semilogy([0], [1], ".", ms=3, color="tab:purple")
        self.window = ax.axhline(1, color="tab:green", lw=0.9, ls=":")
        self.context = ax.axhline(1, color="tab:purple", lw=0.9, ls=":")
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        label(ax, xlabel=pgettext("figure", "pair index i"), ylabel=pgettext("figure", "wavelength λ_i (positions)"))
        self.legend = ax.legend(
            [self.local, self.glob, self.window, self.context], ["", "", "", ""], fontsize=8, frameon=False,
            loc="upper left",
        )  # fmt: skip

    def update(self, dim: int, local_base: float, global_base: float, window: int, context: int):
        lam_l = rope_wavelengths(rope_inv_freq(dim, local_base))  # (D/2,)
        lam_g = rope_wavelengths(rope_inv_freq(dim, global_base))  # (D/2,)
        i = np.arange(dim // 2)
        self.local.set_data(i, lam_l)
        self.glob.set_data(i, lam_g)
        self.window.set_ydata([window, window])
        self.context.set_ydata([context, context])
        slow_l = int((turns_within(rope_inv_freq(dim, local_base), window - 1) < 1).sum())
        slow_g = int((turns_within(rope_inv_freq(dim, global_base), context - 1) < 1).sum())
        texts = self.legend.get_texts()
        texts[0].set_text(pgettext("figure", "sliding layers, base {local_base:,.0f}").format(local_base=local_base))
        texts[1].set_text(pgettext("figure", "full layers, base {global_base:,.0f}").format(global_base=global_base))
        texts[2].set_text(pgettext("figure", "window W = {window:,}").format(window=window))
        texts[3].set_text(pgettext("figure", "context L = {context:,}").format(context=context))
        self.ax.set_xlim(-0.5, dim // 2 - 0.5)
        self.ax.set_ylim(*_log_limits(np.concatenate([lam_l, lam_g, [window, context]])))
        self.ax.set_title(  # English in every language: notebook 08's checks read this title
            f"pairs without a full turn: sliding {slow_l} of {dim // 2} (within W), full {slow_g} (within L)",
            fontsize=9,
        )
        return self.ax


def mrope_sections(temporal_slots: int, n_pairs: int = 64) -> list[int]:
    """[t, h, w] with t = ``temporal_slots`` and the rest split evenly between height and width (h gets the odd one)."""
    if not (isinstance(temporal_slots, (int, np.integer)) and 0 <= temporal_slots <= n_pairs):
        raise ValueError(f"temporal_slots must be an integer in [0, {n_pairs}], got {temporal_slots!r}")
    rest = n_pairs - int(temporal_slots)
    return [int(temporal_slots), rest - rest // 2, rest // 2]


_AXIS_COLORS = ("tab:gray", "tab:red", "tab:blue")


class MropeGrid:
    """Left: which axis each frequency slot reads (slot 0 fastest). Right: 1 − score of the centre patch's query
    against every patch of a ``grid`` × ``grid`` image (unit pairs, :func:`helpers.mrope.mrope_grid_scores`), on a log
    colour scale: dark where the head cannot tell a patch from the query's own."""

    def __init__(self, axes):
        self.strip_ax, self.grid_ax = axes
        self.strip = self.strip_ax.imshow(np.ones((3, 2, 3)), aspect="auto", interpolation="nearest")
        self.strip_ax.set_yticks(
            [0, 1, 2], [pgettext("figure", "temporal"), pgettext("figure", "height"), pgettext("figure", "width")]
        )
        for tick, color in zip(self.strip_ax.get_yticklabels(), _AXIS_COLORS, strict=True):
            tick.set_color(color)
        label(self.strip_ax, xlabel=pgettext("figure", "frequency slot i (fast → slow)"), ylabel="")
        self.image = self.grid_ax.imshow(
            np.ones((2, 2)), norm=LogNorm(1e-8, 1.0), cmap="magma", interpolation="nearest", origin="upper"
        )
        self.grid_ax.figure.colorbar(self.image, ax=self.grid_ax, label=pgettext("figure", "1 − score"))
        label(self.grid_ax, xlabel=pgettext("figure", "column (patches)"), ylabel=pgettext("figure", "row (patches)"))

    def update(self, temporal_slots: int, interleaved: bool, *, grid: int = 16, dim: int = 128, base: float = 1e6):
        theta = rope_inv_freq(dim, base)  # (D/2,)
        section = mrope_sections(temporal_slots, dim // 2)
        axes = mrope_slot_axes(dim // 2, section, interleaved=interleaved)  # (D/2,)
        rgb = np.array([[0.5, 0.5, 0.5], [0.84, 0.15, 0.16], [0.12, 0.47, 0.71]])  # (3 axes, 3)
        reads = axes[None, :] == np.arange(3)[:, None]  # (3, D/2): slot i reads axis a
        self.strip.set_data(np.where(reads[..., None], rgb[:, None, :], 1.0))  # (3, D/2, 3)
        self.strip.set_extent((-0.5, dim // 2 - 0.5, 2.5, -0.5))
        score = mrope_grid_scores(grid, grid, theta, section, interleaved=interleaved)  # (grid, grid)
        drop = np.clip(1.0 - score, 1e-8, 1.0)  # (grid, grid); the query's own patch drops 0: clipped
        self.image.set_data(drop)
        self.image.set_extent((-0.5, grid - 0.5, grid - 0.5, -0.5))
        c = grid // 2
        kind = "interleaved" if interleaved else "sectioned"
        t_n, h_n, w_n = np.bincount(axes, minlength=3)  # slots each axis reads (interleaving caps H and W)
        self.strip_ax.set_title(  # English in every language (and the next title): notebook 08's checks read them
            f"{kind}, mrope_section {section}: T/H/W read {t_n}/{h_n}/{w_n} slots",
            fontsize=9,
        )
        self.grid_ax.set_title(
            f"one step down: 1 − s = {1 - score[c + 1, c]:.1e}\none step right: {1 - score[c, c + 1]:.1e}",
            fontsize=9,
        )
        return self.strip_ax, self.grid_ax


class SinkWeights:
    """One query's attention weights over its keys, with the learned sink's share drawn as a last bar."""

    def __init__(self, ax, n_keys: int):
        self.ax = ax
        self.n = n_keys
        self.bars = ax.bar(np.arange(n_keys + 1), np.zeros(n_keys + 1), color=["tab:blue"] * n_keys + ["tab:red"])
        self.plain = ax.plot(
            np.arange(n_keys), np.zeros(n_keys), "_", ms=9, color="k", label=pgettext("figure", "no sink")
        )[0]
        ax.set_xticks([0, n_keys // 2, n_keys - 1, n_keys], ["0", str(n_keys // 2), str(n_keys - 1), "sink"])
        ax.set_ylim(0, 1.0)
        label(ax, xlabel=pgettext("figure", "key position n"), ylabel=pgettext("figure", "attention weight"))
        ax.legend(fontsize=8, frameon=False, loc="upper left")

    def update(self, weights, plain_weights, sink_logit: float):
        w = as_array(weights, "weights")  # (n_keys,)
        p = as_array(plain_weights, "plain_weights")  # (n_keys,)
        if w.shape != (self.n,) or p.shape != (self.n,):
            raise ValueError(f"weights and plain_weights must have shape ({self.n},), got {w.shape} and {p.shape}")
        sink = 1.0 - w.sum()
        for bar, h in zip(self.bars, [*w, sink], strict=True):
            bar.set_height(h)
        self.plain.set_ydata(p)
        self.ax.set_ylim(0, max(0.2, 1.1 * max(sink, p.max(), w.max())))
        self.ax.set_title(
            pgettext("figure", "sink logit z = {sink_logit:+.1f}: keys get {keys:.2f}, the sink {sink:.2f}").format(
                sink_logit=sink_logit, keys=w.sum(), sink=sink
            ),
            fontsize=9,
        )
        return self.ax


def plot_gallery(
    tables: Mapping[str, Sequence], slow_share: Mapping[str, np.ndarray], *, axes=None, context: Mapping | None = None
):
    """The gallery of real configs on one page: one row per model, one cell per layer.

    Left: the cell's colour is the layer's base (log scale), its height the fraction of each head rotated; NoPE
    layers are hatched. Right: the share of the layer's rotated pairs that never complete a turn within the
    distances it sees (:func:`helpers.model_configs.slow_pair_share`). ``tables``: {model: rows of
    :func:`helpers.model_configs.layer_table`}; ``slow_share``: {model: (layers,)}; ``context``: optional
    {model: L} written beside the name.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _fig, axes = plt.subplots(1, 2, figsize=(12, 0.42 * len(tables) + 1.3), sharey=True, layout="constrained")
    left, right = axes
    names = list(tables)
    bases = [r.base for rows in tables.values() for r in rows if r.rotates]
    base_norm = LogNorm(min(bases), max(bases))
    share_norm = Normalize(0.0, 1.0)
    cmap_b, cmap_s = matplotlib.colormaps["viridis"], matplotlib.colormaps["Reds"]
    n_max = max(len(rows) for rows in tables.values())
    for y, name in enumerate(names):
        share = np.asarray(slow_share[name], dtype=np.float64)  # (layers,)
        for r in tables[name]:
            if not r.rotates:
                for ax in (left, right):
                    ax.add_patch(Rectangle((r.layer, y - 0.4), 1, 0.8, fc="white", ec="0.5", hatch="///", lw=0.3))
                continue
            h = 0.8 * r.rotated_fraction
            left.add_patch(Rectangle((r.layer, y - 0.4), 1, h, fc=cmap_b(base_norm(r.base)), ec="white", lw=0.3))
            right.add_patch(Rectangle((r.layer, y - 0.4), 1, 0.8, fc=cmap_s(share_norm(share[r.layer])), ec="white",
                                      lw=0.3))  # fmt: skip
    for ax in (left, right):
        ax.set_xlim(0, n_max)
        ax.set_ylim(len(names) - 0.5, -0.5)
        ax.set_xlabel(pgettext("figure", "layer"))
    shown = [f"{n} (L = {context[n]:,})" if context else n for n in names]
    left.set_yticks(range(len(names)), shown, fontsize=8)
    left.set_title(
        pgettext("figure", "base (colour) and fraction of the head rotated (height); hatched: NoPE"), fontsize=9
    )
    right.set_title(
        pgettext("figure", "share of rotated pairs that never complete a turn within what the layer sees"), fontsize=9
    )
    left.figure.colorbar(ScalarMappable(base_norm, cmap_b), ax=left, label=pgettext("figure", "base b"))
    right.figure.colorbar(ScalarMappable(share_norm, cmap_s), ax=right, label=pgettext("figure", "share of pairs"))
    return axes


def plot_query_temperature(positions, temperature, *, floor_scale: int, attn_scale: float, ax=None):
    """Llama 4's query temperature τ(m) of its NoPE layers against the position m (a step every F positions)."""
    ax = new_axes(ax)
    m = as_array(positions, "positions")
    tau = as_array(temperature, "temperature")
    ax.plot(m, tau, color="tab:purple", lw=1.5, drawstyle="steps-post")
    label(
        ax,
        xlabel=pgettext("figure", "query position m"),
        ylabel=pgettext("figure", "τ(m) (× query)"),
        title=f"τ(m) = 1 + {attn_scale:g}·ln(1 + ⌊(m+1)/{floor_scale}⌋)",
    )
    return ax


def distance_bucket_labels(edges) -> list[str]:
    """Tick labels of the distance buckets [e_b, e_b+1): "0", "1", "2–3", "4–7", ..."""
    e = [int(x) for x in edges]
    return [str(lo) if hi - lo == 1 else f"{lo:,}–{hi - 1:,}" for lo, hi in zip(e[:-1], e[1:], strict=True)]


class AttentionByDistance:
    """One layer's attention weight by query–key distance (Gemma 3 270M on real text): the share of all weight in
    each log-spaced distance bucket, split into the weight on token 0 (``<bos>``, grey) and on every other key.

    ``edges`` (B + 1,): the buckets [e_b, e_b+1) of :func:`helpers.real.gemma3_attention.distance_edges`; ``window``
    W: a dotted line where a sliding layer's window ends. :meth:`update` takes one layer's dict of
    :func:`helpers.real.gemma3_tables.attention_layers`.
    """

    def __init__(self, ax, edges, window: int):
        self.ax = ax
        self.edges = [int(x) for x in edges]
        b = np.arange(len(self.edges) - 1)
        self.rest = ax.bar(b, np.zeros(b.size), color="tab:blue", label=pgettext("figure", "weight on other keys"))
        self.bos = ax.bar(b, np.zeros(b.size), color="0.65", label=pgettext("figure", "weight on <bos> (token 0)"))
        if window in self.edges:
            ax.axvline(self.edges.index(window) - 0.5, color="tab:green", ls=":", lw=1.2)
            ax.text(self.edges.index(window) - 0.45, 0.97, pgettext("figure", 'window W = {window}').format(window=window), transform=ax.get_xaxis_transform(),
                    fontsize=7, va="top", color="tab:green")  # fmt: skip
        ax.set_xticks(b, distance_bucket_labels(self.edges), rotation=45, ha="right", fontsize=7)
        ax.set_ylim(0, 1)
        label(
            ax,
            xlabel=pgettext("figure", "distance t − j (tokens, log-spaced buckets)"),
            ylabel=pgettext("figure", "share of the layer's weight"),
        )
        ax.legend(fontsize=7, frameon=False, loc="upper left")

    def update(self, layer: dict, index: int):
        mass = as_array(layer["mass"], "mass")  # (B,)
        rest = as_array(layer["mass_without_bos"], "mass_without_bos")  # (B,)
        if mass.shape != (len(self.edges) - 1,) or rest.shape != mass.shape:
            raise ValueError(f"the layer's masses must have shape ({len(self.edges) - 1},), got {mass.shape}")
        for rest_bar, bos_bar, r, m in zip(self.rest, self.bos, rest, mass, strict=True):
            rest_bar.set_height(r)  # every key but <bos>
            bos_bar.set_y(r)  # <bos> stacked on top
            bos_bar.set_height(m - r)
        self.ax.set_ylim(0, max(0.3, 1.1 * float(mass.max())))
        kind = (
            pgettext("figure", "global (full attention)")
            if layer["type"] == "full_attention"
            else pgettext("figure", "local (sliding window)")
        )
        self.ax.set_title(
            pgettext("figure", "layer {index}, {kind}: {bos_weight:.0%} of a query's weight on <bos>").format(
                index=index, kind=kind, bos_weight=layer["bos_weight"]
            ),
            fontsize=9,
        )
        return self.ax


class LossByPosition:
    """Loss by query position of Gemma 3 270M on one long text, for plain RoPE and each scaled run.

    ``keys``: the method keys drawn (:data:`helpers.real.gemma3_tables.METHOD_KEYS` order), each with its style
    and label; ``context_length`` L (a dashed line). :meth:`update` sets every curve, draws the ``emphasised``
    keys bold and the others faint, and fits the y range to the emphasised ones.
    """

    def __init__(self, ax, keys, *, styles: Mapping[str, dict], labels: Mapping[str, str], context_length: int):
        self.ax = ax
        self.lines = {k: ax.plot([0], [0], lw=1.2, label=labels[k], **styles[k])[0] for k in keys}
        self.context_length = context_length
        self.context, self.context_text = mark_trained_length(ax, context_length)
        label(
            ax, xlabel=pgettext("figure", "query position (tokens)"), ylabel=pgettext("figure", "loss (nats per token)")
        )
        ax.legend(fontsize=7, loc="lower left", framealpha=0.85)

    def update(
        self,
        curves: Mapping[str, tuple],
        emphasised,
        *,
        title: str,
        ylabel: str = pN_("figure", "loss (nats per token)"),
    ):
        self.ax.set_ylabel(pgettext("figure", ylabel))
        shown = []
        for key, line in self.lines.items():
            x, y = (as_array(v, key) for v in curves[key])  # (K,), (K,)
            line.set_data(x, y)
            bold = key in emphasised
            line.set_alpha(1.0 if bold else 0.25)
            line.set_linewidth(1.4 if bold else 0.8)
            if bold:
                shown.append(y)
        x_max = max(float(as_array(curves[k][0]).max()) for k in self.lines)
        self.ax.set_xlim(0, x_max * 1.01)
        inside = self.context_length < x_max  # mark L only where the curves reach it
        self.context.set_visible(inside)
        self.context_text.set_visible(inside)
        y = np.concatenate(shown) if shown else np.array([0.0, 1.0])
        pad = 0.05 * (float(y.max()) - float(y.min()) + 1e-9)
        self.ax.set_ylim(float(y.min()) - pad, float(y.max()) + pad)
        self.ax.set_title(title, fontsize=9)
        return self.ax
