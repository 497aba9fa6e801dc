"""Slider panels for notebook 06 (position in the scores).

* :func:`bucket_panel`: T5's bucket index against distance (number of buckets, max_distance, causal or
  bidirectional).
* :func:`alibi_panel`: each ALiBi head's penalty against distance and its "effective window" (number of heads,
  distance shown, threshold).

The redraw functions :func:`draw_buckets` and :func:`draw_alibi` are plain functions (tests call them with Agg).
Called without ``fig`` they draw on a new pyplot figure (the notebook's static cells); a panel passes its own
figure on every redraw.

Speed: each panel is the course's one panel builder (:func:`helpers.widgets._common.panel`) around a
:class:`~helpers.widgets._common.View`: axes, labels and artists are created once
(:func:`helpers.plots.score_biases.frame_buckets` / ``frame_alibi``) and later redraws only set their data and
texts (``update_buckets`` / ``update_alibi``), rendered once per redraw to a PNG at the figure's own size. Only ipywidgets APIs present in both 7.7 (Colab)
and 8 are used (IntSlider, FloatSlider, Checkbox, interactive_output, HBox/VBox, Output).
"""

from __future__ import annotations

import ipywidgets as W
import torch

from helpers.i18n import _
from helpers.plots import score_biases as P
from helpers.score_biases import alibi_slopes, t5_relative_bucket
from helpers.widgets._common import LAYOUT, STYLE, Layout, View, float_slider, int_slider, panel, view_on

BUCKET_DEFAULTS = {"num_buckets": 32, "max_distance": 128, "bidirectional": False}
ALIBI_DEFAULTS = {"num_heads": 8, "distance": 256, "threshold": 4.6}  # 4.6 ≈ ln 100: weight × 1/100

#: Figure size (inches) and fixed margins of each figure.
BUCKET_LAYOUT = Layout((6.4, 3.3), left=0.09, bottom=0.15, right=0.98, top=0.9)
ALIBI_LAYOUT = Layout((9.6, 3.3), left=0.085, bottom=0.15, right=0.985, top=0.9, ncols=2, wspace=0.28)

THRESHOLD_RANGE = (0.5, 10.0)  # the threshold slider (nats)
#: The penalty axis for every threshold of the slider (as :func:`helpers.plots.score_biases.alibi_parts` sets it for
#: one: down to twice the threshold), so it stays put while the threshold moves.
ALIBI_PENALTY_YLIM = (-2.0 * THRESHOLD_RANGE[1], 0.1 * THRESHOLD_RANGE[1])
_DISTANCE = torch.arange(P.BUCKET_SPAN)  # (R,) distances 0..R−1


def bucket_curves(num_buckets: int, max_distance: int, bidirectional: bool) -> dict:
    """The bucket figure's data for one setting, from :func:`helpers.score_biases.t5_relative_bucket`.

    Raises ValueError (from the bucket function) for a setting T5's bucketing does not allow.
    """
    kw = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}
    past = t5_relative_bucket(-_DISTANCE, **kw).numpy()  # (R,) key before the query
    future = t5_relative_bucket(_DISTANCE, **kw).numpy() if bidirectional else None  # (R,) key after it
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    return P.bucket_parts(
        _DISTANCE.numpy(), past, future, num_buckets=num_buckets, exact=per_direction // 2, max_distance=max_distance
    )


class BucketView(View):
    layout = BUCKET_LAYOUT

    def setup(self, axes) -> None:
        self.artists = P.frame_buckets(axes)

    def update(self, num_buckets, max_distance, bidirectional):
        try:
            parts = bucket_curves(num_buckets, max_distance, bidirectional)
        except ValueError as err:  # e.g. max_distance inside the exact range: say so in the figure
            return P.update_buckets(self.axes, self.artists, None, message=_wrap(str(err)))
        return P.update_buckets(self.axes, self.artists, parts)

    def moving_artists(self):
        # the y axis shows the buckets 0..num_buckets − 1: drawn on every frame with the curves (the bands and texts
        # are placed in axes coordinates along y, so the cached background does not depend on it)
        a = self.artists
        shown = [a[k] for k in ("exact_band", "far_band", "past", "future", "exact_text", "far_text", "message")]
        return [*shown, self.axes.yaxis, self.axes.title]


class AlibiView(View):
    layout = ALIBI_LAYOUT

    def setup(self, axes) -> None:
        self.artists = P.frame_alibi(axes)

    def update(self, num_heads, distance, threshold):
        parts = P.alibi_parts(alibi_slopes(num_heads).numpy(), distance, threshold)
        axes = P.update_alibi(self.axes, self.artists, parts)
        axes[0].set_ylim(*ALIBI_PENALTY_YLIM)
        return axes

    def moving_artists(self):
        # left: the penalty axis is fixed (every threshold fits), the distance axis is what "distance shown" sets;
        # right: heads on x and windows (threshold / slope, log) on y follow H and the threshold: drawn every frame
        a, (ax_p, ax_w) = self.artists, self.axes
        texts = [a["threshold_text"], a["caption"], ax_p.title, ax_w.title]
        return [
            *a["lines"],
            a["threshold"],
            a["stems"],
            a["dots"],
            a["reach"],
            *texts,
            ax_p.xaxis,
            ax_w.xaxis,
            ax_w.yaxis,
        ]


def _wrap(text: str, width: int = 70) -> str:
    words, lines, line = text.split(), [], ""
    for w in words:
        if len(line) + len(w) + 1 > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "\n".join([*lines, line])


def draw_buckets(num_buckets: int, max_distance: int, bidirectional: bool, *, fig=None):
    """Redraw of :func:`bucket_panel`. ``fig``: a figure from an earlier call (updated in place) or None (a new
    pyplot figure). A setting T5's bucketing refuses is shown as its error message. Returns the axes."""
    return view_on(BucketView, fig).update(num_buckets, max_distance, bidirectional)


def draw_alibi(num_heads: int, distance: int, threshold: float, *, fig=None):
    """Redraw of :func:`alibi_panel`: penalties of ``num_heads`` heads up to ``distance`` tokens, and each head's
    window threshold/slope. ``fig`` as in :func:`draw_buckets`. Returns the two axes."""
    return view_on(AlibiView, fig).update(num_heads, distance, threshold)


def bucket_panel() -> W.VBox:
    """num_buckets (4..64, even), max_distance (4..1024 tokens) and a "bidirectional" checkbox."""
    d = BUCKET_DEFAULTS
    controls = {
        "num_buckets": int_slider(_("number of buckets"), d["num_buckets"], 4, 64, 2),
        "max_distance": int_slider(_("max_distance (tokens)"), d["max_distance"], 4, 1024, 4),
        "bidirectional": W.Checkbox(
            value=d["bidirectional"], description=_("bidirectional (encoder)"), style=STYLE, layout=LAYOUT
        ),
    }
    return panel(draw_buckets, controls, layout=BUCKET_LAYOUT, columns=2)


def alibi_panel() -> W.VBox:
    """number of heads H (1..64), distance shown (16..4096 tokens) and the threshold (0.5..10 nats)."""
    d = ALIBI_DEFAULTS
    controls = {
        "num_heads": int_slider(_("heads H"), d["num_heads"], 1, P.MAX_HEADS),
        "distance": int_slider(_("distance shown (tokens)"), d["distance"], 16, 4096, 16),
        "threshold": float_slider(_("threshold (nats)"), d["threshold"], *THRESHOLD_RANGE, 0.1, fmt=".1f"),
    }
    return panel(draw_alibi, controls, layout=ALIBI_LAYOUT, columns=2)
