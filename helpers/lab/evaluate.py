"""Evaluation (placeholder while the lab is being built)."""

from __future__ import annotations

from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"
RESULTS_JSON = RESULTS_DIR / "results.json"
RESULTS_MD = RESULTS_DIR / "RESULTS.md"
PLOTS = {k: RESULTS_DIR / f"{k}.png" for k in ("loss_by_position", "passkey_heatmap", "learned_table")}
LENGTH_MULTIPLES = (1, 2, 4, 8)
METHODS: dict = {}


def evaluate_all(*a, **k):
    raise NotImplementedError


def evaluate_lm(*a, **k):
    raise NotImplementedError


def evaluate_passkey(*a, **k):
    raise NotImplementedError


def initial_learned_table(*a, **k):
    raise NotImplementedError


def learned_table(*a, **k):
    raise NotImplementedError


def load_results(*a, **k):
    raise NotImplementedError


def position_similarity(*a, **k):
    raise NotImplementedError
