"""Attention: permutation equivariance without position, the causal mask, RoPE on q/k only."""

import math

import numpy as np
import pytest
import torch

from helpers import attention
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


CAT_EATS_FISH = ("猫", "吃", "鱼")
FISH_EATS_CAT = ("鱼", "吃", "猫")


def _np_attention(x, w_q, w_k, w_v, *, causal=False):
    """An independent NumPy attention head: softmax(x W_Q (x W_K)^T / sqrt(d_k)) x W_V."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    s = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    return a @ v, a


# ---------------------------------------------------------------------------------------------------------------
# Notebook 01's toy head and the chapter's d = 512 example, against independent computations


def test_toy_head_is_the_documented_draw_order():
    gen = torch.Generator().manual_seed(3)
    table = torch.randn(len(attention.TOKENS), 6, generator=gen, dtype=torch.float64)
    w = [torch.randn(6, 4, generator=gen, dtype=torch.float64) / math.sqrt(6) for _ in range(3)]
    head = attention.toy_head(6, 4, seed=3)
    for i, token in enumerate(attention.TOKENS):
        assert torch.equal(head.embeddings[token], table[i])
    for got, want in zip((head.w_q, head.w_k, head.w_v), w, strict=True):
        assert torch.equal(got, want)
    scaled = attention.toy_head(6, 4, seed=3, weight_scale=2.0)
    torch.testing.assert_close(scaled.w_v, w[2] * math.sqrt(6) * 2.0)
    with pytest.raises(ValueError, match="tokens must come from"):
        head.embed(["狗"])


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("position", ["none", "sinusoidal"])
def test_attend_matches_numpy(position, causal):
    head = attention.toy_head()
    x = head.embed(FISH_EATS_CAT).numpy()
    if position == "sinusoidal":
        x = x + sinusoidal_table(3, x.shape[1])
    want_out, want_w = _np_attention(x, head.w_q.numpy(), head.w_k.numpy(), head.w_v.numpy(), causal=causal)
    out, w = attention.attend(head, FISH_EATS_CAT, position=position, causal=causal)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-10)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-10, atol=1e-15)


def test_attend_equivariance_only_without_position_and_mask():
    head = attention.toy_head()
    p = attention.permutation_matrix([2, 1, 0])
    for position in attention.POSITION_METHODS:
        for causal in (False, True):
            out_a, _ = attention.attend(head, CAT_EATS_FISH, position=position, causal=causal)
            out_b, _ = attention.attend(head, FISH_EATS_CAT, position=position, causal=causal)
            blind = position == "none" and not causal
            assert torch.allclose(out_b, p @ out_a, atol=1e-12) == blind
            assert torch.allclose(out_a.mean(0), out_b.mean(0), atol=1e-12) == blind
    with pytest.raises(ValueError, match="position must be one of"):
        attention.attend(head, CAT_EATS_FISH, position="alibi")


def test_rope_option_rotates_q_and_k_only():
    head = attention.toy_head()
    x = head.embed(CAT_EATS_FISH)
    q, k, v = x @ head.w_q, x @ head.w_k, x @ head.w_v

    def rotate(z):  # interleaved RoPE written out: pair i of position m turned by m * 10000^(-2i/d)
        d = z.shape[-1]
        theta = 10000.0 ** (-np.arange(0, d, 2) / d)
        out = z.numpy().copy()
        for m in range(z.shape[0]):
            c, s = np.cos(m * theta), np.sin(m * theta)
            a, b = out[m, 0::2].copy(), out[m, 1::2].copy()
            out[m, 0::2], out[m, 1::2] = a * c - b * s, a * s + b * c
        return out

    qr, kr = rotate(q), rotate(k)
    s = qr @ kr.T / np.sqrt(q.shape[-1])
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    out, w = attention.attend(head, CAT_EATS_FISH, position="rope")
    np.testing.assert_allclose(w.numpy(), a, rtol=1e-12)  # Rotary keeps float64 tables for float64 inputs
    np.testing.assert_allclose(out.numpy(), a @ v.numpy(), rtol=1e-12, atol=1e-15)


def test_reference_order():
    assert attention.reference_order(("鱼", "猫", "吃")) == CAT_EATS_FISH
    assert attention.reference_order(("小红", "打了", "小明")) == ("小明", "打了", "小红")
    with pytest.raises(ValueError, match="reordering"):
        attention.reference_order(("猫", "猫", "鱼"))


def test_permutation_matrix_matches_fancy_indexing():
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.normal(size=(5, 3)))
    order = [3, 0, 4, 1, 2]
    p = attention.permutation_matrix(order)
    torch.testing.assert_close(p @ x, x[order])
    torch.testing.assert_close(p.T @ p, torch.eye(5, dtype=torch.float64))
    with pytest.raises(ValueError, match="permutation"):
        attention.permutation_matrix([0, 0, 1])


def test_row_entropy_matches_a_loop():
    rng = np.random.default_rng(1)
    a = rng.random((4, 6))
    a[0, :3] = 0.0
    a /= a.sum(-1, keepdims=True)
    want = [-sum(p * math.log(p) for p in row if p > 0) for row in a]
    np.testing.assert_allclose(attention.row_entropy(torch.from_numpy(a)).numpy(), want, rtol=1e-12)
    assert attention.row_entropy(torch.eye(3)).tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(attention.row_entropy(torch.full((2, 8), 1 / 8)).numpy(), math.log(8), rtol=1e-6)


def test_chapter_projections_reproduce_the_chapter_code():
    # The chapter's precompute_rope_cache + apply_rope (interleaved, stack/flatten), written out independently.
    d, t = 16, 5
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(2, t, d, generator=gen)
    w_q, w_k, w_v = (torch.randn(d, d, generator=gen) for _ in range(3))
    theta = 10000 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    freqs = torch.outer(torch.arange(t, dtype=torch.float64), theta)
    cos, sin = freqs.cos().float(), freqs.sin().float()

    def apply_rope(z):
        z1, z2 = z[..., 0::2], z[..., 1::2]
        return torch.stack([z1 * cos - z2 * sin, z1 * sin + z2 * cos], dim=-1).flatten(-2)

    q, k, v = attention.chapter_projections(d_model=d, seq_len=t, batch=2, seed=4)
    torch.testing.assert_close(q, apply_rope(x @ w_q), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(k, apply_rope(x @ w_k), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(v, x @ w_v)


def test_chapter_weights_saturate_at_unit_scale_and_flatten_as_s_shrinks():
    w1 = attention.chapter_weights(1.0)
    assert w1.shape == (2, 10, 10)
    assert np.all(w1.max(-1) > 0.999)
    entropies = [
        attention.row_entropy(attention.chapter_weights(s)).mean().item() for s in (1.0, 0.1, 1 / math.sqrt(512), 0.01)
    ]
    assert all(a < b for a, b in zip(entropies, entropies[1:], strict=False))
    assert entropies[-1] == pytest.approx(math.log(10), abs=2e-3)  # s = 0.01, the slider minimum: uniform
    with pytest.raises(ValueError, match="weight_scale"):
        attention.chapter_weights(0.0)


@pytest.mark.parametrize("s", [1.0, 0.1, 1 / math.sqrt(512), 0.01])
def test_chapter_weights_match_the_attention_helper(s):
    # The slider's NumPy softmax of cached float64 logits against helpers.attention on the float32 projections.
    q, k, v = attention.chapter_projections()
    _, want = scaled_dot_product_attention(q * s, k * s, v)
    np.testing.assert_allclose(attention.chapter_weights(s), want.numpy(), rtol=1e-4, atol=1e-6)


def test_chapter_logits_scale_like_s_squared_d():
    logits = attention.chapter_logits()
    assert not logits.flags.writeable
    assert logits.std() == pytest.approx(512, rel=0.1)  # std of x·W ~ √d per entry: q·k/√d ~ d
    q, k, _ = attention.chapter_projections()
    np.testing.assert_allclose(logits, (q @ k.transpose(-2, -1)).numpy() / math.sqrt(512), rtol=1e-4, atol=1e-2)
