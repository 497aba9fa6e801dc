"""Notebook 08's figures and the small maths they draw: M-RoPE grid scores equal rotating with ``mrope_cos_sin``
(itself checked against HF); StreamingLLM's cache positions; the gallery's per-layer share of slow pairs; every
drawing class and panel of :mod:`helpers.widgets.modern` (same checks as ``tests/test_panels.py``)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from _figure_checks import assert_text_inside  # noqa: E402

from helpers.model_configs import layer_table, slow_pair_share  # noqa: E402
from helpers.model_gallery import GALLERY  # noqa: E402
from helpers.mrope import mrope_cos_sin, mrope_grid_scores, mrope_position_ids  # noqa: E402
from helpers.plots import modern as P  # noqa: E402
from helpers.rope import apply_rope, rope_inv_freq  # noqa: E402
from helpers.sinks import streaming_cache  # noqa: E402
from helpers.widgets import modern as WM  # noqa: E402


@pytest.mark.parametrize(("section", "interleaved"), [([16, 24, 24], False), ([24, 20, 20], True), ([8, 4, 4], False)])
def test_grid_scores_equal_rotating_unit_pairs(section, interleaved):
    dim = 2 * sum(section)
    theta = rope_inv_freq(dim, 1e4)
    ids = mrope_position_ids([("image", (1, 8, 12))])  # a 4 x 6 merged grid
    cos, sin = mrope_cos_sin(ids, theta, section, interleaved=interleaved, dtype=torch.float64)  # (24, D)
    x = torch.zeros(24, dim, dtype=torch.float64)
    x[:, : dim // 2] = 1.0  # every half-split pair (x_i, x_{i+D/2}) = (1, 0)
    rot = apply_rope(x, cos[:, : dim // 2], sin[:, : dim // 2], layout="half_split")  # (24, D)
    q = rot[2 * 6 + 3]  # the query at row 2, column 3
    want = (rot @ q / (dim // 2)).reshape(4, 6).numpy()
    got = mrope_grid_scores(4, 6, theta, section, interleaved=interleaved, query=(2, 3))
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert got[2, 3] == pytest.approx(1.0)


def test_grid_scores_bad_query():
    with pytest.raises(ValueError, match=r"query must be a \(row, col\) inside the 4 x 6 grid"):
        mrope_grid_scores(4, 6, rope_inv_freq(16, 1e4), [2, 3, 3], query=(4, 0))


def test_streaming_cache_keeps_sinks_and_window_and_reindexes():
    kept, pos = streaming_cache(10, n_sink=2, window=3)
    assert kept.tolist() == [0, 1, 7, 8, 9] and pos.tolist() == [0, 1, 2, 3, 4]
    kept, pos = streaming_cache(4, n_sink=2, window=3)
    assert kept.tolist() == [0, 1, 2, 3] and pos.tolist() == [0, 1, 2, 3]
    kept, pos = streaming_cache(10**6, window=1020)
    assert kept.size == 1024 and kept[:4].tolist() == [0, 1, 2, 3] and kept[4] == 10**6 - 1020 and pos[-1] == 1023
    with pytest.raises(ValueError, match="window must be an integer >= 1, got 0"):
        streaming_cache(5, window=0)


def test_slow_pair_share_follows_the_layer_table():
    for name, entry in GALLERY.items():
        share = slow_pair_share(entry["config"], entry["context_length"])
        rows = layer_table(entry["config"], entry["context_length"])
        assert share.shape == (len(rows),), name
        for r in rows:
            assert np.isnan(share[r.layer]) == (not r.rotates), name
    g = GALLERY["Gemma 3 270M"]
    share = slow_pair_share(g["config"], g["context_length"])
    assert share[0] == 66 / 128 and share[5] == 48 / 128


def test_mrope_sections():
    assert (
        P.mrope_sections(16) == [16, 24, 24]
        and P.mrope_sections(24) == [24, 20, 20]
        and P.mrope_sections(6, 8) == [6, 1, 1]
    )
    with pytest.raises(ValueError, match="temporal_slots must be an integer in"):
        P.mrope_sections(65)


def test_drawings_state_their_numbers():
    assert "64 of 256 pairs rotate" in WM.draw_fraction().get_title()
    assert "sliding 66 of 128 (within W), full 48" in WM.draw_bases().get_title()
    _, grid_ax = WM.draw_mrope()
    assert "one step down" in grid_ax.get_title()
    assert "keys get" in WM.draw_sink().get_title()
    plt.close("all")


def test_sink_weights_lose_what_the_sink_takes():
    w, plain = WM.sink_weights(2.0)
    e = np.exp(WM.SINK_SCORES)
    assert w.sum() == pytest.approx(e.sum() / (e.sum() + np.exp(2.0)))
    np.testing.assert_allclose(w / w.sum(), plain, rtol=1e-12)  # the keys keep their proportions


def test_gallery_and_temperature_figures():
    tables = {n: layer_table(e["config"], e["context_length"]) for n, e in GALLERY.items()}
    shares = {n: slow_pair_share(e["config"], e["context_length"]) for n, e in GALLERY.items()}
    left, right = P.plot_gallery(tables, shares, context={n: e["context_length"] for n, e in GALLERY.items()})
    assert len(left.get_yticklabels()) == len(GALLERY) and left.patches and right.patches
    fig = left.figure
    fig.canvas.draw()
    assert_text_inside(fig)
    m = np.arange(0, 40000, 100)
    ax = P.plot_query_temperature(m, 1 + 0.1 * np.log1p(np.floor((m + 1) / 8192)), floor_scale=8192, attn_scale=0.1)
    assert ax.get_lines()
    plt.close("all")
