"""Notebook 05b §1's panel: pick a scale, a method, a seed and an evaluation length; one trained model runs live.

The run is :func:`helpers.lab.inspection.live_run` (one forward pass with the method's own protocol, layer-0 attention
returned by the model's forward); the drawing is :class:`helpers.plots.lab.LiveRun`, updated in place. Methods are
the lab's names (:data:`helpers.lab.methods.METHODS`), offered per scale where a checkpoint exists.
"""

from __future__ import annotations

import functools

import ipywidgets as W

from helpers.i18n import _, figure_text, pgettext
from helpers.lab.checkpoints import RECIPES, SCALES, SHIPPED_SEEDS, is_trained, load_model
from helpers.lab.evaluate import lengths_of
from helpers.lab.inspection import live_run
from helpers.lab.methods import METHODS
from helpers.plots.lab import LiveRun
from helpers.widgets._common import STYLE, Layout, View, panel, view_on

__all__ = ["LAB_LAYOUT", "documents_per_run", "draw_lab_run", "lab_panel", "methods_at", "panel_run"]

LAB_LAYOUT = Layout(
    (10.0, 3.7), left=0.065, bottom=0.14, right=0.985, top=0.9, ncols=2, wspace=0.25, width_ratios=(1.5, 1.0)
)


def methods_at(scale: str) -> list[str]:
    """The lab methods whose checkpoints at ``scale`` ship for every seed (the small scale has no learning-rate
    sweep)."""
    return [
        m
        for m, spec in METHODS.items()
        if SCALES[scale].model_name(spec.checkpoint) in RECIPES
        and all(is_trained(SCALES[scale].model_name(spec.checkpoint), s) for s in SHIPPED_SEEDS)
    ]


def documents_per_run(scale: str, length: int) -> int:
    """Documents per live run: enough for a smooth loss curve, few enough for about 0.1 s (a 2048-token map of 2
    heads of the small scale already holds 8 M weights per layer and document)."""
    if scale == "tiny":
        return 8 if length <= 512 else 2
    return 4 if length <= 512 else 2 if length <= 1024 else 1


@functools.lru_cache(maxsize=64)
def panel_run(scale: str, method: str, seed: int, length: int) -> dict:
    """The panel's live run of ``method`` at ``scale`` (:func:`helpers.lab.inspection.live_run` on
    :func:`documents_per_run` documents), kept: the shipped checkpoints and the evaluation documents are fixed, so a
    setting the learner comes back to is not computed again (a switch of scale then costs only its drawing). The run
    is shared by every caller: read it, never write to it (the drawing only reads it)."""
    return live_run(method, length, seed=seed, scale=scale, n_sequences=documents_per_run(scale, length))


class LabRunView(View):
    layout = LAB_LAYOUT

    def setup(self, axes):
        self.drawing = LiveRun(axes)

    def update(self, scale, method, seed, multiple):
        if method not in methods_at(scale):
            raise ValueError(f"method {method!r} has no checkpoint at scale {scale!r}; allowed: {methods_at(scale)}")
        length = multiple * SCALES[scale].train_len
        run = panel_run(scale, method, seed, length)
        label = pgettext("figure", "{method}, {scale} (L = {train_len}), seed {seed}, T = {length}").format(
            method=figure_text(METHODS[method].label),
            scale=scale,
            train_len=SCALES[scale].train_len,
            seed=seed,
            length=length,
        )
        self.drawing.update(run, label=label, length=length, color=METHODS[method].color)
        return self.fig

    def moving_artists(self):
        """Everything a run changes. The loss axes' x axis and both axes of the map follow the run's length, so they
        are drawn with every frame (a switch of scale or length then redraws only these, not the whole figure); no
        static artist depends on those limits (the chance-level line spans the axes' width in axes coordinates)."""
        d = self.drawing
        loss, attention = d.loss_ax, d.map_ax
        return [d.line, d.train_line, d.train_text, d.note, loss.title, loss.xaxis, d.image, attention.title,
                attention.xaxis, attention.yaxis]  # fmt: skip


def draw_lab_run(scale: str = "tiny", method: str = "rope+linear", seed: int = 0, multiple: int = 2, *, fig=None):
    """Loss by position and layer-0 attention map of one lab model run live (:func:`helpers.lab.inspection.live_run`)."""
    return view_on(LabRunView, fig).update(scale, method, seed, multiple)


def lab_panel(scale: str = "tiny", method: str = "rope+linear", seed: int = 0, multiple: int = 2) -> W.VBox:
    """Dropdowns: scale, method (those with a checkpoint at the scale), seed, evaluation length T = k·L."""
    hold = {"on": False}
    for sc in SCALES.values():  # load every RoPE model now (cached), so that a switch of scale or seed only computes
        for k in SHIPPED_SEEDS:
            load_model(sc.model_name("rope"), k)
    scale_w = W.Dropdown(options=list(SCALES), value=scale, description=_("scale"), style=STYLE)
    method_w = W.Dropdown(options=methods_at(scale), value=method, description=_("method"), style=STYLE)
    seed_w = W.Dropdown(options=list(SHIPPED_SEEDS), value=seed, description=_("seed"), style=STYLE)
    length_w = W.Dropdown(
        options=[(f"{k}×L", k) for k in (1, 2, 4, 8)], value=multiple, description=_("length T"), style=STYLE
    )

    def method_kept(new_scale: str) -> str:
        """The method shown after a switch to ``new_scale``: the same one where it has a checkpoint there."""
        return method_w.value if method_w.value in methods_at(new_scale) else "rope+default"

    def on_scale(change):
        hold["on"] = True  # change the method list without a redraw for the intermediate state
        keep = method_kept(change["new"])
        method_w.options = methods_at(change["new"])
        method_w.value = keep
        hold["on"] = False

    scale_w.observe(on_scale, names="value")
    controls = {"scale": scale_w, "method": method_w, "seed": seed_w, "multiple": length_w}
    assert [k * SCALES[scale].train_len for k in (1, 2, 4, 8)] == list(lengths_of(scale))
    for other in SCALES:  # the other scale's run of these settings too, so that the first switch of scale is quick
        panel_run(other, method_kept(other), seed, multiple * SCALES[other].train_len)
    return panel(draw_lab_run, controls, layout=LAB_LAYOUT, columns=2, hold=hold)
