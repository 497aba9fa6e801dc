"""Rotary position embedding (RoPE): frequencies, angles, rotation in both memory layouts.

Glossary (used with exactly these names everywhere in the course):

* **interleaved**: pair i is dimensions ``(2i, 2i+1)``. RoFormer paper (arXiv 2104.09864 §3.2),
  GPT-J, Meta's Llama reference code, the source chapter's code.
* **half_split**: pair i is dimensions ``(i, i + D/2)``. GPT-NeoX, HF transformers (``rotate_half``).

Both rotate pair i of a vector at position m by the angle ``m·θ_i`` with ``θ_i = base^(-2i/D)``; they are
the same maths a fixed permutation apart (:func:`interleaved_to_half_split`).

Used by notebooks 04 and 05, by :mod:`helpers.attention` and by the tiny-model lab.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from helpers._checks import (
    check_choice,
    check_dim,
    check_float_tensor,
    check_int,
    check_positions,
    check_positive,
)

LAYOUTS = ("interleaved", "half_split")


# --------------------------------------------------------------------------- frequencies and angles
def rope_inv_freq(dim: int, base: float = 10000.0) -> np.ndarray:
    """Rotation speed of each pair, in radians per position.

    θ_i = base^(-2i/D), i = 0 .. D/2-1 (RoFormer, arXiv 2104.09864 §3.2.2). Pair 0 is the fastest (1 rad/position).

    Returns a float64 array of shape (D/2,).
    """
    dim = check_dim("dim", dim)
    base = check_positive("base", base)
    return base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)  # (D/2,)


def rope_wavelengths(inv_freq: np.ndarray) -> np.ndarray:
    """λ_i = 2π/θ_i: positions per full turn of pair i. Shape (D/2,)."""
    return 2 * np.pi / np.asarray(inv_freq, dtype=np.float64)  # (D/2,)


def rope_angles(positions, inv_freq) -> np.ndarray:
    """Angle table m·θ_i in float64 (float32 would lose ~1e-4 rad by position 3000).

    ``positions``: an int T (meaning 0..T-1) or an array of shape (T,). ``inv_freq``: shape (D/2,).
    Returns shape (T, D/2).
    """
    pos = check_positions("positions", positions)  # (T,)
    inv_freq = _as_inv_freq(inv_freq)  # (D/2,)
    return np.outer(pos, inv_freq)  # (T, D/2)


def rope_cos_sin(
    positions,
    inv_freq,
    *,
    attention_factor: float = 1.0,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos(m·θ_i)·a and sin(m·θ_i)·a as torch tensors of shape (T, D/2).

    ``a`` is the scaling method's attention factor (YaRN's mscale, LongRoPE's factor; 1 otherwise). It
    multiplies q and k alike, so the logits are multiplied by a² (reference-formulas.md, point 6).
    Angles are computed in float64, then cast to ``dtype``.
    """
    a = check_positive("attention_factor", attention_factor)
    angles = torch.from_numpy(rope_angles(positions, inv_freq))  # (T, D/2) float64
    return (angles.cos() * a).to(dtype), (angles.sin() * a).to(dtype)  # (T, D/2) each


def _as_inv_freq(inv_freq) -> np.ndarray:
    if isinstance(inv_freq, torch.Tensor):
        inv_freq = inv_freq.detach().cpu().numpy()
    arr = np.asarray(inv_freq, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"inv_freq must be a non-empty 1-D array of shape (D/2,), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or arr.min() <= 0:
        raise ValueError("inv_freq must hold finite values > 0")
    return arr


# --------------------------------------------------------------------------- applying the rotation
def apply_rope(
    x: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    *,
    layout: str = "interleaved",
    rotary_dim: int | None = None,
) -> torch.Tensor:
    """Rotate every pair of ``x`` by its angle: x'_a = x_a cos − x_b sin, x'_b = x_a sin + x_b cos.

    ``x``: (..., T, D) float tensor (e.g. (B, H, T, D)). ``cos``, ``sin``: (T, D_rot/2) from
    :func:`rope_cos_sin` (or anything broadcasting to (..., T, D_rot/2)).
    ``layout``: "interleaved" (pairs (2i, 2i+1)) or "half_split" (pairs (i, i + D_rot/2)).
    ``rotary_dim``: partial rotary (GPT-NeoX, Phi): only the first ``rotary_dim`` dimensions of each head
    are rotated; the rest pass through unchanged. Default: all of D, which must equal 2·cos.shape[-1].

    Returns a new tensor of the same shape and dtype as ``x``. Interleaved float32/64 uses one complex
    multiplication (x_a + i·x_b)·e^{i·m·θ} (one pass over memory); half-split uses in-place fused ops.
    """
    check_float_tensor("x", x)
    check_choice("layout", layout, LAYOUTS)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, D) with at least 2 dimensions, got shape {tuple(x.shape)}")
    if cos.shape != sin.shape:
        raise ValueError(f"cos and sin must have the same shape, got {tuple(cos.shape)} and {tuple(sin.shape)}")
    half = cos.shape[-1]
    head_dim = x.shape[-1]
    if rotary_dim is None:
        if head_dim != 2 * half:
            raise ValueError(
                f"x's last dimension ({head_dim}) must equal 2 * cos.shape[-1] = {2 * half}; "
                "pass rotary_dim for partial rotary"
            )
        rotary_dim = head_dim
    else:
        rotary_dim = check_dim("rotary_dim", rotary_dim)
        if rotary_dim != 2 * half or rotary_dim > head_dim:
            raise ValueError(
                f"rotary_dim must equal 2 * cos.shape[-1] = {2 * half} and be <= x.shape[-1] = {head_dim}, "
                f"got {rotary_dim}"
            )
    if cos.ndim >= 2 and cos.shape[-2] not in (1, x.shape[-2]):
        raise ValueError(
            f"cos/sin cover {cos.shape[-2]} positions but x has T = {x.shape[-2]} (shape {tuple(x.shape)})"
        )
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    if rotary_dim < head_dim:
        out = torch.empty_like(x)  # (..., T, D)
        out[..., rotary_dim:] = x[..., rotary_dim:]
        out[..., :rotary_dim] = apply_rope(x[..., :rotary_dim], cos, sin, layout=layout)
        return out
    if layout == "interleaved":
        return _rotate_interleaved(x, cos, sin)
    return _rotate_half_split(x, cos, sin)


def _rotate_interleaved(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    if x.dtype in (torch.float32, torch.float64):
        # (x_2i + i x_2i+1) · (cos + i sin): one complex multiply does both rows of the 2x2 rotation.
        xc = torch.view_as_complex(x.contiguous().unflatten(-1, (-1, 2)))  # (..., T, D/2) complex
        rot = torch.complex(cos, sin)  # (T, D/2) complex
        return torch.view_as_real(xc * rot).flatten(-2)  # (..., T, D)
    x1, x2 = x[..., 0::2], x[..., 1::2]  # (..., T, D/2) each
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)  # (..., T, D)


def _rotate_half_split(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    # One full-width multiply [x1, x2]·cos (cos broadcast over the two halves, no concatenated copy) ...
    out = (x.unflatten(-1, (2, half)) * cos.unsqueeze(-2)).flatten(-2)  # (..., T, D)
    # ... then the cross terms, fused and in place.
    out[..., :half].addcmul_(x[..., half:], sin, value=-1.0)  # x1 cos − x2 sin
    out[..., half:].addcmul_(x[..., :half], sin)  # x2 cos + x1 sin
    return out


def rope(
    x: torch.Tensor,
    positions=None,
    *,
    base: float | None = None,
    inv_freq=None,
    attention_factor: float = 1.0,
    layout: str = "interleaved",
    rotary_dim: int | None = None,
) -> torch.Tensor:
    """Convenience: rotate x (..., T, D) at ``positions`` (default 0..T-1) in one call.

    Frequencies: ``inv_freq`` (D_rot/2,) if given (e.g. from :mod:`helpers.scaling`), else θ_i = base^(-2i/D_rot)
    with ``base`` = 10000 when not given; giving both is an error. ``rotary_dim``: rotate only the first D_rot
    dimensions of each vector (partial rotary, GPT-NeoX); default all of D. Partial rotary is never inferred from
    a short ``inv_freq``: its length must be exactly D_rot/2.
    """
    check_float_tensor("x", x)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, D) with at least 2 dimensions, got shape {tuple(x.shape)}")
    head_dim = x.shape[-1]
    if rotary_dim is None:
        if head_dim % 2:
            raise ValueError(f"x's last dimension D must be even (RoPE rotates pairs), got D = {head_dim}")
        rotary_dim = head_dim
    else:
        rotary_dim = check_dim("rotary_dim", rotary_dim)
        if rotary_dim > head_dim:
            raise ValueError(f"rotary_dim must be <= x.shape[-1] = {head_dim}, got {rotary_dim}")
    if inv_freq is None:
        inv_freq = rope_inv_freq(rotary_dim, 10000.0 if base is None else base)
    else:
        if base is not None:
            raise ValueError(f"give base or inv_freq, not both (got base={base!r} and an inv_freq)")
        inv_freq = _as_inv_freq(inv_freq)  # (D_rot/2,)
        if inv_freq.size != rotary_dim // 2:
            raise ValueError(
                f"inv_freq must have rotary_dim / 2 = {rotary_dim // 2} frequencies (one per rotated pair of "
                f"D_rot = {rotary_dim}), got {inv_freq.size}; for partial rotary pass rotary_dim explicitly"
            )
    positions = x.shape[-2] if positions is None else positions
    cos, sin = rope_cos_sin(positions, inv_freq, attention_factor=attention_factor, dtype=x.dtype)
    return apply_rope(x, cos, sin, layout=layout, rotary_dim=rotary_dim)


class RopeCache:
    """cos/sin tables that grow on demand (to the next power of two), so long prompts cost one rebuild.

    ``inv_freq``: (D/2,). ``get(T)`` returns (cos, sin) of shape (T, D/2) for positions 0..T-1;
    ``get_positions(p)`` gathers arbitrary integer positions.
    """

    def __init__(self, inv_freq, *, attention_factor: float = 1.0, dtype: torch.dtype = torch.float32):
        self.inv_freq = _as_inv_freq(inv_freq)  # (D/2,)
        self.attention_factor = check_positive("attention_factor", attention_factor)
        self.dtype = dtype
        self.cos = torch.empty(0, self.inv_freq.size, dtype=dtype)  # (0, D/2)
        self.sin = torch.empty(0, self.inv_freq.size, dtype=dtype)
        self.rebuilds = 0

    @property
    def length(self) -> int:
        return self.cos.shape[0]

    def _grow(self, needed: int) -> None:
        size = 1 << max(needed - 1, 0).bit_length()
        self.cos, self.sin = rope_cos_sin(size, self.inv_freq, attention_factor=self.attention_factor, dtype=self.dtype)
        self.rebuilds += 1

    def get(self, seq_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        seq_len = check_int("seq_len", seq_len, minimum=0)
        if seq_len > self.length:
            self._grow(seq_len)
        return self.cos[:seq_len], self.sin[:seq_len]  # (T, D/2) each

    def get_positions(self, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if not isinstance(positions, torch.Tensor) or positions.is_floating_point():
            raise TypeError("positions must be an integer torch.Tensor for a cache lookup")
        if positions.numel() and int(positions.min()) < 0:
            raise ValueError(f"positions must be >= 0, got {int(positions.min())}")
        needed = int(positions.max()) + 1 if positions.numel() else 0
        if needed > self.length:
            self._grow(needed)
        return self.cos[positions], self.sin[positions]  # (*positions.shape, D/2)


# --------------------------------------------------------------------------- scores against distance
def _cos_sin_table(inv_freq: np.ndarray, distances) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of Δ·θ_i for every pair i and distance Δ, float64, shape (D/2, T) each."""
    angles = np.outer(inv_freq, np.asarray(distances, dtype=np.float64))  # (D/2, T)
    return np.cos(angles), np.sin(angles)


def _scores_from_table(q, k, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Σ_i A_i cos_i(t) + B_i sin_i(t) for a precomputed (D/2, T) table (see :func:`pair_score_curve`)."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    qa, qb, ka, kb = q[..., 0::2], q[..., 1::2], k[..., 0::2], k[..., 1::2]  # (..., D/2) each
    a, b = qa * ka + qb * kb, qa * kb - qb * ka  # (..., D/2) each: A_i and B_i
    # einsum, not `@`: a matrix product this small goes to multi-threaded BLAS, whose threads can stall for
    # tens of milliseconds when the CPU is busy; einsum's single-threaded loop takes ~2 ms every time.
    return np.einsum("...i,it->...t", a, cos) + np.einsum("...i,it->...t", b, sin)  # (..., T)


def _bound_from_table(cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    # cos, sin: (D/2, T), the real and imaginary parts of e^{i(m−n)θ_k}
    partial_re, partial_im = np.cumsum(cos, axis=0), np.cumsum(sin, axis=0)  # (D/2, T): S_1 .. S_{D/2}
    return np.hypot(partial_re, partial_im).mean(axis=0)  # (T,)


def _random_stats(table, dim: int, n_samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, dim))  # (N, D)
    k = rng.standard_normal((n_samples, dim))  # (N, D)
    norms = np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1)  # (N,)
    s = _scores_from_table(q, k, *table) / norms[:, None]  # (N, T)
    return s.mean(axis=0), s.std(axis=0)  # (T,) each


def key_peaking_at(q: np.ndarray, distance: float, base: float = 10000.0) -> np.ndarray:
    """A key whose RoPE score with ``q`` is largest at distance m − n = ``distance``.

    k = R_Θ(distance)·q. Per pair, q̃·conj(k̃) = |q̃_i|²·e^{−i·distance·θ_i}, so
    score(m, n) = Σ_i |q̃_i|² cos((m − n − distance)·θ_i), which reaches its maximum |q|² exactly at
    m − n = distance (every cosine is 1 there). Barbero et al. 2024 (arXiv 2410.06205) use this kind of
    construction to show that RoPE does not force scores to decay with distance.

    ``q``: (D,) interleaved. Returns (D,) float64. Used by notebook 04.
    """
    q = np.asarray(q, dtype=np.float64)
    theta = rope_inv_freq(q.shape[-1], base)  # (D/2,)
    zq = q[0::2] + 1j * q[1::2]  # (D/2,) complex
    zk = zq * np.exp(1j * distance * theta)  # (D/2,)
    k = np.empty_like(q)  # (D,)
    k[0::2], k[1::2] = zk.real, zk.imag
    return k


def pair_score_curve(q: np.ndarray, k: np.ndarray, distances, base: float = 10000.0, *, inv_freq=None) -> np.ndarray:
    """score(m, n) = <R_Θ(m) q, R_Θ(n) k> as a function of the distance m − n alone.

    score = Σ_i Re[q̃_i·conj(k̃_i)·e^{i(m−n)θ_i}] = Σ_i A_i cos((m−n)θ_i) + B_i sin((m−n)θ_i), with
    A_i = q_a k_a + q_b k_b and B_i = q_a k_b − q_b k_a for pair i = (a, b) = (2i, 2i+1) (RoFormer arXiv
    2104.09864 §3.2.1 for one pair, §3.4.3 for the sum over pairs; the sine term is errata E2). Real
    arithmetic, no complex exp. ``q``, ``k``: (D,) or (N, D) interleaved; ``distances``: (T,).
    Frequencies: ``inv_freq`` (D/2,) if given (e.g. a scaling method's), else θ_i = base^(−2i/D).
    Returns (T,) or (N, T). Used by notebooks 04 and 05.
    """
    q = np.asarray(q, dtype=np.float64)
    theta = rope_inv_freq(q.shape[-1], base) if inv_freq is None else _as_inv_freq(inv_freq)  # (D/2,)
    if 2 * theta.size != q.shape[-1]:
        raise ValueError(f"inv_freq has {theta.size} pairs but q has D = {q.shape[-1]} dimensions")
    return _scores_from_table(q, k, *_cos_sin_table(theta, distances))


def rope_score_curve(inv_freq, distances, attention_factor: float = 1.0) -> np.ndarray:
    """Score of q = k = (1, 1, …, 1) at relative distance Δ, divided by D: a²·mean_i cos(Δ·θ_i).

    :func:`pair_score_curve` with q = k = 1 (then A_i = 2, B_i = 0), divided by D, so 1 at Δ = 0 (times a², the
    attention factor applied to q and k alike). The classic RoFormer decay curve (arXiv 2104.09864 §3.4.3, Fig. 2
    shows a bound on it). ``inv_freq``: (D/2,); ``distances``: (N,); returns (N,) float64.
    Used by notebook 05 (sections 2 and 7) and :func:`helpers.scaling.toy_attention_entropy`.
    """
    inv_freq = _as_inv_freq(inv_freq)  # (D/2,)
    a = check_positive("attention_factor", attention_factor)
    ones = np.ones(2 * inv_freq.size)  # (D,)
    return a * a * pair_score_curve(ones, ones, distances, inv_freq=inv_freq) / ones.size  # (N,)


def roformer_bound_factor(distances, dim: int, base: float = 10000.0) -> np.ndarray:
    """The distance factor of RoFormer's long-term-decay bound: (1/(D/2))·Σ_{j=1}^{D/2} |S_j|.

    S_j = Σ_{k=0}^{j−1} e^{i(m−n)θ_k}. Abel summation gives |score| ≤ (max_i |h_{i+1} − h_i|)·Σ_j |S_j|
    (RoFormer arXiv 2104.09864 §3.4.3; the paper plots this average in its Figure 2). It bounds the *magnitude*
    of the score; it says nothing about the score's sign or its expectation. Returns (T,). Used by notebook 04.
    """
    return _bound_from_table(*_cos_sin_table(rope_inv_freq(dim, base), distances))


def random_score_stats(distances, dim: int, base: float = 10000.0, *, n_samples: int = 128, seed: int = 0):
    """Mean and standard deviation of score/(|q||k|) over independent standard-normal q, k.

    For independent q, k with zero mean, E[q̃_i·conj(k̃_i)] = 0, so the expected score is 0 at every
    distance. Returns (mean (T,), std (T,)) over ``n_samples`` seeded draws. Used by notebook 04.
    """
    n_samples = check_int("n_samples", n_samples, minimum=1)
    return _random_stats(_cos_sin_table(rope_inv_freq(dim, base), distances), dim, n_samples, seed)


@dataclass(frozen=True)
class DecayCurves:
    """What "long-range decay" is and is not, against the distances 0..max_distance (:func:`long_range_decay`)."""

    distances: np.ndarray  # (T,) m − n
    bound: np.ndarray  # (T,) RoFormer's bound factor (1/(D/2))·Σ_j |S_j|
    same: np.ndarray  # (T,) score/(|q||k|) for q = k = all ones
    peaked: np.ndarray  # (T,) the same for q = all ones, k = key_peaking_at(q, peak)
    random_mean: np.ndarray  # (T,) mean over random q, k
    random_std: np.ndarray  # (T,) standard deviation over random q, k


def long_range_decay(
    dim: int = 128, base: float = 10000.0, peak: int = 300, *, max_distance: int = 1000, n_samples: int = 128
) -> DecayCurves:
    """All the curves of notebook 04's decay figure, from one cos/sin table (D/2, T) shared by all of them.

    Same numbers as :func:`roformer_bound_factor`, :func:`pair_score_curve` (divided by |q||k| = D for all-ones
    vectors) with :func:`key_peaking_at`, and :func:`random_score_stats` (seed 0); one table makes a slider redraw
    cheap. Source: RoFormer arXiv 2104.09864 §3.4.3; Barbero et al. arXiv 2410.06205. Used by notebook 04.
    """
    dim = check_dim("dim", dim)
    max_distance = check_int("max_distance", max_distance, minimum=1)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    d = np.arange(max_distance + 1)  # (T,)
    table = _cos_sin_table(rope_inv_freq(dim, base), d)  # (D/2, T) cos and sin, shared by all curves
    ones = np.ones(dim)  # (D,)
    mean, std = _random_stats(table, dim, n_samples, 0)  # (T,) each
    return DecayCurves(
        distances=d,
        bound=_bound_from_table(*table),
        same=_scores_from_table(ones, ones, *table) / dim,
        peaked=_scores_from_table(ones, key_peaking_at(ones, peak, base), *table) / dim,
        random_mean=mean,
        random_std=std,
    )


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
    inv_freq = rope_inv_freq(dim, 10000.0 if base is None else base) if inv_freq is None else _as_inv_freq(inv_freq)
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


def partial_rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """Number of rotated dimensions per head: int(head_dim · factor), as HF computes it; must be even."""
    head_dim = check_dim("head_dim", head_dim)
    f = check_positive("partial_rotary_factor", partial_rotary_factor)
    if f > 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {f}")
    d = int(head_dim * f)
    if d == 0 or d % 2:
        raise ValueError(
            f"head_dim * partial_rotary_factor = {head_dim} * {f} gives {d} rotated dimensions; it must be even and > 0"
        )
    return d


def degrees(radians: float) -> float:
    """Radians to degrees (the chapter's "about 54°" is really 57.30°: errata E3)."""
    return math.degrees(radians)


class Rotary:
    """A positional method for :mod:`helpers.attention` and the lab: rotate q and k, never v.

    ``Rotary(dim, base=1e4, layout="interleaved")`` (base 10000 when not given), or pass ``inv_freq`` (not both)
    and ``attention_factor`` from a scaling method (:func:`helpers.scaling.rotary_from_config` builds one from a
    pasted HF config; it lives in :mod:`helpers.scaling` so that imports point one way, scaling -> rope). Calling it
    on x (..., T, D) rotates position t by t·θ
    (or by the given ``positions``), using a cache that grows on demand.
    """

    def __init__(
        self,
        dim: int,
        base: float | None = None,
        *,
        layout: str = "interleaved",
        inv_freq=None,
        attention_factor: float = 1.0,
        rotary_dim: int | None = None,
    ):
        self.dim = check_dim("dim", dim)
        self.rotary_dim = self.dim if rotary_dim is None else check_dim("rotary_dim", rotary_dim)
        if self.rotary_dim > self.dim:
            raise ValueError(f"rotary_dim must be <= dim = {self.dim}, got {self.rotary_dim}")
        self.layout = check_choice("layout", layout, LAYOUTS)
        if inv_freq is not None and base is not None:
            raise ValueError(f"give base or inv_freq, not both (got base={base!r} and an inv_freq)")
        inv_freq = rope_inv_freq(self.rotary_dim, 10000.0 if base is None else base) if inv_freq is None else inv_freq
        inv_freq = _as_inv_freq(inv_freq)
        if 2 * inv_freq.size != self.rotary_dim:
            raise ValueError(
                f"inv_freq has {inv_freq.size} pairs but rotary_dim = {self.rotary_dim} needs {self.rotary_dim // 2}"
            )
        self.inv_freq = inv_freq  # (D_rot/2,)
        self.attention_factor = check_positive("attention_factor", attention_factor)
        self._caches: dict[torch.dtype, RopeCache] = {}  # one per input dtype: float64 inputs get float64 tables

    def cache_for(self, dtype: torch.dtype) -> RopeCache:
        """The cos/sin cache in ``dtype`` (built on first use, then grown on demand)."""
        if dtype not in self._caches:
            self._caches[dtype] = RopeCache(self.inv_freq, attention_factor=self.attention_factor, dtype=dtype)
        return self._caches[dtype]

    def __call__(self, x: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        check_float_tensor("x", x)
        if x.shape[-1] != self.dim:
            raise ValueError(f"x's last dimension must be dim = {self.dim}, got shape {tuple(x.shape)}")
        cache = self.cache_for(x.dtype)
        if positions is None:
            cos, sin = cache.get(x.shape[-2])  # (T, D_rot/2)
        else:
            cos, sin = cache.get_positions(positions)  # (*positions.shape, D_rot/2)
        rd = None if self.rotary_dim == self.dim else self.rotary_dim
        return apply_rope(x, cos, sin, layout=self.layout, rotary_dim=rd)

    def __repr__(self) -> str:
        return f"Rotary(dim={self.dim}, rotary_dim={self.rotary_dim}, layout={self.layout!r}, attention_factor={self.attention_factor:g})"
