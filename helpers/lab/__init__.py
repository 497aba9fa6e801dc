"""The tiny-model lab: train small transformers with any positional method on a CPU, measure how they extrapolate.

Notebooks 03 (learned table) and 05 (length extension) show the lab's stored results; everything they read is
produced by code in this package from the checkpoints shipped in ``helpers/lab/checkpoints/``.

API for notebooks (stable; everything below is importable from ``helpers.lab``)
------------------------------------------------------------------------------
Checkpoints (``CHECKPOINT_NAMES`` = "none", "sinusoidal", "learned", "rope", "rope_pi_ft", "rope_yarn_ft")::

    list_checkpoints() -> list[dict]         # name, positional, train_len, steps, seconds, size_bytes, command
    load_model(name) -> TinyTransformer      # eval mode, float32, loaded with torch.load(weights_only=True)
    model.config                             # LabConfig: positional, d_model, n_layers, n_heads, train_len, rope_base ...
    model.train_len                          # L, the length the model was (pre-)trained at
    model.rope_scaling                       # the HF-style dict it was trained with (None = plain RoPE)
    model.position_embedding                 # the helpers.learned.LearnedPositionalEmbedding ("learned" only, else None)
    model.rows_reached                       # rows 0..rows_reached-1 of that table received gradient (= L)
    learned_table(model) -> (table (max_seq_len, d_model) np.ndarray, rows_reached)  # rows >= rows_reached = init
    initial_learned_table(model) -> np.ndarray   # the table before training (same seed), to prove rows are untouched
    position_similarity(table) -> (T, T) cosine similarity of rows (learned vs helpers.sinusoidal.sinusoidal_table)

Evaluation (notebook 05)::

    METHODS                                  # evaluation method -> (checkpoint, how RoPE is scaled at length T):
                                             # none, sinusoidal, learned, rope, window, pi, ntk, dynamic, yarn,
                                             # pi_ft, yarn_ft ("window" = plain RoPE on L-token windows, a reference)
    load_results() -> dict                   # the stored results/results.json (see its "meta" for settings)
    results["lm"][method][str(T)]            # {"status": "ok" | "cannot run", "loss", "loss_by_bucket", "bucket_starts", "message"}
    results["passkey"][method][str(T)]       # {"status", "accuracy", "accuracy_by_depth", "depths", "digit_accuracy"}
    results["previous_token_attention"][method][str(T)]  # {"status", "by_head", "max"}: layer-0 weight on t−1
    results["training"][checkpoint]          # steps, seconds, final loss, command
    evaluate_all(methods=None, lengths=None) -> dict   # recompute the results from the checkpoints (< 20 s)
    evaluate_lm(method, length) / evaluate_passkey(method, length)   # one cell of the tables
    previous_token_attention(method, length)  # the diagnostic: how sharp the previous-token head stays
    PLOTS                                    # {"loss_by_position": Path, "passkey_heatmap": Path, "learned_table": Path}
    helpers.lab.plots                        # plot_loss_by_position(results, methods, length=T, ax=...),
                                             # plot_passkey_heatmap(results, method, ax=...): redraw in < 1 s
    RESULTS_MD                               # Path of the write-up results/RESULTS.md

Data (deterministic from a seed; no downloads)::

    lm_batch(batch_size, length, seed) -> (tokens (B, T) int64, targets (B, T) int64)
    passkey_batch(keys, depths, length) -> PasskeyBatch(tokens, targets (B, T), answer_positions, keys (B, 5), depths)
    random_keys(n, seed) -> (n, 5) int64

Training (command line: ``python -m helpers.lab --help``)::

    train_model(config, steps=..., ...) -> (TinyTransformer, TrainLog)
    fine_tune(model, rope_scaling, length, steps=...) -> (TinyTransformer, TrainLog)
    RECIPES[name]                            # the exact settings (and command) that produce each shipped checkpoint

Design choices (justified in each module and in ``results/RESULTS.md``):

* model: pre-LayerNorm decoder, d_model 64, 2 layers (an induction head needs two), 4 heads of dimension 16
  (8 RoPE pairs), MLP 256: 115,968 parameters (124,160 with the 128-row learned table).
* L = 64 tokens, so 8×L = 512 stays cheap; batch 32, 3000 steps, AdamW 3e-3, 1 torch thread (about 2 minutes).
* RoPE base b = 500 (not 10000): it puts the slowest pair's wavelength at 2π·500^(14/16) ≈ 1440 ≈ 22·L, like LLaMA in
  the PI paper (≈ 27·L at L = 2048) and Llama 2 in the YaRN paper (≈ 13·L at L = 4096). With b = 10000 and d_h = 16
  it would be ≈ 310·L: the slow pairs would barely turn even at 8·L, a much easier extrapolation than the papers'.
* fine-tunes: 400 steps at 4·L = 256 tokens with scale factor s = 4 (the papers fine-tune for 400–1000 steps).
* data: a copy-LM task (long context lowers the loss) and a passkey task, mixed 50/50 after the first 30 % of the
  steps (the induction head forms on the LM task first).
"""

from __future__ import annotations

from helpers.lab.data import (
    VOCAB_SIZE,
    PasskeyBatch,
    lm_batch,
    passkey_batch,
    random_keys,
)
from helpers.lab.evaluate import (
    LENGTH_MULTIPLES,
    METHODS,
    PLOTS,
    RESULTS_DIR,
    RESULTS_JSON,
    RESULTS_MD,
    evaluate_all,
    evaluate_lm,
    evaluate_passkey,
    initial_learned_table,
    learned_table,
    load_results,
    position_similarity,
    previous_token_attention,
)
from helpers.lab.model import LabConfig, TinyTransformer
from helpers.lab.train import (
    CHECKPOINT_DIR,
    CHECKPOINT_NAMES,
    RECIPES,
    TrainLog,
    fine_tune,
    list_checkpoints,
    load_model,
    save_checkpoint,
    train_model,
)

__all__ = [
    "CHECKPOINT_DIR",
    "CHECKPOINT_NAMES",
    "LENGTH_MULTIPLES",
    "METHODS",
    "PLOTS",
    "RECIPES",
    "RESULTS_DIR",
    "RESULTS_JSON",
    "RESULTS_MD",
    "VOCAB_SIZE",
    "LabConfig",
    "PasskeyBatch",
    "TinyTransformer",
    "TrainLog",
    "evaluate_all",
    "evaluate_lm",
    "evaluate_passkey",
    "fine_tune",
    "initial_learned_table",
    "learned_table",
    "list_checkpoints",
    "lm_batch",
    "load_model",
    "load_results",
    "passkey_batch",
    "position_similarity",
    "previous_token_attention",
    "random_keys",
    "save_checkpoint",
    "train_model",
]
