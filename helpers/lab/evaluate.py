"""Evaluate every positional method at 1×, 2×, 4× and 8× the training length, from the shipped checkpoints.

Methods (:data:`METHODS`; s = T/L is the scale needed to reach evaluation length T from training length L = 64):

==============  =============  ===========================================================================
method          checkpoint     RoPE at evaluation length T
==============  =============  ===========================================================================
none            none           (no positional encoding; causal mask only)
sinusoidal      sinusoidal     (sinusoidal table, computed for any T)
learned         learned        (table of 2L rows: runs at 2L on never-trained rows, cannot run past 2L)
rope            rope           plain extrapolation: θ_i unchanged
window          rope           reference, no extrapolation: the text cut into independent L-token windows
                               (passkey: only the last L tokens are seen); what "long context" must beat
pi              rope           zero-shot Position Interpolation: ``{"rope_type": "linear", "factor": s}``
ntk             rope           zero-shot static NTK-aware: ``{"rope_type": "ntk", "factor": s}``
dynamic         rope           zero-shot dynamic NTK: ``{"rope_type": "dynamic", "factor": 1}``, see below
yarn            rope           zero-shot YaRN with its attention factor 0.1·ln s + 1:
                               ``{"rope_type": "yarn", "factor": s, "original_max_position_embeddings": L}``
pi_ft           rope_pi_ft     fine-tuned 400 steps at 4L with linear factor 4; always runs with factor 4
yarn_ft         rope_yarn_ft   fine-tuned 400 steps at 4L with YaRN factor 4;   always runs with factor 4
==============  =============  ===========================================================================

Dynamic NTK recomputes the base from the current length l: b' = b·(s·l/L − (s − 1))^(d/(d−2)) (HF), and with
factor s = 1 this is the YaRN paper's s = max(1, l/L) (§3.3). A reader that has seen l tokens uses that l, so the
language-modelling loss of positions [L·2^(k−1), L·2^k) is scored by one call over the prefix of length L·2^k
(positions < L by a call of length L, i.e. plain RoPE). For passkey the answer is at the end, so dynamic NTK equals
static NTK with s = T/L there (same numbers, by construction).

Measurements (all deterministic from ``EVAL_SEED``; the same tokens for every method):

* language modelling: ``N_LM`` documents of length T (:func:`helpers.lab.data.lm_batch`); mean next-token loss
  (nats) and the loss averaged in buckets of ``BUCKET`` = L/4 positions.
* passkey: ``N_PER_DEPTH`` random keys at each depth in ``DEPTHS``; accuracy = fraction of keys whose 5 digits are all
  predicted right (greedy), also by depth, plus the per-digit accuracy (chance 0.1).

Results go to ``results/results.json`` (:func:`write_results`), plots to :data:`PLOTS`, and the generated table into
``results/RESULTS.md`` between the ``BEGIN/END GENERATED`` markers.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from helpers._checks import check_int
from helpers.attention import scaled_dot_product_attention
from helpers.lab.data import lm_batch, passkey_batch, random_keys
from helpers.lab.model import TinyTransformer
from helpers.lab.train import CHECKPOINT_DIR, L, checkpoint_metadata, load_model
from helpers.rope import apply_rope
from helpers.scaling import rope_parameters_from_config

RESULTS_DIR = Path(__file__).resolve().parent / "results"
RESULTS_JSON = RESULTS_DIR / "results.json"
RESULTS_MD = RESULTS_DIR / "RESULTS.md"
PLOTS = {
    "loss_by_position": RESULTS_DIR / "loss_by_position.png",
    "passkey_heatmap": RESULTS_DIR / "passkey_heatmap.png",
    "learned_table": RESULTS_DIR / "learned_table.png",
}
LENGTH_MULTIPLES = (1, 2, 4, 8)
LENGTHS = tuple(m * L for m in LENGTH_MULTIPLES)
BUCKET = L // 4
N_LM = 24
N_PER_DEPTH = 12
DEPTHS = (0.0, 0.25, 0.5, 0.75, 1.0)
EVAL_SEED = 2024
TABLE_BEGIN, TABLE_END = "<!-- BEGIN GENERATED TABLE -->", "<!-- END GENERATED TABLE -->"


@dataclasses.dataclass(frozen=True)
class Method:
    """An evaluation method: which checkpoint, and how RoPE is scaled at evaluation length T.

    ``scaling``: "none" (not a RoPE model), "plain", "window" (plain RoPE on L-token windows), "linear", "ntk",
    "dynamic", "yarn" (zero-shot, s = T/L) or "trained" (the fine-tuned checkpoint's own dict, fixed).
    """

    name: str
    checkpoint: str
    scaling: str
    label: str
    zero_shot: bool = True


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("none", "none", "none", "no PE (causal mask)"),
        Method("sinusoidal", "sinusoidal", "none", "sinusoidal"),
        Method("learned", "learned", "none", "learned table"),
        Method("rope", "rope", "plain", "RoPE, plain extrapolation"),
        Method("window", "rope", "window", "RoPE, L-token windows"),
        Method("pi", "rope", "linear", "PI zero-shot"),
        Method("ntk", "rope", "ntk", "NTK-aware zero-shot"),
        Method("dynamic", "rope", "dynamic", "dynamic NTK zero-shot"),
        Method("yarn", "rope", "yarn", "YaRN zero-shot"),
        Method("pi_ft", "rope_pi_ft", "trained", "PI fine-tuned (s=4)", zero_shot=False),
        Method("yarn_ft", "rope_yarn_ft", "trained", "YaRN fine-tuned (s=4)", zero_shot=False),
    )
}


# --------------------------------------------------------------------------- methods → RoPE scaling
def rope_scaling_for(method: str, length: int, model: TinyTransformer) -> dict | None:
    """The HF-style scaling dict ``method`` uses at evaluation length T (None = plain RoPE or not a RoPE model).

    Zero-shot methods use s = max(1, T/L), so at T = L every zero-shot method is plain RoPE.
    """
    spec = _method(method)
    train_len = model.train_len
    factor = max(1.0, length / train_len)
    if spec.scaling == "trained":
        return model.rope_scaling
    return {
        "none": None,
        "plain": None,
        "window": None,
        "linear": {"rope_type": "linear", "factor": factor},
        "ntk": {"rope_type": "ntk", "factor": factor},
        "dynamic": {"rope_type": "dynamic", "factor": 1.0},
        "yarn": {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": train_len},
    }[spec.scaling]


def _method(name: str) -> Method:
    if not isinstance(name, str) or name not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {name!r}")
    return METHODS[name]


def _length(length: int) -> int:
    return check_int("length", length, minimum=16)


_MODELS: dict[tuple[str, str], TinyTransformer] = {}


def cached_model(checkpoint: str, *, directory: Path = CHECKPOINT_DIR) -> TinyTransformer:
    """:func:`helpers.lab.load_model`, loaded once per process (evaluation never changes a model)."""
    key = (str(directory), checkpoint)
    if key not in _MODELS:
        _MODELS[key] = load_model(checkpoint, directory=directory)
    return _MODELS[key]


def _logits(model: TinyTransformer, tokens: torch.Tensor, scaling: dict | None) -> torch.Tensor:
    if model.config.positional == "rope":
        return model(tokens, rope_scaling=scaling)  # (B, T, V)
    return model(tokens)  # (B, T, V)


# --------------------------------------------------------------------------- language modelling
def token_losses(
    model: TinyTransformer, tokens: torch.Tensor, targets: torch.Tensor, scaling: dict | None
) -> torch.Tensor:
    """Next-token cross-entropy (nats) at every position, shape (B, T)."""
    logits = _logits(model, tokens, scaling)  # (B, T, V)
    return F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, T)


def dynamic_chunk_ends(length: int, train_len: int) -> list[int]:
    """Prefix lengths that score dynamic NTK: L, 2L, 4L, … up to T (and T itself). Positions in
    (previous end, end] are scored by one call over the prefix of length ``end``, so each token sees a scale
    s = end/L within a factor 2 of its own max(1, (t+1)/L)."""
    ends, end = [], train_len
    while end < length:
        ends.append(end)
        end *= 2
    return [*ends, length]


def bucket_means(values: np.ndarray, bucket: int) -> tuple[list[float], list[int]]:
    """Means of ``values`` (T,) over consecutive buckets of ``bucket`` positions. Returns (means, bucket starts)."""
    starts = list(range(0, len(values), bucket))
    return [float(values[s : s + bucket].mean()) for s in starts], starts


def evaluate_lm(
    method: str,
    length: int,
    *,
    n_sequences: int = N_LM,
    seed: int = EVAL_SEED,
    directory: Path = CHECKPOINT_DIR,
) -> dict:
    """Language-modelling loss of ``method`` at length T: ``{"status", "loss", "loss_by_bucket", "bucket_starts",
    "rope_scaling"}`` (losses in nats), or ``{"status": "cannot run", "message"}`` when the model has no row
    for some position (the learned table past its size)."""
    spec, length = _method(method), _length(length)
    model = cached_model(spec.checkpoint, directory=directory)
    tokens, targets = lm_batch(n_sequences, length, (seed, length))  # (B, T), (B, T)
    scaling = rope_scaling_for(method, length, model)
    try:
        with torch.inference_mode():
            if spec.scaling == "window":
                losses = torch.cat(
                    [
                        token_losses(
                            model, tokens[:, s : s + model.train_len], targets[:, s : s + model.train_len], None
                        )
                        for s in range(0, length, model.train_len)
                    ],
                    dim=1,
                )  # (B, T)
            elif spec.scaling == "dynamic":
                losses = torch.empty(tokens.shape)  # (B, T)
                start = 0
                for end in dynamic_chunk_ends(length, model.train_len):
                    losses[:, start:end] = token_losses(model, tokens[:, :end], targets[:, :end], scaling)[:, start:]
                    start = end
            else:
                losses = token_losses(model, tokens, targets, scaling)  # (B, T)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    by_position = losses.mean(0).double().numpy()  # (T,)
    by_bucket, starts = bucket_means(by_position, BUCKET)
    return {
        "status": "ok",
        "loss": float(by_position.mean()),
        "loss_by_bucket": by_bucket,
        "bucket_starts": starts,
        "rope_scaling": scaling,
    }


# --------------------------------------------------------------------------- passkey retrieval
def evaluate_passkey(
    method: str,
    length: int,
    *,
    n_per_depth: int = N_PER_DEPTH,
    depths: tuple[float, ...] = DEPTHS,
    seed: int = EVAL_SEED,
    directory: Path = CHECKPOINT_DIR,
) -> dict:
    """Passkey accuracy of ``method`` at length T: ``{"status", "accuracy", "accuracy_by_depth", "depths",
    "digit_accuracy", "rope_scaling"}`` or ``{"status": "cannot run", "message"}``.

    Accuracy = fraction of keys with every digit right under greedy decoding (the argmax at each answer position
    given the right prefix; if all are right this is exactly what greedy generation produces).
    """
    spec, length = _method(method), _length(length)
    n_per_depth = check_int("n_per_depth", n_per_depth, minimum=1)
    model = cached_model(spec.checkpoint, directory=directory)
    depth_of_row = np.repeat(np.asarray(depths, dtype=np.float64), n_per_depth)  # (B,)
    batch = passkey_batch(random_keys(len(depth_of_row), (seed, length, 1)), depth_of_row, length)
    scaling = rope_scaling_for(method, length, model)
    tokens, answer_positions = batch.tokens, batch.answer_positions  # (B, T), (B, n)
    if spec.scaling == "window" and length > model.train_len:
        tokens, answer_positions = tokens[:, -model.train_len :], answer_positions - (length - model.train_len)
    try:
        with torch.inference_mode():
            logits = _logits(model, tokens, scaling)  # (B, T, V)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    answer_logits = logits.gather(1, answer_positions[..., None].expand(-1, -1, logits.shape[-1]))  # (B, n, V)
    digit_right = answer_logits.argmax(-1) == batch.keys  # (B, n)
    key_right = digit_right.all(1).double().numpy().reshape(len(depths), n_per_depth)  # (depths, n_per_depth)
    return {
        "status": "ok",
        "accuracy": float(key_right.mean()),
        "accuracy_by_depth": [float(a) for a in key_right.mean(1)],
        "depths": list(depths),
        "digit_accuracy": float(digit_right.double().mean()),
        "rope_scaling": scaling,
    }


# --------------------------------------------------------------------------- diagnostic: the previous-token head
def previous_token_attention(
    method: str, length: int, *, n_sequences: int = 4, seed: int = EVAL_SEED, directory: Path = CHECKPOINT_DIR
) -> dict:
    """How sharply layer 0 attends to the previous token: for each head, the mean attention weight a[t, t−1] over
    positions t >= 1 of ``n_sequences`` LM documents. Returns ``{"status", "by_head", "max"}``.

    An induction head needs a previous-token head below it; if a scaling method moves the angle of distance 1 away
    from anything seen in training (PI divides it by s), this number drops and copying fails. Dynamic NTK is
    evaluated as one call of length T here, the window reference on the first window (each window is plain RoPE).
    """
    spec, length = _method(method), _length(length)
    model = cached_model(spec.checkpoint, directory=directory)
    tokens, _ = lm_batch(n_sequences, length, (seed, length))  # (B, T)
    if spec.scaling == "window":
        length = min(length, model.train_len)
        tokens = tokens[:, :length]  # (B, L)
    scaling = rope_scaling_for(method, length, model)
    try:
        with torch.inference_mode():
            weights = layer0_attention(model, tokens, scaling)  # (B, H, T, T)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    t = torch.arange(1, length)
    on_previous = weights[:, :, t, t - 1].mean(dim=(0, 2))  # (H,)
    return {"status": "ok", "by_head": [float(w) for w in on_previous], "max": float(on_previous.max())}


def layer0_attention(model: TinyTransformer, tokens: torch.Tensor, scaling: dict | None) -> torch.Tensor:
    """Attention weights of the first layer, softmax(q·kᵀ/√d_h + causal mask), shape (B, H, T, T)."""
    b, t = tokens.shape
    h = model.token_embedding(tokens) * model.embed_scale  # (B, T, D)
    if model.position_embedding is not None:
        h = h + model.position_embedding(t)  # (B, T, D)
    elif model.config.positional == "sinusoidal":
        h = h + model.sinusoid(t)  # (B, T, D)
    attn = model.blocks[0].attn
    qkv = attn.qkv(model.blocks[0].ln1(h)).view(b, t, 3, attn.n_heads, attn.head_dim)  # (B, T, 3, H, d_h)
    q, k, _ = qkv.permute(2, 0, 3, 1, 4)  # (B, H, T, d_h) each
    if model.config.positional == "rope":
        cos, sin = model.rope_cos_sin(t, scaling)  # (T, d_h/2) each
        q, k = apply_rope(q, cos, sin, layout=attn.layout), apply_rope(k, cos, sin, layout=attn.layout)
    _, weights = scaled_dot_product_attention(q, k, k, causal=True)  # weights (B, H, T, T)
    return weights


# --------------------------------------------------------------------------- everything
def evaluate_all(
    methods: list[str] | None = None,
    lengths: list[int] | None = None,
    *,
    directory: Path = CHECKPOINT_DIR,
    progress: bool = False,
) -> dict:
    """Every method at every length (defaults: all of :data:`METHODS` at L, 2L, 4L, 8L), plus metadata.

    Returns ``{"meta", "methods", "lm", "passkey", "previous_token_attention", "training"}``; ``lm[method][str(T)]``,
    ``passkey[method][str(T)]`` and ``previous_token_attention[method][str(T)]`` are :func:`evaluate_lm`,
    :func:`evaluate_passkey` and :func:`previous_token_attention` results.
    """
    methods = list(METHODS) if methods is None else [_method(m).name for m in methods]
    lengths = list(LENGTHS) if lengths is None else [_length(t) for t in lengths]
    start = time.perf_counter()
    lm: dict[str, dict] = {m: {} for m in methods}
    passkey: dict[str, dict] = {m: {} for m in methods}
    previous: dict[str, dict] = {m: {} for m in methods}
    tasks = {
        "lm": (evaluate_lm, lm),
        "passkey": (evaluate_passkey, passkey),
        "previous": (previous_token_attention, previous),
    }
    done: dict[tuple, dict] = {}
    for m in methods:
        for t in lengths:
            for task, (evaluate, table) in tasks.items():
                key = computation_key(m, t, task, directory=directory)
                if key not in done:
                    done[key] = evaluate(m, t, directory=directory)
                cell = dict(done[key])
                if "rope_scaling" in cell:
                    cell["rope_scaling"] = rope_scaling_for(
                        m, t, cached_model(METHODS[m].checkpoint, directory=directory)
                    )
                table[m][str(t)] = cell
        if progress:
            print(f"evaluated {m:<10} ({time.perf_counter() - start:.1f} s)", flush=True)
    checkpoints = sorted({METHODS[m].checkpoint for m in methods})
    training = {}
    for name in checkpoints:
        meta = checkpoint_metadata(name, directory=directory)
        training[name] = {**meta["training"], "command": meta["command"], "n_parameters": meta["n_parameters"]}
    return {
        "meta": {
            "train_len": L,
            "lengths": lengths,
            "bucket": BUCKET,
            "n_lm_sequences": N_LM,
            "passkey_depths": list(DEPTHS),
            "passkey_keys_per_depth": N_PER_DEPTH,
            "eval_seed": EVAL_SEED,
            "eval_seconds": round(time.perf_counter() - start, 1),
            "torch_threads": torch.get_num_threads(),
            "torch_version": torch.__version__,
            "machine": platform.machine(),
        },
        "methods": {m: dataclasses.asdict(METHODS[m]) for m in methods},
        "lm": lm,
        "passkey": passkey,
        "previous_token_attention": previous,
        "training": training,
    }


def computation_key(method: str, length: int, task: str, *, directory: Path = CHECKPOINT_DIR) -> tuple:
    """Two (method, length, task) cells with the same key compute exactly the same numbers, so
    :func:`evaluate_all` computes them once: a RoPE checkpoint run with the same frequencies and attention factor
    (every zero-shot method at T = L is plain RoPE; dynamic NTK's passkey at T is static NTK with s = T/L).
    Dynamic NTK's chunked LM scoring and the window reference keep their own keys when T > L."""
    spec = _method(method)
    model = cached_model(spec.checkpoint, directory=directory)
    if model.config.positional != "rope":
        return (spec.checkpoint, method, length, task)
    inv_freq, factor = rope_parameters_from_config(
        rope_scaling_for(method, length, model),
        head_dim=model.config.head_dim,
        base=model.config.rope_base,
        seq_len=length,
        max_position_embeddings=model.train_len,
    )  # (d_h/2,), float
    longer = length > model.train_len
    window = spec.scaling == "window" and longer
    chunked = spec.scaling == "dynamic" and task == "lm" and longer
    return (spec.checkpoint, task, length, window, chunked, inv_freq.tobytes(), factor)


def load_results(path: Path = RESULTS_JSON) -> dict:
    """The stored evaluation results (``results/results.json``), as written by :func:`write_results`."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no stored results at {path}; run `python -m helpers.lab evaluate`")
    return json.loads(path.read_text())


# --------------------------------------------------------------------------- learned table (notebook 03)
def learned_table(model: TinyTransformer) -> tuple[np.ndarray, int]:
    """The learned position table P (max_seq_len, d_model) as float64, and ``rows_reached`` (rows ≥ it are untrained)."""
    if model.position_embedding is None:
        raise ValueError(f"model has no learned table (positional={model.config.positional!r}); load 'learned'")
    return model.position_embedding.table.detach().double().numpy().copy(), model.rows_reached  # (N, D)


def initial_learned_table(model: TinyTransformer) -> np.ndarray:
    """The table before training (rebuilt from the config's seed and init_std), shape (max_seq_len, d_model)."""
    from helpers.learned import LearnedPositionalEmbedding

    if model.position_embedding is None:
        raise ValueError(f"model has no learned table (positional={model.config.positional!r}); load 'learned'")
    cfg = model.config
    init = LearnedPositionalEmbedding(cfg.max_seq_len, cfg.d_model, init_std=cfg.learned_init_std, seed=cfg.seed)
    return init.table.detach().double().numpy()  # (N, D)


def position_similarity(table: np.ndarray) -> np.ndarray:
    """Cosine similarity of every pair of rows: S[p, q] = P_p·P_q / (‖P_p‖‖P_q‖). Input (T, D), output (T, T)."""
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (T, d_model), got {table.shape}")
    unit = table / np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-12)  # (T, D)
    return unit @ unit.T  # (T, T)


# --------------------------------------------------------------------------- writing results
def _cell(cell: dict, key: str, fmt: str) -> str:
    return format(cell[key], fmt) if cell["status"] == "ok" else "cannot run"


def results_table(results: dict) -> str:
    """Markdown tables generated from ``results``: LM loss and passkey accuracy per method × length, training runs."""
    lengths = results["meta"]["lengths"]
    train_len = results["meta"]["train_len"]
    heads = " | ".join(f"{t} ({t / train_len:g}×L)" for t in lengths)
    rule = "|".join(["---"] * (len(lengths) + 2))
    lines = [
        "Mean next-token loss on the copy-LM task (nats; lower is better; a fresh random word costs ln 107 = 4.67):",
        "",
        f"| method | checkpoint | {heads} |",
        f"|{rule}|",
    ]
    for m, spec in results["methods"].items():
        cells = " | ".join(_cell(results["lm"][m][str(t)], "loss", ".3f") for t in lengths)
        lines.append(f"| {m} ({spec['label']}) | {spec['checkpoint']} | {cells} |")
    lines += [
        "",
        f"Passkey accuracy (all 5 digits right; {len(results['meta']['passkey_depths'])} depths × "
        f"{results['meta']['passkey_keys_per_depth']} keys per length; per-digit accuracy in brackets, chance 0.10):",
        "",
        f"| method | checkpoint | {heads} |",
        f"|{rule}|",
    ]
    for m, spec in results["methods"].items():
        cells = " | ".join(
            "cannot run"
            if (c := results["passkey"][m][str(t)])["status"] != "ok"
            else f"{c['accuracy']:.2f} ({c['digit_accuracy']:.2f})"
            for t in lengths
        )
        lines.append(f"| {m} ({spec['label']}) | {spec['checkpoint']} | {cells} |")
    lines += [
        "",
        "Diagnostic: attention weight of the sharpest layer-0 head on the previous token (mean over positions; the "
        "previous-token head the induction circuit is built on):",
        "",
        f"| method | checkpoint | {heads} |",
        f"|{rule}|",
    ]
    for m, spec in results["methods"].items():
        cells = " | ".join(_cell(results["previous_token_attention"][m][str(t)], "max", ".2f") for t in lengths)
        lines.append(f"| {m} ({spec['label']}) | {spec['checkpoint']} | {cells} |")
    lines += [
        "",
        "Training runs (wall-clock seconds as measured when the checkpoint was made; 1 torch thread):",
        "",
        "| checkpoint | parameters | steps | length | batch | seconds | final loss | command |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, t in results["training"].items():
        lines.append(
            f"| {name} | {t['n_parameters']:,} | {t['steps']} | {t['length']} | {t['batch_size']} | {t['seconds']:.1f} | "
            f"{t['final_loss']:.3f} | `{t['command']}` |"
        )
    return "\n".join(lines) + "\n"


def update_results_md(table: str, path: Path = RESULTS_MD) -> Path:
    """Replace the text between the BEGIN/END GENERATED TABLE markers of RESULTS.md with ``table``."""
    path = Path(path)
    text = path.read_text() if path.exists() else f"# Tiny-model lab: results\n\n{TABLE_BEGIN}\n{TABLE_END}\n"
    if TABLE_BEGIN not in text or TABLE_END not in text:
        raise ValueError(f"{path} has no {TABLE_BEGIN} … {TABLE_END} block to update")
    head, rest = text.split(TABLE_BEGIN, 1)
    _, tail = rest.split(TABLE_END, 1)
    path.write_text(f"{head}{TABLE_BEGIN}\n{table}{TABLE_END}{tail}")
    return path


def write_results(results: dict, directory: Path = RESULTS_DIR) -> list[Path]:
    """Write results.json, the PNG plots and the RESULTS.md table into ``directory``; returns the paths written."""
    from helpers.lab import plots

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / "results.json"]
    written[0].write_text(json.dumps(results, indent=1) + "\n")
    figures = {"loss_by_position": plots.loss_figure(results), "passkey_heatmap": plots.passkey_figure(results)}
    if "learned" in results["methods"]:
        figures["learned_table"] = learned_table_figure(cached_model("learned"))
    for key, fig in figures.items():
        path = directory / PLOTS[key].name
        fig.savefig(path, dpi=110)
        written.append(path)
    written.append(update_results_md(results_table(results), directory / RESULTS_MD.name))
    return written


def learned_table_figure(model: TinyTransformer):
    """Notebook 03's picture: the learned table, its row similarities, and the sinusoidal table's, side by side."""
    from matplotlib.figure import Figure

    from helpers.lab import plots
    from helpers.sinusoidal import sinusoidal_table

    table, reached = learned_table(model)  # (N, D)
    fig = Figure(figsize=(11.0, 3.3), layout="constrained")
    a, b, c = fig.subplots(1, 3, width_ratios=[1.6, 1, 1])
    plots.plot_learned_table(table, reached, ax=a)
    plots.plot_similarity(position_similarity(table), title="learned: cosine similarity of rows", ax=b)
    sin_table = sinusoidal_table(len(table), model.config.d_model, model.config.sinusoidal_base)  # (N, D)
    plots.plot_similarity(position_similarity(sin_table), title="sinusoidal: cosine similarity of rows", ax=c)
    return fig
