"""Order without rotation: a lab family whose attention is NoPE and whose order comes from a causal short convolution.

``conv_nope`` (group ``hybrid``: trained on request, checkpoints not shipped). In every block, before the NoPE
attention scores, the queries and keys of each head pass through a causal depthwise convolution of kernel K
(default 4) along the sequence, one filter per channel c of each head::

    q̃_m[c] = Σ_{j=0}^{K−1} w_q[j, c] · q_{m−j}[c],    k̃_n[c] = Σ_{j=0}^{K−1} w_k[j, c] · k_{n−j}[c]

(q_{m−j} = 0 for m − j < 0), then softmax(q̃·k̃ᵀ/√d_h + causal mask)·v with nothing rotated and no bias. The
filters see only the K − 1 previous tokens, the same ones at every position, so a key can carry "which token came
just before me" (what an induction head needs) while no absolute or relative position enters anywhere else: the
order the model can use comes from the convolution and from the causal mask.

Why this design: it is the short convolution that the 2024–25 hybrids put in front of their order-carrying mixers,
whose attention layers are NoPE (their HF 5.24 modeling files never rotate there):

* Kimi Linear (Moonshot AI 2025, arXiv 2510.26692): ``KimiLinearDeltaAttention`` passes q, k and v through one
  depthwise ``nn.Conv1d`` (``groups`` = channels, ``padding`` = K − 1, no bias; ``short_conv_kernel_size`` 4)
  before its delta rule; its ``KimiLinearAttention`` (MLA) layers are NoPE.
* Jamba (AI21 2024, arXiv 2403.19887; ``mamba_d_conv`` 4), Nemotron-H (NVIDIA 2025, arXiv 2504.03624;
  ``conv_kernel`` 4) and Granite 4.0-H (IBM 2025; ``mamba_d_conv`` 4, ``position_embedding_type`` "nope"): a Mamba
  layer's depthwise causal conv of kernel 4 on its projected input (x, B, C: B and C are its key and query), beside
  attention layers without RoPE.
* LFM2 (Liquid AI 2025): ``Lfm2ShortConv``, a gated depthwise conv of ``conv_L_cache`` 3; LFM2's attention layers do
  rotate, so it is cited for the convolution only.

What the lab changes (said where the results are quoted): those models put the convolution in separate recurrent or
convolution layers, feeding a linear recurrence, and apply SiLU after it; here it sits on the q and k of the softmax
attention itself (v unchanged, no activation), so that the only difference from ``nope`` is the convolution. Filters
start like ``torch.nn.Conv1d``'s default (the layer those models use): uniform in ±1/√K, drawn from a generator
seeded with the config's seed (so every other weight is the same as in the other families at that seed).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from helpers._checks import check_int
from helpers.lab.positional import Positional

__all__ = ["CONV_KERNEL", "ShortConvLayer", "ShortConvNoPE", "causal_depthwise_conv"]

#: The kernel of Jamba, Nemotron-H, Granite 4.0-H and Kimi Linear's short convolutions.
CONV_KERNEL = 4


def causal_depthwise_conv(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """y_t[c] = Σ_{j=0}^{K−1} weight[j, c] · x_{t−j}[c], with x_{t−j} = 0 before the sequence starts.

    x: (B, H, T, d_h); weight: (K, H, d_h) (tap j multiplies the token j steps back). Returns (B, H, T, d_h). The same
    numbers as ``torch.nn.Conv1d(groups=channels, padding=K − 1)`` cut to the first T outputs, with its kernel flipped
    (Conv1d's tap K − 1 is the current token)."""
    if x.ndim != 4 or weight.ndim != 3 or weight.shape[1:] != x.shape[1:2] + x.shape[3:]:
        raise ValueError(
            f"x must be (B, H, T, d_h) and weight (K, H, d_h) with the same H, d_h; got {tuple(x.shape)} and "
            f"{tuple(weight.shape)}"
        )
    t = x.shape[2]
    y = weight[0][:, None, :] * x  # (B, H, T, d_h): the current token
    for j in range(1, min(weight.shape[0], t)):
        shifted = torch.nn.functional.pad(x[:, :, : t - j], (0, 0, j, 0))  # (B, H, T, d_h): x_{t−j}, zeros first
        y = y + weight[j][:, None, :] * shifted  # (B, H, T, d_h)
    return y


class ShortConvLayer(Positional, register=False):
    """One block's order carrier: causal depthwise filters for q and k (``q_filter``, ``k_filter``: (K, H, d_h)
    parameters), no rotation, no bias. Not a family: :class:`ShortConvNoPE` holds one per block."""

    def __init__(self, n_heads: int, head_dim: int, kernel: int, *, generator: torch.Generator):
        super().__init__()
        check_int("conv_kernel", kernel, minimum=1)
        bound = 1.0 / math.sqrt(kernel)  # torch.nn.Conv1d's default: fan_in = K for a depthwise filter
        shape = (kernel, n_heads, head_dim)
        self.q_filter = nn.Parameter((torch.rand(shape, generator=generator) * 2 - 1) * bound)  # (K, H, d_h)
        self.k_filter = nn.Parameter((torch.rand(shape, generator=generator) * 2 - 1) * bound)  # (K, H, d_h)

    @property
    def kind(self) -> str:
        return f"NoPE attention, q and k through a causal depthwise conv of kernel {self.q_filter.shape[0]}"

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (B, H, T, d_h) → each filtered along T (:func:`causal_depthwise_conv`); nothing rotated."""
        return causal_depthwise_conv(q, self.q_filter), causal_depthwise_conv(k, self.k_filter)  # (B, H, T, d_h) each


class ShortConvNoPE(Positional):
    """``conv_nope``: every block's attention is NoPE, its q and k first filtered by its own causal depthwise
    convolution of kernel ``conv_kernel`` (:class:`ShortConvLayer`; module docstring for the models it mirrors)."""

    family = "conv_nope"
    group = "hybrid"
    defaults = {"conv_kernel": CONV_KERNEL}

    @classmethod
    def check(cls, params: dict) -> None:
        check_int("conv_kernel", params["conv_kernel"], minimum=2)

    @classmethod
    def from_config(cls, config) -> ShortConvNoPE:
        generator = torch.Generator().manual_seed(config.seed)
        return cls(
            [
                ShortConvLayer(config.n_heads, config.head_dim, config.conv_kernel, generator=generator)
                for _ in range(config.n_layers)
            ]
        )

    def __init__(self, layers: list[ShortConvLayer]):
        super().__init__()
        if not layers or not all(isinstance(x, ShortConvLayer) for x in layers):
            raise TypeError(f"layers must be a non-empty list of ShortConvLayer, got {layers!r}")
        self.layers = nn.ModuleList(layers)

    def layer(self, index: int) -> ShortConvLayer:
        index = check_int("layer", index, minimum=0)
        if index >= len(self.layers):
            raise IndexError(f"layer must be < n_layers = {len(self.layers)}, got {index}")
        return self.layers[index]

    @property
    def schedule(self) -> list[str]:
        """Each layer's :attr:`ShortConvLayer.kind`, in order."""
        return [x.kind for x in self.layers]
