"""Attention: permutation equivariance without position, the causal mask, RoPE on q/k only."""

import math

import numpy as np
import torch

from helpers.attention import causal_mask, scaled_dot_product_attention, self_attention
from helpers.rope import Rotary
from helpers.sinusoidal import sinusoidal_table


def _w(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_matches_torch_sdpa_with_math_sqrt_scaling():
    q, k, v = _w(0, 2, 5, 8), _w(1, 2, 5, 8), _w(2, 2, 5, 3)
    for causal in (False, True):
        out, w = scaled_dot_product_attention(q, k, v, causal=causal)
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(out, ref)
        torch.testing.assert_close(w.sum(-1), torch.ones(2, 5, dtype=torch.float64))
    _, w = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(w, torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), -1))


def test_self_attention_without_position_is_permutation_equivariant():
    x, wq, wk, wv = _w(0, 3, 6), _w(1, 6, 4), _w(2, 6, 4), _w(3, 6, 4)
    perm = torch.tensor([2, 1, 0])  # 猫 吃 鱼 -> 鱼 吃 猫
    out, w = self_attention(x, wq, wk, wv)
    out_p, w_p = self_attention(x[perm], wq, wk, wv)
    torch.testing.assert_close(out_p, out[perm])
    torch.testing.assert_close(w_p, w[perm][:, perm])
    torch.testing.assert_close(out_p.mean(0), out.mean(0))


def test_causal_mask_and_position_break_the_symmetry():
    x, wq, wk, wv = _w(0, 3, 6), _w(1, 6, 4), _w(2, 6, 4), _w(3, 6, 4)
    perm = torch.tensor([2, 1, 0])
    out, _ = self_attention(x, wq, wk, wv, causal=True)
    out_p, _ = self_attention(x[perm], wq, wk, wv, causal=True)
    assert not torch.allclose(out_p.mean(0), out.mean(0))
    pe = sinusoidal_table(3, 6)
    out, _ = self_attention(x, wq, wk, wv, positional=pe)
    out_p, _ = self_attention(x[perm], wq, wk, wv, positional=pe)
    assert not torch.allclose(out_p.mean(0), out.mean(0))
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_rope_rotates_q_and_k_but_not_v():
    x, wq, wk, wv = _w(0, 4, 8), _w(1, 8, 8), _w(2, 8, 8), _w(3, 8, 8)
    rot = Rotary(8)
    out, w = self_attention(x, wq, wk, wv, positional=rot)
    q, k, v = rot(x @ wq), rot(x @ wk), x @ wv
    ref_w = torch.softmax(q @ k.T / math.sqrt(8), -1)
    torch.testing.assert_close(w, ref_w)
    torch.testing.assert_close(out, ref_w @ v)  # v enters unrotated


def test_attention_factor_scales_logits_by_its_square():
    x, wq, wk, wv = _w(0, 4, 8), _w(1, 8, 8), _w(2, 8, 8), _w(3, 8, 8)
    a = 1.2079
    _, w = self_attention(x, wq, wk, wv, positional=Rotary(8, attention_factor=a))
    q, k = Rotary(8)(x @ wq), Rotary(8)(x @ wk)
    torch.testing.assert_close(w, torch.softmax(q @ k.T * a**2 / math.sqrt(8), -1))
    assert np.isclose(a**2, 1.459, atol=1e-3)
