"""Applying RoPE: rotate the pairs of q or k (both memory layouts, partial rotary), the growing cos/sin cache, and
:class:`Rotary`, the positional method :mod:`helpers.attention` and the lab call.
"""

from __future__ import annotations

import torch

from helpers._checks import check_choice, check_dim, check_float_tensor, check_int, check_positive
from helpers.rope.frequencies import check_inv_freq, rope_cos_sin, rope_inv_freq
from helpers.rope.layouts import LAYOUTS

__all__ = ["Rotary", "RopeCache", "apply_rope", "rope"]


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
        inv_freq = check_inv_freq(inv_freq)  # (D_rot/2,)
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
        self.inv_freq = check_inv_freq(inv_freq)  # (D/2,)
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
        inv_freq = check_inv_freq(inv_freq)
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
