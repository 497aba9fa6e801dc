"""Prose that quotes the lab's results agrees with the shipped results (issue 22, point 1).

Notebook 03 (learned) states how many seeds of the learned model the lab ships and their passkey accuracy at the
training length. This test reads that sentence from the notebook's markdown and compares it with the shipped
checkpoints (``helpers/lab/checkpoints/learned.seed*.json``) and ``helpers/lab/results/results.json``, so the
sentence cannot fall behind when seeds are added or retrained.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "03_learned.ipynb"
CHECKPOINTS = ROOT / "helpers" / "lab" / "checkpoints"
RESULTS = ROOT / "helpers" / "lab" / "results" / "results.json"
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _markdown() -> str:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", text)  # one line: the sentence may wrap anywhere


def _listed(text: str) -> list[str]:
    """'0, 1 and 2' -> ['0', '1', '2']."""
    return [item.strip() for item in re.split(r",|\band\b", text) if item.strip()]


def _shipped_seeds() -> list[int]:
    return sorted(json.loads(p.read_text(encoding="utf-8"))["seed"] for p in CHECKPOINTS.glob("learned.seed*.json"))


def _passkey_at_train_len(seed: int) -> float:
    records = json.loads(RESULTS.read_text(encoding="utf-8"))["records"]
    (record,) = [
        r
        for r in records
        if r["scale"] == "tiny"
        and r["method"] == "learned"
        and r["task"] == "passkey"
        and r["seed"] == seed
        and r["length"] == r["config"]["train_len"]
    ]
    return record["metrics"]["accuracy"]


def test_stated_seed_count_and_seeds_match_the_shipped_checkpoints():
    match = re.search(r"ships (\w+) seeds of the learned model as files \(([^)]*)\)", _markdown())
    assert match, "notebook 03 no longer states how many seeds of the learned model the lab ships"
    count, seeds = NUMBER_WORDS[match.group(1)], [int(s) for s in _listed(match.group(2))]
    assert seeds == _shipped_seeds(), (seeds, _shipped_seeds())
    assert count == len(seeds)


def test_stated_passkey_accuracies_match_the_results():
    match = re.search(r"At 64 tokens they retrieve ([0-9.,and ]+?) of the keys", _markdown())
    assert match, "notebook 03 no longer quotes the seeds' passkey accuracy at 64 tokens"
    stated = _listed(match.group(1))
    assert stated == [f"{_passkey_at_train_len(s):.2f}" for s in _shipped_seeds()], stated  # 100 keys: 2 digits exact


def test_no_stale_seed_wording():
    text = _markdown()
    for stale in ("not trained yet", "trained once", "(one seed)", "ran out of time"):
        assert stale not in text, stale
