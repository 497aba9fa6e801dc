"""Figures for notebook 01 (position blindness), and the small computations they draw.

Self-attention without position information is permutation-equivariant: reorder the tokens and the
outputs are the same rows, reordered (errata E9). A causal mask breaks that symmetry, and weights drawn
as ``torch.randn(d, d)`` saturate the softmax (errata E10). The functions here build the chapter's toy
sentences (猫 吃 鱼 / 鱼 吃 猫, 小明 打了 小红 / 小红 打了 小明), run them through :mod:`helpers.attention`,
and draw the results. Plotting functions take ``ax=None`` (or ``axes=None``), draw, and return the axes.

Chinese tick labels need a CJK font. :func:`cjk_font` looks for one that really has the glyphs; without
one, :func:`token_label` falls back to English + pinyin, so matplotlib never warns "Glyph … missing".
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib import font_manager, ft2font
from matplotlib.collections import PolyCollection
from matplotlib.ticker import MaxNLocator

from helpers.attention import self_attention
from helpers.plots._style import label, new_axes
from helpers.rope import Rotary
from helpers.sinusoidal import sinusoidal_table

# --------------------------------------------------------------------------- the chapter's tokens
#: Each toy token: (English, pinyin). "<s>" is a start-of-sequence token (used for the causal-mask demo).
TOKENS: dict[str, tuple[str, str]] = {
    "猫": ("cat", "māo"),
    "吃": ("eat", "chī"),
    "鱼": ("fish", "yú"),
    "小明": ("Xiaoming", "Xiǎomíng"),
    "打了": ("hit", "dǎle"),
    "小红": ("Xiaohong", "Xiǎohóng"),
    "<s>": ("<s>", ""),
}

#: The chapter's two sentences in their original order (tokenised by word).
SENTENCES: dict[str, tuple[str, ...]] = {
    "猫 吃 鱼": ("猫", "吃", "鱼"),
    "小明 打了 小红": ("小明", "打了", "小红"),
}

POSITION_METHODS = ("none", "sinusoidal", "rope")

#: Font families known to carry simplified Chinese, tried first (then any installed font is checked).
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans SC",
    "Noto Serif CJK SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
    "AR PL UMing CN",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
    "Heiti SC",
    "Arial Unicode MS",
)
_CJK_TEXT = "".join(t for t in TOKENS if t != "<s>")


def _covers(path: str, text: str) -> bool:
    try:
        charmap = ft2font.FT2Font(path).get_charmap()
    except (OSError, RuntimeError, ValueError):
        return False
    return all(ord(c) in charmap for c in text if not c.isspace())


@functools.lru_cache(maxsize=8)
def cjk_font(text: str = _CJK_TEXT) -> str | None:
    """The name of an installed font family that has a glyph for every character of ``text``, or None.

    Known CJK families are tried first (Noto Sans CJK, WenQuanYi, …), then every font matplotlib knows.
    Checking the font's character map (not just its name) is what keeps "Glyph missing" warnings away.
    """
    entries = font_manager.fontManager.ttflist
    preferred = sorted((e for e in entries if e.name in CJK_FAMILIES), key=lambda e: CJK_FAMILIES.index(e.name))
    for entry in itertools.chain(preferred, entries):
        # matplotlib's "Last Resort" font maps every character to a placeholder box: not a real CJK font.
        if not entry.name.startswith("Last Resort") and _covers(entry.fname, text):
            return entry.name
    return None


def token_label(token: str, *, chinese: bool | None = None, multiline: bool = False) -> str:
    """Tick label for a token: "猫 (cat)" when Chinese can be drawn, else "cat (māo)".

    ``chinese``: force one style (None: use Chinese exactly when :func:`cjk_font` finds a font).
    ``multiline``: put the translation (or the pinyin) on a second line, for narrow axes.
    """
    if token not in TOKENS:
        raise ValueError(f"token must be one of {list(TOKENS)}, got {token!r}")
    english, pinyin = TOKENS[token]
    if token == "<s>":
        return "<s>"
    if chinese is None:
        chinese = cjk_font() is not None
    first, second = (token, english) if chinese else (english, pinyin)
    return f"{first}\n{second}" if multiline else f"{first} ({second})"


def _tick_font() -> dict:
    name = cjk_font()
    return {"fontfamily": [name, "DejaVu Sans"]} if name else {}


# --------------------------------------------------------------------------- the toy attention head
@dataclass(frozen=True)
class ToyHead:
    """Seeded toy embeddings for :data:`TOKENS` and one attention head's weights W_Q, W_K, W_V (d_model, d_k)."""

    embeddings: dict[str, torch.Tensor]
    w_q: torch.Tensor
    w_k: torch.Tensor
    w_v: torch.Tensor

    def embed(self, tokens: Sequence[str]) -> torch.Tensor:
        """Stack the embeddings of ``tokens`` into X of shape (T, d_model). No position is added."""
        unknown = [t for t in tokens if t not in self.embeddings]
        if unknown:
            raise ValueError(f"tokens must come from {list(self.embeddings)}, got {unknown}")
        return torch.stack([self.embeddings[t] for t in tokens])  # (T, d_model)


def toy_head(d_model: int = 8, d_k: int = 8, seed: int = 0, *, weight_scale: float | None = None) -> ToyHead:
    """Embeddings e ~ N(0, 1) and weights W ~ N(0, 1)·weight_scale, in float64, from one seeded generator.

    Draw order: the embedding table (len(TOKENS), d_model) in the order of :data:`TOKENS`, then W_Q, W_K,
    W_V, each (d_model, d_k). ``weight_scale`` defaults to 1/√d_model, which keeps the logits q·k/√d_k of
    order 1 (see errata E10 for what happens without it).
    """
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(len(TOKENS), d_model, generator=gen, dtype=torch.float64)  # (V, d_model)
    draws = [torch.randn(d_model, d_k, generator=gen, dtype=torch.float64) for _ in range(3)]  # (d_model, d_k) each
    if weight_scale is None:
        w_q, w_k, w_v = (w / math.sqrt(d_model) for w in draws)
    else:
        w_q, w_k, w_v = (w * weight_scale for w in draws)
    return ToyHead(dict(zip(TOKENS, table, strict=True)), w_q, w_k, w_v)


def attend(
    head: ToyHead, tokens: Sequence[str], *, position: str = "none", causal: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Run ``tokens`` through the head with :func:`helpers.attention.self_attention`.

    ``position``: "none" (position-blind), "sinusoidal" (X + PE, :func:`helpers.sinusoidal.sinusoidal_table`)
    or "rope" (rotate q and k, :class:`helpers.rope.Rotary`). Returns (outputs (T, d_k), weights (T, T)).
    """
    if position not in POSITION_METHODS:
        raise ValueError(f"position must be one of {POSITION_METHODS}, got {position!r}")
    x = head.embed(tokens)  # (T, d_model)
    positional = None
    if position == "sinusoidal":
        positional = sinusoidal_table(len(tokens), x.shape[-1])  # (T, d_model)
    elif position == "rope":
        positional = Rotary(head.w_q.shape[-1])
    return self_attention(x, head.w_q, head.w_k, head.w_v, positional=positional, causal=causal)


def reference_order(tokens: Sequence[str]) -> tuple[str, ...]:
    """The chapter's original order of the sentence whose tokens these are (a reordering of it)."""
    for sentence in SENTENCES.values():
        if sorted(sentence) == sorted(tokens):
            return sentence
    raise ValueError(f"tokens must be a reordering of one of {list(SENTENCES)}, got {tuple(tokens)}")


def permutation_matrix(order: Sequence[int]) -> torch.Tensor:
    """P with P[i, order[i]] = 1, so (P·X)[i] = X[order[i]]: the rows of X taken in the new order. (T, T)."""
    order = list(order)
    if sorted(order) != list(range(len(order))):
        raise ValueError(f"order must be a permutation of 0..{len(order) - 1}, got {order}")
    p = torch.zeros(len(order), len(order), dtype=torch.float64)  # (T, T)
    p[torch.arange(len(order)), torch.tensor(order)] = 1.0
    return p


def row_entropy(weights: torch.Tensor) -> torch.Tensor:
    """Entropy of each attention row in nats: H = −Σ_j a_j ln a_j (with 0·ln 0 = 0). Shape (..., T_q).

    0 for a one-hot row, ln T_k for a uniform one.
    """
    w = torch.as_tensor(weights)
    safe = torch.where(w > 0, w, torch.ones_like(w))
    return -(w * torch.log(safe)).sum(-1)  # (..., T_q)


# --------------------------------------------------------------------------- the chapter's d = 512 example (E10)
@functools.lru_cache(maxsize=2)
def chapter_projections(d_model: int = 512, seq_len: int = 10, batch: int = 2, seed: int = 0):
    """The chapter's example with unit weights: X, W ~ N(0, 1) as ``torch.randn`` draws them (float32).

    Draw order from one generator seeded ``seed``: X (batch, T, d), W_Q, W_K, W_V (d, d). Returns
    (q, k, v) for W scale 1, with RoPE (interleaved, as the chapter's ``apply_rope``) already applied to
    q and k, each (batch, T, d). Scaling every W by s scales q, k, v by s (rotation is linear), so
    :func:`chapter_logits` and :func:`chapter_weights` reuse these. Cached: treat the tensors as read-only.
    """
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, seq_len, d_model, generator=gen)  # (B, T, d)
    w_q, w_k, w_v = (torch.randn(d_model, d_model, generator=gen) for _ in range(3))  # (d, d) each
    rot = Rotary(d_model)
    return rot(x @ w_q), rot(x @ w_k), x @ w_v  # (B, T, d) each


@functools.lru_cache(maxsize=2)
def chapter_logits(d_model: int = 512, seq_len: int = 10, seed: int = 0) -> np.ndarray:
    """The unit-scale logits q₀·k₀ᵀ/√d of the chapter's example (W = randn), in float64. Shape (2, T, T).

    With W = s·randn every logit is multiplied by s², so one table serves every s. Cached and read-only.
    """
    q, k, _ = chapter_projections(d_model, seq_len, 2, seed)  # (B, T, d) each, float32
    logits = (q.double() @ k.double().transpose(-2, -1)).numpy() / math.sqrt(d_model)  # (B, T, T)
    logits.flags.writeable = False
    return logits


def chapter_weights(weight_scale: float = 1.0, *, d_model: int = 512, seq_len: int = 10, seed: int = 0) -> np.ndarray:
    """Attention weights (batch, T, T) of the chapter's example when every W is ``weight_scale``·randn(d, d).

    softmax(s²·q₀·k₀ᵀ/√d) row by row, in float64 NumPy from the cached :func:`chapter_logits` (no torch
    work per call: this is what the weight-scale slider redraws). The logits' standard deviation is about
    s²·d: 491 at s = 1 for this seed (d = 512), and about 1 at s = 1/√d.
    """
    if not weight_scale > 0:
        raise ValueError(f"weight_scale must be > 0, got {weight_scale!r}")
    z = weight_scale**2 * chapter_logits(d_model, seq_len, seed)  # (B, T, T)
    e = np.exp(z - z.max(axis=-1, keepdims=True))  # stable softmax
    return e / e.sum(axis=-1, keepdims=True)  # (B, T, T)


# --------------------------------------------------------------------------- plots
def plot_attention(
    weights, tokens: Sequence[str], ax=None, *, title: str | None = None, annotate: bool = True, query_tokens=None
):
    """Heatmap of attention weights: row = query token (who attends), column = key token (attended to).

    ``weights``: (T_q, T_k) in [0, 1]. ``tokens`` label the keys (and the queries unless ``query_tokens``).
    Cells are annotated with their weight when ``annotate`` and the matrix is small.
    """
    w = np.asarray(torch.as_tensor(weights, dtype=torch.float64))
    if w.ndim != 2:
        raise ValueError(f"weights must be 2-D (T_q, T_k), got shape {w.shape}")
    query_tokens = tokens if query_tokens is None else query_tokens
    if (len(query_tokens), len(tokens)) != w.shape:
        raise ValueError(f"weights shape {w.shape} does not match {len(query_tokens)} queries × {len(tokens)} keys")
    ax = new_axes(ax, figsize=(3.4, 3.2))
    ax.imshow(w, vmin=0.0, vmax=1.0, cmap="viridis")
    font = _tick_font()
    ax.set_xticks(range(len(tokens)), [token_label(t, multiline=True) for t in tokens], **font)
    ax.set_yticks(range(len(query_tokens)), [token_label(t, multiline=True) for t in query_tokens], **font)
    if annotate and w.size <= 64:
        for (i, j), a in np.ndenumerate(w):
            ax.text(j, i, f"{a:.2f}", ha="center", va="center", fontsize=8, color="black" if a > 0.6 else "white")
    return label(ax, xlabel="key (attended to)", ylabel="query (attending)", title=title)


def _bars(x: np.ndarray, heights: np.ndarray, width: float = 0.8, **style) -> PolyCollection:
    """Bars as one PolyCollection: draws like ``ax.bar`` at a fraction of the cost (no per-patch limit updates)."""
    half = width / 2
    verts = [
        [(xi - half, 0.0), (xi + half, 0.0), (xi + half, h), (xi - half, h)] for xi, h in zip(x, heights, strict=True)
    ]
    return PolyCollection(verts, **style)


def bar_heights(collection: PolyCollection) -> np.ndarray:
    """The heights of bars drawn by this module (for tests and checks): the non-zero y of each bar."""
    return np.array([path.vertices[2, 1] for path in collection.get_paths()])


def plot_pooled(
    pooled,
    ax=None,
    *,
    reference=None,
    title: str | None = None,
    pooled_label: str = "this order",
    reference_label: str = "reference",
):
    """Bars of a mean-pooled output vector (one bar per dimension), with an optional reference as black outlines.

    ``pooled``, ``reference``: (d,). Equal vectors put the outlines exactly on the bar edges. The bars are
    PolyCollections (``bar_heights`` reads them back); the y range leaves headroom for the legend.
    """
    p = np.asarray(torch.as_tensor(pooled, dtype=torch.float64)).ravel()
    r = None
    if reference is not None:
        r = np.asarray(torch.as_tensor(reference, dtype=torch.float64)).ravel()
        if r.shape != p.shape:
            raise ValueError(f"reference shape {r.shape} must match pooled shape {p.shape}")
    ax = new_axes(ax)
    dims = np.arange(p.size)
    ax.add_collection(_bars(dims, p, facecolor="tab:blue", label=pooled_label), autolim=False)
    if r is not None:
        ax.add_collection(
            _bars(dims, r, facecolor="none", edgecolor="black", linewidth=1.5, label=reference_label), autolim=False
        )
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlim(-0.6, p.size - 0.4)
    ax.set_xticks(dims)
    top = 1.1 * max(float(np.abs(p).max()), float(np.abs(r).max()) if r is not None else 0.0, 1e-12)
    ax.set_ylim(-top, 1.7 * top)  # headroom for the legend, so it never hides a bar
    ax.yaxis.set_major_locator(MaxNLocator(nbins=4))  # few tick labels: text layout dominates the redraw time
    ax.legend(fontsize=8, loc="upper center", ncol=2)
    return label(ax, xlabel="output dimension j", ylabel="mean over tokens (a.u.)", title=title)


def plot_weight_scale(weights, axes=None, *, weight_scale: float | None = None):
    """Left: one attention matrix (T, T) as a heatmap (colour 0 = dark purple … 1 = yellow); right: the entropy
    of each row in nats, as stems, so that a one-hot row (H = 0) still shows as a dot on the axis.

    The right panel marks ln T (uniform rows). ``weight_scale`` only goes into the title.
    """
    w = torch.as_tensor(weights, dtype=torch.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"weights must be a square (T, T) matrix, got shape {tuple(w.shape)}")
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(6.0, 3.2), layout="constrained", width_ratios=(1, 1.3))
    ax_map, ax_h = axes
    t = w.shape[0]
    ticks = np.arange(0, t, 3 if t > 6 else 1)
    ax_map.imshow(w.numpy(), vmin=0.0, vmax=1.0, cmap="viridis")
    ax_map.set_xticks(ticks)
    ax_map.set_yticks(ticks)
    scale = "attention weights" if weight_scale is None else f"weights at s = {weight_scale:.3g}"
    label(ax_map, xlabel="key position n (tokens)", ylabel="query position m (tokens)", title=scale)
    h = row_entropy(w).numpy()
    pos = np.arange(t)
    ax_h.vlines(pos, 0.0, h, color="tab:orange", linewidth=2)
    ax_h.plot(pos, h, "o", color="tab:orange", label="row entropy")
    ax_h.axhline(math.log(t), color="black", linestyle="--", linewidth=1, label=f"uniform: ln {t} = {math.log(t):.2f}")
    ax_h.set_xticks(ticks)
    ax_h.set_ylim(-0.08 * math.log(t), 1.35 * math.log(t))
    ax_h.yaxis.set_major_locator(MaxNLocator(nbins=4))
    ax_h.legend(fontsize=8, loc="upper right", ncol=2)
    title = f"mean max weight {w.max(-1).values.mean():.3f}, mean H {h.mean():.2f} nats"
    return label(ax_h, xlabel="query position m (tokens)", ylabel="row entropy H (nats)", title=title)


def plot_first_token_weight(weight_causal, weight_full, ax=None):
    """Weight each query puts on the sequence's first token, by query position, with and without a causal mask."""
    wc = np.asarray(weight_causal, dtype=float)
    wf = np.asarray(weight_full, dtype=float)
    ax = new_axes(ax)
    pos = np.arange(wc.size)
    ax.plot(pos, wc, "o-", label="causal mask")
    ax.plot(pos, wf, "s--", label="no mask")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    return label(ax, xlabel="query position t (tokens)", ylabel="weight on token 0", title="weight on the first token")


def plot_output_variance(var_causal, var_full, ax=None, *, value_variance: float | None = None):
    """Variance of the attention output at each position, over random sequences: causal vs no mask.

    ``value_variance``: if given, also draw σ_v²/(t+1), what uniform causal weights would give.
    """
    vc = np.asarray(var_causal, dtype=float)
    vf = np.asarray(var_full, dtype=float)
    ax = new_axes(ax)
    pos = np.arange(vc.size)
    ax.plot(pos, vc, "o-", label="causal mask")
    ax.plot(pos, vf, "s--", label="no mask")
    if value_variance is not None:
        ax.plot(pos, value_variance / (pos + 1), ":", color="black", label="σ_v²/(t+1)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    return label(
        ax, xlabel="position t (tokens)", ylabel="variance across sequences", title="output variance by position"
    )
