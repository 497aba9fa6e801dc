"""helpers.axial_rope against HF 5.24's ``axial`` rope type (Qwen3.5's vision rotary embedding), and its geometry:
row and column steps change the score alike; the score depends on (Δh, Δw) only."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from helpers.axial_rope import axial_angles, axial_grid_scores, axial_inv_freq, axial_position_ids


def _hf_vision_rotary():
    from transformers.models.qwen3_5.configuration_qwen3_5 import Qwen3_5VisionConfig
    from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5VisionRotaryEmbedding

    config = Qwen3_5VisionConfig()
    return config, Qwen3_5VisionRotaryEmbedding(config)


def test_inv_freq_and_cos_sin_equal_hf_qwen3_5_vision_rotary():
    config, rotary = _hf_vision_rotary()
    assert config.rope_parameters["rope_type"] == "axial"
    head_dim = config.hidden_size // config.num_heads  # 72
    base = config.rope_parameters["rope_theta"]
    theta = axial_inv_freq(head_dim, base)  # (18,)
    np.testing.assert_allclose(theta, rotary.inv_freq.double().numpy(), rtol=1e-6)
    ids = axial_position_ids(5, 7)  # (2, 35)
    with torch.no_grad():
        cos, sin = rotary(torch.zeros(1), torch.from_numpy(ids.T))  # HF takes ids (N, 2); cos, sin (35, D)
    angles = axial_angles(ids, theta)  # (35, D/2)
    full = np.concatenate([angles, angles], axis=1)  # (35, D): HF's cat([freq_hw, freq_hw])
    np.testing.assert_allclose(cos.double().numpy(), np.cos(full), atol=2e-6)
    np.testing.assert_allclose(sin.double().numpy(), np.sin(full), atol=2e-6)


def test_position_ids_are_row_major_rows_then_columns_as_hf_without_merging():
    from transformers.vision_utils import get_vision_position_ids

    assert axial_position_ids(2, 3).tolist() == [[0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]]
    hf = get_vision_position_ids(torch.tensor([[1, 4, 6]]), 1)  # (24, 2): (h, w) per patch, merge size 1
    assert hf.T.tolist() == axial_position_ids(4, 6).tolist()


def test_a_row_step_and_a_column_step_change_the_score_alike():
    scores = axial_grid_scores(9, 9, axial_inv_freq(64, 100.0))  # (9, 9), query at the centre (4, 4)
    assert scores[4, 4] == pytest.approx(1.0)
    np.testing.assert_allclose(scores, scores.T, atol=1e-12)  # symmetric in rows and columns
    np.testing.assert_allclose(scores[3, 4], scores[4, 5], atol=1e-12)


def test_score_depends_only_on_the_offset():
    theta = axial_inv_freq(32, 10000.0)
    a = axial_grid_scores(6, 6, theta, query=(1, 2))
    b = axial_grid_scores(6, 6, theta, query=(2, 3))
    np.testing.assert_allclose(a[:5, :5], b[1:, 1:], atol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: axial_inv_freq(70), "multiple of 4"),
        (lambda: axial_inv_freq(64, base=0.5), "base"),
        (lambda: axial_position_ids(0, 3), "height"),
        (lambda: axial_angles(np.zeros((3, 4), dtype=np.int64), axial_inv_freq(8)), "position_ids"),
        (lambda: axial_grid_scores(4, 4, axial_inv_freq(8), query=(4, 0)), "query must be a patch"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
