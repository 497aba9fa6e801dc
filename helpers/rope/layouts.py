"""RoPE's two memory layouts and the explicit rotation matrix R_Θ(m) (teaching).

* **interleaved**: pair i is dimensions ``(2i, 2i+1)`` (RoFormer, GPT-J, Meta's Llama code, the source chapter);
* **half_split**: pair i is dimensions ``(i, i + D/2)`` (GPT-NeoX, HF ``rotate_half``).

The same maths a fixed permutation apart (:func:`interleaved_to_half_split`); :func:`permute_qk_rows` converts a
checkpoint's W_Q / W_K rows from one to the other.
"""

from __future__ import annotations

import numpy as np
import torch

from helpers._checks import check_choice, check_dim, check_float_tensor, check_int
from helpers.rope.frequencies import check_inv_freq, rope_angles, rope_inv_freq

__all__ = ["LAYOUTS", "half_split_to_interleaved", "interleaved_to_half_split", "permute_qk_rows", "rotation_matrix"]

LAYOUTS = ("interleaved", "half_split")


# --------------------------------------------------------------------------- teaching: the explicit matrix
def rotation_matrix(
    position: float, dim: int, base: float | None = None, *, inv_freq=None, layout: str = "interleaved"
) -> np.ndarray:
    """The block-diagonal R_Θ(m) of RoFormer (arXiv 2104.09864 §3.2.2), float64, shape (D, D).

    Interleaved: 2×2 blocks [[cos mθ_i, −sin mθ_i], [sin mθ_i, cos mθ_i]] on the diagonal.
    Half-split: the same matrix with rows and columns permuted so pair i is (i, i + D/2).
    For teaching only: applying it costs O(D²) per vector, :func:`apply_rope` costs O(D). ``base`` (default
    10000) or ``inv_freq`` (D/2,), not both.
    """
    dim = check_dim("dim", dim)
    check_choice("layout", layout, LAYOUTS)
    if inv_freq is not None and base is not None:
        raise ValueError(f"give base or inv_freq, not both (got base={base!r} and an inv_freq)")
    inv_freq = rope_inv_freq(dim, 10000.0 if base is None else base) if inv_freq is None else check_inv_freq(inv_freq)
    if 2 * inv_freq.size != dim:
        raise ValueError(f"inv_freq has {inv_freq.size} pairs but dim = {dim} needs {dim // 2}")
    angles = rope_angles(np.array([position]), inv_freq)[0]  # (D/2,)
    c, s = np.cos(angles), np.sin(angles)
    r = np.zeros((dim, dim))  # (D, D)
    i = np.arange(dim // 2)
    r[2 * i, 2 * i], r[2 * i, 2 * i + 1] = c, -s
    r[2 * i + 1, 2 * i], r[2 * i + 1, 2 * i + 1] = s, c
    if layout == "half_split":
        p = interleaved_to_half_split(dim)
        r = r[np.ix_(p, p)]
    return r


# --------------------------------------------------------------------------- layouts
def interleaved_to_half_split(dim: int) -> np.ndarray:
    """Index p with x_half = x_inter[p]: p = [0, 2, 4, …, D−2, 1, 3, …, D−1].

    Property: rope_half_split(x[..., p]) == rope_interleaved(x)[..., p] for every x and position.
    """
    dim = check_dim("dim", dim)
    return np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)])  # (D,)


def half_split_to_interleaved(dim: int) -> np.ndarray:
    """The inverse index of :func:`interleaved_to_half_split`: x_inter = x_half[q]."""
    return np.argsort(interleaved_to_half_split(dim))  # (D,)


def permute_qk_rows(weight: torch.Tensor, n_heads: int, *, to: str = "half_split") -> torch.Tensor:
    """Reorder the output rows of W_Q or W_K (nn.Linear layout: (n_heads·D, d_model)) head by head.

    ``to="half_split"`` turns an interleaved checkpoint (Meta's Llama) into one that half-split code
    (HF ``rotate_half``) runs correctly: what HF's Llama conversion script does to q_proj/k_proj.
    ``to="interleaved"`` is the inverse. Works on biases (shape (n_heads·D,)) too.
    """
    check_float_tensor("weight", weight)
    n_heads = check_int("n_heads", n_heads, minimum=1)
    check_choice("to", to, LAYOUTS)
    rows = weight.shape[0]
    if rows % n_heads or (rows // n_heads) % 2:
        raise ValueError(f"weight.shape[0] = {rows} must be n_heads ({n_heads}) times an even head dimension")
    head_dim = rows // n_heads
    p = interleaved_to_half_split(head_dim) if to == "half_split" else half_split_to_interleaved(head_dim)
    idx = (torch.arange(n_heads)[:, None] * head_dim + torch.from_numpy(p)[None, :]).reshape(-1)  # (rows,)
    return weight[idx]
