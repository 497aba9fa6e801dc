"""Slider panel for notebook 09 (position in 2026 models). ``draw_temperature`` is a plain function the tests call.

* :func:`temperature_panel`: the query temperature τ(p) of Llama 4, Ministral 3 / Mistral Small 4, Mistral Large 4
  (learned, illustrative), SSMax and YaRN's constant factor, one control per law.

``draw_temperature`` draws on a new pyplot figure by default (the notebook's static cell) or on the ``fig`` it is
given (the panel's one kept figure, :func:`helpers.widgets._common.panel`), through :class:`TemperatureView` wrapping
:class:`helpers.plots.position_2026.TemperatureLaws`.
"""

from __future__ import annotations

from helpers.i18n import _
from helpers.plots import position_2026 as plots_2026
from helpers.widgets._common import Layout, View, float_slider, panel, view_on

TEMPERATURE_LAYOUT = Layout((7.0, 3.6), left=0.1, bottom=0.14, right=0.93, top=0.9)

#: The panel's defaults: the released constants (Llama 4 α = 0.1, Ministral 3 β = 0.1, Ministral 3's YaRN s = 16),
#: and illustrative values where the released ones are learned (Mistral Large 4's a; SSMax's s = 0.11, about
#: 1/ln 8,192, so that τ = 1 near p = 8,192).
DEFAULTS = {"llama4_alpha": 0.1, "ministral_beta": 0.1, "large4_scale": 0.05, "ssmax_s": 0.11, "yarn_factor": 16.0}


class TemperatureView(View):
    layout = TEMPERATURE_LAYOUT

    def setup(self, ax):
        self.drawing = plots_2026.TemperatureLaws(ax)

    def moving_artists(self):
        return self.drawing.moving_artists()

    def update(self, **controls):
        return self.drawing.update(**controls)


def draw_temperature(
    llama4_alpha: float = DEFAULTS["llama4_alpha"],
    ministral_beta: float = DEFAULTS["ministral_beta"],
    large4_scale: float = DEFAULTS["large4_scale"],
    ssmax_s: float = DEFAULTS["ssmax_s"],
    yarn_factor: float = DEFAULTS["yarn_factor"],
    *,
    fig=None,
):
    """The five laws' τ(p) for p = 1 … 2^20; returns {law key: τ} (:func:`plots_2026.temperature_curves`)."""
    return view_on(TemperatureView, fig).update(
        llama4_alpha=llama4_alpha,
        ministral_beta=ministral_beta,
        large4_scale=large4_scale,
        ssmax_s=ssmax_s,
        yarn_factor=yarn_factor,
    )


def temperature_panel():
    """Sliders: Llama 4's α, Ministral 3's β, Mistral Large 4's slope a, SSMax's s, YaRN's factor s."""
    controls = {
        "llama4_alpha": float_slider("Llama 4 α (attn_scale)", DEFAULTS["llama4_alpha"], 0.01, 0.3, 0.01),
        "ministral_beta": float_slider("Ministral 3 β", DEFAULTS["ministral_beta"], 0.01, 0.3, 0.01),
        "large4_scale": float_slider(_("Mistral Large 4 slope a"), DEFAULTS["large4_scale"], 0.0, 0.15, 0.01),
        "ssmax_s": float_slider("SSMax s", DEFAULTS["ssmax_s"], 0.02, 0.2, 0.01),
        "yarn_factor": float_slider(_("YaRN factor s"), DEFAULTS["yarn_factor"], 1.0, 64.0, 1.0, fmt=".0f"),
    }
    return panel(draw_temperature, controls, layout=TEMPERATURE_LAYOUT, columns=2)
