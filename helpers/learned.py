"""Learned absolute position embeddings: a trainable max_seq_len × d_model table (BERT, GPT-2).

PE[pos] = table[pos]. It costs max_seq_len · d_model parameters and has no row for a position
≥ max_seq_len, so it cannot extrapolate. Used by notebook 03 and the tiny-model lab.
"""

from __future__ import annotations

import torch
from torch import nn

from helpers._checks import check_dim, check_int, check_positive


class LearnedPositionalEmbedding(nn.Module):
    """A trainable table of shape (max_seq_len, d_model), initialised N(0, init_std²) (GPT-2 uses 0.02)."""

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
