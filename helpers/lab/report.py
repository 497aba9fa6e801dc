"""Results as text, in one namespace for the notebooks (``from helpers.lab import report``): the records
(:mod:`helpers.lab.records`), the tables (:mod:`helpers.lab.tables`), the findings (:mod:`helpers.lab.findings`,
declared in :mod:`helpers.lab.claims`, with the intervals of :mod:`helpers.lab.stats`), RESULTS.md
(:mod:`helpers.lab.results_md`) and the overview page (:mod:`helpers.lab.overview`).

Every table, figure and number of ``results/RESULTS.md``, of ``docs/lab-results.md`` and of notebook 05b comes from
the records of ``results.json`` through these functions; ``scripts/update_lab_results.py`` writes the documents and
the figures (:data:`PLOTS`).
"""

from __future__ import annotations

from helpers.lab.findings import (
    COPY_LEARNED_NATS,
    DIFFS,
    FINDINGS,
    Finding,
    finding_markdown,
    findings,
    findings_markdown,
    loss_by_position,
)
from helpers.lab.methods import METHODS
from helpers.lab.overview import LAB_HEADING, overview_markdown
from helpers.lab.records import (
    PLOTS,
    RESULTS_DIR,
    RESULTS_JSON,
    RESULTS_MD,
    at_scale,
    load_results,
    record,
    save_results,
    scales_of,
    seed_values,
    seeds_of,
    summary,
    without_methods,
)
from helpers.lab.results_md import (
    EARLIER_CLAIMS,
    PAPER_CLAIMS,
    earlier_claims_markdown,
    papers_markdown,
    results_md,
)
from helpers.lab.tables import (
    ablation_tables,
    chosen_learning_rate,
    lr_sweep_table,
    results_tables,
    scale_tables,
    side_by_side,
)

__all__ = [
    "DIFFS",
    "EARLIER_CLAIMS",
    "FINDINGS",
    "METHODS",
    "PAPER_CLAIMS",
    "PLOTS",
    "LAB_HEADING",
    "RESULTS_DIR",
    "RESULTS_JSON",
    "RESULTS_MD",
    "COPY_LEARNED_NATS",
    "Finding",
    "ablation_tables",
    "at_scale",
    "without_methods",
    "chosen_learning_rate",
    "earlier_claims_markdown",
    "finding_markdown",
    "findings",
    "findings_markdown",
    "load_results",
    "loss_by_position",
    "lr_sweep_table",
    "papers_markdown",
    "overview_markdown",
    "record",
    "results_md",
    "results_tables",
    "save_results",
    "scale_tables",
    "scales_of",
    "seed_values",
    "seeds_of",
    "side_by_side",
    "summary",
]
