"""The tiny-model lab: small transformers with every family of positional encoding, trained on a CPU over several
seeds, and measured at 1–8 × their training length.

Modules, one concern each: :mod:`~helpers.lab.data` (synthetic tasks), :mod:`~helpers.lab.positional` (the one
positional interface, the single families and the family registry), :mod:`~helpers.lab.hybrids` (the layer-wise
hybrid families), :mod:`~helpers.lab.model` (the transformer and its config),
:mod:`~helpers.lab.train` (settings, training), :mod:`~helpers.lab.checkpoints` (recipes, files), :mod:`~helpers.lab.train_grid` (the resumable training grid),
:mod:`~helpers.lab.methods` (evaluation methods, their names and groups), :mod:`~helpers.lab.evaluate` (one
measurement), :mod:`~helpers.lab.grid` (every method × seed × length → records), :mod:`~helpers.lab.inspection`
(the learned table, one live run), :mod:`~helpers.lab.records` (reading results.json), :mod:`~helpers.lab.tables`,
:mod:`~helpers.lab.finding_spec` (what a claim is), :mod:`~helpers.lab.claims` (the claims,
declared as data), :mod:`~helpers.lab.stats` (paired Student-t intervals, the verdict rule), :mod:`~helpers.lab.findings`
(the claims judged on the records), :mod:`~helpers.lab.results_md` (RESULTS.md),
:mod:`~helpers.lab.overview` (docs/lab-results.md), :mod:`~helpers.lab.report` (all of the results' text in one
namespace). Figures: :mod:`helpers.plots.lab`; documents written by ``scripts/update_lab_results.py``.

API for notebooks (everything below is importable from ``helpers.lab``)
-----------------------------------------------------------------------
Checkpoints (``MODELS`` = nope, sinusoidal, learned, rope, alibi, t5_bias, rope+linear_ft, rope+yarn_ft, the sweep's
``rope+*_ft_lr*``, and ``small/...``; ``SEEDS``; the hybrid families conv_nope (:mod:`~helpers.lab.order_carriers`), irope, irope_temp, local_global have recipes too,
``checkpoints.HYBRID_MODELS`` and ``methods.HYBRID_METHODS``, trained and evaluated only on request, not shipped)::

    list_checkpoints() -> list[dict]            # name, seed, family, train_len, steps, seconds, size_bytes, command
    load_model(name, seed=0) -> TinyTransformer # eval mode, loaded with torch.load(weights_only=True), cached
    model.config                                # LabConfig: family, d_model, n_layers, n_heads, head_dim, train_len,
                                                # positional (the family's parameters: config.rope_base ...)
    model.positional                            # the Positional object (add_to_embeddings / rotate / score_bias)
    model(tokens, rope_scaling=..., kv_cache=..., return_attention=True) -> (logits, per-layer weights (B, H, T, T))
    model(tokens, logits_at=positions (B, n)) -> logits (B, n, V) there only (the last block computes only them)
    model.layer_attention(tokens, layer) -> (B, H, T, T), running only blocks 0..layer
    model.position_embedding, model.rows_reached   # the learned table ("learned" only) and how many rows were trained
    learned_table(model), initial_learned_table(model), position_similarity(table)

Evaluation and results (notebook 05b)::

    METHODS                                     # name -> LabMethod(family, scaling, finetune, window): label, colour
    evaluate_lm(method, T, seed=0) / evaluate_passkey(method, T, seed=0)   # one cell, recomputed live
    methods.REMAP_METHODS                       # rope+default_dca: Dual Chunk Attention zero-shot (helpers.lab.dual_chunk)
    model(tokens, dual_chunk_attention_config=dual_chunk.lab_dual_chunk_config(L))   # a RoPE model attending by DCA
    attention_weights(method, T, seed=0, layer=0) -> (B, H, T, T);  previous_token_attention(method, T, seed=0)
    live_run(method, T, seed=0, scale="tiny") -> loss by position and layer-0 attention of one forward pass
    (every function above takes scale="tiny" or "small"; SCALES holds each scale's L, model and settings)
    load_results() -> {"meta", "methods", "checkpoints", "records"}   # results/results.json, one record per
                                                # (scale, method, seed, task, length): status, metrics, config
    seed_values(results, method, metric, T), summary(results, method, metric, T)   # per seed; mean, min, max
    report.findings(results) -> [{key, text, holds, n, verdict, intervals, ...}]   # claims, paired t intervals
    evaluate_all(methods=None, lengths=None, seeds=None) -> results   # recompute everything from the checkpoints
    evaluate_all(..., eval_protocol="keys60-20", eval_seed=2025) # another protocol / evaluation sample (EVAL_PROTOCOLS)
    evaluate_scales({scale: methods}, jobs=2) -> [results per scale]  # the same, in 2 processes (CLI default)

Training (command line: ``python -m helpers.lab --help``)::

    TrainSettings(steps, length, batch_size, lr, warmup, seed, passkey_fraction, passkey_after)
    train_model(config, settings=None, **overrides) -> (TinyTransformer, TrainLog)
    fine_tune(model, rope_scaling, settings=None, **overrides) -> (TinyTransformer, TrainLog)
    RECIPES[name]                                # the settings that produce each shipped checkpoint
"""

from __future__ import annotations

from helpers.lab import (
    order_carriers,  # noqa: F401  (registers conv_nope before any registry is read)
    report,  # noqa: F401  (lab.report: the results' text, as the notebooks read it)
)
from helpers.lab.checkpoints import (
    CHECKPOINT_DIR,
    MODELS,
    RECIPES,
    SEEDS,
    SHIPPED_SEEDS,
    checkpoint_id,
    list_checkpoints,
    load_model,
    save_checkpoint,
)
from helpers.lab.data import VOCAB_SIZE, PasskeyBatch, lm_batch, passkey_batch, random_keys
from helpers.lab.evaluate import (
    LENGTH_MULTIPLES,
    LENGTHS,
    attention_weights,
    evaluate_lm,
    evaluate_passkey,
    previous_token_attention,
)
from helpers.lab.grid import evaluate_all, evaluate_scales
from helpers.lab.inspection import initial_learned_table, learned_table, live_run, position_similarity
from helpers.lab.methods import METHODS, LabMethod, lab_method
from helpers.lab.model import LabConfig, TinyTransformer
from helpers.lab.positional import Positional
from helpers.lab.records import (
    PLOTS,
    RESULTS_DIR,
    RESULTS_JSON,
    RESULTS_MD,
    load_results,
    save_results,
    seed_values,
    summary,
)
from helpers.lab.train import TrainLog, TrainSettings, fine_tune, train_model
from helpers.lab.train_grid import train_all

__all__ = [
    "CHECKPOINT_DIR",
    "LENGTHS",
    "LENGTH_MULTIPLES",
    "METHODS",
    "MODELS",
    "PLOTS",
    "RECIPES",
    "RESULTS_DIR",
    "RESULTS_JSON",
    "RESULTS_MD",
    "SEEDS",
    "SHIPPED_SEEDS",
    "VOCAB_SIZE",
    "LabConfig",
    "LabMethod",
    "PasskeyBatch",
    "Positional",
    "TinyTransformer",
    "TrainLog",
    "TrainSettings",
    "attention_weights",
    "checkpoint_id",
    "evaluate_all",
    "evaluate_lm",
    "evaluate_passkey",
    "evaluate_scales",
    "fine_tune",
    "initial_learned_table",
    "lab_method",
    "learned_table",
    "live_run",
    "list_checkpoints",
    "lm_batch",
    "load_model",
    "load_results",
    "passkey_batch",
    "position_similarity",
    "previous_token_attention",
    "random_keys",
    "save_checkpoint",
    "seed_values",
    "summary",
    "train_all",
    "save_results",
    "train_model",
]
