"""How flat a lab model's attention gets as its context grows, with and without a query temperature τ(p).

The entropy of one query's attention row a is H = −Σ_j a_j·ln a_j (nats): 0 when all the weight is on one key,
ln n when it is spread evenly over the n keys the query sees. Softmax over more keys with the same logits spreads
the weight (the denominator gains terms), so H grows with n; multiplying the logits of the query at position p by a
τ(p) that grows with ln p (Llama 4, Ministral 3, SSMax: :mod:`helpers.temperature`) sharpens them back.

:func:`entropy_by_length` measures it on a trained lab model: the model runs on documents of each length, the input
of one attention layer is captured, that layer's logits q·kᵀ/√d_h are multiplied row by row by τ(p), and the mean
entropy of the last queries' rows is taken (over documents and heads). The temperature acts on that one layer, on
the hidden states the model itself produced (the layers before it are unchanged): a measurement of the mechanism,
not of a model trained with the temperature.

Used by notebook 09; checked in ``tests/test_attention_entropy.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch

from helpers._checks import check_float_tensor, check_int
from helpers.lab.data import lm_batch
from helpers.lab.model import TinyTransformer

__all__ = ["attention_entropy", "entropy_by_length", "layer_logits"]


def attention_entropy(weights: torch.Tensor) -> torch.Tensor:
    """H = −Σ_j a_j·ln a_j (nats) of every row of ``weights`` (..., n) -> (...); 0·ln 0 counts as 0."""
    w = check_float_tensor("weights", weights)
    return -(w * torch.log(w.clamp_min(torch.finfo(w.dtype).tiny))).sum(-1)  # (...)


def layer_logits(model: TinyTransformer, tokens: torch.Tensor, layer: int, last: int) -> torch.Tensor:
    """Logits q·kᵀ/√d_h (B, H, last, T) of block ``layer``'s last ``last`` queries, on the model's own hidden states.

    Causal: row r is the query at position T − last + r; its entries past that position are −inf. Works for the
    families whose ``rotate`` hook leaves q and k as they are or rotates them (no score bias is added here: for
    NoPE, RoPE and the hybrids' NoPE layers the logits are complete).
    """
    n_layers = len(model.blocks)
    layer = check_int("layer", layer, minimum=0)
    if layer >= n_layers:
        raise IndexError(f"layer must be < the model's {n_layers} layers, got {layer}")
    t = tokens.shape[1]
    last = check_int("last", last, minimum=1)
    if last > t:
        raise ValueError(f"last must be <= the documents' length {t}, got {last}")
    seen = {}
    attn = model.blocks[layer].attn
    hook = attn.register_forward_hook(lambda mod, args, out: seen.__setitem__("x", args[0]))
    try:
        with torch.no_grad():
            model(tokens)
    finally:
        hook.remove()
    x = seen["x"]  # (B, T, D): LN(h) entering the attention
    b = x.shape[0]
    with torch.no_grad():
        q, k, _ = attn.qkv(x).view(b, t, 3, attn.n_heads, attn.head_dim).permute(2, 0, 3, 1, 4)  # 3 × (B, H, T, d_h)
        q, k = model.positional.layer(layer).rotate(q, k)  # (B, H, T, d_h) each
        scores = q[:, :, t - last :] @ k.transpose(-2, -1) / math.sqrt(attn.head_dim)  # (B, H, last, T)
    hidden = torch.arange(t)[None, :] > torch.arange(t - last, t)[:, None]  # (last, T): keys after the query
    return scores.masked_fill(hidden, float("-inf"))  # (B, H, last, T)


def entropy_by_length(
    model: TinyTransformer,
    lengths: Sequence[int],
    temperatures: Mapping[str, Callable[[np.ndarray], np.ndarray]],
    *,
    layer: int,
    n_docs: int = 8,
    last: int = 16,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """{name: mean entropy (nats) at each length} for every temperature law, on the same documents.

    ``lengths``: document lengths T (each >= ``last``); ``temperatures``: {name: τ}, τ maps the queries' positions
    (last,) to their factors (last,) (e.g. ``lambda p: helpers.temperature.ssmax_temperature(p, s=0.24)``); the
    lab's language-modelling documents ``lm_batch(n_docs, T, seed=(seed, T))``. Also returns ``"uniform"``: ln of
    the number of keys each query sees, averaged the same way (the flattest possible). Shapes: (len(lengths),) each.
    """
    if not temperatures:
        raise ValueError("temperatures must name at least one law, e.g. {'none': lambda p: np.ones_like(p)}")
    lengths = [check_int("lengths", n, minimum=last) for n in lengths]
    n_docs = check_int("n_docs", n_docs, minimum=1)
    out = {name: np.zeros(len(lengths)) for name in [*temperatures, "uniform"]}
    for index, t in enumerate(lengths):
        tokens, _ = lm_batch(n_docs, t, seed=(seed, t))  # (n_docs, T)
        scores = layer_logits(model, tokens, layer, last).double()  # (B, H, last, T)
        positions = np.arange(t - last, t, dtype=np.float64)  # (last,)
        for name, law in temperatures.items():
            tau = np.asarray(law(positions), dtype=np.float64)  # (last,)
            if tau.shape != positions.shape or not np.all(np.isfinite(tau)) or tau.min() <= 0:
                raise ValueError(f"temperature {name!r} must map {last} positions to {last} finite factors > 0")
            weights = torch.softmax(scores * torch.from_numpy(tau)[:, None], dim=-1)  # (B, H, last, T)
            out[name][index] = float(attention_entropy(weights).mean())
        out["uniform"][index] = float(np.log(positions + 1).mean())
    return out
