"""Reading the results as data: one record per (scale, method, seed, task, evaluation length) in ``results.json``.

The accessors every table, figure and notebook uses: :func:`load_results`, :func:`record`, :func:`seeds_of` (the
seeds evaluated for some methods), :func:`seed_values` (one value per seed) and :func:`summary` (mean, min, max over
seeds). Plain NumPy; the tables, the findings and :mod:`helpers.plots.lab` all read through here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

RESULTS_DIR = Path(__file__).resolve().parent / "results"
RESULTS_JSON = RESULTS_DIR / "results.json"
RESULTS_MD = RESULTS_DIR / "RESULTS.md"
#: The figures drawn from the records (:func:`helpers.plots.lab.results_figures`), saved next to them.
PLOTS = {
    "loss_by_position": RESULTS_DIR / "loss_by_position.png",
    "passkey_by_length": RESULTS_DIR / "passkey_by_length.png",
    "learned_table": RESULTS_DIR / "learned_table.png",
    "passkey_by_length_small": RESULTS_DIR / "passkey_by_length_small.png",
}

METRICS = {
    "lm": ("loss", "loss_by_bucket", "bucket_starts", "previous_token_attention", "previous_token_by_head"),
    "passkey": ("accuracy", "accuracy_by_depth", "digit_accuracy"),
}


def load_results(path: Path = RESULTS_JSON) -> dict:
    """The stored evaluation results (``results/results.json``), as written by :func:`save_results`."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no stored results at {path}; run `python -m helpers.lab evaluate`")
    return json.loads(path.read_text())


def save_results(results: dict, directory: Path = RESULTS_DIR) -> Path:
    """Write ``results.json`` into ``directory`` (created if missing), atomically: a temporary file beside it, then a
    rename (nothing is left behind on a failure); returns its path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / RESULTS_JSON.name
    tmp = directory / f".{path.name}.part"
    try:
        tmp.write_text(json.dumps(results, indent=1) + "\n")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def scales_of(results: dict) -> list[str]:
    """The scales in ``results``: the top level's (``tiny``) first, then those under ``results["scales"]``."""
    return [results["meta"].get("scale", "tiny"), *results.get("scales", {})]


def _task_of(metric: str) -> str:
    for task, names in METRICS.items():
        if metric in names:
            return task
    raise ValueError(f"metric must be one of {[m for names in METRICS.values() for m in names]}, got {metric!r}")


def at_scale(results: dict, scale: str) -> dict:
    """The view of ``results`` at one scale: ``{"meta", "methods", "checkpoints", "records"}`` as
    :func:`helpers.lab.grid.evaluate_all` returns them for that scale. The file's top level is the ``tiny``
    view (what the notebooks read); other scales' meta and methods are under ``results["scales"]``."""
    if results["meta"].get("scale", "tiny") == scale:
        return results
    scales = results.get("scales", {})
    if scale not in scales:
        raise ValueError(f"scale must be one of {[results['meta'].get('scale', 'tiny'), *scales]}, got {scale!r}")
    return {**scales[scale], "checkpoints": results["checkpoints"], "records": results["records"]}


def without_methods(results: dict, names) -> dict:
    """The view ``results`` (the top level or an :func:`at_scale` view) without the methods ``names`` and their
    records: e.g. the shipped grid without the hybrid families, which notebook 05b leaves to notebook 08. Every name
    must be a method of ``results``."""
    names = list(names)
    missing = [n for n in names if n not in results["methods"]]
    if missing:
        raise ValueError(f"names must be methods of these results ({sorted(results['methods'])}), got {missing}")
    drop = set(names)
    return {
        **results,
        "methods": {m: v for m, v in results["methods"].items() if m not in drop},
        "records": [
            r
            for r in results["records"]
            if r["method"] not in drop or r.get("scale", "tiny") != results["meta"].get("scale", "tiny")
        ],
    }


def join_scales(main: dict, *others: dict) -> dict:
    """One results dict from :func:`helpers.lab.grid.evaluate_all` results at several scales: ``main``'s view at
    the top level, the others' meta and methods under ``"scales"``, every record and checkpoint in one list."""
    out = {k: main[k] for k in ("meta", "methods")}
    out["scales"] = {o["meta"]["scale"]: {"meta": o["meta"], "methods": o["methods"]} for o in others}
    out["checkpoints"] = {k: v for r in (main, *others) for k, v in r["checkpoints"].items()}
    out["records"] = [rec for r in (main, *others) for rec in r["records"]]
    return out


def record(results: dict, method: str, seed: int, task: str, length: int) -> dict:
    """The one record of (method, seed, task, length) at the scale of ``results`` (a view from :func:`at_scale`, or
    the top level = ``tiny``); KeyError naming it if absent."""
    scale = results["meta"].get("scale", "tiny")
    for r in results["records"]:
        if (
            r["method"] == method
            and r["seed"] == seed
            and r["task"] == task
            and r["length"] == length
            and r.get("scale", "tiny") == scale
        ):
            return r
    raise KeyError(f"no record for scale={scale!r}, method={method!r}, seed={seed}, task={task!r}, length={length}")


def seeds_of(results: dict, *methods: str) -> list[int]:
    """The seeds evaluated for every one of ``methods`` (a checkpoint not trained yet is left out of the results)."""
    common = None
    for m in methods:
        seeds = set(results["methods"][m]["seeds"])
        common = seeds if common is None else common & seeds
    return sorted(common or [])


def seed_values(results: dict, method: str, metric: str, length: int, seeds=None) -> np.ndarray:
    """``metric`` of ``method`` at length T for each of ``seeds`` (default: every seed evaluated for ``method``),
    shape (n_seeds, ...); NaN where the method cannot run."""
    task = _task_of(metric)
    out = []
    for seed in seeds_of(results, method) if seeds is None else seeds:
        r = record(results, method, seed, task, length)
        out.append(r["metrics"][metric] if r["status"] == "ok" else np.nan)
    return np.asarray(out, dtype=np.float64)


def summary(results: dict, method: str, metric: str, length: int) -> dict:
    """``{"mean", "min", "max", "values"}`` of a scalar metric over seeds (NaN everywhere if it cannot run)."""
    v = seed_values(results, method, metric, length)  # (n_seeds,)
    if v.size == 0 or np.isnan(v).any():
        return {"mean": math.nan, "min": math.nan, "max": math.nan, "values": v.tolist()}
    return {"mean": float(v.mean()), "min": float(v.min()), "max": float(v.max()), "values": v.tolist()}


#: The meta fields that define an evaluation sample: records of two results can be mixed only when they agree.
SAMPLE_FIELDS = ("n_lm_sequences", "n_attention_sequences", "passkey_depths", "passkey_keys_per_depth", "eval_seed")


def _run_keys(results: dict) -> set[tuple]:
    """(scale, method, seed) of every record."""
    return {(r.get("scale", "tiny"), r["method"], r["seed"]) for r in results["records"]}


def _summed_wall(old: dict, new: dict) -> dict:
    """``{"wall_seconds": ...}`` for merged results: the sum of both evaluations' wall-clock times when the new
    one added only new runs with the same number of processes (together they evaluated the whole grid once), the
    old one's otherwise (empty if neither was timed)."""
    ow, nw = old["meta"].get("wall_seconds"), new["meta"].get("wall_seconds")
    if ow and nw and ow["jobs"] == nw["jobs"] and not _run_keys(old) & _run_keys(new):
        return {"wall_seconds": {"all_scales": round(ow["all_scales"] + nw["all_scales"], 1), "jobs": ow["jobs"]}}
    return {"wall_seconds": ow} if ow else {}


def merge_results(old: dict, new: dict) -> dict:
    """``old`` with the records of ``new`` put in: each (scale, method, seed, task, length) of ``new`` replaces
    the same one of ``old``, every other record of ``old`` is kept; each method's seeds are joined. Raises
    ValueError naming the difference when a scale of both was evaluated on another sample (:data:`SAMPLE_FIELDS`)
    or at lengths the old file does not have (its tables would have holes)."""
    from helpers.lab.methods import ALL_METHODS

    views = {}
    for scale in dict.fromkeys([*scales_of(old), *scales_of(new)]):
        o = at_scale(old, scale) if scale in scales_of(old) else None
        n = at_scale(new, scale) if scale in scales_of(new) else None
        if o is None or n is None:
            views[scale] = {k: (o or n)[k] for k in ("meta", "methods")}
            continue
        for field in SAMPLE_FIELDS:
            if o["meta"].get(field) != n["meta"].get(field):
                raise ValueError(
                    f"scale {scale!r}: the stored results have {field} = {o['meta'].get(field)!r}, the new ones "
                    f"{n['meta'].get(field)!r}; records of two evaluation samples cannot be mixed"
                )
        if not set(n["meta"]["lengths"]) <= set(o["meta"]["lengths"]):
            raise ValueError(
                f"scale {scale!r}: lengths {n['meta']['lengths']} are not all among the stored results' "
                f"{o['meta']['lengths']}"
            )
        methods = dict(o["methods"])
        for m, info in n["methods"].items():
            seeds = sorted(set(methods.get(m, {}).get("seeds", [])) | set(info["seeds"]))
            methods[m] = {**info, "seeds": seeds}
        seeds = sorted(set(o["meta"]["seeds"]) | set(n["meta"]["seeds"]))
        runs = lambda v: {(m, s) for m, info in v["methods"].items() for s in info["seeds"]}  # noqa: E731
        # the new evaluation's meta (timing included) only if it redid every run of the old; else the old's
        if runs(o) <= runs(n):
            meta = n["meta"] | {"lengths": o["meta"]["lengths"]}
        elif not runs(o) & runs(n):  # only new runs (e.g. new seeds): the scale's evaluation work adds up
            meta = o["meta"] | {
                k: round(o["meta"][k] + n["meta"][k], 1)
                for k in ("eval_seconds", "full_eval_seconds")
                if k in o["meta"] and k in n["meta"]
            }
        else:
            meta = o["meta"]
        order = {m: i for i, m in enumerate(ALL_METHODS)}
        methods = dict(sorted(methods.items(), key=lambda kv: order[kv[0]]))
        views[scale] = {"meta": meta | {"seeds": seeds}, "methods": methods}
    key = lambda r: (r.get("scale", "tiny"), r["method"], r["seed"], r["task"], r["length"])  # noqa: E731
    fresh = {key(r) for r in new["records"]}
    records = [r for r in old["records"] if key(r) not in fresh] + list(new["records"])
    scale_order = {s: i for i, s in enumerate(views)}
    method_order = {m: i for i, m in enumerate(ALL_METHODS)}
    records.sort(
        key=lambda r: (
            scale_order[r.get("scale", "tiny")],
            method_order[r["method"]],
            r["seed"],
            r["length"],
            r["task"],
        )
    )
    first, *rest = views
    out = {**views[first], "scales": {s: views[s] for s in rest}}
    out["meta"] = {**out["meta"], **_summed_wall(old, new)}
    out["checkpoints"] = dict(sorted({**old["checkpoints"], **new["checkpoints"]}.items()))
    out["records"] = records
    return out
