"""The lab's claims judged on the records: one loop computes every declared finding (:data:`FINDINGS`, declared in
:mod:`helpers.lab.claims` as :class:`~helpers.lab.finding_spec.Finding`) on the seeds its methods share.

Each finding says on how many of its n seeds it holds (``{seeds}`` in its template becomes "on all 3 seeds", "on 2
of 3 seeds (not seed 1)", ...), gives the per-seed values, and for each paired difference it declares (its
:class:`~helpers.lab.finding_spec.Diff`\\ s) the mean difference over seeds with a 95 % Student-t interval
(:func:`helpers.lab.stats.paired_interval`). Its ``verdict`` is "robust" when it holds on at least 90 % of the seeds
or every interval lies above its margin, "mixed (k of n)" otherwise (:func:`helpers.lab.stats.verdict`).
"""

from __future__ import annotations

import numpy as np

from helpers.lab.claims import DIFFS, FINDINGS
from helpers.lab.finding_spec import COPY_LEARNED_NATS, Finding, describe, kind_of, loss_by_position, per_seed, value
from helpers.lab.records import at_scale, scales_of, seeds_of
from helpers.lab.stats import paired_interval, verdict

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
    holds = int(sum(flags))
    return {
        "key": finding.key,
        "holds": holds,
        "n": len(flags),
        "seeds": list(seeds),
        "text": text.replace("{seeds}", _seed_phrase(flags, seeds)),
        "verdict": verdict(holds, len(flags), bool(intervals) and all(i["above"] for i in intervals)),
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


def finding_markdown(found: dict) -> str:
    """One finding as a Markdown list item: its verdict and seed count, the sentence, and each declared
    difference's mean and interval over seeds."""
    robust = found["verdict"] == "robust" and found["n"] > 1  # the other verdicts carry their count already
    head = f"**{found['verdict']}**" + (f" ({found['holds']} of {found['n']} seeds)" if robust else "")
    parts = [f"- {head}: {found['text']}"]
    if found["intervals"] and found["n"] > 1:
        diffs = "; ".join(f"{i['of']}: {i['mean']:.3f} [{i['low']:.3f}, {i['high']:.3f}]" for i in found["intervals"])
        parts.append(f"Mean difference over seeds ({INTERVAL_NOTE}): {diffs}.")
    return " ".join(parts) + "\n"


def findings_markdown(results: dict) -> str:
    """The findings of every scale as Markdown lists, each with its verdict, seed count and intervals."""
    parts = []
    for scale in scales_of(results):
        view = at_scale(results, scale)
        items = "".join(finding_markdown(f) for f in findings(view))
        parts.append(
            f"At scale `{scale}` (L = {view['meta']['train_len']}); **robust** = holds on at least 90 % of the seeds or "
            "every interval lies above its margin, else **mixed (k of n)**:\n\n" + items
        )
    return "\n".join(parts)
