"""argparse types shared by the command lines (``python -m helpers.lab``, ``python -m helpers.real``): each rejects a
bad value with a message naming what is allowed; argparse adds the flag and exits with status 2. Standard library
only, so that ``--help`` stays instant."""

from __future__ import annotations

import argparse
import math


def int_at_least(minimum: int, suffix: str = ""):
    """argparse type: an integer >= ``minimum`` (``suffix``, e.g. " (tokens)", follows the bound in the message)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}{suffix}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}{suffix}, got {value}")
        return value

    return parse


def number_at_least(minimum: float, *, noun: str = "", suffix: str = ""):
    """argparse type: a finite number >= ``minimum`` ("must be a number{noun} >= {minimum}{suffix}")."""

    def parse(text: str) -> float:
        allowed = f"a number{noun} >= {minimum:g}{suffix}"
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        if not (math.isfinite(value) and value >= minimum):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    return parse
