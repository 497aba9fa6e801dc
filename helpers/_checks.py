"""Argument checks shared by the public entry points.

Every check raises an exception whose message names the parameter, the value
received and what is allowed, e.g.
``ValueError: dim must be a positive even integer, got 7``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import torch


def check_int(name: str, value, *, minimum: int | None = None, even: bool = False) -> int:
    """Return ``value`` as an int, or raise if it is not an integer >= minimum (and even)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    allowed = "an integer"
    if minimum is not None:
        allowed = f"an integer >= {minimum}"
    if even:
        allowed = f"an even {allowed.removeprefix('an ')}"
    if (minimum is not None and value < minimum) or (even and value % 2):
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return value


def check_dim(name: str, value) -> int:
    """A rotary or model dimension: a positive even integer."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive even integer, got {value!r} ({type(value).__name__})")
    if value <= 0 or value % 2:
        raise ValueError(f"{name} must be a positive even integer, got {value}")
    return int(value)


def check_bool(name: str, value) -> bool:
    """A real ``bool`` (not a truthy string or number)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return value


def check_positive(name: str, value, *, minimum: float = 0.0, inclusive: bool = False) -> float:
    """A finite real number > minimum (>= minimum if ``inclusive``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    ok = value >= minimum if inclusive else value > minimum
    if not math.isfinite(value) or not ok:
        op = ">=" if inclusive else ">"
        raise ValueError(f"{name} must be a finite number {op} {minimum:g}, got {value!r}")
    return value


def check_positions(name: str, positions, *, limit: int | None = None) -> np.ndarray:
    """Non-negative positions as a float64 array of shape (T,); an int means ``range(positions)``.

    ``limit`` (exclusive) turns a too-large position into an IndexError.
    """
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        n = check_int(name, positions, minimum=0)
        return np.arange(n, dtype=np.float64)
    if isinstance(positions, torch.Tensor):
        positions = positions.detach().cpu().numpy()
    arr = np.asarray(positions)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must be numbers (an int n for range(n), or an array), got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be an int n (for range(n)) or a 1-D array of shape (T,), got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {arr[~np.isfinite(arr)][:3]}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be >= 0, got a position {arr.min():g}")
    if limit is not None and arr.size and arr.max() >= limit:
        raise IndexError(f"{name} must be < {limit}, got a position {arr.max():g}")
    return arr


def check_float_tensor(name: str, x) -> torch.Tensor:
    """A floating-point torch tensor (integer tensors would silently truncate rotations)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor (float16/32/64), got dtype {x.dtype}")
    return x


def check_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return value
