"""What the notebooks inspect in one trained model, beside the stored measurements: the learned table (notebook 03)
and one live forward pass (notebook 05b's panel, :mod:`helpers.widgets.lab`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from helpers._checks import check_int
from helpers.lab.checkpoints import CHECKPOINT_DIR, SCALE
from helpers.lab.data import lm_batch
from helpers.lab.evaluate import (
    EVAL_SEED,
    check_length,
    model_for,
    protocol,
    scaling_for,
    sharpest_previous_token_head,
)
from helpers.lab.methods import lab_method
from helpers.lab.model import TinyTransformer
from helpers.learned import cosine_similarity_matrix

__all__ = ["block_max", "initial_learned_table", "learned_table", "live_run", "position_similarity"]


# --------------------------------------------------------------------------- inspecting a learned table (notebook 03)
def learned_table(model: TinyTransformer) -> tuple[np.ndarray, int]:
    """The learned position table P (max_seq_len, d_model) as float64, and ``rows_reached`` (rows ≥ it are untrained)."""
    if model.position_embedding is None:
        raise ValueError(f"model has no learned table (family={model.config.family!r}); load 'learned'")
    return model.position_embedding.table.detach().double().numpy().copy(), model.rows_reached  # (N, D)


def initial_learned_table(model: TinyTransformer) -> np.ndarray:
    """The table before training (rebuilt from the config's seed and init_std), shape (max_seq_len, d_model)."""
    from helpers.learned import LearnedPositionalEmbedding

    if model.position_embedding is None:
        raise ValueError(f"model has no learned table (family={model.config.family!r}); load 'learned'")
    cfg = model.config
    init = LearnedPositionalEmbedding(cfg.max_seq_len, cfg.d_model, init_std=cfg.learned_init_std, seed=cfg.seed)
    return init.table.detach().double().numpy()  # (N, D)


def position_similarity(table: np.ndarray) -> np.ndarray:
    """Cosine similarity of every pair of rows, S[p, q] = P_p·P_q / (‖P_p‖‖P_q‖) (a zero row gives 0): input (T, D),
    output (T, T). The course's one implementation, :func:`helpers.learned.cosine_similarity_matrix`, under the name
    notebook 03 uses for the lab."""
    return cosine_similarity_matrix(table)  # (T, T)


# --------------------------------------------------------------------------- one live run (notebook 05b's panel)
def block_max(image: torch.Tensor, max_pixels: int) -> torch.Tensor:
    """Max over k × k blocks (k = ceil(T / max_pixels)) of a (T, T) map, so a sharp diagonal survives being shown
    at most max_pixels wide: (T, T) → (ceil(T/k), ceil(T/k))."""
    k = -(-image.shape[-1] // check_int("max_pixels", max_pixels, minimum=1))
    if k == 1:
        return image
    return F.max_pool2d(image[None, None], kernel_size=k, stride=k, ceil_mode=True)[0, 0]  # (T/k, T/k)


def live_run(
    method: str,
    length: int,
    *,
    seed: int = 0,
    scale: str = SCALE,
    n_sequences: int = 2,
    max_pixels: int = 256,
    data_seed: int = EVAL_SEED,
    directory: Path = CHECKPOINT_DIR,
) -> dict:
    """One forward pass of ``method`` at length T on ``n_sequences`` LM documents (the first ones the stored
    evaluation uses), with its protocol, returning what notebook 05b draws: ``{"status", "loss_by_position"
    (T,) nats, mean over documents, "loss", "attention" (P, P) layer 0's sharpest previous-token head (block max,
    P <= max_pixels), "head", "previous_token", "block" (positions per pixel), "train_len", "rope_scaling",
    "protocol"}``; ``{"status": "cannot run", "message"}`` where the model cannot run.
    """
    length = check_length(length)
    model = model_for(method, seed, scale=scale, directory=directory)
    n_sequences = check_int("n_sequences", n_sequences, minimum=1)
    tokens, targets = lm_batch(n_sequences, length, (data_seed, length))  # (B, T), (B, T)
    spec = lab_method(method)
    how = protocol(method, length, "lm", model.train_len)
    scaling = scaling_for(method, length, model)
    window = model.train_len if spec.window else length  # the baseline runs independent L-token windows
    kwargs = {"rope_scaling": scaling, "kv_cache": how == "KV cache"} if model.config.family == "rope" else {}
    try:
        with torch.inference_mode():
            logits = torch.cat(
                [model(tokens[:, s : s + window], **kwargs) for s in range(0, length, window)], dim=1
            )  # (B, T, V)
            weights = model.layer_attention(tokens[:, :window], 0, **kwargs)  # (B, H, W, W): the first window's
    except IndexError as err:
        return {"status": "cannot run", "message": str(err)}
    losses = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none").mean(0)  # (T,)
    head, previous = sharpest_previous_token_head(weights)
    image = block_max(weights[:, head].mean(0), max_pixels)  # (P, P) (the first window's for the baseline)
    return {
        "status": "ok",
        "loss_by_position": losses.double().numpy(),
        "loss": float(losses.mean()),
        "attention": image.double().numpy(),
        "head": head,
        "previous_token": previous,
        "block": -(-window // max_pixels),
        "map_length": window,
        "train_len": model.train_len,
        "rope_scaling": scaling,
        "protocol": how,
    }
