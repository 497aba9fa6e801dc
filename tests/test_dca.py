"""Dual Chunk Attention (helpers.dca, helpers.lab.dual_chunk, helpers.plots.remap): the remapped positions against a
hand computation and against vLLM's tables, the attention against a pair-by-pair rotation, the lab's model path."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from helpers import dca
from helpers.plots import remap as remap_plots
from helpers.rope import apply_rope, rope_inv_freq

# --------------------------------------------------------------------------- hand computation
# S = 6, W = 2, c = 4. Query m = 7 (chunk 1, a = 3): keys 4..7 are in its chunk (r = m − n); keys 0..3 are in the
# previous chunk, its query sits at min(3 + 4, 6) = 6, so r = 6 − n: 6, 5, 4, 3 (true distances 7, 6, 5, 4).
# Query m = 9 (chunk 2, a = 1): keys 8, 9 intra (1, 0); keys 4..7 successive: min(1 + 4, 6) − (n mod 4) = 5 − b:
# 5, 4, 3, 2 (true distances 5, 4, 3, 2: a = 1 <= W, so exact); keys 0..3 inter: min(2·4 − 1, 6) − b = 6 − b.
HAND_ROW_7 = [6, 5, 4, 3, 3, 2, 1, 0]
HAND_ROW_9 = [6, 5, 4, 3, 5, 4, 3, 2, 1, 0]


def test_relative_positions_match_a_hand_computation():
    r = dca.dca_relative_positions(12, 6, 2)  # (T, T)
    assert r[7, :8].tolist() == HAND_ROW_7
    assert r[9, :10].tolist() == HAND_ROW_9
    assert (r[np.triu_indices(12, 1)] == -1).all()  # future keys
    assert dca.dca_relations(12, 6, 2)[9, :10].tolist() == [2, 2, 2, 2, 1, 1, 1, 1, 0, 0]


def test_qwen_1m_config_by_hand():
    """Qwen2.5-7B/14B-Instruct-1M: chunk_size 262,144, local_size 8,192, so c = 253,952. Query 300,000 (chunk 1,
    a = 46,048), key 10 (chunk 0): successive, min(46,048 + 253,952, 262,144) − 10 = 262,134; key 253,000 in the same
    chunk as 10 gives 262,144 − 253,000 = 9,144. A query in chunk 2 (600,000, a = 92,096) sees key 10 at
    min(2c − 1, S) − 10 = 262,134."""
    s, w = 262_144, 8_192
    c = dca.dca_chunk_len(s, w)
    assert c == 253_952
    pos_q = dca.dca_query_positions(600_001, s, w)
    pos_k = dca.dca_key_positions(600_001, s, w)
    assert pos_q[dca.SUCCESSIVE][300_000] - pos_k[10] == 262_134
    assert pos_q[dca.SUCCESSIVE][300_000] - pos_k[253_000] == 9_144
    assert pos_q[dca.INTER][600_000] - pos_k[10] == 262_134


@pytest.mark.parametrize(("length", "chunk", "local"), [(12, 6, 2), (40, 8, 2), (64, 16, 0), (100, 16, 5), (64, 64, 2)])
def test_relative_positions_stay_within_the_chunk_size(length, chunk, local):
    r = dca.dca_relative_positions(length, chunk, local)
    causal = np.tril(np.ones((length, length), dtype=bool))
    assert r[causal].min() == 0 and r[causal].max() <= chunk
    true = np.arange(length)[:, None] - np.arange(length)[None, :]
    same_chunk = (np.arange(length)[:, None] // (chunk - local)) == (np.arange(length)[None, :] // (chunk - local))
    assert (r[causal & same_chunk] == true[causal & same_chunk]).all()  # intra-chunk: the true distance
    assert (r[causal] <= true[causal]).all()  # never farther than the truth


# --------------------------------------------------------------------------- against vLLM
def _vllm_relative(length: int, chunk_size: int, local_size: int) -> np.ndarray:
    """r(m, n) re-derived from vLLM (Apache-2.0), written from how its code reads, not copied:
    ``DualChunkRotaryEmbedding._compute_cos_sin_cache`` builds the position tables q_t = 0..c−1,
    qc_t = min(q_t + c, chunk_size), k_t = t mod c; ``forward_native`` rotates the key at k_t[pos], the query at
    q_t[pos mod c], query_succ at qc_t[pos mod c], query_inter at qc_t[c − 1] for every token;
    ``DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill_func`` walks the queries chunk by chunk
    (prev_chunk_end_pos = ⌊begin/c⌋·c) and scores query with the keys [prev_chunk_end_pos, end) causally,
    query_succ with [prev_chunk_end_pos − c, prev_chunk_end_pos) and query_inter with [0, prev_chunk_end_pos − c)."""
    c = chunk_size - local_size
    q_t = np.arange(c)
    qc_t = np.minimum(np.arange(c) + c, chunk_size)
    k_pos = np.arange(length) % c
    r = np.full((length, length), -1)
    for begin in range(0, length, c):
        prev = (begin // c) * c
        end = min(prev + c, length)
        for m in range(begin, end):
            for n in range(prev, m + 1):
                r[m, n] = q_t[m % c] - k_pos[n]
            if prev - c >= 0:
                for n in range(prev - c, prev):
                    r[m, n] = qc_t[m % c] - k_pos[n]
            if prev - 2 * c >= 0:
                for n in range(0, prev - c):
                    r[m, n] = qc_t[c - 1] - k_pos[n]
    return r


@pytest.mark.parametrize(("length", "chunk", "local"), [(12, 6, 2), (50, 8, 2), (70, 16, 3), (256, 64, 2)])
def test_relative_positions_match_vllm(length, chunk, local):
    assert (dca.dca_relative_positions(length, chunk, local) == _vllm_relative(length, chunk, local)).all()


def test_logit_scale_is_vllms():
    """``DualChunkFlashAttentionMetadata.prefill_metadata``: (0.1·ln(len / original_max_position_embeddings) + 1)
    clipped at 1; 0 (not set) means no factor."""
    assert dca.dca_logit_scale(256, 64) == pytest.approx(0.1 * math.log(4) + 1)
    assert dca.dca_logit_scale(32, 64) == 1.0
    assert dca.dca_logit_scale(256, 0) == 1.0


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="local_size"):
        dca.dca_chunk_len(8, 4)
    with pytest.raises(ValueError, match="chunk_size"):
        dca.dca_chunk_len(1, 0)


# --------------------------------------------------------------------------- the attention
def _pairwise_attention(q, k, v, inv_freq, relative, scale):
    """Score of (m, n) = scale·(R(r(m, n))·k_n)·q_m/√d for n <= m, from RoPE's relative property, pair by pair."""
    t, d = q.shape[-2], q.shape[-1]
    scores = torch.full((t, t), float("-inf"), dtype=torch.float64)
    for m in range(t):
        for n in range(m + 1):
            angle = relative[m, n] * torch.as_tensor(inv_freq, dtype=torch.float64)  # (d/2,)
            k_rel = apply_rope(k[n : n + 1].double(), angle.cos()[None], -angle.sin()[None], layout="half_split")
            scores[m, n] = scale * (q[m].double() @ k_rel[0]) / math.sqrt(d)
    return torch.softmax(scores, -1) @ v.double()  # (T, d)


def test_attention_equals_pairwise_rotation_by_the_remapped_position():
    gen = torch.Generator().manual_seed(0)
    t, d, chunk, local = 20, 8, 6, 1
    q, k, v = (torch.randn(1, 1, t, d, generator=gen) for _ in range(3))
    inv_freq = rope_inv_freq(d, 100.0)
    out, weights = dca.dual_chunk_attention(
        q, k, v, inv_freq, chunk_size=chunk, local_size=local, original_max_position_embeddings=8
    )
    expected = _pairwise_attention(
        q[0, 0], k[0, 0], v[0, 0], inv_freq, dca.dca_relative_positions(t, chunk, local), dca.dca_logit_scale(t, 8)
    )
    torch.testing.assert_close(out[0, 0].double(), expected, atol=1e-5, rtol=1e-5)
    assert torch.allclose(weights.sum(-1), torch.ones(1, 1, t))
    assert (weights[0, 0].triu(1) == 0).all()


def test_attention_at_some_queries_equals_the_full_one():
    gen = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 2, 30, 8, generator=gen) for _ in range(3))
    inv_freq = rope_inv_freq(8, 100.0)
    full, _ = dca.dual_chunk_attention(q, k, v, inv_freq, chunk_size=8, local_size=2)
    at = torch.tensor([[0, 13, 29], [5, 6, 28]])
    part, _ = dca.dual_chunk_attention(q, k, v, inv_freq, chunk_size=8, local_size=2, query_at=at)
    torch.testing.assert_close(part, full.gather(2, at[:, None, :, None].expand(2, 2, 3, 8)))


# --------------------------------------------------------------------------- the lab's path
def test_lab_model_with_dca_is_plain_rope_at_L_and_refuses_other_options():
    from helpers.lab import load_model
    from helpers.lab.data import lm_batch
    from helpers.lab.dual_chunk import lab_dual_chunk_config

    model = load_model("rope", 0)
    config = lab_dual_chunk_config(model.train_len)
    assert config == {"chunk_size": 64, "local_size": 2, "original_max_position_embeddings": 64}
    tokens, _ = lm_batch(2, model.train_len, (0, 1))
    with torch.inference_mode():
        torch.testing.assert_close(model(tokens, dual_chunk_attention_config=config), model(tokens), atol=1e-4, rtol=0)
        with pytest.raises(ValueError, match="plain RoPE"):
            model(tokens, dual_chunk_attention_config=config, rope_scaling={"rope_type": "linear", "factor": 2.0})
        with pytest.raises(ValueError, match="exactly the keys"):
            model(tokens, dual_chunk_attention_config={"chunk_size": 64})
        with pytest.raises(TypeError, match="RopeRotation"):
            load_model("nope", 0)(tokens, dual_chunk_attention_config=config)


# --------------------------------------------------------------------------- the figures
def test_plots_draw_labelled_axes_and_refuse_a_bad_matrix():
    r = dca.dca_relative_positions(24, 8, 2)
    fig, (a, b) = plt.subplots(1, 2)
    assert remap_plots.plot_remapped_positions(r, chunk_len=dca.dca_chunk_len(8, 2), ax=a) is a
    assert a.get_xlabel() == "key position n" and a.get_ylabel() == "query position m"
    assert remap_plots.plot_remapped_distance(r, max_distance=8, ax=b) is b
    assert b.get_xlabel() == "true distance m − n"
    with pytest.raises(ValueError, match="square"):
        remap_plots.plot_remapped_positions(np.zeros((2, 3)))
    plt.close("all")
