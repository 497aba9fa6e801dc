"""Tests for helpers.mrope: position ids equal HF ``Qwen2VLModel.get_rope_index``; cos/sin equal
``Qwen2VLRotaryEmbedding`` (sectioned) and ``Qwen3VLTextRotaryEmbedding`` (interleaved), HF 5.24, built from small
configs here (no weights). Ids are integers: exact. cos/sin: HF multiplies in float32, we in float64 then cast, so
they agree to float32 rounding of angles up to ~60 rad: atol 2e-5.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
import torch

from helpers.mrope import mrope_cos_sin, mrope_position_ids, mrope_slot_axes
from helpers.rope import rope_inv_freq

transformers = pytest.importorskip("transformers")

SEQUENCES = [
    [("text", 3), ("image", (1, 4, 6)), ("text", 5)],
    [("image", (1, 2, 2)), ("text", 2), ("image", (1, 6, 4)), ("text", 1)],
    [("text", 2), ("video", (3, 4, 4)), ("text", 3), ("image", (1, 2, 4)), ("text", 2)],
    [("text", 1), ("video", (5, 2, 2)), ("text", 2)],  # more frames than rows: HF's c += max(h, w)/m
]


def _hf_rope_index(segments, merge=2):
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel

    cfg = Qwen2VLConfig(vision_config={"spatial_merge_size": merge})
    types_, images, videos = [], [], []
    for kind, size in segments:
        if kind == "text":
            types_ += [0] * size
        else:
            t, h, w = size
            types_ += [1 if kind == "image" else 2] * (t * (h // merge) * (w // merge))
            (images if kind == "image" else videos).append(size)
    # get_rope_index reads only self.config and self.get_vision_position_ids: no model (and no weights) needed
    fake = types.SimpleNamespace(config=cfg)
    fake.get_vision_position_ids = lambda *a, **k: Qwen2VLModel.get_vision_position_ids(fake, *a, **k)
    ids = torch.zeros(1, len(types_), dtype=torch.long)
    pos, _ = Qwen2VLModel.get_rope_index(
        fake,
        ids,
        torch.tensor([types_]),
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None,
    )
    return pos[:, 0].numpy()  # (3, T)


@pytest.mark.parametrize("segments", SEQUENCES)
def test_position_ids_equal_hf_get_rope_index(segments):
    ours = mrope_position_ids(segments, spatial_merge_size=2)
    np.testing.assert_array_equal(ours, _hf_rope_index(segments, 2))


def test_position_ids_worked_example():
    """Two text tokens, a 4×4-patch image (2×2 after merging), one text token."""
    ids = mrope_position_ids([("text", 2), ("image", (1, 4, 4)), ("text", 1)])
    assert ids.tolist() == [[0, 1, 2, 2, 2, 2, 4], [0, 1, 2, 2, 3, 3, 4], [0, 1, 2, 3, 2, 3, 4]]


def _hf_cos_sin(kind, head_dim, section, ids, base):
    if kind == "sectioned":
        from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
        from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding as Emb

        cfg = Qwen2VLTextConfig(
            hidden_size=2 * head_dim,
            num_attention_heads=2,
            rope_parameters={"rope_type": "default", "rope_theta": base, "mrope_section": section},
        )
    else:
        from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
        from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding as Emb

        cfg = Qwen3VLTextConfig(
            hidden_size=2 * head_dim,
            head_dim=head_dim,
            num_attention_heads=2,
            rope_parameters={
                "rope_type": "default",
                "rope_theta": base,
                "mrope_section": section,
                "mrope_interleaved": True,
            },
        )
    emb = Emb(cfg)
    x = torch.zeros(1, dtype=torch.float32)
    cos, sin = emb(x, torch.as_tensor(ids)[:, None, :])  # (3, 1, T) ids -> (1, T, D)
    return cos[0], sin[0]


@pytest.mark.parametrize(
    "kind,head_dim,section",
    [
        ("sectioned", 128, [16, 24, 24]),
        ("sectioned", 16, [2, 3, 3]),
        ("interleaved", 128, [24, 20, 20]),
        ("interleaved", 24, [4, 4, 4]),
    ],
)
@pytest.mark.parametrize("segments", SEQUENCES[:3])
def test_cos_sin_equal_hf(kind, head_dim, section, segments):
    base = 1e6 if kind == "sectioned" else 5e6
    ids = mrope_position_ids(segments)
    hf_cos, hf_sin = _hf_cos_sin(kind, head_dim, section, ids, base)
    cos, sin = mrope_cos_sin(ids, rope_inv_freq(head_dim, base), section, interleaved=kind == "interleaved")
    assert cos.shape == hf_cos.shape == (ids.shape[1], head_dim)
    torch.testing.assert_close(cos, hf_cos, atol=2e-5, rtol=0)
    torch.testing.assert_close(sin, hf_sin, atol=2e-5, rtol=0)


def test_on_text_mrope_is_plain_rope():
    from helpers.rope import rope_cos_sin

    ids = mrope_position_ids([("text", 9)])
    inv = rope_inv_freq(16, 1e4)
    for interleaved in (False, True):
        cos, sin = mrope_cos_sin(ids, inv, [2, 3, 3], interleaved=interleaved)
        c, s = rope_cos_sin(9, inv)
        torch.testing.assert_close(cos, torch.cat([c, c], -1), atol=0, rtol=0)
        torch.testing.assert_close(sin, torch.cat([s, s], -1), atol=0, rtol=0)


def test_slot_axes():
    assert mrope_slot_axes(8, [2, 3, 3]).tolist() == [0, 0, 1, 1, 1, 2, 2, 2]
    axes = mrope_slot_axes(64, [24, 20, 20], interleaved=True)
    assert axes[:6].tolist() == [0, 1, 2, 0, 1, 2] and np.bincount(axes).tolist() == [24, 20, 20]
    assert axes[60:].tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: mrope_position_ids([("audio", 3)]), r"segments\[0\] must be \('text', n_tokens\)"),
        (lambda: mrope_position_ids([("image", (2, 4, 4))]), "grid t must be 1, got 2"),
        (lambda: mrope_position_ids([("image", (1, 3, 4))]), "multiples of spatial_merge_size = 2"),
        (lambda: mrope_position_ids([]), "non-empty list"),
        (lambda: mrope_position_ids([("text", 0)]), "text length must be an integer >= 1, got 0"),
        (lambda: mrope_slot_axes(8, [2, 3, 4]), r"must sum to the number of pairs D/2 = 8, got \[2, 3, 4\]"),
        (lambda: mrope_slot_axes(8, [4, 4]), "three slot counts"),
        (lambda: mrope_cos_sin(np.zeros((2, 4)), rope_inv_freq(16), [2, 3, 3]), r"shape \(3, T\)"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
