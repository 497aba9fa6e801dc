"""helpers.real.gemma3_tables: the shipped Gemma 3 measurements read back (method keys, attention shares, loss
curves and summaries, passkey counts), on stand-in results whose answers are known, and on the shipped file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from helpers.real import gemma3_tables as T
from helpers.real.gemma3_measure import RESULTS_FILE


def _loss_run(method, layers, blocks, n_losses, *, block=4, finished=True):
    r = {"kind": "loss", "n_tokens": n_losses + 1, "method": method, "block": block, "loss_blocks": blocks,
         "n_losses": n_losses, "mean_inside": 1.0, "mean_outside": 2.0, "mean_last_1k": 3.0}  # fmt: skip
    if method != "default":
        r |= {"layers": layers, "factor": 2.0}
    if finished:
        r["finished_at"] = "2026-01-01T00:00:00Z"
    return r


def _passkey(method, layers, n, correct, digits, depth):
    r = {"kind": "passkey", "n_tokens": n, "method": method, "correct": correct, "digits_correct": digits,
         "depth": depth, "finished_at": "x"}  # fmt: skip
    if method != "default":
        r["layers"] = layers
    return r


def test_method_keys_and_labels_cover_the_plan():
    from helpers.real.gemma3_measure import measure_plan

    plan = measure_plan(context_length=32768, parts=("loss",), loss_lengths=(64,))
    assert [T.method_key(s) for s in plan] == list(T.METHOD_KEYS)
    assert set(T.METHOD_LABELS) == set(T.METHOD_STYLES) == set(T.METHOD_KEYS)


def test_loss_curves_average_blocks_weighted_by_their_positions():
    # 10 losses in blocks of 4: [4, 4, 2] positions, means 1, 2, 4
    res = {"runs": [_loss_run("yarn", "global", [1.0, 2.0, 4.0], 10), _loss_run("default", None, [1.0, 1.0, 1.0], 10)]}
    curves = T.loss_curves(res, 11)
    assert list(curves) == ["default", "yarn/global"]  # METHOD_KEYS order, not file order
    x, y = curves["yarn/global"]
    np.testing.assert_allclose(x, [1.5, 5.5, 8.5])
    np.testing.assert_allclose(y, [1.0, 2.0, 4.0])
    x, y = T.loss_curves(res, 11, smooth=2)["yarn/global"]
    np.testing.assert_allclose(x, [3.5, 8.5])
    np.testing.assert_allclose(y, [1.5, 4.0])  # (4·1 + 4·2)/8, then the short block alone
    x, y = T.loss_curves(res, 11, smooth=5)["yarn/global"]
    np.testing.assert_allclose(y, [(4 * 1 + 4 * 2 + 2 * 4) / 10])
    assert T.loss_curves(res, 12) == {}
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ValueError, match=r"smooth must be an int >= 1 \(blocks averaged\), got"):
            T.loss_curves(res, 11, smooth=bad)


def test_unfinished_runs_are_left_out_and_summaries_keep_the_stored_means():
    res = {"runs": [_loss_run("default", None, [1.0], 4), _loss_run("linear", "all", [1.0], 4, finished=False)]}
    assert list(T.loss_curves(res, 5)) == ["default"]
    assert T.loss_summary(res, 5, context_length=2) == {
        "default": {"inside": 1.0, "outside": 2.0, "last_1k": 3.0, "factor": None}
    }
    with pytest.raises(ValueError, match="mean_outside present although the run does not pass L"):
        T.loss_summary(res, 5, context_length=8)
    with pytest.raises(ValueError, match="kind must be one of 'attention', 'loss', 'passkey', got 'losses'"):
        T.runs_of(res, "losses")


def test_passkey_counts():
    res = {"runs": [_passkey("yarn", "global", 40960, True, 5, 0.5), _passkey("default", None, 40960, False, 2, 0.1),
                    _passkey("default", None, 40960, True, 5, 0.5), _passkey("default", None, 4096, True, 5, 0.9)]}  # fmt: skip
    got = T.passkey_counts(res)
    assert list(got) == [("default", 4096), ("default", 40960), ("yarn/global", 40960)]
    assert got[("default", 40960)] == {"exact": 1, "trials": 2, "digits": 7, "depths": [0.1, 0.5]}


def test_attention_share_beyond():
    layer = {"mass": [0.1, 0.2, 0.3, 0.4], "mass_without_bos": [0.1, 0.2, 0.25, 0.05]}
    edges = [0, 1, 2, 4, 8]
    assert T.attention_share_beyond(edges, layer, 2) == pytest.approx(0.7)
    assert T.attention_share_beyond(edges, layer, 2, without_bos=True) == pytest.approx(0.3)
    with pytest.raises(ValueError, match=r"distance must be one of the bucket edges \[0, 1, 2, 4\], got 3"):
        T.attention_share_beyond(edges, layer, 3)


def test_the_shipped_file_reads_back():
    res = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    edges, layers = T.attention_layers(res, 4096)
    assert len(layers) == 18 and edges[0] == 0 and edges[-1] == 4096
    for i, layer in enumerate(layers):
        assert np.sum(layer["mass"]) == pytest.approx(1.0, abs=1e-4)
        beyond = T.attention_share_beyond(edges, layer, 512)
        assert (beyond == 0.0) == (layer["type"] == "sliding_attention"), i  # a local layer sees < 512 tokens back
    curves = T.loss_curves(res, 8192)
    assert "default" in curves and curves["default"][1].size == 32
    for (key, n), c in T.passkey_counts(res).items():
        assert key in T.METHOD_KEYS and 0 <= c["exact"] <= c["trials"] and c["digits"] <= 5 * c["trials"], (key, n)
