"""helpers.attention_entropy: the entropy of a row, the captured logits against the lab model's own attention
weights, and the measurement's behaviour (entropy grows with length; a growing temperature lowers it)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from helpers.attention_entropy import attention_entropy, entropy_by_length, layer_logits
from helpers.lab.checkpoints import load_model
from helpers.lab.data import lm_batch


def test_entropy_of_uniform_and_one_hot_rows():
    w = torch.tensor([[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
    torch.testing.assert_close(attention_entropy(w), torch.tensor([math.log(4), 0.0], dtype=torch.float64))


@pytest.mark.parametrize("family", ["nope", "rope"])
def test_layer_logits_give_the_models_own_attention_weights(family):
    model = load_model(family, 0)
    tokens, _ = lm_batch(2, 40, seed=(5, 40))  # (2, 40)
    with torch.no_grad():
        _, weights = model(tokens, return_attention=True)
    for layer in range(len(model.blocks)):
        mine = torch.softmax(layer_logits(model, tokens, layer, last=7), dim=-1)  # (2, H, 7, 40)
        torch.testing.assert_close(mine, weights[layer][:, :, -7:], atol=2e-6, rtol=1e-5)


def test_entropy_grows_with_length_and_a_growing_temperature_lowers_it():
    model = load_model("nope", 0)
    laws = {"none": np.ones_like, "double": lambda p: np.full_like(p, 2.0)}
    got = entropy_by_length(model, [64, 256], laws, layer=1, n_docs=2, last=4)
    assert got["none"][1] > got["none"][0]
    assert np.all(got["double"] < got["none"])
    assert np.all(got["none"] <= got["uniform"] + 1e-9)
    np.testing.assert_allclose(got["uniform"], [np.log(np.arange(61, 65)).mean(), np.log(np.arange(253, 257)).mean()])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: layer_logits(m, lm_batch(1, 8, seed=0)[0], 2, 4), "layer must be < the model's 2 layers"),
        (lambda m: layer_logits(m, lm_batch(1, 8, seed=0)[0], 0, 9), "last must be <="),
        (lambda m: entropy_by_length(m, [64], {}, layer=0), "temperatures must name"),
        (lambda m: entropy_by_length(m, [8], {"a": np.ones_like}, layer=0), "lengths"),
        (lambda m: entropy_by_length(m, [64], {"bad": lambda p: -p}, layer=0, n_docs=1), "temperature 'bad'"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, message):
    with pytest.raises((ValueError, TypeError, IndexError), match=message):
        call(load_model("nope", 0))
