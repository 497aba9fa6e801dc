"""argparse pieces shared by the command lines (``python -m helpers.lab``, ``python -m helpers.real``).

Every flag is checked by its argparse ``type`` before any work starts: a bad value exits with status 2 and ONE line
``<prog>: error: argument --flag: must be <what is allowed>, got <value>`` (:class:`Parser`: no usage block, no
traceback). Output paths are checked writable without creating anything; input paths must exist. Standard library
only, so that ``--help`` stays instant.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path

__all__ = [
    "Parser",
    "existing_dir",
    "existing_file",
    "int_at_least",
    "int_between",
    "number_at_least",
    "output_dir",
    "output_file",
]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (``prog: error: message``), exit status 2."""

    def error(self, message: str):
        print(f"{self.prog}: error: {message} (--help lists the flags)", file=sys.stderr)
        sys.exit(2)


def _int(text: str, allowed: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None


def int_at_least(minimum: int, suffix: str = ""):
    """argparse type: an integer >= ``minimum`` (``suffix``, e.g. " (tokens)", follows the bound in the message)."""

    def parse(text: str) -> int:
        allowed = f"an integer >= {minimum}{suffix}"
        value = _int(text, allowed)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    return parse


def int_between(minimum: int, maximum: int, suffix: str = ""):
    """argparse type: an integer in [``minimum``, ``maximum``]; ``suffix`` (e.g. " tokens (4 L: memory)") says
    where the bound comes from."""

    def parse(text: str) -> int:
        allowed = f"an integer from {minimum} to {maximum}{suffix}"
        value = _int(text, allowed)
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
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


def _writable_dir_problem(directory: Path) -> str | None:
    """None if files can be created in ``directory`` (or in its nearest existing ancestor, which would hold the
    new directories), else why not. Tried by creating an anonymous temporary file there, removed at once
    (``os.access`` says yes to root even on a read-only file system such as /proc)."""
    probe = directory
    while not probe.exists():
        if probe.parent == probe:
            return f"no part of {directory} exists"
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is a file, not a directory"
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        return f"cannot create a file in {probe} ({exc.strerror or type(exc).__name__})"
    return None


def output_file(*suffixes: str):
    """argparse type: a file path that can be written (its directory, or the nearest existing one, writable; not a
    directory), with one of ``suffixes`` if given. Nothing is created."""

    def parse(text: str) -> Path:
        path = Path(text)
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"must be a file to write, got {text!r}, which is a directory")
        if suffixes and path.suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(f"must be a file ending in {' or '.join(suffixes)}, got {text!r}")
        if path.exists() and not os.access(path, os.W_OK):
            raise argparse.ArgumentTypeError(f"must be a writable file, got {text!r}: it is read-only")
        problem = _writable_dir_problem(path.parent.absolute())
        if problem:
            raise argparse.ArgumentTypeError(f"must be a file in a writable directory, got {text!r}: {problem}")
        return path

    return parse


def output_dir(text: str) -> Path:
    """argparse type: a directory to write into (existing and writable, or creatable). Nothing is created."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"must be a directory, got {text!r}, which is a file")
    problem = _writable_dir_problem(path.absolute())
    if problem:
        raise argparse.ArgumentTypeError(f"must be a writable directory, got {text!r}: {problem}")
    return path


def existing_file(text: str) -> Path:
    """argparse type: a file that exists."""
    path = Path(text)
    if not path.is_file():
        what = "a directory" if path.is_dir() else "missing"
        raise argparse.ArgumentTypeError(f"must be an existing file, got {text!r}, which is {what}")
    return path


def existing_dir(text: str) -> Path:
    """argparse type: a directory that exists."""
    path = Path(text)
    if not path.is_dir():
        what = "a file" if path.exists() else "missing"
        raise argparse.ArgumentTypeError(f"must be an existing directory, got {text!r}, which is {what}")
    return path
