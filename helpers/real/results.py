"""Chapter 07's results file and the tables read from it: loss curves and loss runs per method, passkey counts.

The file (``helpers/real/results/results.json``, written run by run by :func:`helpers.real.evaluate.run_plan`) holds
``{"meta": ..., "runs": [...]}``; every function here reads that dict, nothing runs the model. Used by notebook 07,
:mod:`helpers.real.report` and :mod:`helpers.real.evaluate` (which re-exports everything here).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from helpers.real.pins import MODELS, WHEELS

__all__ = [
    "POSITIVE_CONTROL_FILE",
    "RESULTS_FILE",
    "TRY_IT_FILE",
    "ResultsFileError",
    "atomic_write_bytes",
    "check_results_model",
    "load_positive_control",
    "load_results",
    "results_model",
    "write_results",
    "loss_curves",
    "loss_table",
    "passkey_counts",
    "passkey_stats",
]

RESULTS_FILE = Path(__file__).with_name("results") / "results.json"
#: The try-it panel's precomputed settings (``python -m helpers.real try-it`` writes it).
TRY_IT_FILE = RESULTS_FILE.with_name("try_it.json")
#: Notebook 07's positive control (two one-pass YaRN runs of 8,960 tokens, minutes each on one thread):
#: :func:`helpers.real.evaluate.measure_positive_control` writes it, :func:`load_positive_control` reads it.
POSITIVE_CONTROL_FILE = RESULTS_FILE.with_name("positive_control.json")


class ResultsFileError(ValueError):
    """A results file that cannot be read as one, or that another model wrote (the message names the file)."""


#: How a results file's ``meta`` says which model wrote it: model key -> (meta key, the value that model writes).
#: Chapter 07's SmolLM2 runs record the model wheel's SHA-256, Gemma 3's runs the assembled GGUF's.
MODEL_MARKS = {
    "smollm2": ("model_wheel_sha256", WHEELS["model"].sha256),
    "gemma3": ("gguf_sha256", MODELS["gemma3"].sha256),
}


def load_results(path: str | os.PathLike = RESULTS_FILE) -> dict:
    """The results file as a dict ``{"meta": ..., "runs": [...]}`` (empty runs if the file does not exist).

    Raises :class:`ResultsFileError` naming the file if it is not JSON or not such a dict."""
    path = Path(path)
    if not path.exists():
        return {"meta": {}, "runs": []}
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ResultsFileError(f"{path} is not a readable results file ({type(exc).__name__}: {exc})") from None
    if not (
        isinstance(results, dict) and isinstance(results.get("meta"), dict) and isinstance(results.get("runs"), list)
    ):
        raise ResultsFileError(f'{path} is not a results file: it holds no {{"meta": {{...}}, "runs": [...]}}')
    return results


def load_positive_control(sequences: dict, path: str | os.PathLike = POSITIVE_CONTROL_FILE) -> dict:
    """The shipped losses of the positive control: label -> per-token losses (float64, ``(tail,)``) on the last
    ``tail`` tokens of that label's sequence, one pass each.

    ``sequences``: label -> the token ids the caller built (list of ints). Each label must be in the file and its
    ids must be the ones measured (same SHA-256, :func:`helpers.real.texts.tokens_sha256`), and the file must be
    SmolLM2's: otherwise :class:`ResultsFileError` names the file, the label and what differs.
    """
    from helpers.real.texts import tokens_sha256

    path = Path(path)
    if not path.exists():
        raise ResultsFileError(
            f"{path} does not exist: write it with helpers.real.evaluate.measure_positive_control (minutes per pass)"
        )
    results = load_results(path)
    if results_model(results) != "smollm2":
        raise ResultsFileError(f"{path} was not written by the SmolLM2 model of chapter 07")
    runs = {r.get("label"): r for r in results["runs"]}
    out = {}
    for label, ids in sequences.items():
        if label not in runs:
            raise ResultsFileError(f"{path} has no run labelled {label!r}; it has {sorted(map(str, runs))}")
        run = runs[label]
        if run["tokens_sha256"] != tokens_sha256(ids) or run["n_tokens"] != len(ids):
            raise ResultsFileError(
                f"{path}: run {label!r} was measured on other tokens ({run['n_tokens']} tokens, sha256 "
                f"{run['tokens_sha256'][:12]}…) than the {len(ids)} given (sha256 {tokens_sha256(ids)[:12]}…)"
            )
        out[label] = np.asarray(run["tail_losses"], dtype=np.float64)
    return out


def results_model(results: dict) -> str | None:
    """The key of the model (:data:`MODEL_MARKS`) that wrote ``results``; None for a file with no run and no meta
    (a new one). Raises :class:`ResultsFileError` if runs are there but no model is recorded."""
    meta = results.get("meta") or {}
    for model, (key, value) in MODEL_MARKS.items():
        if meta.get(key) == value:
            return model
    if not meta and not results.get("runs"):
        return None
    raise ResultsFileError(
        f"the results' meta records none of the course's models ({', '.join(MODEL_MARKS)}): keys {sorted(meta)}"
    )


def check_results_model(path: str | os.PathLike, model: str) -> dict:
    """The results file ``path`` (loaded; empty if missing) after checking that ``model`` wrote it or that it is
    new. Raises :class:`ResultsFileError` naming the file, the model that wrote it and ``model``."""
    if model not in MODEL_MARKS:
        raise ValueError(f"model must be one of {list(MODEL_MARKS)}, got {model!r}")
    results = load_results(path)
    try:
        wrote = results_model(results)
    except ResultsFileError as exc:
        raise ResultsFileError(f"{path}: {exc}; refusing to add {model} runs to it") from None
    if wrote not in (None, model):
        raise ResultsFileError(
            f"{path} holds {wrote}'s runs ({len(results['runs'])}); refusing to add {model} runs to it "
            "(give another file)"
        )
    return results


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same directory, then a rename (a reader never
    sees half a file); on any failure the temporary file is removed and ``path`` is unchanged."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a written file gets the usual permissions
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_results(results: dict, path: str | os.PathLike) -> None:
    """Write a results dict as indented JSON, atomically (:func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, (json.dumps(results, indent=1) + "\n").encode("utf-8"))


def loss_curves(results: dict, *, text: str = "bible", factor: float = 2.0, merge: int = 4) -> dict:
    """Loss-by-position curves of one text at one scale: method key -> (positions (K,), losses (K,)).

    One-pass loss runs of ``text`` at scale ``factor``; the sliding-window run of ``text`` under "sliding" and
    dynamic NTK fed through a KV cache under "kv_cache" (when present). ``merge`` consecutive stored blocks are
    averaged into one point (4 x 128 = 512 tokens). The x value is the centre of the merged block; a block with
    no data is NaN.
    """
    merge = int(merge)
    if merge < 1:
        raise ValueError(f"merge must be an int >= 1, got {merge}")
    curves = {}
    for r in results["runs"]:
        if r["kind"] == "loss" and r["text"] == text and r["factor"] == factor:
            name = "kv_cache" if "kv_chunk" in r else r["method"]
        elif r["kind"] == "sliding" and r["text"] == text:
            name = "sliding"
        elif r["kind"] == "windowed" and r["text"] == text and r["factor"] == factor:
            name = f"{r['method']}_windowed"
        else:
            continue
        y = np.array([np.nan if v is None else v for v in r["loss_blocks"]], dtype=np.float64)  # (K0,)
        y = y[: y.size // merge * merge].reshape(-1, merge).mean(1)  # (K,)
        curves[name] = ((np.arange(y.size) + 0.5) * r["block"] * merge, y)
    return curves


def loss_table(results: dict, *, text: str = "bible", factor: float = 2.0) -> dict:
    """The loss runs of one text at one scale by name (as in :func:`loss_curves`): name -> run dict."""
    table = {}
    for r in results["runs"]:
        if r["kind"] == "loss" and r["text"] == text and r["factor"] == factor:
            table["kv_cache" if "kv_chunk" in r else r["method"]] = r
        elif r["kind"] == "sliding" and r["text"] == text:
            table["sliding"] = r
        elif r["kind"] == "windowed" and r["text"] == text and r["factor"] == factor:
            table[f"{r['method']}_windowed"] = r
    return table


def passkey_counts(results: dict, *, factor: float = 2.0) -> dict:
    """Passkey trials at scale ``factor``: method -> {prompt length: (keys found, trials)} (lengths ascending)."""
    counts: dict = {}
    for r in results["runs"]:
        if r["kind"] == "passkey" and r["factor"] == factor:
            found, trials = counts.setdefault(r["method"], {}).get(r["n_tokens"], (0, 0))
            counts[r["method"]][r["n_tokens"]] = (found + bool(r["correct"]), trials + 1)
    return {m: dict(sorted(c.items())) for m, c in counts.items()}


def passkey_stats(results: dict, *, factor: float = 2.0) -> dict:
    """Passkey trials at scale ``factor``: method -> {prompt length: {"trials", "exact", "digits"}} (lengths
    ascending). ``exact``: trials whose 6 answer tokens are all the argmax (a space, then the 5 digits);
    ``digits``: digit positions right, of 5 per trial (each scored given the correct earlier answer tokens)."""
    stats: dict = {}
    for r in results["runs"]:
        if r["kind"] == "passkey" and r["factor"] == factor:
            e = stats.setdefault(r["method"], {}).setdefault(r["n_tokens"], {"trials": 0, "exact": 0, "digits": 0})
            e["trials"] += 1
            e["exact"] += bool(r["correct"])
            e["digits"] += int(r["digits_correct"])
    return {m: dict(sorted(c.items())) for m, c in stats.items()}
