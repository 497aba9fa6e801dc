"""Gemma 3's attention by distance: how much weight a query puts on keys q − k tokens back, per layer.

For layer ℓ, head h, query t and key j ≤ t, the attention weight is

    a_ℓh(t, j) = softmax_j( q_t·k_j / sqrt(query_pre_attn_scalar) )   over the keys layer ℓ lets t see

(every j ≤ t in a global, full_attention layer; t − W < j ≤ t in a local, sliding_attention layer, W = 512).
With d = t − j, a log-spaced bucket B = [e_b, e_{b+1}) of distances (edges 0, 1, 2, 4, 8, ...) gets

    mean_weight(B) = Σ_{h, t, j: d ∈ B} a_ℓh(t, j) / (H · #{(t, j): j ≤ t, d ∈ B})   (the mean weight of one key)
    mass(B)        = Σ_{h, t, j: d ∈ B} a_ℓh(t, j) / (H · T)                        (the share of all weight; Σ_B = 1)

on T tokens of one text (#pairs at distance d is T − d). A local layer's weight beyond its window is zero by
construction: :func:`layer_attention_by_distance` computes the weights over *every* earlier key with the layer's
mask, checks that softmax gives exactly 0 at d ≥ W, and checks that Σ_j a(t, j) v_j equals the output the model
computed (its blocked kernel, :func:`helpers.real.gemma3.sliding_window_attention`), so the weights measured are
the ones the model used. Also recorded: the weight on the first token (``<bos>``, an attention sink) and the mass
without it. Used by :mod:`helpers.real.gemma3_measure`.
"""

from __future__ import annotations

import torch

from helpers._checks import check_int

__all__ = ["OUTPUT_TOLERANCE", "attention_by_distance", "distance_edges", "layer_attention_by_distance"]

#: Largest |Σ_j a v_j − the model's attention output| accepted (float32, two kernels; measured ~1e-6).
OUTPUT_TOLERANCE = 1e-3


def distance_edges(n_tokens: int) -> list[int]:
    """Bucket edges 0, 1, 2, 4, ..., 2^k, n_tokens: bucket b holds distances e_b <= d < e_{b+1} (d < n_tokens)."""
    n_tokens = check_int("n_tokens", n_tokens, minimum=2)
    edges = [0, 1]
    while edges[-1] * 2 < n_tokens:
        edges.append(edges[-1] * 2)
    return edges + [n_tokens]


def _distance_sums(q, k, v, out, *, scale: float, window: int | None, block: int):
    """Per head and distance the summed weight, per head and query the weight on key 0, the largest output difference.

    q: (H, T, D); k, v: (H, T, D) (K/V heads repeated); out: (H, T, D), the model's attention output.
    Returns float64 (H, T) (index d), float64 (H, T) (index t), float.
    """
    H, T, _ = q.shape
    sums = torch.zeros(H, T, dtype=torch.float64)  # (H, T): distance -> Σ weights
    on_first = torch.zeros(H, T, dtype=torch.float64)  # (H, T): query t -> its weight on key 0
    worst = 0.0
    for a in range(0, T, block):
        b = min(a + block, T)
        d = torch.arange(a, b)[:, None] - torch.arange(b)[None, :]  # (nb, b): t − j
        seen = d >= 0
        if window is not None:
            seen &= d < window
        scores = (q[:, a:b] @ k[:, :b].transpose(-1, -2)) * scale  # (H, nb, b)
        w = scores.masked_fill(~seen, float("-inf")).softmax(-1)  # (H, nb, b)
        if bool((w[:, ~seen] != 0).any()):
            raise AssertionError("a key the layer's mask hides got a nonzero weight")
        worst = max(worst, float((w @ v[:, :b] - out[:, a:b]).abs().max()))
        sums.index_add_(1, d.clamp(min=0).reshape(-1), w.reshape(H, -1).double())  # hidden keys add 0
        on_first[:, a:b] = w[:, :, 0].double()
    return sums, on_first, worst


def layer_attention_by_distance(
    captured: dict, layer_type: str, *, scale: float, window: int, edges: list[int], block: int = 512
) -> dict:
    """Attention by distance of one layer from its captured tensors (``RealGemma3.hidden_states(capture=...)``).

    ``captured``: ``{"q_rot": (H, T, D), "k_rot": (Hkv, T, D), "v": (Hkv, T, D), "out": (H, T, D)}``;
    ``layer_type``: ``"sliding_attention"`` (keys at distance < ``window``) or ``"full_attention"``;
    ``edges``: from :func:`distance_edges`. Returns lists per bucket, rounded (see the module docstring), and
    ``bos_weight``: the mean weight on key 0 of the queries t >= 1.
    """
    q, k, v, out = (captured[n] for n in ("q_rot", "k_rot", "v", "out"))
    H, T, _ = q.shape
    rep = H // k.shape[0]
    k, v = k.repeat_interleave(rep, dim=0), v.repeat_interleave(rep, dim=0)  # (H, T, D) each
    local = layer_type == "sliding_attention"
    sums, on_first, worst = _distance_sums(q, k, v, out, scale=scale, window=window if local else None, block=block)
    if worst > OUTPUT_TOLERANCE:
        raise AssertionError(f"the weights give an output {worst:.2e} away from the model's (> {OUTPUT_TOLERANCE})")
    beyond = float(sums[:, window:].sum()) if T > window else 0.0
    if local and beyond != 0.0:
        raise AssertionError(f"a local layer has weight {beyond} beyond its window of {window}")
    without_first = sums - on_first  # query t's weight on key 0 sits at distance d = t
    pairs = torch.arange(T, 0, -1, dtype=torch.float64)  # (T,): #(t, j) at distance d is T − d
    buckets = [(lo, min(hi, T)) for lo, hi in zip(edges[:-1], edges[1:], strict=True) if lo < T]
    mass_h = torch.stack([sums[:, lo:hi].sum(-1) for lo, hi in buckets], -1) / T  # (H, B)
    return {
        "type": layer_type,
        "mean_weight": [round(float(sums[:, lo:hi].sum() / (H * pairs[lo:hi].sum())), 9) for lo, hi in buckets],
        "mass": [round(float(x), 6) for x in mass_h.mean(0)],
        "mass_by_head": [[round(float(x), 6) for x in row] for row in mass_h],
        "mass_without_bos": [round(float(without_first[:, lo:hi].sum() / (H * T)), 6) for lo, hi in buckets],
        "bos_weight": round(float(on_first[:, 1:].mean()), 6),
        "mass_beyond_window": beyond,
        "max_abs_diff_vs_model_output": worst,
    }


@torch.inference_mode()
def attention_by_distance(model, ids, *, layers=None, edges=None, block: int = 512) -> dict:
    """Attention by distance for ``layers`` (default: every layer) of a :class:`helpers.real.gemma3.RealGemma3`
    over token ids (T,), from one forward pass. Returns ``{"edges": [...], "by_layer": {str(ℓ): layer dict}}``.

    Memory: the captured tensors, about 10·H·T·D bytes per layer (40 MB per layer at T = 4,096 for Gemma 3 270M),
    plus one block of weights (H, ``block``, T).
    """
    c = model.config
    T = len(ids)
    if T < 2:
        raise ValueError(f"ids must hold at least 2 tokens, got {T}")
    layers = list(range(c.num_hidden_layers)) if layers is None else [int(i) for i in layers]
    bad = [i for i in layers if not 0 <= i < c.num_hidden_layers]
    if bad or not layers:
        raise ValueError(
            f"layers must be a non-empty list of layer indices in [0, {c.num_hidden_layers}), got {layers}"
        )
    edges = distance_edges(T) if edges is None else list(edges)
    capture = {"layers": set(layers)}
    model.hidden_states(ids, capture=capture)
    out = {"edges": edges, "by_layer": {}}
    for i in layers:
        out["by_layer"][str(i)] = layer_attention_by_distance(
            capture.pop(i),
            c.layer_types[i],
            scale=c.query_pre_attn_scalar**-0.5,
            window=c.sliding_window,
            edges=edges,
            block=block,
        )
    return out
