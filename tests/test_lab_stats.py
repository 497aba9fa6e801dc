"""Tests of the lab's uncertainty over seeds (helpers.lab.stats) and of the findings' declared differences
(helpers.lab.claims.DIFFS): the Student-t quantile, the paired interval, the verdict rule, and that each finding's
differences say what its predicate says."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.lab.claims import DIFFS, FINDINGS
from helpers.lab.finding_spec import value
from helpers.lab.findings import findings, findings_markdown, weakest
from helpers.lab.records import at_scale, load_results, scales_of, seeds_of
from helpers.lab.results_md import papers_markdown
from helpers.lab.stats import ROBUST_SHARE, paired_interval, t_cdf, t_quantile, verdict

finite = st.floats(min_value=-100, max_value=100, allow_nan=False)


@pytest.mark.parametrize(("df", "expected"), [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452)])
def test_t_quantile_matches_the_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_cdf(t_quantile(0.975, df), df) == pytest.approx(0.975, abs=1e-9)
    assert t_quantile(0.975, 10**6) == pytest.approx(1.95996, abs=1e-4)  # the normal limit


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=-20, max_value=20), st.integers(min_value=1, max_value=40))
def test_t_cdf_is_a_symmetric_distribution(t, df):
    p = t_cdf(t, df)
    assert 0.0 <= p <= 1.0 and p + t_cdf(-t, df) == pytest.approx(1.0, abs=1e-12)
    assert t_cdf(t + 0.5, df) >= p


@settings(max_examples=30, deadline=None)
@given(st.lists(finite, min_size=2, max_size=12), st.lists(finite, min_size=2, max_size=12))
def test_paired_interval_contains_the_mean_and_shrinks_with_more_seeds(a, b):
    n = min(len(a), len(b))
    a, b = np.asarray(a[:n]), np.asarray(b[:n])
    iv = paired_interval(a, b)
    assert iv.n == n and iv.low <= iv.mean <= iv.high
    assert iv.mean == pytest.approx(float((a - b).mean()), abs=1e-9)
    twice = paired_interval(np.tile(a, 2), np.tile(b, 2))  # the same differences seen on twice the seeds
    assert twice.high - twice.low <= iv.high - iv.low + 1e-9


def test_paired_interval_edge_cases():
    same = paired_interval([0.3, 0.3, 0.3], 0.1)
    assert same.low == pytest.approx(0.2) == pytest.approx(same.high) and same.above(0.0)
    one = paired_interval([1.0], [0.0])
    assert one.n == 1 and math.isinf(one.low) and not one.above() and "no interval" in one.text()
    assert paired_interval([1.0, np.nan, 3.0]).n == 2  # a method that cannot run on a seed is left out
    iv = paired_interval([1.0, 2.0, 3.0])  # mean 2, s = 1, t(0.975, 2) = 4.303
    assert (iv.low, iv.high) == pytest.approx((2 - 4.3027 / math.sqrt(3), 2 + 4.3027 / math.sqrt(3)), abs=1e-4)
    with pytest.raises(ValueError, match="at least one finite difference"):
        paired_interval([np.nan])


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=30), st.data())
def test_verdict_rule(n, data):
    k = data.draw(st.integers(min_value=0, max_value=n))
    word = verdict(k, n)
    if k >= ROBUST_SHARE * n:
        assert word == "robust"
    elif k == 0:
        assert word == f"does not hold (0 of {n})"
    else:
        assert word == f"mixed ({k} of {n})"
    assert verdict(k, n, intervals_above=True) == "robust"


def test_verdict_rejects_counts_out_of_range():
    for k, n in ((4, 3), (-1, 3), (0, 0)):
        with pytest.raises(ValueError, match="holds must be in"):
            verdict(k, n)
    assert verdict(9, 10) == "robust" and verdict(8, 10) == "mixed (8 of 10)" and verdict(2, 3) == "mixed (2 of 3)"


def test_declared_differences_agree_with_each_findings_predicate():
    """On every seed of the shipped results: where every declared difference is strictly above its margin the
    finding holds, and where one is strictly below it does not (ties are the predicates' >= / <=)."""
    results = load_results()
    by_key = {f.key: f for f in FINDINGS}
    assert set(DIFFS) <= set(by_key)
    checked = 0
    for scale in scales_of(results):
        view = at_scale(results, scale)
        for key, diffs in DIFFS.items():
            f = by_key[key]
            if not set(f.methods) <= set(view["methods"]) or f.only_if is not None:
                continue
            seeds = seeds_of(view, *f.methods, *(m for m in f.optional if m in view["methods"]))
            values = {name: value(view, spec, seeds) for name, spec in f.values.items()}
            holds = np.broadcast_to(f.holds(values), (len(seeds),))
            margins = np.stack([d.of(values) - d.margin for d in diffs])  # (n_diffs, n_seeds)
            assert np.all(holds[np.all(margins > 1e-12, axis=0)]), key
            assert not np.any(holds[np.any(margins < -1e-12, axis=0)]), key
            checked += 1
    assert checked >= 40


def test_every_finding_reports_count_verdict_and_intervals():
    results = load_results()
    for scale in scales_of(results):
        for f in findings(at_scale(results, scale)):
            assert 0 <= f["holds"] <= f["n"] == len(f["seeds"])
            by_intervals = bool(f["intervals"]) and all(i["above"] and not i["threshold"] for i in f["intervals"])
            assert f["verdict"] == verdict(f["holds"], f["n"], by_intervals)
            assert len(f["intervals"]) == len(DIFFS.get(f["key"], ()))
            for i in f["intervals"]:
                assert i["low"] <= i["mean"] <= i["high"] and "`" in i["of"]
    text = findings_markdown(results)
    found = [f for sc in scales_of(results) for f in findings(at_scale(results, sc))]
    robust = next(f for f in found if f["verdict"] == "robust" and f["n"] > 1)
    mixed = next(f for f in found if f["verdict"].startswith("mixed"))
    assert "Student t" in text and f"**robust** ({robust['holds']} of {robust['n']} seeds)" in text
    by_interval = next(f for f in found if f["robust_by"] == "intervals")
    assert f"**robust** by its intervals ({by_interval['holds']} of {by_interval['n']} seeds)" in text
    assert f"- **{mixed['verdict']}**: " in text


def test_a_per_seed_threshold_is_judged_by_its_count_only():
    """Small `yarn_passkey_8L` ("at least 40 % of the passkeys at 8L"): its mean interval clears 0.4, but it fails on
    two seeds, so it is mixed, not robust; a paired comparison (tiny `alibi_local_past_4L`) may be robust by its
    intervals on 8 of 10 seeds."""
    results = load_results()
    small = {f["key"]: f for f in findings(at_scale(results, "small"))}
    f = small["yarn_passkey_8L"]
    assert f["intervals"][0]["threshold"] and f["intervals"][0]["above"]
    assert (f["holds"], f["n"], f["verdict"], f["robust_by"]) == (8, 10, "mixed (8 of 10)", None)
    alibi = {f["key"]: f for f in findings(at_scale(results, "tiny"))}["alibi_local_past_4L"]
    assert (alibi["holds"], alibi["verdict"], alibi["robust_by"]) == (8, "robust", "intervals")


def test_no_finding_compares_one_method_across_lengths():
    """Loss at 2L against loss at L is measured on different documents and flips with the evaluation sample."""
    for f in FINDINGS:
        specs = f.values(list(f.methods)) if callable(f.values) else f.values
        for diff in DIFFS.get(f.key, ()):
            sides = [specs[x] for x in (diff.greater, diff.lesser) if isinstance(x, str)]
            if len(sides) == 2 and sides[0][1] == sides[1][1] and sides[0][0] == sides[1][0] == "loss":
                assert sides[0][2] == sides[1][2], f"{f.key} compares one method's loss across lengths"


def test_a_compound_claim_takes_its_weakest_parts_verdict():
    results = load_results()
    tiny = {f["key"]: f for f in findings(at_scale(results, "tiny"))}
    parts = [tiny["loss_ranking"], tiny["yarn_passkey"]]
    assert weakest(parts)["key"] == "yarn_passkey" and tiny["loss_ranking"]["holds"] > tiny["yarn_passkey"]["holds"]
    row = next(line for line in papers_markdown(results).splitlines() if line.startswith("| NTK-aware and dynamic"))
    assert f"**mixed**: agrees on {tiny['yarn_passkey']['holds']} of 10 seeds (weakest part: `yarn_passkey`)" in row
