"""Position in the scores: a bias B[m, n] = b(n − m) added to the attention logits (notebook 06, the tiny-model lab).

    Attention = softmax(Q·Kᵀ/√d + B + mask)·V,   B[h, m, n] depends only on the head h and the offset n − m

(query position m, key position n). Because B does not look at q or k, the score's positional part is exactly a
function of n − m: shifting every position by the same amount changes nothing.

* **ALiBi** (Press et al. 2022, arXiv 2108.12409 §3): B[h, m, n] = −slope_h·(m − n), a fixed linear penalty on
  distance with a geometric sequence of head slopes (:func:`alibi_slopes`, :func:`alibi_bias`). Nothing is learned
  and nothing depends on the training length, so it runs past L unchanged.
* **T5 relative bias** (Raffel et al. 2020, arXiv 1910.10683 §2.1; Shaw et al. 2018, arXiv 1803.02155, clip the
  distance instead): a learned scalar per head and per distance *bucket*; buckets are exact for small distances,
  log-spaced up to ``max_distance``, and every farther distance shares the last bucket
  (:func:`t5_relative_bucket`, :class:`T5RelativeBias`).

Conventions (the same in every function here):

* ``relative_position = key − query = n − m`` as in T5 (negative for keys in the past).
* Queries sit at positions ``offset .. offset + T_q − 1`` and keys at ``0 .. T_k − 1``; ``key_len`` defaults to
  ``offset + T_q`` (all keys up to the last query: what a KV cache holds when decoding ``T_q`` new tokens).
* The biases are finite everywhere; the causal mask is applied separately (:func:`causal_additive_mask` gives it in
  the additive form that ``torch.nn.functional.scaled_dot_product_attention(attn_mask=...)`` takes).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from helpers._checks import check_int, check_positive

__all__ = [
    "T5RelativeBias",
    "alibi_bias",
    "alibi_effective_window",
    "alibi_slopes",
    "causal_additive_mask",
    "relative_position_bucket",
    "relative_positions",
    "t5_bucket_thresholds",
    "t5_relative_bucket",
]


# --------------------------------------------------------------------------- positions
def _lengths(query_len, key_len, offset) -> tuple[int, int, int]:
    query_len = check_int("query_len", query_len, minimum=0)
    offset = check_int("offset", offset, minimum=0)
    key_len = offset + query_len if key_len is None else check_int("key_len", key_len, minimum=0)
    return query_len, key_len, offset


def relative_positions(query_len: int, key_len: int | None = None, *, offset: int = 0) -> torch.Tensor:
    """rel[m', n] = n − (offset + m') for query rows m' = 0..T_q−1 and keys n = 0..T_k−1. LongTensor (T_q, T_k).

    ``key_len`` defaults to ``offset + query_len``. Negative entries are keys in the past, positive ones the future.
    """
    query_len, key_len, offset = _lengths(query_len, key_len, offset)
    m = torch.arange(offset, offset + query_len, dtype=torch.long)  # (T_q,)
    n = torch.arange(key_len, dtype=torch.long)  # (T_k,)
    return n[None, :] - m[:, None]  # (T_q, T_k)


def causal_additive_mask(
    query_len: int,
    key_len: int | None = None,
    *,
    offset: int = 0,
    dtype: torch.dtype = torch.float32,
    window: int | None = None,
) -> torch.Tensor:
    """0 where key n ≤ query m, −inf where n > m. Shape (T_q, T_k); add it to the logits (with any bias).

    ``window`` W (an int >= 1, or None for full causal attention): a sliding window, also −inf where m − n >= W, so
    query m sees keys m − W + 1 .. m and a key beyond gets exactly zero weight after the softmax. The same rule as
    HF 5.24's ``masking_utils.sliding_window_causal_mask_function`` (kv > q − W and kv <= q; Gemma 2/3's
    ``sliding_attention`` layers, Beltagy et al. 2020, arXiv 2004.05150 §3.1) and as
    :func:`helpers.real.gemma3.sliding_window_attention`.
    """
    rel = relative_positions(query_len, key_len, offset=offset)  # (T_q, T_k): n − m
    zeros = torch.zeros(rel.shape, dtype=dtype)  # (T_q, T_k)
    hidden = rel > 0  # keys after the query
    if window is not None:
        hidden = hidden | (-rel >= check_int("window", window, minimum=1))  # m − n >= W: beyond the window
    return zeros.masked_fill(hidden, float("-inf"))  # (T_q, T_k)


# --------------------------------------------------------------------------- ALiBi
def _geometric_slopes(n: int) -> list[float]:
    """2^(−8h/n) for h = 1..n (n a power of two)."""
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def alibi_slopes(num_heads: int) -> torch.Tensor:
    """ALiBi's head slopes, float64, shape (H,) (Press et al. 2022, arXiv 2108.12409 §3).

    H a power of two: the geometric sequence slope_h = 2^(−8h/H), h = 1..H (H = 8: 1/2, 1/4, …, 1/256).
    Otherwise (the paper's rule for other head counts): with 2^k the largest power of two below H, the 2^k slopes
    of that sequence, followed by every other slope of the 2^(k+1)-head sequence (its 1st, 3rd, 5th, …) until there
    are H. The order is the paper's (not sorted): H = 12 gives 2^−1, …, 2^−8, then 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5.
    """
    num_heads = check_int("num_heads", num_heads, minimum=1)
    if num_heads & (num_heads - 1) == 0:  # a power of two
        return torch.tensor(_geometric_slopes(num_heads), dtype=torch.float64)  # (H,)
    below = 1 << (num_heads.bit_length() - 1)  # the largest power of two < H
    extra = _geometric_slopes(2 * below)[0::2][: num_heads - below]
    return torch.tensor(_geometric_slopes(below) + extra, dtype=torch.float64)  # (H,)


def alibi_bias(
    num_heads: int,
    query_len: int,
    key_len: int | None = None,
    *,
    offset: int = 0,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """ALiBi's bias B[h, m, n] = −slope_h·(m − n) = slope_h·(n − m). Shape (H, T_q, T_k).

    Queries at positions m = offset..offset+T_q−1, keys at n = 0..T_k−1 (``key_len`` defaults to offset + T_q).
    Computed in float64, then cast to ``dtype``.

    Above the diagonal (keys after the query, n > m) the same linear formula continues, so the values there are
    positive. That keeps B a single Toeplitz matrix, and every row differs from BLOOM's / the reference code's
    shortcut ``slope_h·n`` by the constant −slope_h·m, which softmax ignores. Those entries must be removed by the
    causal mask (:func:`causal_additive_mask`), applied separately; never use this bias without one in a decoder.
    """
    query_len, key_len, offset = _lengths(query_len, key_len, offset)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
    slopes = alibi_slopes(num_heads)  # (H,)
    rel = relative_positions(query_len, key_len, offset=offset).to(torch.float64)  # (T_q, T_k)
    return (slopes[:, None, None] * rel[None]).to(dtype)  # (H, T_q, T_k)


def alibi_effective_window(num_heads: int, threshold: float) -> torch.Tensor:
    """Distance (tokens) at which head h's ALiBi penalty slope_h·d reaches ``threshold`` (nats): threshold / slope_h.

    With equal content scores, a key at distance d gets e^(−slope_h·d) times the weight of the key at distance 0, so
    past this window it gets at most e^(−threshold) of it (threshold ln 100 ≈ 4.6: 1 %). A key farther away can still
    win only if its content score is higher by more than slope_h·d, which grows without bound. float64, shape (H,).
    """
    threshold = check_positive("threshold", threshold)
    return threshold / alibi_slopes(num_heads)  # (H,)


# --------------------------------------------------------------------------- T5 buckets
def _check_bucket_args(bidirectional, num_buckets, max_distance) -> tuple[int, int, int]:
    """Validate T5's bucket parameters; return (buckets per direction n, exact range e, max_distance M)."""
    if not isinstance(bidirectional, bool):
        raise TypeError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = check_int("num_buckets", num_buckets, minimum=2)
    max_distance = check_int("max_distance", max_distance, minimum=1)
    if bidirectional and num_buckets % 2:
        raise ValueError(
            f"num_buckets must be even when bidirectional=True (half for keys before the query, half after), "
            f"got {num_buckets}"
        )
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    if per_direction < 2:
        raise ValueError(
            f"num_buckets must leave >= 2 buckets per direction (>= 1 exact bucket and >= 1 log-spaced one), "
            f"got num_buckets = {num_buckets} with bidirectional = {bidirectional}: allowed num_buckets >= "
            f"{4 if bidirectional else 2}"
        )
    exact = per_direction // 2
    if max_distance <= exact:
        raise ValueError(
            f"max_distance must be > the exact range ({exact} distances 0..{exact - 1} get their own bucket with "
            f"num_buckets = {num_buckets}, bidirectional = {bidirectional}), got max_distance = {max_distance}"
        )
    return per_direction, exact, max_distance


def t5_bucket_thresholds(*, bidirectional: bool, num_buckets: int, max_distance: int) -> list[int]:
    """The smallest distance of each log-spaced bucket, as exact integers.

    With n buckets per direction, e = n // 2 exact buckets and N = n − e log-spaced ones, distance p ≥ e goes to
    bucket e + min(N − 1, ⌊N·ln(p/e)/ln(M/e)⌋) (T5, arXiv 1910.10683 §2.1; Mesh TensorFlow). So bucket e + j
    (j = 1..N−1) starts at t_j, the smallest integer p with (p/e)^N ≥ (M/e)^j, i.e. p^N·e^j ≥ M^j·e^N.

    A first guess e·(M/e)^(j/N) is taken in float64; the inequality is then settled in Python integers, so a
    distance that lands *exactly* on a boundary (e.g. p = 16 with e = 8, M = 128, N = 8) is put in the upper
    bucket on every CPU, whatever the last bit of its libm's log. Returns [t_1, …, t_{N−1}] (non-decreasing).
    """
    n, e, m = _check_bucket_args(bidirectional, num_buckets, max_distance)
    big_n = n - e
    thresholds = []
    for j in range(1, big_n):

        def reaches(p: int, j: int = j) -> bool:
            return p**big_n * e**j >= m**j * e**big_n

        p = max(e, math.ceil(e * math.exp(j / big_n * math.log(m / e))))  # float64 guess
        while p > e and reaches(p - 1):
            p -= 1
        while not reaches(p):
            p += 1
        thresholds.append(p)
    return thresholds


def t5_relative_bucket(
    relative_position: torch.Tensor, *, bidirectional: bool, num_buckets: int, max_distance: int
) -> torch.Tensor:
    """T5's bucket of each relative position ``key − query`` (Raffel et al. 2020, arXiv 1910.10683 §2.1).

    Distance p (causal: p = max(query − key, 0); bidirectional: p = |key − query|, with the upper half of the buckets
    for keys after the query): bucket p for p < e, then log-spaced buckets up to ``max_distance`` M, and one shared
    last bucket for every p ≥ M (the bucket of M itself). e = n // 2 with n buckets per direction (n = num_buckets,
    or num_buckets / 2 when bidirectional). Causal mode maps keys after the query (key − query > 0) to bucket 0,
    like distance 0, as T5 does: the causal mask removes them.

    Boundaries are exact integers (:func:`t5_bucket_thresholds`): HF transformers' ``_relative_position_bucket``
    takes the log in float32 and can put a distance that sits exactly on a boundary one bucket lower
    (tests/test_score_biases.py shows that this is the only difference).

    relative_position: an integer tensor of any shape; returns a LongTensor of the same shape, values in
    [0, num_buckets).
    """
    if not isinstance(relative_position, torch.Tensor):
        raise TypeError(f"relative_position must be an integer torch.Tensor, got {type(relative_position).__name__}")
    if relative_position.is_floating_point() or relative_position.is_complex() or relative_position.dtype == torch.bool:
        raise TypeError(
            f"relative_position must be an integer tensor (key − query in tokens, e.g. torch.long), "
            f"got dtype {relative_position.dtype}"
        )
    n, e, _ = _check_bucket_args(bidirectional, num_buckets, max_distance)
    thresholds = torch.tensor(
        t5_bucket_thresholds(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance),
        dtype=torch.long,
    )  # (N−1,)
    rel = relative_position.to(torch.long)  # (...)
    if bidirectional:
        side = (rel > 0).to(torch.long) * n  # (...) upper half for keys after the query
        dist = rel.abs()  # (...)
    else:
        side = torch.zeros_like(rel)  # (...)
        dist = (-rel).clamp(min=0)  # (...)
    far = e + torch.bucketize(dist, thresholds, right=True)  # (...) e + #{j : t_j ≤ p}
    return side + torch.where(dist < e, dist, far)  # (...)


#: The same function under HF transformers' name (``T5Attention._relative_position_bucket``), as the lab calls it.
relative_position_bucket = t5_relative_bucket


class T5RelativeBias(nn.Module):
    """A learned bias per head and per distance bucket (T5, arXiv 1910.10683 §2.1): B[h, m, n] = table[bucket(n − m), h].

    ``table`` has shape (num_buckets, H), initialised N(0, init_std²) from ``seed``. Defaults are T5's decoder
    (32 buckets, max_distance 128, causal). T5 computes this bias once, in its first layer, and shares it with every
    layer (and does not divide q·k by √d); where and how often to add it is the caller's choice.
    ``forward(query_len, key_len=None, *, offset=0)`` returns (H, T_q, T_k) with the same position convention as
    :func:`alibi_bias`; the causal mask is applied separately.
    """

    def __init__(
        self,
        num_heads: int,
        *,
        num_buckets: int = 32,
        max_distance: int = 128,
        bidirectional: bool = False,
        init_std: float = 0.02,
        seed: int | None = 0,
    ):
        super().__init__()
        self.num_heads = check_int("num_heads", num_heads, minimum=1)
        _check_bucket_args(bidirectional, num_buckets, max_distance)
        self.num_buckets, self.max_distance, self.bidirectional = int(num_buckets), int(max_distance), bidirectional
        init_std = check_positive("init_std", init_std, inclusive=True)
        gen = torch.Generator().manual_seed(seed) if seed is not None else None
        self.table = nn.Parameter(torch.randn(self.num_buckets, self.num_heads, generator=gen) * init_std)

    def buckets(self, query_len: int, key_len: int | None = None, *, offset: int = 0) -> torch.Tensor:
        """Bucket of every (query, key) pair. LongTensor (T_q, T_k)."""
        rel = relative_positions(query_len, key_len, offset=offset)  # (T_q, T_k)
        return t5_relative_bucket(
            rel, bidirectional=self.bidirectional, num_buckets=self.num_buckets, max_distance=self.max_distance
        )  # (T_q, T_k)

    def forward(self, query_len: int, key_len: int | None = None, *, offset: int = 0) -> torch.Tensor:
        """B[h, m, n] = table[bucket(n − m), h]. Shape (H, T_q, T_k)."""
        idx = self.buckets(query_len, key_len, offset=offset)  # (T_q, T_k)
        return self.table[idx].permute(2, 0, 1)  # (H, T_q, T_k)

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, num_buckets={self.num_buckets}, max_distance={self.max_distance}, "
            f"bidirectional={self.bidirectional}"
        )
