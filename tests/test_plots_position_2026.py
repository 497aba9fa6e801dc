"""Notebook 09's figures and panel: the temperature panel (same checks as ``tests/test_panels.py``: one redraw per
move, equal to a fresh draw, text inside the figure at the extremes), the five laws' curves equal helpers.temperature,
and the static figures draw without error and state their numbers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from _figure_checks import assert_text_inside, moved_value, panel_controls  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from helpers.axial_rope import axial_grid_scores, axial_inv_freq  # noqa: E402
from helpers.plots import position_2026 as P  # noqa: E402
from helpers.temperature import llama_4_scaling_temperature, yarn_logit_factor  # noqa: E402
from helpers.widgets import _common as C  # noqa: E402
from helpers.widgets import position_2026 as W  # noqa: E402

KEYWORDS = {
    "Llama 4 α (attn_scale)": "llama4_alpha",
    "Ministral 3 β": "ministral_beta",
    "Mistral Large 4 slope a": "large4_scale",
    "SSMax s": "ssmax_s",
    "YaRN factor s": "yarn_factor",
}


def _fresh(values):
    fig = Figure(figsize=W.TEMPERATURE_LAYOUT.figsize, dpi=C.DPI)
    FigureCanvasAgg(fig)
    W.draw_temperature(**values, fig=fig)
    return fig, C.png_bytes(fig)


def test_panel_redraws_once_per_move_and_equals_a_fresh_draw(shown):
    controls = panel_controls(W.temperature_panel())
    assert set(controls) == set(KEYWORDS)
    assert len(shown) == 1
    values = {KEYWORDS[d]: c.value for d, c in controls.items()}
    assert shown[0] == _fresh(values)[1]
    for round_ in range(2):
        for desc, control in controls.items():
            n = len(shown)
            control.value = moved_value(control)
            assert len(shown) == n + 1, desc
            assert round_ or shown[-1] != shown[-2], desc
    values = {KEYWORDS[d]: c.value for d, c in controls.items()}
    assert shown[-1] == _fresh(values)[1]


def test_text_stays_inside_at_every_extreme():
    controls = panel_controls(W.temperature_panel())
    values = {KEYWORDS[d]: c.value for d, c in controls.items()}
    assert_text_inside(_fresh(values)[0], ("09 temperature", values))
    for desc, control in controls.items():
        assert_text_inside(_fresh({**values, KEYWORDS[desc]: moved_value(control)})[0], ("09 temperature", desc))


def test_curves_are_the_package_laws():
    curves = W.draw_temperature()
    p = P.TEMPERATURE_POSITIONS
    np.testing.assert_array_equal(
        curves["ministral3"], llama_4_scaling_temperature(p, beta=0.1, original_max_position_embeddings=16384)
    )
    np.testing.assert_array_equal(curves["yarn"], yarn_logit_factor(p, factor=16.0))
    assert {8191, 8192, 16383, 16384}.issubset(set(p.tolist()))  # every step of the step laws is drawn exactly
    plt.close("all")


def test_static_figures_state_their_numbers():
    ax = P.plot_entropy_by_length([64, 128], {"none": np.array([[1.0, 2.0], [1.5, 2.5]])}, [4.1, 4.8], train_len=64)
    assert ax.get_xlabel().startswith("context length")
    scores = axial_grid_scores(9, 9, axial_inv_freq(64, 100.0))
    axes = P.plot_grid_scores({"axial": scores, "again": scores})
    assert "down 1:" in axes[0].get_title()
    ax = P.plot_copy_similarity([1, 10, 100], {"full": [0.9, 0.5, 0.1]})
    assert ax.get_ylabel().startswith("cosine")
    plt.close("all")


def test_bad_law_values_are_refused_by_name():
    with pytest.raises(ValueError, match="s must be"):
        W.draw_temperature(ssmax_s=0.0)
    plt.close("all")
