"""Slider panels for notebook 03 (learned absolute position embeddings).

Each panel's redraw function is a plain module-level function (tests call it without a browser):
* :func:`draw_row_gradients`: one forward + backward pass through a small learned table; which rows get gradient.
* :func:`draw_position`: a learned position vector next to the sinusoidal one, and their similarity rows.
"""

from __future__ import annotations

from functools import partial

import ipywidgets as W
import numpy as np
import torch

from helpers.learned import LearnedPositionalEmbedding
from helpers.plots import learned as P
from helpers.widgets._common import int_slider, panel


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


def draw_row_gradients(seq_len: int, max_seq_len: int = 16, d_model: int = 8):
    """Redraw for :func:`gradient_panel`: bar chart of the per-row gradient norms for a sequence of ``seq_len``."""
    grad = row_gradients(seq_len, max_seq_len, d_model)
    return P.plot_row_gradients(grad, used=range(seq_len))


def gradient_panel(max_seq_len: int = 16, d_model: int = 8, seq_len: int = 5) -> W.VBox:
    """A slider "sequence length T (tokens)" from 1 to max_seq_len: which table rows receive gradient.

    A redraw (forward + backward + a bar chart rendered to PNG) takes about twice a bare one-line figure, above the
    0.1 s target, so the figure redraws when the slider is released (``heavy=True``); arrow keys still step by one.
    """
    draw = partial(draw_row_gradients, max_seq_len=max_seq_len, d_model=d_model)
    return panel(draw, {"seq_len": int_slider("sequence length T (tokens)", seq_len, 1, max_seq_len, heavy=True)})


def draw_position(position: int, learned, sinusoidal, train_len: int | None = None):
    """Redraw for :func:`position_panel`: learned vs sinusoidal vector at ``position`` and its similarity row."""
    return P.plot_position_comparison(position, learned, sinusoidal, train_len=train_len)


def position_panel(learned, sinusoidal, train_len: int | None = None, position: int = 8) -> W.VBox:
    """A slider "position p (tokens)" over every row of the tables (0 .. max_seq_len − 1).

    Two panels with legends take about three times a bare one-line figure to render, so the figure redraws when the
    slider is released (``heavy=True``); arrow keys still step one position at a time.
    """
    learned = P._as_table(learned, "learned")
    sinusoidal = P._as_table(sinusoidal, "sinusoidal")
    draw = partial(draw_position, learned=learned, sinusoidal=sinusoidal, train_len=train_len)
    hi = len(learned) - 1
    return panel(
        draw, {"position": int_slider("position p (tokens)", int(np.clip(position, 0, hi)), 0, hi, heavy=True)}
    )
