"""M-RoPE (multimodal RoPE): three position axes (time, height, width) sharing one head's frequency slots.

A text token has one position; an image patch has a frame, a row and a column. Qwen2-VL gives every token three
position ids (temporal, height, width); text tokens have all three equal, so on text M-RoPE is plain RoPE. The D/2
frequency slots of a head are divided among the three axes:

* **sectioned** (Qwen2-VL, Qwen2.5-VL, ``mrope_section`` e.g. [16, 24, 24]): the first 16 slots read the temporal
  angle, the next 24 the height angle, the last 24 the width angle;
* **interleaved** (Qwen3-VL, [24, 20, 20]): slots cycle T, H, W, T, H, W, … so every axis gets fast and slow pairs.

:func:`mrope_position_ids` builds the (3, T) ids for a mixed text + image + video sequence as HF's
``Qwen2VLModel.get_rope_index`` does; :func:`mrope_slot_axes` says which axis each slot reads;
:func:`mrope_cos_sin` builds the cos/sin tables (half-split layout, as HF); :func:`mrope_grid_scores` is the score of one
image patch's query against every patch of the image, for unit pairs (what each layout lets a head tell apart). Formulas: ``reference-formulas.md``,
"2025–26 position designs", point 3.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from helpers._checks import check_bool, check_int, check_positive
from helpers.rope import check_inv_freq

__all__ = ["AXES", "mrope_cos_sin", "mrope_grid_scores", "mrope_position_ids", "mrope_slot_axes"]

AXES = ("temporal", "height", "width")
_KINDS = ("text", "image", "video")


def _check_segment(index: int, segment, merge: int) -> tuple[str, tuple[int, ...]]:
    if not isinstance(segment, (tuple, list)) or len(segment) != 2 or segment[0] not in _KINDS:
        raise ValueError(
            f"segments[{index}] must be ('text', n_tokens) or ('image' | 'video', (t, h, w)), got {segment!r}"
        )
    kind, size = segment
    if kind == "text":
        return kind, (check_int(f"segments[{index}] text length", size, minimum=1),)
    if not isinstance(size, (tuple, list)) or len(size) != 3:
        raise ValueError(f"segments[{index}] {kind} grid must be (t, h, w) in patches, got {size!r}")
    t, h, w = (check_int(f"segments[{index}] {kind} grid {a}", v, minimum=1) for a, v in zip("thw", size, strict=True))
    if kind == "image" and t != 1:
        raise ValueError(f"segments[{index}] is an image, so its grid t must be 1, got {t} (use 'video' for frames)")
    if h % merge or w % merge:
        raise ValueError(
            f"segments[{index}] grid h = {h} and w = {w} must be multiples of spatial_merge_size = {merge}"
        )
    return kind, (t, h, w)


def mrope_position_ids(segments: Sequence, *, spatial_merge_size: int = 2) -> np.ndarray:
    """(3, T) position ids (temporal, height, width) of a text + image + video sequence, as HF Qwen2-VL builds them.

    ``segments``: in order, ``("text", n)`` for n text tokens, ``("image", (1, h, w))`` or ``("video", (t, h, w))``
    with the grid in patches (HF's ``image_grid_thw`` / ``video_grid_thw`` row); the vision encoder merges
    m × m patches (m = ``spatial_merge_size``), so a grid brings t·(h/m)·(w/m) tokens.
    With c the next free position:
      text: ids (c + j, c + j, c + j), j = 0 .. n−1; then c ← c + n;
      vision: token (f, y, x) gets (c + f, c + y, c + x) (frame, row, column of the merged grid, row-major);
      then c ← c + max(h, w)/m (the next text continues after the longest spatial side).
    Shapes: returns int64 (3, T), T the total number of tokens.
    Source: HF 5.24 ``Qwen2VLModel.get_rope_index`` and ``get_vision_position_ids`` (time interval 1); Wang et al.
    2024, Qwen2-VL, arXiv 2409.12191 §2.1. Note: HF 5.24 advances c by max(h, w)/m also after a video, not by the
    number of frames, so with more frames than rows the next text's ids overlap the video's temporal ids.
    """
    merge = check_int("spatial_merge_size", spatial_merge_size, minimum=1)
    if isinstance(segments, (str, bytes)) or not isinstance(segments, Sequence) or not segments:
        raise ValueError(f"segments must be a non-empty list of (kind, size) pairs, got {segments!r}")
    parts, start = [], 0
    for index, segment in enumerate(segments):
        kind, size = _check_segment(index, segment, merge)
        if kind == "text":
            (n,) = size
            parts.append(np.tile(np.arange(n, dtype=np.int64) + start, (3, 1)))  # (3, n)
            start += n
            continue
        t, h, w = size[0], size[1] // merge, size[2] // merge
        frame, row, col = np.meshgrid(np.arange(t), np.arange(h), np.arange(w), indexing="ij")  # (t, h, w) each
        ids = np.stack([frame, row, col]).reshape(3, -1).astype(np.int64) + start  # (3, t·h·w)
        parts.append(ids)
        start += max(h, w)
    return np.concatenate(parts, axis=1)  # (3, T)


def mrope_slot_axes(n_pairs: int, mrope_section: Sequence[int], *, interleaved: bool = False) -> np.ndarray:
    """Which position axis (0 temporal, 1 height, 2 width) each of the D/2 frequency slots reads.

    sectioned (Qwen2-VL): slots [0, s_0) → 0, [s_0, s_0 + s_1) → 1, the last s_2 → 2.
    interleaved (Qwen3-VL): slot j → 1 if j mod 3 = 1 and j < 3·s_1; → 2 if j mod 3 = 2 and j < 3·s_2; else 0.
    ``mrope_section`` (s_0, s_1, s_2) must sum to D/2 = ``n_pairs``.
    Shapes: returns int64 (D/2,). Source: HF 5.24 ``Qwen2VLRotaryEmbedding.recomposition_frequencies`` and
    ``Qwen3VLTextRotaryEmbedding.recomposition_frequencies``.
    """
    n_pairs = check_int("n_pairs", n_pairs, minimum=1)
    interleaved = check_bool("interleaved", interleaved)
    if isinstance(mrope_section, (str, bytes)) or not isinstance(mrope_section, Sequence) or len(mrope_section) != 3:
        raise ValueError(f"mrope_section must be three slot counts (temporal, height, width), got {mrope_section!r}")
    sec = [check_int(f"mrope_section[{i}]", s, minimum=0) for i, s in enumerate(mrope_section)]
    if sum(sec) != n_pairs:
        raise ValueError(f"mrope_section must sum to the number of pairs D/2 = {n_pairs}, got {sec} (sum {sum(sec)})")
    if not interleaved:
        return np.repeat(np.arange(3), sec).astype(np.int64)  # (D/2,)
    j = np.arange(n_pairs)
    axes = np.zeros(n_pairs, dtype=np.int64)  # (D/2,) temporal by default
    axes[(j % 3 == 1) & (j < 3 * sec[1])] = 1
    axes[(j % 3 == 2) & (j < 3 * sec[2])] = 2
    return axes


def mrope_cos_sin(
    position_ids,
    inv_freq,
    mrope_section: Sequence[int],
    *,
    interleaved: bool = False,
    attention_factor: float = 1.0,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of M-RoPE: slot i at token t uses angle p_{a(i)}(t)·θ_i, a(i) from :func:`mrope_slot_axes`.

    angle[t, i] = position_ids[a(i), t] · θ_i;  cos = a·cos(cat(angle, angle)), sin likewise (half-split layout,
    pairs (i, i + D/2), as HF's ``rotate_half``). On text (three equal ids) this is plain RoPE.
    ``position_ids``: (3, T) from :func:`mrope_position_ids` (or a torch tensor). ``inv_freq``: (D/2,).
    Shapes: returns two tensors (T, D). Angles in float64, then cast to ``dtype``.
    Source: HF 5.24 ``Qwen2VLRotaryEmbedding.forward`` (sectioned) and ``Qwen3VLTextRotaryEmbedding.forward``
    (interleaved, ``mrope_interleaved``).
    """
    ids = position_ids.detach().cpu().numpy() if isinstance(position_ids, torch.Tensor) else np.asarray(position_ids)
    if ids.ndim != 2 or ids.shape[0] != 3 or not np.issubdtype(ids.dtype, np.number) or ids.dtype == bool:
        raise ValueError(f"position_ids must be numbers of shape (3, T) (temporal, height, width), got {ids.shape}")
    theta = check_inv_freq(inv_freq)  # (D/2,)
    a = check_positive("attention_factor", attention_factor)
    axes = mrope_slot_axes(len(theta), mrope_section, interleaved=interleaved)  # (D/2,)
    pos = ids.astype(np.float64)[axes].T  # (T, D/2): the position each slot reads
    angles = torch.from_numpy(pos * theta)  # (T, D/2)
    angles = torch.cat([angles, angles], dim=-1)  # (T, D) half-split
    return (angles.cos() * a).to(dtype), (angles.sin() * a).to(dtype)  # (T, D) each


def mrope_grid_scores(
    grid_h: int,
    grid_w: int,
    inv_freq,
    mrope_section: Sequence[int],
    *,
    interleaved: bool = False,
    query: tuple[int, int] | None = None,
) -> np.ndarray:
    """Score of a query patch against every patch of one image under M-RoPE, for q = k with unit pairs.

    Patches of one image share their temporal id, so slot i sees the offset Δ_a(i) of its axis a(i) (0 for the
    temporal slots, Δrow for height, Δcol for width) and, with every pair of q and k equal to (1, 0),
    score(Δrow, Δcol) = (1/(D/2)) Σ_i cos(Δ_a(i)·θ_i):  1 at the query's own patch; a drop along an axis says how
    well the slots of that axis tell patches apart at that offset.
    ``grid_h``, ``grid_w``: the merged grid (tokens per column and per row); ``query``: (row, col), default the
    centre (grid_h // 2, grid_w // 2); ``inv_freq`` (D/2,); ``mrope_section`` as in :func:`mrope_slot_axes`.
    Shapes: returns float64 (grid_h, grid_w). Equal to rotating with :func:`mrope_cos_sin` and taking q·k/(D/2)
    (``tests/test_mrope.py``).
    """
    h = check_int("grid_h", grid_h, minimum=1)
    w = check_int("grid_w", grid_w, minimum=1)
    theta = check_inv_freq(inv_freq)  # (D/2,)
    axes = mrope_slot_axes(len(theta), mrope_section, interleaved=interleaved)  # (D/2,)
    row, col = (h // 2, w // 2) if query is None else query
    if not (isinstance(row, (int, np.integer)) and isinstance(col, (int, np.integer))) or not (
        0 <= row < h and 0 <= col < w
    ):
        raise ValueError(f"query must be a (row, col) inside the {h} x {w} grid, got {query!r}")
    d_row = np.arange(h, dtype=np.float64)[:, None, None] - row  # (h, 1, 1)
    d_col = np.arange(w, dtype=np.float64)[None, :, None] - col  # (1, w, 1)
    offset = np.where(axes == 1, d_row, 0.0) + np.where(axes == 2, d_col, 0.0)  # (h, w, D/2)
    return np.cos(offset * theta).mean(axis=-1)  # (h, w)
