"""helpers.rope_values: RoPE on the values (DeepSeek-V4, RoPER). The output depends only on j − i (hypothesis),
the two computations agree, and the two-step one equals HF 5.24's DeepSeek-V4 rotate / un-rotate on the rotary slice."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.rope import rope_inv_freq
from helpers.rope_values import relative_value_output, rope_value_output, rotated_copy_similarity

THETA = rope_inv_freq(8, 10000.0)  # (4,)


def _random(seed: int, t: int, d: int = 12):
    gen = torch.Generator().manual_seed(seed)
    w = torch.softmax(torch.randn(2, t, t, generator=gen, dtype=torch.float64), -1)  # (H=2, T, T)
    v = torch.randn(2, t, d, generator=gen, dtype=torch.float64)  # (2, T, D)
    return w, v


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 10_000),
    st.lists(st.integers(0, 5000), min_size=2, max_size=6),
    st.integers(0, 10**6),
    st.sampled_from(["interleaved", "half_split"]),
)
def test_output_depends_only_on_relative_positions(seed, positions, shift, layout):
    """Shifting every position by the same amount leaves every output unchanged, and the two-step computation
    equals the one written with the relative angles (p_j − p_i)·θ."""
    w, v = _random(seed, len(positions))
    pos = np.array(positions)
    out = rope_value_output(w, v, pos, THETA, rotary_dim=8, layout=layout)  # (2, T, 12)
    shifted = rope_value_output(w, v, pos + shift, THETA, rotary_dim=8, layout=layout)
    torch.testing.assert_close(shifted, out, atol=1e-8, rtol=1e-8)
    torch.testing.assert_close(relative_value_output(w, v, pos, THETA, rotary_dim=8, layout=layout), out)


def test_unrotated_dimensions_are_plain_attention():
    w, v = _random(1, 5)
    out = rope_value_output(w, v, np.arange(5), THETA, rotary_dim=8)
    torch.testing.assert_close(out[..., 8:], w @ v[..., 8:])


def test_equals_hf_deepseek_v4_rotate_and_unrotate():
    from transformers.models.deepseek_v4.modeling_deepseek_v4 import apply_rotary_pos_emb

    w, v = _random(2, 6, d=8)
    pos = np.array([0, 3, 4, 10, 11, 40])
    angles = torch.from_numpy(np.outer(pos, THETA))  # (T, 4): HF's half-sized interleaved cos/sin
    cos, sin = angles.cos()[None], angles.sin()[None]  # (1, T, 4)
    kv = apply_rotary_pos_emb(v[None], cos, sin)  # (1, H, T, 8): V rotated by its position (K = V)
    o = w[None] @ kv  # (1, H, T, 8)
    hf = apply_rotary_pos_emb(o.transpose(1, 2), cos, -sin, unsqueeze_dim=2).transpose(1, 2)[0]  # (H, T, 8)
    torch.testing.assert_close(rope_value_output(w, v, pos, THETA, layout="interleaved"), hf)


def test_copy_head_receives_the_value_rotated_by_minus_the_distance():
    w = torch.zeros(1, 4, 4, dtype=torch.float64)
    w[0, 3, 1] = 1.0  # query 3 copies token 1 (distance 2)
    w[0, :3, 0] = 1.0
    _, v = _random(3, 4, d=8)
    out = rope_value_output(w, v, np.arange(4), THETA)[0, 3]  # (8,)
    ang = torch.from_numpy(-2 * THETA)
    x, y = v[0, 1, 0::2], v[0, 1, 1::2]
    expected = torch.stack([x * ang.cos() - y * ang.sin(), x * ang.sin() + y * ang.cos()], -1).flatten()
    torch.testing.assert_close(out, expected)


def test_rotated_copy_similarity_matches_a_sampled_mean():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(20000, 8))
    d = 3
    w = torch.zeros(1, d + 1, d + 1, dtype=torch.float64)
    w[0, :, 0] = 1.0  # every query copies token 0
    vv = torch.from_numpy(v)[:, None, :].expand(-1, d + 1, -1).clone()  # (N, T, 8)
    out = rope_value_output(w.expand(v.shape[0], -1, -1), vv, np.arange(d + 1), THETA)[:, d]  # (N, 8)
    cos = (out * vv[:, 0]).sum(-1) / (vv[:, 0] ** 2).sum(-1)
    assert abs(float(cos.mean()) - rotated_copy_similarity([d], THETA)[0]) < 0.01
    np.testing.assert_allclose(rotated_copy_similarity([0], THETA, head_dim=16), [1.0])
    np.testing.assert_allclose(rotated_copy_similarity([10**6], np.full(4, 0.0) + [1, 0, 0, 0], head_dim=8)[0],
                               2 * (np.cos(1e6) + 3) / 8)  # fmt: skip


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rope_value_output(torch.ones(3, 3), torch.ones(4, 8), np.arange(4), THETA), "weights must be"),
        (lambda: rope_value_output(torch.ones(4, 4), torch.ones(4, 8), np.arange(3), THETA), "positions must have"),
        (lambda: rope_value_output(torch.ones(4, 4), torch.ones(4, 6), np.arange(4), THETA), "rotary_dim"),
        (lambda: rope_value_output(torch.ones(4, 4), torch.ones(4, 8), np.arange(4), THETA, layout="x"), "layout"),
        (lambda: rope_value_output(torch.ones(4, 4), torch.ones(4, 8), [-1, 0, 1, 2], THETA), "positions must be"),
        (lambda: rotated_copy_similarity(2, THETA, head_dim=4), "head_dim"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
