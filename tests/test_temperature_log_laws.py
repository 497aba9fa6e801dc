"""helpers.temperature's smooth log laws: Mistral Large 4's learned per-head factor against HF 5.24's
``MistralLarge4TextSoftmaxScaling``, and Scalable-Softmax's s·ln n against its definition (arXiv 2501.19399)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.temperature import learned_log_temperature, ssmax_temperature

POSITIONS = np.array([0, 1, 2, 63, 64, 1000, 8191, 131071, 1_000_000])


def test_learned_log_temperature_equals_hf_mistral_large4_softmax_scaling():
    from transformers.models.mistral_large4.modeling_mistral_large4 import MistralLarge4TextSoftmaxScaling

    a = np.array([0.0, 0.05, 0.1, 0.3])
    b = np.array([1.0, 0.9, 1.2, 0.5])
    module = MistralLarge4TextSoftmaxScaling(num_heads=4).double()
    with torch.no_grad():
        module.scale.copy_(torch.from_numpy(a))
        module.bias.copy_(torch.from_numpy(b))
    q = torch.ones(1, 4, POSITIONS.size, 3, dtype=torch.float64)  # (B, H, T, d): unit queries, head_dim_first
    ids = torch.from_numpy(POSITIONS)[None]  # (1, T)
    with torch.no_grad():
        hf = module(q, ids, head_dim_first=True)[0, :, :, 0].numpy()  # (H, T)
    ours = np.stack(
        [learned_log_temperature(POSITIONS, scale=ah, bias=bh) for ah, bh in zip(a, b, strict=True)]
    )  # (H, T)
    np.testing.assert_allclose(ours, hf, rtol=1e-7)  # HF takes ln(p + 1) in float32


def test_learned_log_temperature_is_one_at_hf_initial_values():
    np.testing.assert_array_equal(learned_log_temperature(POSITIONS, scale=0.0, bias=1.0), 1.0)


def test_ssmax_multiplies_by_s_ln_n_with_n_keys_seen():
    tau = ssmax_temperature(POSITIONS, s=0.43)
    np.testing.assert_allclose(tau, 0.43 * np.log(POSITIONS + 1.0), rtol=1e-12)
    assert tau[0] == 0.0


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 2.0), st.integers(2, 10**6))
def test_ssmax_keeps_the_top_weight_when_the_gap_times_s_is_one(s, n):
    """SSMax's point: one key with a logit gap g over n − 1 equal others keeps weight n^{s·g}/(n^{s·g} + n − 1),
    which does not fall below 1/2 as n grows when s·g = 1 (plain softmax: e^g/(e^g + n − 1) → 0)."""
    g = 1.0 / s
    tau = ssmax_temperature([n - 1], s=s)[0]  # the query at position n − 1 sees n keys
    top = np.exp(tau * g) / (np.exp(tau * g) + (n - 1))
    assert top >= 0.5 - 1e-12


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ssmax_temperature(4, s=0.0), "s must be a finite number > 0"),
        (lambda: ssmax_temperature([-1], s=1.0), "positions"),
        (lambda: learned_log_temperature(4, scale=-0.1, bias=1.0), "scale must be a finite number >= 0"),
        (lambda: learned_log_temperature(4, scale=0.1, bias=0.0), "bias must be a finite number > 0"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
