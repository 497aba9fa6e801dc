"""Argument checks shared by the scaling methods (HF's validators warn; these raise, naming the parameter)."""

from __future__ import annotations

import numpy as np

from helpers._checks import check_int, check_positive

#: What every method returns: inv_freq (D/2,) float64 and the attention factor.
ScalingResult = tuple[np.ndarray, float]


def check_factor(value, name: str = "factor") -> float:
    """s >= 1. HF 5.24's validators (``_validate_linear_rope_parameters``, ``_validate_dynamic_rope_parameters``,
    ``_validate_yarn_rope_parameters``, ``_validate_llama3_rope_parameters``, ``_validate_longrope_rope_parameters``)
    all say "factor field must be a float or int >= 1"; HF only logs a warning, we raise."""
    return check_positive(name, value, minimum=1.0, inclusive=True)


def check_length(name: str, value) -> int:
    """A context length in positions: an integer >= 1."""
    return check_int(name, value, minimum=1)


def check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def check_optional_seq_len(value) -> int | None:
    return None if value is None else check_int("seq_len", value, minimum=0)
