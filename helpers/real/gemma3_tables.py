"""Gemma 3 270M's shipped measurements read back: attention by distance per layer, loss curves, passkey counts.

:mod:`helpers.real.gemma3_measure` writes ``helpers/real/results/gemma3_results.json`` run by run; every function
here reads that dict (``{"meta": ..., "runs": [...]}``) and runs nothing. Used by notebook 08 (section
9), :mod:`helpers.widgets.modern` and the tests.

A run's RoPE is named by a *method key*: ``"default"`` (plain RoPE, the file's own per-layer-type bases) or
``"<method>/<layers>"``, e.g. ``"yarn/global"`` (YaRN at factor s on the full-attention layers only) or
``"linear/all"`` (position interpolation on every layer). :data:`METHOD_LABELS` says each in words.
"""

from __future__ import annotations

import numpy as np

import helpers.scaling  # noqa: F401  registers the scaling methods' labels and colours that helpers.methods reads
from helpers.methods import method_info, method_style

__all__ = [
    "METHOD_KEYS",
    "METHOD_LABELS",
    "attention_layers",
    "attention_share_beyond",
    "loss_curves",
    "loss_summary",
    "method_key",
    "passkey_counts",
    "runs_of",
]

#: The method keys in plot order: plain RoPE, then each scaled method on the global layers, then on every layer.
METHOD_KEYS = ("default", "linear/global", "yarn/global", "linear/all", "yarn/all")


def _label(key: str) -> str:
    if key == "default":
        return method_info("default").label
    method, layers = key.split("/")
    return f"{method_info(method).label}, {'global layers only' if layers == 'global' else 'every layer'}"


#: What each key means, in the scaling registry's names (s is the run's factor, 2 in the shipped runs).
METHOD_LABELS = {k: _label(k) for k in METHOD_KEYS}
#: Line styles of the keys: the registry's colour per method (chapter 07's), solid on the global layers, dashed on
#: every layer.
METHOD_STYLES = {
    k: {"color": method_style(k.split("/")[0])["color"], "ls": "--" if k.endswith("/all") else "-"} for k in METHOD_KEYS
}


def method_key(run: dict) -> str:
    """``"default"`` or ``"<method>/<layers>"`` of one run (see the module docstring)."""
    return "default" if run["method"] == "default" else f"{run['method']}/{run['layers']}"


def runs_of(results: dict, kind: str, **match) -> list[dict]:
    """The finished runs of ``kind`` ("attention", "loss", "passkey") whose fields equal ``match`` (e.g.
    ``n_tokens=49152``), in file order."""
    if kind not in ("attention", "loss", "passkey"):
        raise ValueError(f"kind must be one of 'attention', 'loss', 'passkey', got {kind!r}")
    return [
        r
        for r in results["runs"]
        if r["kind"] == kind and "finished_at" in r and all(r.get(k) == v for k, v in match.items())
    ]


def _one(results: dict, kind: str, **match) -> dict:
    runs = runs_of(results, kind, **match)
    if len(runs) != 1:
        raise ValueError(f"expected one finished {kind} run with {match}, found {len(runs)}")
    return runs[0]


# ------------------------------------------------------------------ attention
def attention_layers(results: dict, n_tokens: int = 4096) -> tuple[np.ndarray, list[dict]]:
    """The bucket edges (B + 1,) and one dict per layer (layer order) of the attention run on ``n_tokens`` tokens.

    Each layer's dict (:func:`helpers.real.gemma3_attention.layer_attention_by_distance`): ``type``, ``mass`` (B,)
    the share of all weight at distances in each bucket [e_b, e_b+1) (sums to 1), ``mass_without_bos`` (B,) the
    same without the weight on token 0, ``mass_by_head`` (H, B), ``bos_weight`` the mean weight on token 0.
    """
    run = _one(results, "attention", n_tokens=n_tokens)
    layers = [run["by_layer"][str(i)] for i in range(len(run["by_layer"]))]
    return np.asarray(run["edges"]), layers


def attention_share_beyond(edges, layer: dict, distance: int, *, without_bos: bool = False) -> float:
    """The share of a layer's attention weight on keys at least ``distance`` tokens back (``distance`` must be a
    bucket edge); ``without_bos``: leaving out the weight on token 0 (an attention sink)."""
    edges = [int(e) for e in edges]
    if distance not in edges[:-1]:
        raise ValueError(f"distance must be one of the bucket edges {edges[:-1]}, got {distance!r}")
    mass = layer["mass_without_bos" if without_bos else "mass"]
    return float(np.sum(mass[edges.index(distance) :]))


# ------------------------------------------------------------------ loss
def loss_curves(results: dict, n_tokens: int, *, smooth: int = 1) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Method key -> (positions (K,), losses (K,)): the loss by query position of each loss run on ``n_tokens``.

    A run stores means over blocks of ``block`` positions (256); ``smooth`` > 1 averages ``smooth`` consecutive
    blocks (the last, shorter group too); positions are each group's middle query position. Keys in
    :data:`METHOD_KEYS` order.
    """
    if isinstance(smooth, bool) or not isinstance(smooth, int | np.integer) or smooth < 1:
        raise ValueError(f"smooth must be an int >= 1 (blocks averaged), got {smooth!r}")
    runs = {method_key(r): r for r in runs_of(results, "loss", n_tokens=n_tokens)}
    out = {}
    for key in [k for k in METHOD_KEYS if k in runs]:
        r = runs[key]
        blocks = np.asarray(r["loss_blocks"], dtype=np.float64)  # (n_blocks,)
        n = r["n_losses"]
        sizes = np.minimum(r["block"], n - r["block"] * np.arange(blocks.size))  # (n_blocks,) positions per block
        groups = range(0, blocks.size, smooth)
        loss = np.array([np.average(blocks[g : g + smooth], weights=sizes[g : g + smooth]) for g in groups])
        start = np.array([g * r["block"] for g in groups])
        end = np.minimum(start + smooth * r["block"], n)
        out[key] = ((start + end - 1) / 2.0, loss)
    return out


def loss_summary(results: dict, n_tokens: int, context_length: int) -> dict[str, dict]:
    """Method key -> {"inside": mean loss of the queries at positions < L, "outside": at L .. n_tokens − 2,
    "last_1k": the last 1,024, "factor": s or None}, from each run's stored means (not from the block means)."""
    out = {}
    for r in runs_of(results, "loss", n_tokens=n_tokens):
        if r["mean_outside"] is not None and r["n_losses"] <= context_length:
            raise ValueError("mean_outside present although the run does not pass L")
        out[method_key(r)] = {
            "inside": r["mean_inside"],
            "outside": r["mean_outside"],
            "last_1k": r["mean_last_1k"],
            "factor": r.get("factor"),
        }
    return {k: out[k] for k in METHOD_KEYS if k in out}


# ------------------------------------------------------------------ passkey
def passkey_counts(results: dict) -> dict[tuple[str, int], dict]:
    """(method key, prompt length) -> {"exact": trials answered exactly, "trials", "digits": digits right (of 5 per
    trial), "depths": the depths tried (sorted)}."""
    out: dict[tuple[str, int], dict] = {}
    for r in runs_of(results, "passkey"):
        c = out.setdefault((method_key(r), r["n_tokens"]), {"exact": 0, "trials": 0, "digits": 0, "depths": []})
        c["exact"] += int(r["correct"])
        c["trials"] += 1
        c["digits"] += int(r["digits_correct"])
        c["depths"].append(r["depth"])
    for c in out.values():
        c["depths"] = sorted(c["depths"])
    return dict(sorted(out.items(), key=lambda kv: (METHOD_KEYS.index(kv[0][0]), kv[0][1])))
