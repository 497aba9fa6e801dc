"""Shared figure conventions: small figures (fast inline redraws), labelled axes, a font for Chinese labels.

In a language other than English (:func:`follow_language`, a hook of :func:`helpers.i18n.on_language_change`),
matplotlib's ``Text.set_text`` passes every string through :func:`helpers.i18n.figure_text`, so the titles, axis
labels, legends and annotations that a notebook's own code writes in English (its code cells are the English bytes)
are drawn in that language; ``set_language("en")`` puts matplotlib's own ``set_text`` back, so an English run draws
exactly what it always drew."""

from __future__ import annotations

import functools
import itertools
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager, ft2font
from matplotlib import text as mtext
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from helpers.cjk_font import FONT_FAMILY, cjk_font_path
from helpers.i18n import figure_text, on_language_change, pgettext
from helpers.real.fetch import FetchError

FIGSIZE = (6.0, 3.2)


def new_axes(ax=None, *, figsize=FIGSIZE):
    """Return ``ax`` or a fresh axes on a new figure of ``figsize`` inches."""
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def as_array(values, name: str = "values") -> np.ndarray:
    """``values`` as a float64 NumPy array: arrays, lists, or tensors (anything with ``detach``, converted without
    importing torch here, so that plots stay torch-free)."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numbers (an array or a tensor), got {type(values).__name__}") from exc


def label(ax, *, xlabel: str, ylabel: str, title: str | None = None):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax


#: Font families known to carry simplified Chinese, tried first (then any installed font is checked).
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans SC",
    "Noto Serif CJK SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
    "AR PL UMing CN",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
    "Heiti SC",
    "Arial Unicode MS",
)
#: Every Chinese character the course draws (notebooks 01 and 04's tokens).
CJK_TEXT = "猫吃鱼小明打了红我喜欢"


def _covers(path: str, text: str) -> bool:
    try:
        charmap = ft2font.FT2Font(path).get_charmap()
    except (OSError, RuntimeError, ValueError):
        return False
    return all(ord(c) in charmap for c in text if not c.isspace())


@functools.lru_cache(maxsize=8)
def cjk_font(text: str = CJK_TEXT) -> str | None:
    """The name of an installed font family that has a glyph for every character of ``text``, or None.

    Known CJK families are tried first (Noto Sans CJK, WenQuanYi, …), then every font matplotlib knows.
    Checking the font's character map (not just its name) is what keeps "Glyph … missing" warnings away.
    """
    entries = font_manager.fontManager.ttflist
    preferred = sorted((e for e in entries if e.name in CJK_FAMILIES), key=lambda e: CJK_FAMILIES.index(e.name))
    for entry in itertools.chain(preferred, entries):
        # matplotlib's "Last Resort" font maps every character to a placeholder box: not a real CJK font.
        if not entry.name.startswith("Last Resort") and _covers(entry.fname, text):
            return entry.name
    return None


def use_cjk_font(*, quiet: bool = True) -> str:
    """Register Noto Sans CJK SC (:func:`helpers.cjk_font.cjk_font_path`: the pinned wheel's font, fetched once) with
    matplotlib and append it to ``font.family`` as the fallback of the families before it; returns its family name.
    Calling it again changes nothing."""
    path = cjk_font_path(quiet=quiet)
    font_manager.fontManager.addfont(str(path))
    name = font_manager.FontProperties(fname=str(path)).get_name()
    families = [f for f in plt.rcParams["font.family"] if f != name]
    plt.rcParams["font.family"] = [*families, name]  # each missing glyph falls back to it, in order
    return name


#: matplotlib's own ``Text.set_text`` (put back in English).
_MPL_SET_TEXT = mtext.Text.set_text


def _set_text_in_language(self, s):
    """``Text.set_text`` in a language other than English: the string through :func:`helpers.i18n.figure_text`."""
    return _MPL_SET_TEXT(self, figure_text(s) if type(s) is str else s)


def translate_figure_text(on: bool) -> None:
    """Make every figure text pass through :func:`helpers.i18n.figure_text` (``on``) or put matplotlib's own
    ``Text.set_text`` back."""
    mtext.Text.set_text = _set_text_in_language if on else _MPL_SET_TEXT


def follow_language(language: str) -> None:
    """The figures' font for ``language`` (a hook of :func:`helpers.i18n.on_language_change`, so it runs when the
    course switches language and at import). Chinese: Noto Sans CJK SC (:func:`use_cjk_font`, from
    the pinned wheel) is registered and appended to ``font.family`` after the default font, so Latin text looks as
    in English and each Chinese glyph falls back to it (matplotlib >= 3.6). English: the font is never fetched nor
    registered, and a fallback added by an earlier Chinese run is taken off ``font.family``. Figure text set in any
    other language passes through :func:`helpers.i18n.figure_text` (:func:`translate_figure_text`); in English
    matplotlib's own ``Text.set_text`` is in place.
    If the font cannot be fetched, a warning says so and Chinese figure text is drawn as boxes."""
    translate_figure_text(language != "en")
    families = plt.rcParams["font.family"]
    if language == "en":
        if FONT_FAMILY in families:
            plt.rcParams["font.family"] = [f for f in families if f != FONT_FAMILY] or ["sans-serif"]
        return
    try:
        use_cjk_font()
    except FetchError as err:  # no package index: the figures still draw, with boxes for Chinese glyphs
        warnings.warn(
            f"the Chinese figure font could not be fetched ({err}); Chinese text shows as boxes", stacklevel=3
        )
    cjk_font.cache_clear()  # a font was added: look again


on_language_change(follow_language)


class LiveLegend:
    """A legend for artists that a panel updates in place: rebuilt only when its entries change.

    :meth:`update` takes the handles, their labels and a ``key`` for anything else the legend copies from its
    handles when it is built (line widths, alphas): while the handles stay the same, only the texts change (the
    legend box is laid out when the figure is drawn); when only ``key`` changes, the legend's lines take their
    handles' new style in place (:data:`LEGEND_LINE_STYLE`: none of it changes the legend's layout). Either way an
    updated legend looks exactly like a freshly built one, and a panel keeps its artists (it redraws only them).
    """

    def __init__(self, ax, **kwargs):
        self.ax, self.kwargs = ax, kwargs
        self.legend, self._handles, self._key = None, None, None

    def update(self, handles, labels, *, key=None):
        handles, labels = list(handles), list(labels)
        restyle = key != self._key
        if self.legend is None or handles != self._handles or (restyle and not self._restyled(handles)):
            if self.legend is not None:
                self.legend.remove()
            self.legend = self.ax.legend(handles, labels, **self.kwargs)
            self._handles, self._key = handles, key
            return self.legend
        self._key = key
        for text, name in zip(self.legend.get_texts(), labels, strict=True):
            text.set_text(name)
        return self.legend

    def _restyled(self, handles) -> bool:
        """Give the legend's lines their handles' style (:data:`LEGEND_LINE_STYLE`); False if a handle is no line."""
        shown = self.legend.legend_handles
        if len(shown) != len(handles) or not all(isinstance(a, Line2D) for a in (*shown, *handles)):
            return False
        for line, handle in zip(shown, handles, strict=True):
            line.set(**{name: getattr(handle, f"get_{name}")() for name in LEGEND_LINE_STYLE})
        return True


#: What a legend line copies from its handle that a panel may change in place (the layout depends on none of it).
LEGEND_LINE_STYLE = (
    "color",
    "linestyle",
    "linewidth",
    "alpha",
    "marker",
    "markersize",
    "markerfacecolor",
    "markeredgecolor",
    "markeredgewidth",
    "dash_capstyle",
    "solid_capstyle",
)


def mark_trained_length(ax, context_length: float):
    """A dashed grey line at the trained length L and its label at the top of the axes; returns (line, text)."""
    line = ax.axvline(context_length, color="grey", ls="--", lw=1)
    text = ax.text(
        context_length,
        0.98,
        pgettext("figure", " trained length L"),
        transform=ax.get_xaxis_transform(),
        fontsize=7,
        va="top",
    )
    return line, text


def log_limits(values, *, margin: float = 0.05) -> tuple[float, float]:
    """Axis limits for positive ``values`` on a log axis: their range widened by ``margin`` of it on each side, in
    log space (what autoscaling does, but computed from the data alone, so an axes updated in place gets exactly the
    limits a fresh one gets; matplotlib's log autoscaling depends on earlier data at the last digit)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v) & (v > 0)]
    lo, hi = (float(v.min()), float(v.max())) if v.size else (1.0, 10.0)
    a, b = np.log10(lo), np.log10(hi)
    span = b - a if b > a else 1.0
    return 10 ** (a - margin * span), 10 ** (b + margin * span)


def plain_log_axis(axis) -> None:
    """A log axis with plain tick labels ("1", "100", "10,000", "0.01") and no minor ticks.

    Matplotlib's default log labels are mathtext (10^k), whose parsing plus dozens of minor ticks take most of a slider
    panel's redraw time; plain labels are also easier to read.
    """
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(plain_number))


def plain_number(value: float, _pos=None) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:.3g}"


def fixed_ticks(axis, ticks, labels=None, **text) -> None:
    """``axis.set_ticks(ticks, labels, **text)``, unless the axis already has exactly these ticks (and labels): a
    view that sets the same ticks on every slider move then leaves them alone instead of rebuilding them."""
    locator = axis.get_major_locator()
    same = isinstance(locator, FixedLocator) and np.array_equal(locator.locs, np.asarray(ticks, dtype=float))
    if labels is not None and same:  # the labels as the axis would print them at these ticks
        same = axis.get_major_formatter().format_ticks(list(locator.locs)) == [str(t) for t in labels]
    if not same:
        axis.set_ticks(ticks, labels, **text)


def pair_ticks(n_pairs: int) -> np.ndarray:
    """About four round pair indices (0, 16, 32, 48 for 64 pairs): few tick labels to build on each redraw."""
    step = 2 ** max(0, math.floor(math.log2(max(n_pairs, 1) / 4)))
    return np.arange(0, n_pairs, step)
