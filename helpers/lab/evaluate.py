"""Measurements: every method × seed at 1×, 2×, 4× and 8× the training length, from the checkpoints.

Methods are :data:`helpers.lab.methods.METHODS`. Protocols (the ``protocol`` field of each record):

* ``one pass``: the whole sequence in one forward call.
* ``L-token windows`` (``rope+default_window``): the text cut into independent L-token windows; passkey sees only
  its last L tokens. What "long context" must beat.
* ``KV cache`` (``rope+dynamic``, T > L): dynamic NTK as generation runs it: the query of token t uses the
  frequencies for the t + 1 tokens seen so far (HF's ``dynamic_rope_update``; with factor 1 the base is
  b' = b·(l/L)^(d/(d−2)), the YaRN paper's s = max(1, l/L), §3.3), and each cached key keeps the rotation it was
  written with. One causal call with per-position cos/sin computes exactly that
  (:meth:`helpers.lab.positional.RopeRotation.kv_cache_cos_sin`; ``tests/test_lab.py`` checks it against a
  token-by-token loop with a KV cache). For passkey the query at the end then sees a key written at a smaller s.
* ``dual chunk attention`` (``rope+default_dca``, group "remap", evaluated on request): one pass in which every
  block attends by Dual Chunk Attention (:mod:`helpers.lab.dual_chunk`, :func:`lab_dual_chunk_config`: chunk L,
  local window L/32, vLLM's logit factor past L); at T = L it is plain RoPE up to float rounding.
* ``one pass`` for ``rope+dynamic_onepass``: how HF scores a whole sequence (perplexity evaluations): one scale
  s = T/L for every position, i.e. static NTK with α = T/L, and positions < L no longer equal plain RoPE.

Measurements (deterministic from ``EVAL_SEED``; the same tokens for every method and seed):

Two scales (:data:`helpers.lab.checkpoints.SCALES`): ``tiny`` (L = 64) and ``small`` (L = 256); lengths are L·(1, 2,
4, 8) and buckets L/4 at each. How many documents and keys each cell uses is a named evaluation protocol
(:data:`EVAL_PROTOCOLS`): ``keys100``, the default and the shipped records' (100 keys per length at both scales, so
one key moves an accuracy by 1 %), and ``keys60-20`` (60 keys per length at ``tiny``, 20 at ``small``, where one key
is 5 %: the lab's first protocol, kept so that ``eval_noise.json`` can be remade).
:data:`EVAL_SIZES` is the default protocol's.

* language modelling: ``N_LM`` documents of length T (:func:`helpers.lab.data.lm_batch`); mean next-token loss
  (nats), the loss in buckets of ``BUCKET`` = L/4 positions, and the diagnostic ``previous_token_attention``: the
  mean layer-0 attention weight a[t, t−1] of each head over ``N_ATTENTION`` documents (an induction head needs a
  previous-token head below it).
* passkey: ``N_PER_DEPTH`` random keys at each depth in ``DEPTHS``; accuracy = fraction of keys whose 5 digits are all
  predicted right (greedy), also by depth, plus the per-digit accuracy (chance 0.1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from helpers._checks import check_int
from helpers.lab.checkpoints import (
    CHECKPOINT_DIR,
    SCALE,
    SCALES,
    L,
    load_model,
)
from helpers.lab.data import lm_batch, passkey_batch, random_keys
from helpers.lab.dual_chunk import lab_dual_chunk_config
from helpers.lab.methods import lab_method, rope_scaling_for
from helpers.lab.model import TinyTransformer
from helpers.scaling import yarn_ramp

LENGTH_MULTIPLES = (1, 2, 4, 8)
LENGTHS = tuple(m * L for m in LENGTH_MULTIPLES)
BUCKET = L // 4
N_LM = 24
N_ATTENTION = 4
N_PER_DEPTH = 12
DEPTHS = (0.0, 0.25, 0.5, 0.75, 1.0)
EVAL_SEED = 2024
TASKS = ("lm", "passkey")
DCA_PROTOCOL = "dual chunk attention"  # rope+default_dca: every block attends by DCA (helpers.lab.dual_chunk)


def check_scale(scale: str) -> str:
    if not isinstance(scale, str) or scale not in SCALES:
        raise ValueError(f"scale must be one of {list(SCALES)}, got {scale!r}")
    return scale


#: Named evaluation protocols: per scale (LM documents, documents for the attention diagnostic, passkeys per depth).
#: ``keys100`` (the shipped records') differs from ``keys60-20`` only in the passkeys: 20 per depth = 100 per length.
EVAL_PROTOCOLS = {
    "keys60-20": {"tiny": (N_LM, N_ATTENTION, N_PER_DEPTH), "small": (8, 2, 4)},
    "keys100": {"tiny": (N_LM, N_ATTENTION, 20), "small": (8, 2, 20)},
}
DEFAULT_PROTOCOL = "keys100"
EVAL_SIZES = EVAL_PROTOCOLS[DEFAULT_PROTOCOL]


def eval_sizes(scale: str = SCALE, eval_protocol: str = DEFAULT_PROTOCOL) -> tuple[int, int, int]:
    """(LM documents, attention documents, passkeys per depth) of ``eval_protocol`` (:data:`EVAL_PROTOCOLS`) at
    ``scale``."""
    if not isinstance(eval_protocol, str) or eval_protocol not in EVAL_PROTOCOLS:
        raise ValueError(f"eval_protocol must be one of {list(EVAL_PROTOCOLS)}, got {eval_protocol!r}")
    return EVAL_PROTOCOLS[eval_protocol][check_scale(scale)]


def lengths_of(scale: str = SCALE) -> tuple[int, ...]:
    """The evaluation lengths of ``scale``: L·(1, 2, 4, 8)."""
    return tuple(m * SCALES[check_scale(scale)].train_len for m in LENGTH_MULTIPLES)


def check_length(length: int) -> int:
    return check_int("length", length, minimum=16)


def model_for(method: str, seed: int = 0, *, scale: str = SCALE, directory: Path = CHECKPOINT_DIR) -> TinyTransformer:
    """The (cached, eval-mode) checkpoint that ``method`` evaluates at ``scale``, for pre-training seed ``seed``."""
    return load_model(SCALES[check_scale(scale)].model_name(lab_method(method).checkpoint), seed, directory=directory)


def yarn_kept_pairs(model: TinyTransformer) -> int:
    """How many of the fastest pairs YaRN (the HF code's ramp, β_fast = 32, β_slow = 1) leaves unchanged in this
    model: 1 at the tiny scale (pair 0, kept only by the code's clamp), 2 at the small one."""
    cfg = model.config
    gamma = yarn_ramp(cfg.head_dim, cfg.rope_base, cfg.train_len, kind="code")  # (d_h/2,)
    return int((gamma == 1.0).sum())


def scaling_for(method: str, length: int, model: TinyTransformer) -> dict | None:
    """:func:`helpers.lab.methods.rope_scaling_for` with this model's L, trained dict and YaRN's kept pairs."""
    keep = yarn_kept_pairs(model) if model.config.family == "rope" else 1
    return rope_scaling_for(method, length, model.train_len, model.rope_scaling, keep_pairs=keep)


def protocol(method: str, length: int, task: str, train_len: int = L) -> str:
    """How ``method`` is run at length T for ``task``: "one pass", "L-token windows", "KV cache" or "dual chunk
    attention" (one pass through :mod:`helpers.lab.dual_chunk` with :func:`lab_dual_chunk_config`)."""
    spec = lab_method(method)
    if spec.variant == "dca":
        return DCA_PROTOCOL
    if spec.window and length > train_len:
        return "L-token windows"
    if spec.reads_length and not spec.finetune and spec.variant is None and length > train_len:
        return "KV cache"
    return "one pass"


def _logits(
    model: TinyTransformer,
    tokens: torch.Tensor,
    scaling: dict | None,
    how: str = "one pass",
    at: torch.Tensor | None = None,
) -> torch.Tensor:
    """Logits (B, T, V) of ``tokens`` (B, T) run with ``scaling`` and protocol ``how``; (B, n, V) at positions
    ``at`` (B, n) only."""
    if model.config.family == "rope":
        remap = _dual_chunk(how, model)
        return model(tokens, rope_scaling=scaling, kv_cache=how == "KV cache", logits_at=at, **remap)  # (B, T|n, V)
    return model(tokens, logits_at=at)  # (B, T|n, V)


def _dual_chunk(how: str, model: TinyTransformer) -> dict:
    """The model keyword of protocol "dual chunk attention" (the lab's DCA config at the model's L), else none."""
    return {"dual_chunk_attention_config": lab_dual_chunk_config(model.train_len)} if how == DCA_PROTOCOL else {}


def token_losses(
    model: TinyTransformer, tokens: torch.Tensor, targets: torch.Tensor, scaling: dict | None, how: str = "one pass"
) -> torch.Tensor:
    """Next-token cross-entropy (nats) at every position, shape (B, T)."""
    logits = _logits(model, tokens, scaling, how)  # (B, T, V)
    return F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, T)


def bucket_means(values: np.ndarray, bucket: int) -> tuple[list[float], list[int]]:
    """Means of ``values`` (T,) over consecutive buckets of ``bucket`` positions. Returns (means, bucket starts)."""
    starts = list(range(0, len(values), bucket))
    return [float(values[s : s + bucket].mean()) for s in starts], starts


# --------------------------------------------------------------------------- language modelling
def evaluate_lm(
    method: str,
    length: int,
    *,
    seed: int = 0,
    n_sequences: int | None = None,
    data_seed: int = EVAL_SEED,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
    eval_protocol: str = DEFAULT_PROTOCOL,
) -> dict:
    """Language-modelling loss of ``method`` (checkpoint seed ``seed``, scale ``scale``; ``n_sequences`` documents,
    default the scale's in ``eval_protocol``, :data:`EVAL_PROTOCOLS`) at length T: ``{"status": "ok", "loss",
    "loss_by_bucket", "bucket_starts", "rope_scaling", "protocol"}`` (losses in nats), or ``{"status": "cannot
    run", "message"}`` when the model has no row for some position (the learned table past its size)."""
    length = check_length(length)
    model = model_for(method, seed, scale=scale, directory=directory)
    n_sequences = (
        eval_sizes(scale, eval_protocol)[0] if n_sequences is None else check_int("n_sequences", n_sequences, minimum=1)
    )
    tokens, targets = lm_batch(n_sequences, length, (data_seed, length))  # (B, T), (B, T)
    scaling = scaling_for(method, length, model)
    how = protocol(method, length, "lm", model.train_len)
    L_ = model.train_len
    try:
        with torch.inference_mode():
            if how == "L-token windows":
                chunks = [
                    token_losses(model, tokens[:, s : s + L_], targets[:, s : s + L_], None)
                    for s in range(0, length, L_)
                ]
                losses = torch.cat(chunks, dim=1)  # (B, T)
            else:
                losses = token_losses(model, tokens, targets, scaling, how)  # (B, T)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    by_position = losses.mean(0).double().numpy()  # (T,)
    by_bucket, starts = bucket_means(by_position, L_ // 4)
    return {
        "status": "ok",
        "loss": float(by_position.mean()),
        "loss_by_bucket": by_bucket,
        "bucket_starts": starts,
        "rope_scaling": scaling,
        "protocol": how,
    }


# --------------------------------------------------------------------------- passkey retrieval
def evaluate_passkey(
    method: str,
    length: int,
    *,
    seed: int = 0,
    n_per_depth: int | None = None,
    depths: tuple[float, ...] = DEPTHS,
    data_seed: int = EVAL_SEED,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
    eval_protocol: str = DEFAULT_PROTOCOL,
) -> dict:
    """Passkey accuracy of ``method`` (checkpoint seed ``seed``; ``n_per_depth`` keys at each depth, default the
    scale's in ``eval_protocol``) at length T: ``{"status", "accuracy",
    "accuracy_by_depth", "depths", "digit_accuracy", "rope_scaling", "protocol"}`` or ``{"status": "cannot run",
    "message"}``.

    Accuracy = fraction of keys with every digit right under greedy decoding (the argmax at each answer position
    given the right prefix; if all are right this is exactly what greedy generation produces).
    """
    length = check_length(length)
    n_per_depth = (
        eval_sizes(scale, eval_protocol)[2] if n_per_depth is None else check_int("n_per_depth", n_per_depth, minimum=1)
    )
    model = model_for(method, seed, scale=scale, directory=directory)
    depth_of_row = np.repeat(np.asarray(depths, dtype=np.float64), n_per_depth)  # (B,)
    batch = passkey_batch(random_keys(len(depth_of_row), (data_seed, length, 1)), depth_of_row, length)
    scaling = scaling_for(method, length, model)
    how = protocol(method, length, "passkey", model.train_len)
    tokens, answer_positions = batch.tokens, batch.answer_positions  # (B, T), (B, n)
    if how == "L-token windows":
        tokens, answer_positions = tokens[:, -model.train_len :], answer_positions - (length - model.train_len)
    try:
        with torch.inference_mode():
            answer_logits = _logits(model, tokens, scaling, how, at=answer_positions)  # (B, n, V)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    digit_right = answer_logits.argmax(-1) == batch.keys  # (B, n)
    key_right = digit_right.all(1).double().numpy().reshape(len(depths), n_per_depth)  # (depths, n_per_depth)
    return {
        "status": "ok",
        "accuracy": float(key_right.mean()),
        "accuracy_by_depth": [float(a) for a in key_right.mean(1)],
        "depths": list(depths),
        "digit_accuracy": float(digit_right.double().mean()),
        "rope_scaling": scaling,
        "protocol": how,
    }


# --------------------------------------------------------------------------- attention (the model's own forward)
def attention_weights(
    method: str,
    length: int,
    *,
    seed: int = 0,
    layer: int = 0,
    n_sequences: int | None = None,
    data_seed: int = EVAL_SEED,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
    eval_protocol: str = DEFAULT_PROTOCOL,
) -> torch.Tensor:
    """Attention weights (B, H, T, T) of ``layer`` on ``n_sequences`` LM documents of length T, from the model's
    forward. The window baseline is run on the first window (T = L). Raises
    IndexError where the model cannot run (the learned table past its rows). Runs only the blocks up to
    ``layer`` (:meth:`TinyTransformer.layer_attention`)."""
    length = check_length(length)
    model = model_for(method, seed, scale=scale, directory=directory)
    n_sequences = (
        eval_sizes(scale, eval_protocol)[1] if n_sequences is None else check_int("n_sequences", n_sequences, minimum=1)
    )
    layer = check_int("layer", layer, minimum=0)
    if layer >= model.config.n_layers:
        raise IndexError(f"layer must be < n_layers = {model.config.n_layers}, got {layer}")
    tokens, _ = lm_batch(n_sequences, length, (data_seed, length))  # (B, T)
    if lab_method(method).window:
        length = min(length, model.train_len)
        tokens = tokens[:, :length]  # (B, L)
    how = protocol(method, length, "lm", model.train_len)
    kv_cache = how == "KV cache"
    scaling = {"rope_scaling": scaling_for(method, length, model)} if model.config.family == "rope" else {}
    with torch.inference_mode():
        return model.layer_attention(tokens, layer, kv_cache=kv_cache, **scaling, **_dual_chunk(how, model))


def previous_token_attention(
    method: str,
    length: int,
    *,
    seed: int = 0,
    scale: str = SCALE,
    directory: Path = CHECKPOINT_DIR,
    data_seed: int = EVAL_SEED,
    eval_protocol: str = DEFAULT_PROTOCOL,
) -> dict:
    """How sharply layer 0 attends to the previous token: for each head, the mean weight a[t, t−1] over positions
    t >= 1. Returns ``{"status", "by_head", "max"}``. If a scaling method moves the angle of distance 1 away from
    anything seen in training (PI divides it by s), this number drops and copying fails. Each method runs with its
    protocol (dynamic NTK with its KV-cache rotations)."""
    try:
        weights = attention_weights(
            method,
            length,
            seed=seed,
            scale=scale,
            directory=directory,
            data_seed=data_seed,
            eval_protocol=eval_protocol,
        )  # (B, H, T, T)
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    t = torch.arange(1, weights.shape[-1])  # (T-1,)
    on_previous = weights[:, :, t, t - 1].mean(dim=(0, 2))  # (H,)
    return {"status": "ok", "by_head": [float(w) for w in on_previous], "max": float(on_previous.max())}


# --------------------------------------------------------------------------- the sharpest previous-token head
def sharpest_previous_token_head(weights: torch.Tensor) -> tuple[int, float]:
    """The head whose attention on the previous token is largest, and that mean weight a[t, t−1] over t >= 1:
    weights (B, H, T, T) → (head index, weight)."""
    t = torch.arange(1, weights.shape[-1])  # (T-1,)
    on_previous = weights[:, :, t, t - 1].mean(dim=(0, 2))  # (H,)
    head = int(on_previous.argmax())
    return head, float(on_previous[head])
