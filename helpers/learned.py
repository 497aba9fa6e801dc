"""Learned absolute position embeddings: a trainable max_seq_len × d_model table (BERT, GPT-2).

PE[pos] = table[pos]. It costs max_seq_len · d_model parameters and has no row for a position
≥ max_seq_len, so it cannot extrapolate. Used by notebook 03 and the tiny-model lab.

Also the measurements notebook 03 draws: which rows a lookup sends gradient to (:func:`row_gradients`), how far
training moved each row (:func:`row_distance`), and how alike the rows are (:func:`cosine_similarity_matrix`,
:func:`position_tables`). Tables are (max_seq_len, d_model), NumPy or torch (detached and converted).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from helpers._checks import check_dim, check_int, check_positive


class LearnedPositionalEmbedding(nn.Module):
    """A trainable table of shape (max_seq_len, d_model), initialised N(0, init_std²) (0.02 as in HF's GPT-2 and nanoGPT; OpenAI's GPT-2 code uses 0.01)."""

    def __init__(self, max_seq_len: int, d_model: int, *, init_std: float = 0.02, seed: int | None = 0):
        super().__init__()
        self.max_seq_len = check_int("max_seq_len", max_seq_len, minimum=1)
        self.d_model = check_dim("d_model", d_model)
        init_std = check_positive("init_std", init_std)
        gen = torch.Generator().manual_seed(seed) if seed is not None else None
        self.table = nn.Parameter(torch.randn(self.max_seq_len, self.d_model, generator=gen) * init_std)

    @property
    def n_parameters(self) -> int:
        return self.max_seq_len * self.d_model

    def forward(self, positions: torch.Tensor | int) -> torch.Tensor:
        """Rows for ``positions``: an int T (meaning 0..T−1) or an integer tensor. Returns (*positions.shape, d_model)."""
        if isinstance(positions, int) and not isinstance(positions, bool):
            n = check_int("positions", positions, minimum=0)
            if n > self.max_seq_len:
                raise IndexError(
                    f"position {n - 1} is past the learned table: max_seq_len = {self.max_seq_len} "
                    f"has rows for positions 0..{self.max_seq_len - 1} only (a learned table cannot extrapolate)"
                )
            positions = torch.arange(n)
        if not isinstance(positions, torch.Tensor) or positions.is_floating_point() or positions.dtype == torch.bool:
            raise TypeError(f"positions must be an int or an integer tensor, got {positions!r}")
        if positions.numel():
            lo, hi = int(positions.min()), int(positions.max())
            if lo < 0:
                raise IndexError(f"positions must be >= 0, got position {lo}")
            if hi >= self.max_seq_len:
                raise IndexError(
                    f"position {hi} is past the learned table: max_seq_len = {self.max_seq_len} "
                    f"has rows for positions 0..{self.max_seq_len - 1} only (a learned table cannot extrapolate)"
                )
        return self.table[positions]  # (*positions.shape, d_model)


def learned_table_parameters(max_seq_len: int, d_model: int) -> int:
    """max_seq_len × d_model: e.g. GPT-2 1024 × 768 = 786,432; BERT-base 512 × 768 = 393,216."""
    return check_int("max_seq_len", max_seq_len, minimum=1) * check_dim("d_model", d_model)


# --------------------------------------------------------------------------- measuring a table (notebook 03)
def _as_table(table, name: str = "table") -> np.ndarray:
    """A (T, d) float64 array from a numpy array or a torch tensor (detached)."""
    if isinstance(table, torch.Tensor):
        table = table.detach().cpu().numpy()
    arr = np.asarray(table, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (max_seq_len, d_model), got shape {arr.shape}")
    return arr


def _unit_rows(t: np.ndarray) -> np.ndarray:
    """Every row of ``t`` (T, d) divided by its norm; a zero row stays zero (it has no direction)."""
    norms = np.linalg.norm(t, axis=1, keepdims=True)  # (T, 1)
    return np.divide(t, norms, out=np.zeros_like(t), where=norms > 0)  # (T, d)


def cosine_similarity_matrix(table) -> np.ndarray:
    """S[p, q] = ⟨t_p, t_q⟩ / (‖t_p‖·‖t_q‖) for the rows t_p of ``table`` (T, d). Returns (T, T), float64.

    A zero row has no direction: its similarities are set to 0 (its diagonal entry too).
    """
    unit = _unit_rows(_as_table(table))  # (T, d)
    return unit @ unit.T  # (T, T)


def row_distance(table, init) -> np.ndarray:
    """‖table[p] − init[p]‖₂ for every row p: how far training moved each position's vector. Shape (T,)."""
    t, t0 = _as_table(table), _as_table(init, "init")
    if t.shape != t0.shape:
        raise ValueError(f"table and init must have the same shape, got {t.shape} and {t0.shape}")
    return np.linalg.norm(t - t0, axis=1)  # (T,)


@dataclass(frozen=True)
class PositionTables:
    """Everything :func:`helpers.plots.learned.plot_position_comparison` draws, computed once by :func:`position_tables`.

    A slider over positions then only picks rows of these arrays: no norms or matrix products per redraw.
    """

    learned_unit: np.ndarray  # (T, d_learned): rows of the learned table divided by their norms
    sinusoidal_unit: np.ndarray  # (T, d_sin): rows of the sinusoidal table divided by their norms
    learned_similarity: np.ndarray  # (T, T): cosine_similarity_matrix(learned)
    sinusoidal_similarity: np.ndarray  # (T, T): cosine_similarity_matrix(sinusoidal)
    train_len: int | None = None

    @property
    def unit_limit(self) -> float:
        """A y-limit for the left panel that fits every row of both tables (the axis stays put as p moves)."""
        return 1.05 * float(max(np.abs(self.learned_unit).max(), np.abs(self.sinusoidal_unit).max()))

    @property
    def n_positions(self) -> int:
        return self.learned_unit.shape[0]


def position_tables(learned, sinusoidal, train_len: int | None = None) -> PositionTables:
    """Unit rows and cosine-similarity matrices of a learned table and a sinusoidal table with the same rows T."""
    ln, sn = _as_table(learned, "learned"), _as_table(sinusoidal, "sinusoidal")
    if ln.shape[0] != sn.shape[0]:
        raise ValueError(
            f"learned and sinusoidal need the same number of positions, got {ln.shape[0]} and {sn.shape[0]}"
        )
    if train_len is not None and not 1 <= int(train_len) <= ln.shape[0]:
        raise ValueError(f"train_len must be in 1..{ln.shape[0]} (the number of rows), got {train_len}")
    lu, su = _unit_rows(ln), _unit_rows(sn)  # (T, d) each
    return PositionTables(lu, su, lu @ lu.T, su @ su.T, None if train_len is None else int(train_len))


def row_gradients(seq_len: int, max_seq_len: int = 16, d_model: int = 8, *, seed: int = 0) -> torch.Tensor:
    """The gradient of a toy loss w.r.t. a LearnedPositionalEmbedding table after reading positions 0..seq_len−1.

    loss = Σ_t ⟨PE[t], x_t⟩ with fixed random "upstream" vectors x_t (seeded), so ∂loss/∂table[t] = x_t for
    t < seq_len and 0 for every other row. Returns the table's gradient, shape (max_seq_len, d_model).
    """
    pe = LearnedPositionalEmbedding(max_seq_len, d_model, seed=seed)
    gen = torch.Generator().manual_seed(seed + 1)
    upstream = torch.randn(seq_len, d_model, generator=gen)  # (T, d_model)
    loss = (pe(seq_len) * upstream).sum()
    loss.backward()
    return pe.table.grad  # (max_seq_len, d_model)


def all_row_gradients(max_seq_len: int = 16, d_model: int = 8) -> np.ndarray:
    """:func:`row_gradients` for every T = 1..max_seq_len, computed once: shape (max_seq_len, max_seq_len, d_model)."""
    return np.stack([row_gradients(t, max_seq_len, d_model).numpy() for t in range(1, max_seq_len + 1)])
