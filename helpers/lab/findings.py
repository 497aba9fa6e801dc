"""The lab's claims judged on the records: one loop computes every declared finding (:data:`FINDINGS`, declared in
:mod:`helpers.lab.claims` as :class:`~helpers.lab.finding_spec.Finding`) on the seeds its methods share.

Each finding says on how many of its n seeds it holds (``{seeds}`` in its template becomes "on all 3 seeds", "on 2
of 3 seeds (not seed 1)", ...), gives the per-seed values, and for each paired difference it declares (its
:class:`~helpers.lab.finding_spec.Diff`\\ s) the mean difference over seeds with a 95 % Student-t interval
(:func:`helpers.lab.stats.paired_interval`). Its ``verdict`` is "robust" when it holds on at least 90 % of the seeds,
or when it compares measured values only and every interval lies above its margin; a per-seed threshold claim
(:attr:`~helpers.lab.finding_spec.Diff.threshold`) is robust only by its count; "mixed (k of n)" otherwise
(:func:`helpers.lab.stats.verdict`). ``robust_by`` says which: "count", "intervals" or None. A claim made of
several findings takes the verdict of its weakest part (:func:`weakest`).
"""

from __future__ import annotations

import numpy as np

from helpers.lab.claims import DIFFS, FINDINGS
from helpers.lab.finding_spec import COPY_LEARNED_NATS, Finding, describe, kind_of, loss_by_position, per_seed, value
from helpers.lab.records import at_scale, scales_of, seeds_of
from helpers.lab.stats import ROBUST_SHARE, paired_interval, verdict

__all__ = [
    "COPY_LEARNED_NATS",
    "DIFFS",
    "FINDINGS",
    "Finding",
    "finding_markdown",
    "findings",
    "findings_markdown",
    "loss_by_position",
    "per_seed",
    "verdict_words",
    "weakest",
]

INTERVAL_NOTE = "paired 95 % interval over seeds, Student t with n − 1 degrees of freedom"


def _seed_phrase(flags, seeds) -> str:
    """ "on all 3 seeds" / "on 2 of 3 seeds (not seed 1)" / "on none of the 3 seeds"."""
    flags = [bool(f) for f in flags]
    n, k = len(flags), sum(flags)
    if k == n:
        return f"on all {n} seeds" if n > 1 else f"on the one seed trained ({seeds[0]})"
    if k == 0:
        return f"on none of the {n} seeds" if n > 1 else f"not on the one seed trained ({seeds[0]})"
    missing = ", ".join(str(s) for s, f in zip(seeds, flags, strict=True) if not f)
    return f"on {k} of {n} seeds (not seed {missing})"


def _seeds_used(results: dict, finding: Finding) -> tuple[list[str], list[int], list[int]] | None:
    """(methods used, seeds kept, seeds left out by ``only_if``), or None when a method is absent or no seed is
    left."""
    present = set(results["methods"])
    if not set(finding.methods) <= present:
        return None
    used = [*finding.methods, *(m for m in finding.optional if m in present)]
    seeds, skipped = seeds_of(results, *used), []
    if finding.only_if is not None and seeds:
        metric, method, multiple, threshold = finding.only_if
        keep = value(results, (metric, method, multiple), seeds) >= threshold
        skipped = [s for s, ok in zip(seeds, keep, strict=True) if not ok]
        seeds = [s for s, ok in zip(seeds, keep, strict=True) if ok]
    return (used, seeds, skipped) if seeds else None


def _intervals(finding: Finding, values: dict, specs: dict, train_len: int) -> list[dict]:
    """Each declared difference: its label, margin, mean and 95 % interval over the seeds."""
    out = []
    for diff in finding.diffs:
        iv = paired_interval(diff.of(values))
        out.append(
            {
                "of": diff.label(specs, train_len),
                "margin": diff.margin,
                "mean": iv.mean,
                "low": iv.low,
                "high": iv.high,
                "above": iv.above(diff.margin),
                "threshold": diff.threshold,
            }
        )
    return out


def _evaluate(results: dict, finding: Finding) -> dict | None:
    """One finding on the seeds its methods share (see :func:`findings`), or None when a method is absent or no
    seed is left."""
    found = _seeds_used(results, finding)
    if found is None:
        return None
    used, seeds, skipped = found
    train_len = results["meta"]["train_len"]
    specs = finding.values(used) if callable(finding.values) else finding.values
    values = {name: value(results, spec, seeds) for name, spec in specs.items()}
    flags = [bool(f) for f in np.broadcast_to(finding.holds(values), (len(seeds),))]
    formatted = {name: per_seed(v) for name, v in values.items()}
    if callable(finding.template):
        text = finding.template(formatted, values, seeds, skipped)
    else:
        text = finding.template.format_map(formatted | {"seeds": "{seeds}", "L2": 2 * train_len})
    intervals = _intervals(finding, values, specs, train_len)
    holds, n = int(sum(flags)), len(flags)
    by_intervals = bool(intervals) and all(i["above"] and not i["threshold"] for i in intervals)
    by_count = holds >= ROBUST_SHARE * n - 1e-9
    return {
        "key": finding.key,
        "holds": holds,
        "n": n,
        "seeds": list(seeds),
        "text": text.replace("{seeds}", _seed_phrase(flags, seeds)),
        "verdict": verdict(holds, n, by_intervals),
        "robust_by": "count" if by_count else "intervals" if by_intervals else None,
        "intervals": intervals,
        "values": {name: [float(x) for x in v] for name, v in values.items()},
        "kinds": {name: kind_of(spec) for name, spec in specs.items()},
        "described": {name: describe(spec, train_len) for name, spec in specs.items()},
    }


def findings(results: dict) -> list[dict]:
    """The lab's claims (:data:`FINDINGS`), each computed on every seed that all its methods have: ``{"key",
    "text", "holds", "n", "seeds", "verdict", "intervals", "values", "kinds", "described"}`` (``holds`` = number of
    seeds on which the claim is true; the text names the seeds where it is not and gives the per-seed values;
    ``intervals``: per declared difference ``{"of", "margin", "mean", "low", "high", "above"}``; ``values``: each
    named value per seed). Defined on the standard grid L, 2L, 4L, 8L only."""
    train_len = results["meta"]["train_len"]
    if not {m * train_len for m in (1, 2, 4, 8)} <= set(results["meta"]["lengths"]):
        return []
    found = (_evaluate(results, f) for f in FINDINGS)
    return [f for f in found if f is not None]


def weakest(parts: list[dict]) -> dict:
    """The weakest of the findings a compound claim is made of: a non-robust one before a robust one, then the one
    holding on the smallest share of its seeds (a compound claim gets this part's verdict)."""
    if not parts:
        raise ValueError("weakest needs at least one finding, got none")
    return min(parts, key=lambda f: (f["verdict"] == "robust", f["holds"] / f["n"]))


def verdict_words(found: dict) -> str:
    """The verdict with how it was earned: "robust (10 of 10 seeds)", "robust by its intervals (8 of 10 seeds)",
    "mixed (7 of 10)", "does not hold (0 of 10)"."""
    if found["verdict"] != "robust" or found["n"] == 1:
        return found["verdict"]
    how = " by its intervals" if found["robust_by"] == "intervals" else ""
    return f"robust{how} ({found['holds']} of {found['n']} seeds)"


def finding_markdown(found: dict) -> str:
    """One finding as a Markdown list item: its verdict and seed count, the sentence, and each declared paired
    difference's mean and interval over seeds (a per-seed threshold is judged by its count: no interval shown)."""
    words = verdict_words(found)
    head = f"**{words}**" if found["verdict"] != "robust" or found["n"] == 1 else f"**robust**{words[6:]}"
    parts = [f"- {head}: {found['text']}"]
    paired = [i for i in found["intervals"] if not i["threshold"]]
    if paired and found["n"] > 1:
        diffs = "; ".join(f"{i['of']}: {i['mean']:.3f} [{i['low']:.3f}, {i['high']:.3f}]" for i in paired)
        parts.append(f"Mean difference over seeds ({INTERVAL_NOTE}): {diffs}.")
    return " ".join(parts) + "\n"


RULE = (
    "**robust** = holds on at least 90 % of the seeds, or (for a comparison of measured values) every paired "
    "interval lies above its margin; a per-seed threshold is judged by its count only; else **mixed (k of n)**. "
    "The intervals are over training seeds on one evaluation sample"
)


def findings_markdown(results: dict) -> str:
    """The findings of every scale as Markdown lists, each with its verdict, seed count and intervals."""
    parts = []
    for scale in scales_of(results):
        view = at_scale(results, scale)
        items = "".join(finding_markdown(f) for f in findings(view))
        parts.append(f"At scale `{scale}` (L = {view['meta']['train_len']}); {RULE}:\n\n" + items)
    return "\n".join(parts)
