"""helpers: the tested implementation behind the positional-encoding course.

One module per idea (import the one you need, e.g. ``from helpers import rope``):

* :mod:`helpers.sinusoidal`  sinusoidal table, the shift matrix M_k (notebook 02)
* :mod:`helpers.learned`     trainable position table (notebook 03)
* :mod:`helpers.rope`        RoPE frequencies, angles, rotation in both layouts, R_Θ, layout permutation (04)
* :mod:`helpers.scaling`     RoPE length extension: PI, NTK-aware, dynamic NTK, YaRN, Llama 3, LongRoPE (05)
* :mod:`helpers.score_biases` biases on the scores: ALiBi slopes and bias, T5 relative buckets and bias (06)
* :mod:`helpers.attention`   scaled dot-product attention returning weights (01, 04)
* :mod:`helpers.plots`       pure matplotlib figures, one module per chapter
* :mod:`helpers.widgets`     slider panels wiring ipywidgets to the plots
* :mod:`helpers.lab`         the tiny-model lab: data, model, training, evaluation (03, 05)
"""

from __future__ import annotations

import random

__version__ = "0.1.0"

#: The two RoPE memory layouts, named once here and used with these names everywhere.
GLOSSARY = {
    "interleaved": "RoPE pair i = dimensions (2i, 2i+1): RoFormer paper, GPT-J, Meta's Llama reference, the source chapter",
    "half_split": "RoPE pair i = dimensions (i, i + D/2): GPT-NeoX, HF transformers (rotate_half)",
    "位置编码": "positional encoding",
    "旋转位置编码": "rotary position embedding (RoPE)",
    "外推": "extrapolation (running past the training length)",
    "插值": "interpolation",
}


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's and PyTorch's generators so every notebook run prints the same numbers."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
