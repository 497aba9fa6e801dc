"""``helpers/lab/results/RESULTS.md``: its generated blocks (the tables, the findings, the papers' claims beside the
findings, the one-seed write-up's claims and what the seeds say now), each between its two markers; the text around
them is written by hand. :func:`results_md` returns the whole document with every block refreshed
(``scripts/update_lab_results.py`` writes it).
"""

from __future__ import annotations

from helpers.lab.findings import findings, findings_markdown, verdict_words, weakest
from helpers.lab.records import at_scale, scales_of
from helpers.lab.tables import results_tables

__all__ = [
    "BLOCKS",
    "EARLIER_CLAIMS",
    "PAPER_CLAIMS",
    "SUMMARY_ROWS",
    "earlier_claims_markdown",
    "papers_markdown",
    "results_md",
    "summary_markdown",
]

TABLE_BEGIN, TABLE_END = "<!-- BEGIN GENERATED TABLE -->", "<!-- END GENERATED TABLE -->"
FINDINGS_BEGIN, FINDINGS_END = "<!-- BEGIN GENERATED FINDINGS -->", "<!-- END GENERATED FINDINGS -->"


def replace_block(text: str, begin: str, end: str, block: str) -> str:
    """``text`` with what lies between the markers ``begin`` and ``end`` replaced by ``block``."""
    if begin not in text or end not in text:
        raise ValueError(f"the document has no {begin} … {end} block to update")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{block}{end}{tail}"


def results_md(results: dict, text: str | None = None) -> str:
    """RESULTS.md (``text``, or a new document with empty blocks when None) with every generated block refreshed."""
    if text is None:
        text = "# Tiny-model lab: results\n\n" + "\n".join(f"{begin}\n{end}\n" for begin, end in BLOCKS)
    text = replace_block(text, TABLE_BEGIN, TABLE_END, results_tables(results))
    text = replace_block(text, PAPERS_BEGIN, PAPERS_END, papers_markdown(results))
    text = replace_block(text, EARLIER_BEGIN, EARLIER_END, earlier_claims_markdown(results))
    return replace_block(text, FINDINGS_BEGIN, FINDINGS_END, findings_markdown(results))


#: The papers' claims set beside the lab's findings: (claim, source, finding keys, whether the findings agree with
#: the claim or contradict it). A claim made of several findings gets the verdict of its weakest part
#: (:func:`helpers.lab.findings.weakest`), which the table names.
PAPER_CLAIMS = (
    (
        "Extending RoPE past L by extrapolation fails (PI: attention scores can become catastrophically high)",
        "Chen et al. 2023, arXiv 2306.15595 (abstract); Peng et al. 2023, arXiv 2309.00071",
        ("rope_fails_past_L",),
        True,
    ),
    (
        "PI reaches the longer window with a short fine-tune (within 1000 steps)",
        "arXiv 2306.15595 (abstract)",
        ("ft_pi_fixes",),
        True,
    ),
    (
        "Without fine-tuning, PI degrades but stays far better than extrapolation",
        "arXiv 2306.15595 (its results by fine-tuning step; step 0 = no fine-tuning)",
        ("pi_zero_shot",),
        False,
    ),
    (
        "A PI-extended model keeps its quality inside the original window relatively well",
        "arXiv 2306.15595 (abstract)",
        ("ft_costs_short",),
        False,
    ),
    (
        "NTK-aware and dynamic scaling work without fine-tuning; YaRN beats them and PI zero-shot",
        "arXiv 2309.00071 (§3.1 NTK-aware, §3.3 dynamic scaling, experiments)",
        ("loss_ranking", "yarn_passkey"),
        True,
    ),
    (
        "With the same fine-tune, YaRN beats PI",
        "arXiv 2309.00071 (experiments)",
        ("ft_yarn_beats_pi", "ft_yarn_passkey_4L"),
        True,
    ),
    (
        "Blind interpolation (PI) loses the high frequencies that resolve nearby tokens; YaRN keeps them",
        "arXiv 2309.00071 §3.2",
        ("pi_keep_fast",),
        True,
    ),
    (
        "NTK-aware scaling needs a factor above the extension ratio L'/L to work well",
        "arXiv 2309.00071 §3.1",
        ("ntk_alpha2s",),
        True,
    ),
    (
        "YaRN's attention temperature 0.1·ln s + 1 lowers perplexity at long lengths",
        "arXiv 2309.00071 §3.4",
        ("yarn_temperature",),
        True,
    ),
    (
        "ALiBi trains short and tests long: its perplexity does not rise past L with nothing changed",
        "Press et al. 2022, arXiv 2108.12409",
        ("alibi_flat", "alibi_local_past_4L"),
        True,
    ),
    (
        "A causal decoder without positional encoding (NoPE) generalises to longer inputs better than explicit "
        "encodings on their tasks",
        "Kazemnejad et al. 2023, arXiv 2305.19466",
        ("nope_flat", "nope_family"),
        True,
    ),
)


def _verdict(parts: list[dict], agrees: bool) -> str:
    """The papers table's verdict: its weakest part's seed count and verdict (:func:`helpers.lab.stats.verdict`),
    naming that part when the claim has several."""
    found = weakest(parts)
    n, holds = found["n"], found["holds"]
    differ = len({(f["verdict"], f["holds"], f["n"]) for f in parts}) > 1
    which = f" (weakest part: `{found['key']}`)" if differ else ""
    word = "agrees" if agrees else "not reproduced in the miniature"
    if holds == n:
        return f"**{word}** on all {n} seeds{which}"
    if holds == 0:
        return f"**{'not reproduced' if agrees else 'consistent with the claim'}** on any of the {n} seeds{which}"
    if found["verdict"] == "robust":
        how = " by its intervals" if found["robust_by"] == "intervals" else ""
        return f"**{word}** (robust{how}) on {holds} of {n} seeds{which}"
    return f"**mixed**: {word} on {holds} of {n} seeds{which}"


def papers_markdown(results: dict) -> str:
    """The papers' claims beside the lab's generated findings, with a verdict from the seed counts at each scale
    where the finding was measured."""
    scales = scales_of(results)
    by_scale = {s: {f["key"]: f for f in findings(at_scale(results, s))} for s in scales}
    lines = ["| claim | source | this lab (scale `tiny`) | verdict |", "|---|---|---|---|"]
    for claim, source, keys, agrees in PAPER_CLAIMS:
        by_key = by_scale[scales[0]]
        found = [by_key[k] for k in keys if k in by_key]
        if not found or keys[0] not in by_key:
            continue
        verdicts = [
            f"`{s}`: {_verdict([by_scale[s][k] for k in keys if k in by_scale[s]], agrees)}"
            for s in scales
            if keys[0] in by_scale[s]
        ]
        text = " ".join(f["text"] for f in found).replace("|", "/")
        lines.append(f"| {claim} | {source} | {text} | {'; '.join(verdicts)} |")
    return "\n".join(lines) + "\n"


PAPERS_BEGIN, PAPERS_END = "<!-- BEGIN GENERATED PAPERS -->", "<!-- END GENERATED PAPERS -->"
BLOCKS = (
    (TABLE_BEGIN, TABLE_END),
    (FINDINGS_BEGIN, FINDINGS_END),
    (PAPERS_BEGIN, PAPERS_END),
    ("<!-- BEGIN GENERATED EARLIER CLAIMS -->", "<!-- END GENERATED EARLIER CLAIMS -->"),
)


#: Claims of the one-seed write-up (README, RESULTS.md, notebook 05b, all from seed 0) and the findings that test
#: them now; the status is generated.
EARLIER_CLAIMS = (
    ("Plain RoPE breaks past L (passkey 1.00 at L, 0.00 at 4L and 8L)", "rope_breaks"),
    ("A learned table cannot run past its rows; on its untrained rows (2L) passkey drops to 0.00", "learned_table"),
    ("Zero-shot PI is the worst method, worse than plain extrapolation at 2L", "pi_zero_shot"),
    ("NTK-aware and YaRN work zero-shot; at 8L the loss ranks YaRN < NTK < plain RoPE", "loss_ranking"),
    ("Zero-shot YaRN is the best zero-shot method on passkeys past L", "yarn_passkey"),
    ("Zero-shot YaRN scores passkey 0.92 / 0.75 / 0.43 at 2L / 4L / 8L (at least 0.4 at 8L)", "yarn_passkey_8L"),
    ("After the same fine-tune, YaRN beats PI at 4L", "ft_yarn_beats_pi"),
    ("YaRN fine-tuned extrapolates past its tuning length better than PI fine-tuned (8L)", "ft_beyond_tuning"),
    ("A short PI fine-tune lifts passkey at 4L from 0.00 to 0.83 (a lift of more than 0.5)", "ft_pi_fixes"),
    ("Both fine-tunes lose passkey accuracy at T = L", "ft_costs_short"),
    ("NoPE learned the passkey (1.00 at L)", "nope_passkey_at_L"),
    ("The sinusoidal model never learned the passkey", "sinusoidal_no_passkey"),
    ("Once extension works, long context lowers the loss (YaRN: loss at 2L below loss at L)", None),
)
#: Why an earlier claim has no finding any more.
WITHDRAWN = (
    "**withdrawn**: it compared one method across lengths, on documents that differ per length; its count flips "
    "with the evaluation sample"
)
EARLIER_BEGIN, EARLIER_END = "<!-- BEGIN GENERATED EARLIER CLAIMS -->", "<!-- END GENERATED EARLIER CLAIMS -->"


def earlier_claims_markdown(results: dict) -> str:
    """Each claim of the one-seed write-up beside what the seeds now say (generated status)."""
    by_key = {f["key"]: f for f in findings(results)}
    lines = ["| earlier claim (seed 0 only) | now | status |", "|---|---|---|"]
    for claim, key in EARLIER_CLAIMS:
        if key is None:
            lines.append(f"| {claim} | (no finding) | {WITHDRAWN} |")
            continue
        if key not in by_key:
            continue
        f = by_key[key]
        if f["holds"] == f["n"]:
            status = f"still holds, on all {f['n']} seeds" if f["n"] > 1 else "holds (one seed only)"
        elif f["verdict"] == "robust":
            status = f"still holds (robust), on {f['holds']} of {f['n']} seeds"
        elif f["holds"] == 0:
            status = "**changed**: holds on no seed"
        else:
            status = f"**changed**: holds on {f['holds']} of {f['n']} seeds only"
        lines.append(f"| {claim} | {f['text'].replace('|', '/')} | {status} |")
    return "\n".join(lines) + "\n"


#: The short table of notebook 05b: (claim in a few words, finding keys, beside the papers). A row made of several
#: findings gets its weakest part's verdict; the full list of findings is in docs/lab-results.md.
SUMMARY_ROWS = (
    ("Plain RoPE fails past L", ("rope_fails_past_L",), "PI, YaRN: agrees"),
    ("Zero-shot PI is worse than doing nothing at 2L", ("pi_zero_shot",), "PI: not reproduced"),
    ("PI with the fast pair(s) kept beats PI at 2L", ("pi_keep_fast",), "YaRN §3.2: agrees"),
    ("Zero-shot loss at 8L: YaRN < NTK-aware < plain RoPE", ("loss_ranking",), "YaRN: agrees"),
    ("Zero-shot YaRN retrieves the most passkeys past L", ("yarn_passkey",), "YaRN: agrees"),
    ("Zero-shot YaRN keeps ≥ 40 % of the passkeys at 8L", ("yarn_passkey_8L",), ""),
    ("NTK-aware: α = 2s beats α = s at 8L", ("ntk_alpha2s",), "YaRN §3.1: agrees"),
    ("YaRN's temperature lowers the loss at 8L", ("yarn_temperature",), "YaRN §3.4: agrees"),
    ("YaRN with the paper's ramp is > 0.5 nats worse at 8L", ("yarn_paper_ramp",), ""),
    ("Dynamic NTK: a KV cache retrieves no more passkeys at 8L", ("dynamic_kv_cache",), ""),
    ("Same fine-tune: YaRN beats PI at 4L", ("ft_yarn_beats_pi", "ft_yarn_passkey_4L"), "YaRN: agrees"),
    ("PI's fine-tune lifts its 4L passkeys by > 0.5", ("ft_pi_fixes",), "PI: agrees"),
    ("Both fine-tunes lose passkeys at T = L", ("ft_costs_short",), "PI: not reproduced"),
    ("ALiBi: flat past L to 4L, local past 4L", ("alibi_flat", "alibi_local_past_4L"), "ALiBi: agrees"),
)


def summary_markdown(results: dict, rows=SUMMARY_ROWS) -> str:
    """One short table: per row its claim, its verdict at each scale (the weakest part's, with the seed count;
    "—" where it was not measured) and its place beside the papers."""
    scales = scales_of(results)
    by_scale = {s: {f["key"]: f for f in findings(at_scale(results, s))} for s in scales}
    lines = ["| claim | " + " | ".join(f"`{s}`" for s in scales) + " | papers |", "|---" * (len(scales) + 2) + "|"]
    for claim, keys, papers in rows:
        cells = []
        for s in scales:
            parts = [by_scale[s][k] for k in keys if k in by_scale[s]]
            cells.append(verdict_words(weakest(parts)) if len(parts) == len(keys) else "—")
        lines.append(f"| {claim} | " + " | ".join(cells) + f" | {papers} |")
    return "\n".join(lines) + "\n"
