"""helpers: the tested implementation behind the positional-encoding course.

One module per idea (import the one you need, e.g. ``from helpers import rope``):

* :mod:`helpers.attention`    scaled dot-product attention returning weights (notebooks 01, 04)
* :mod:`helpers.sinusoidal`   sinusoidal table, the shift matrix M_k (02)
* :mod:`helpers.learned`      trainable position table (03)
* :mod:`helpers.rope`         RoPE frequencies, angles, rotation in both layouts, R_Θ, layout permutation (04)
* :mod:`helpers.scaling`      RoPE length extension: PI, NTK-aware, dynamic NTK, YaRN, Llama 3, LongRoPE (05)
* :mod:`helpers.dca`          position remapping: Dual Chunk Attention's remapped relative positions and attention (05b)
* :mod:`helpers.score_biases` biases on the scores: ALiBi slopes and bias, T5 relative buckets and bias (06)
* :mod:`helpers.layer_schedules` 2025–26 per-layer designs: proportional vs partial RoPE, NoPE layers, Llama 4's
  query temperature, sliding/full layer types
* :mod:`helpers.mrope`        M-RoPE position ids and cos/sin (Qwen2-VL sectioned, Qwen3-VL interleaved)
* :mod:`helpers.axial_rope`   2-D axial RoPE for image patches (HF ``axial``: Qwen3.5's vision tower) (09)
* :mod:`helpers.rope_values`  RoPE on the values, undone at the query (DeepSeek-V4, RoPER) (09)
* :mod:`helpers.temperature`  query temperatures by position: Llama 4, Ministral 3, Mistral Large 4, SSMax, YaRN (08, 09)
* :mod:`helpers.attention_entropy` entropy of a lab model's attention by context length, with a temperature (09)
* :mod:`helpers.mla`          decoupled RoPE scores and softmax scale of multi-head latent attention (DeepSeek-V3)
* :mod:`helpers.sinks`        attention with learned sinks (gpt-oss)
* :mod:`helpers.model_configs` the strict reader of a whole model config: per layer, rotates or not, frequencies,
  attention factor, query temperature; notebook 08's per-layer table
* :mod:`helpers.model_types`  which layers rotate, per HF model type, from HF's modeling files (plain data)
* :mod:`helpers.model_coverage` the config reader against HF transformers, every model type (``python -m``)
* :mod:`helpers.model_gallery` real models' position fields, with their sources (plain data)
* :mod:`helpers.real`         a real pretrained model (SmolLM2-135M-Instruct) run by the course's own code (07)
* :mod:`helpers.lab`          the tiny-model lab: data, model, training, evaluation, results (03, 05, 06)
* :mod:`helpers.methods`      the vocabulary: every method's identifier, label, colour and paper
* :mod:`helpers.exercises`    the checking cells of the exercises
* :mod:`helpers.i18n`         the course's language (English or Chinese): the package's messages, printed lines
* :mod:`helpers.cjk_font`     the Chinese figures' font (Noto Sans CJK SC from a pinned wheel), for matplotlib
* :mod:`helpers.plots`        pure matplotlib figures, one module per notebook
* :mod:`helpers.widgets`      slider panels wiring ipywidgets to the plots

Private: ``helpers._checks`` (argument checks with clear errors), ``helpers._cli`` (the command lines' argparse types), ``helpers._colab`` (the repository URL, Colab), ``helpers._model_types_all`` (the generated part of the
model-type table).
"""

from __future__ import annotations

import random

__version__ = "0.1.0"


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's and PyTorch's generators so every notebook run prints the same numbers."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
