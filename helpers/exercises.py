"""Checking cells for the notebooks' exercises.

The learner fills in a function; the checking cell calls :func:`check`. An untouched stub (one that
raises ``NotImplementedError``) prints a hint instead of failing, so a notebook run top to bottom stays
green; a filled-in answer is compared with the expected values and a wrong one raises AssertionError.
Each notebook's hidden solution cell runs the same check on the solution, so the check itself is tested.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np


def check(
    candidate: Callable,
    cases: Iterable[tuple[tuple, object]],
    *,
    name: str | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-9,
) -> bool:
    """Run ``candidate(*args)`` for each ``(args, expected)`` and compare with ``np.testing.assert_allclose``.

    Returns True when every case matches, False (with a printed hint) when the stub is untouched.
    Raises AssertionError, naming the failing arguments, when an answer is wrong.
    """
    name = name or getattr(candidate, "__name__", "your function")
    cases = list(cases)
    for args, expected in cases:
        try:
            got = candidate(*args)
        except NotImplementedError:
            print(f"{name}: not attempted yet. Fill in the function above, then re-run this cell.")
            return False
        try:
            np.testing.assert_allclose(
                np.asarray(got, dtype=float), np.asarray(expected, dtype=float), rtol=rtol, atol=atol
            )
        except AssertionError as err:
            raise AssertionError(f"{name}{args!r} is not right yet:\n{err}") from None
    print(f"{name}: correct on all {len(cases)} cases.")
    return True
