"""Tests of the tiny-model lab (helpers.lab): data, the positional interface, model, training settings,
checkpoints, methods, evaluation, results and the command line.

The headline test re-evaluates a sample of the stored records from the shipped checkpoints (tolerance stated there),
so results/results.json, RESULTS.md and docs/lab-results.md cannot drift from the code.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from helpers import lab
from helpers.lab import (
    CHECKPOINT_DIR,
    METHODS,
    MODELS,
    PLOTS,
    RESULTS_MD,
    SEEDS,
    SHIPPED_SEEDS,
    LabConfig,
    TinyTransformer,
    TrainSettings,
    evaluate_lm,
    evaluate_passkey,
    fine_tune,
    initial_learned_table,
    learned_table,
    list_checkpoints,
    lm_batch,
    load_model,
    load_results,
    passkey_batch,
    position_similarity,
    save_checkpoint,
    train_model,
)
from helpers.lab import __main__ as cli
from helpers.lab.checkpoints import checkpoint_paths, is_trained, scale_of
from helpers.lab.data import BOS, KEY, QUERY, VOCAB_SIZE, training_batch
from helpers.lab.evaluate import protocol, scaling_for, yarn_kept_pairs
from helpers.lab.methods import ABLATIONS, MAIN, lab_method, rope_scaling_for
from helpers.lab.positional import FAMILIES, Positional
from helpers.lab.records import at_scale
from helpers.lab.report import (
    findings,
    findings_markdown,
    overview_markdown,
    papers_markdown,
    record,
    results_tables,
    seed_values,
    seeds_of,
    summary,
)
from helpers.lab.train import ProgressBar, learning_rate
from helpers.lab.train_grid import pending_runs, train_all
from helpers.methods import POSITIONAL_FAMILIES, SCALING_METHODS
from helpers.rope import apply_rope, permute_qk_rows
from helpers.scaling import ROPE_SCALING, rope_parameters_from_config, yarn_get_mscale

LAB_DOC = Path(__file__).resolve().parents[1] / "docs" / "lab-results.md"
TINY = {"d_model": 32, "n_layers": 1, "n_heads": 2, "d_ff": 64, "train_len": 16, "max_seq_len": 32}
QUICK = {"steps": 4, "batch_size": 4, "warmup": 2}


# --------------------------------------------------------------------------- data
def test_lm_batch_is_deterministic_and_shifted():
    x1, y1 = lm_batch(4, 40, 7)
    x2, y2 = lm_batch(4, 40, 7)
    x3, _ = lm_batch(4, 40, 8)
    assert x1.shape == y1.shape == (4, 40) and x1.dtype == torch.int64
    assert torch.equal(x1, x2) and torch.equal(y1, y2) and not torch.equal(x1, x3)
    assert torch.equal(x1[:, 1:], y1[:, :-1])  # targets are the next tokens
    assert (x1[:, 0] == BOS).all() and int(x1.max()) < VOCAB_SIZE


def test_lm_documents_repeat_spans_that_reach_far_back():
    """Most tokens at T = 512 continue a bigram seen earlier; for about a quarter of them the nearest earlier
    occurrence is more than L = 64 back (measured 0.71 and 0.24 on 64 documents: the numbers in data.py)."""
    tokens, _ = lm_batch(16, 512, 0)
    far = repeated = 0
    for doc in tokens.numpy():
        last_seen: dict[tuple[int, int], int] = {}
        for t in range(1, len(doc)):
            pair = (int(doc[t - 1]), int(doc[t]))
            if pair in last_seen:
                repeated += 1
                far += t - last_seen[pair] > 64
            last_seen[pair] = t
    assert repeated / (16 * 511) > 0.6
    assert far / repeated > 0.15  # a window of L tokens would miss these copies


def test_passkey_layout_depths_and_answers():
    keys = torch.tensor([[1, 2, 3, 4, 5], [9, 8, 7, 6, 5]])
    batch = passkey_batch(keys, [0.0, 1.0], 40)
    assert batch.tokens.shape == (2, 40)
    assert batch.tokens[0, 0] == BOS and batch.tokens[0, 1] == KEY  # depth 0: key right after BOS
    assert torch.equal(batch.tokens[0, 2:7], keys[0])
    row = batch.tokens[1].tolist()  # depth 1: key block right before the query
    assert row[-12] == KEY and row[-11:-6] == [9, 8, 7, 6, 5] and row[-6:] == [QUERY, KEY, 9, 8, 7, 6]
    answers = batch.targets.gather(1, batch.answer_positions)  # (B, 5)
    assert torch.equal(answers, keys)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"keys": torch.tensor([[1, 2, 3]]), "depths": [1.5], "length": 40}, ValueError, "depths must lie in"),
        ({"keys": torch.tensor([[1, 12]]), "depths": [0.5], "length": 40}, ValueError, "digits 0..9"),
        ({"keys": torch.tensor([[1.0, 2.0]]), "depths": [0.5], "length": 40}, TypeError, "integer tensor"),
        ({"keys": torch.tensor([[1, 2, 3]]), "depths": [0.5], "length": 5}, ValueError, "length must be"),
    ],
)
def test_passkey_batch_rejects_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        passkey_batch(**kwargs)


def test_training_batch_mixes_tasks():
    tokens, targets = training_batch(8, 32, 3, passkey_fraction=0.5)
    assert tokens.shape == targets.shape == (8, 32)
    assert (tokens[4:] == QUERY).any(1).all() and not (tokens[:4] == QUERY).any()
    with pytest.raises(ValueError, match="passkey_fraction"):
        training_batch(8, 32, 3, passkey_fraction=1.5)


# --------------------------------------------------------------------------- the positional interface
#: A hybrid needs a layer of each kind: 2 layers, a window (5) and a temperature step (4) shorter than the sequences.
HYBRID_TINY = {"n_layers": 2, "sliding_window": 5, "floor_scale": 4, "attn_scale": 0.3, "global_rope_base": 5000.0}


def _config(family, **extra):
    """A small config of ``family`` (TINY's parameters of the other families left out; a hybrid gets HYBRID_TINY)."""
    hybrid = HYBRID_TINY if FAMILIES[family].group == "hybrid" else {}
    return LabConfig.build(family, shared=True, **(TINY | hybrid | extra))


def _model(family, **extra):
    return TinyTransformer(_config(family, **extra)).eval()


HOOKS = ("add_to_embeddings", "rotate", "score_bias")


def test_every_family_is_one_positional_object_with_the_three_hooks():
    """Each family is one registered class, named in the vocabulary, overriding at least one hook unless it is NoPE
    (a hybrid: in the layer objects it returns from ``layer``); the hooks it does not override are the base class's
    identity / no bias, and those it does change something."""
    assert list(FAMILIES) == [f for f in POSITIONAL_FAMILIES if f in FAMILIES] and set(FAMILIES) == set(
        POSITIONAL_FAMILIES
    )
    h = torch.randn(2, 8, TINY["d_model"])  # (B, T, D)
    q, k = torch.randn(2, 2, 8, 16), torch.randn(2, 2, 8, 16)  # (B, H, T, d_h)
    for family, cls in FAMILIES.items():
        model = _model(family)
        pos = model.positional
        assert type(pos) is cls and isinstance(pos, Positional) and pos.family == family
        assert cls.group in ("main", "hybrid")
        layers = [pos.layer(i) for i in range(model.config.n_layers)]
        assert all(x is pos for x in layers) == (cls.group == "main"), family  # only hybrids differ per layer
        hooks = {
            name
            for name in HOOKS
            if any(getattr(type(x), name) is not getattr(Positional, name) for x in (pos, *layers))
        }
        assert bool(hooks) == (family != "nope"), family
        used = set()  # the hooks that change something in some layer
        if not torch.equal(pos.add_to_embeddings(h), h):
            used.add("add_to_embeddings")
        if any(not all(torch.equal(a, b) for a, b in zip(x.rotate(q, k), (q, k), strict=True)) for x in layers):
            used.add("rotate")
        if any(x.score_bias(8) is not None for x in layers):
            used.add("score_bias")
        # a family uses every hook it overrides; a hybrid's layers share one class, each layer using some of them
        assert used == hooks if cls.group == "main" else (used and used <= hooks), family
        assert set(_config(family).positional) == set(cls.defaults)  # the family's parameters, in one place


def test_old_flat_checkpoint_configs_load_into_the_family_parameters():
    """Configs of the shipped checkpoints are flat (every family's parameters, ``d_head``): they map on load."""
    flat = json.loads((CHECKPOINT_DIR / "small" / "rope.seed0.json").read_text())["config"]
    assert "d_head" in flat and "t5_max_distance" in flat
    cfg = LabConfig.from_dict(flat)
    assert (
        cfg.head_dim == flat["d_head"]
        and cfg.rope_base == flat["rope_base"]
        and "t5_max_distance" not in cfg.positional
    )
    assert LabConfig.from_dict(cfg.to_dict()) == cfg


def test_rope_hook_is_helpers_rope_with_the_scaling_methods_frequencies():
    pos = _model("rope").positional
    q, k = torch.randn(1, 2, 24, 16), torch.randn(1, 2, 24, 16)  # (B, H, T, d_h)
    scaling = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 16}
    inv_freq, factor = rope_parameters_from_config(scaling, head_dim=16, base=10000.0, max_position_embeddings=16)
    from helpers.rope import rope_cos_sin

    cos, sin = rope_cos_sin(24, inv_freq, attention_factor=factor)  # (T, d_h/2) each
    q2, k2 = pos.rotate(q, k, rope_scaling=scaling)
    torch.testing.assert_close(q2, apply_rope(q, cos, sin, layout="half_split"), rtol=0, atol=0)
    torch.testing.assert_close(k2, apply_rope(k, cos, sin, layout="half_split"), rtol=0, atol=0)
    assert pos.cos_sin(8, scaling)[0][0, 0].item() == pytest.approx(yarn_get_mscale(2.0))  # YaRN's a on cos, sin
    # dynamic NTK with factor 1 at length T is static NTK with s = T/L (the passkey evaluation relies on it)
    torch.testing.assert_close(
        pos.cos_sin(64, {"rope_type": "dynamic", "factor": 1.0}), pos.cos_sin(64, {"rope_type": "ntk", "factor": 4.0})
    )
    torch.testing.assert_close(pos.cos_sin(16, {"rope_type": "dynamic", "factor": 1.0}), pos.cos_sin(16, None))


def test_alibi_hook_is_the_papers_linear_penalty():
    pos = _model("alibi").positional
    bias = pos.score_bias(6)  # (H, T, T)
    slopes = np.array([2.0**-4, 2.0**-8])  # 2^(-8h/H), h = 1..H = 2 (Press et al. §3)
    m, n = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
    below = m >= n  # the causal mask removes the rest
    expected = -slopes[:, None, None] * (m - n)  # (H, T, T)
    np.testing.assert_allclose(bias.numpy()[:, below], expected[:, below], rtol=1e-6)
    assert len(list(pos.parameters())) == 0  # nothing learned, nothing to change past L
    torch.testing.assert_close(pos.score_bias(12)[:, :6, :6], bias)


def test_t5_hook_looks_up_a_learned_scalar_per_head_and_causal_bucket():
    from helpers.score_biases import t5_relative_bucket

    pos = _model("t5_bias").positional
    table = pos.relative.table  # (buckets, H)
    assert table.requires_grad and table.shape == (32, 2)
    t = 80
    bias = pos.score_bias(t)  # (H, T, T)
    m, n = np.meshgrid(np.arange(t), np.arange(t), indexing="ij")
    buckets = t5_relative_bucket(torch.as_tensor(n - m), bidirectional=False, num_buckets=32, max_distance=64)
    assert buckets[5, 5] == 0 and buckets[10, 2] == 8 and buckets[79, 0] == buckets[70, 0] == 31  # >= 64: one bucket
    for h in range(2):
        np.testing.assert_array_equal(bias[h].detach().numpy(), table.detach().numpy()[buckets.numpy(), h])


@pytest.mark.parametrize("family", FAMILIES)
def test_forward_shapes_and_attention_weights(family):
    model = _model(family)
    tokens, _ = lm_batch(2, 16, 0)
    logits = model(tokens)
    assert logits.shape == (2, 16, VOCAB_SIZE)
    logits2, weights = model(tokens, return_attention=True)
    torch.testing.assert_close(logits2, logits, rtol=1e-5, atol=1e-5)  # the written-out path = the fast path
    assert len(weights) == model.config.n_layers and weights[0].shape == (2, 2, 16, 16)
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(2, 2, 16))
    assert torch.all(weights[0].triu(1) == 0)  # causal


@pytest.mark.parametrize("family", FAMILIES)
def test_logits_at_some_positions_equal_the_full_calls(family):
    """``logits_at`` (the passkey evaluation's shortcut: the last block computes only those queries) gives the
    full call's logits at those positions; ``layer_attention`` gives the full call's weights of that layer."""
    model = _model(family)
    tokens, _ = lm_batch(3, 24, 1)
    at = torch.tensor([[0, 5, 23], [23, 22, 1], [7, 7, 12]])  # (B, n): any positions, repeats allowed
    protocols = [{}, {"kv_cache": True, "rope_scaling": {"rope_type": "dynamic", "factor": 1.0}}]
    for kwargs in protocols if family == "rope" else protocols[:1]:
        with torch.inference_mode():
            full, weights = model(tokens, return_attention=True, **kwargs)  # (B, T, V), layers × (B, H, T, T)
            part = model(tokens, logits_at=at, **kwargs)  # (B, n, V)
            torch.testing.assert_close(part, full.gather(1, at[..., None].expand(-1, -1, full.shape[-1])))
            torch.testing.assert_close(model.layer_attention(tokens, 0, **kwargs), weights[0], rtol=0, atol=0)
    deep = TinyTransformer(_config(family, n_layers=3))
    with torch.inference_mode():
        _, weights = deep(tokens, return_attention=True)
        for layer in (1, 2):  # the layers below ran the fast path: equal up to float rounding
            torch.testing.assert_close(deep.layer_attention(tokens, layer), weights[layer])


def test_logits_at_and_layer_attention_reject_bad_input():
    model = _model("rope")
    tokens = torch.zeros(2, 8, dtype=torch.int64)
    with pytest.raises(TypeError, match="logits_at must be an int64 tensor of shape"):
        model(tokens, logits_at=[[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"logits_at must have shape \(2, n >= 1\).*got \(1, 2\)"):
        model(tokens, logits_at=torch.tensor([[1, 2]]))
    with pytest.raises(ValueError, match=r"positions in \[0, 8\), got values from 1 to 8"):
        model(tokens, logits_at=torch.tensor([[1], [8]]))
    with pytest.raises(ValueError, match="cannot be combined"):
        model(tokens, logits_at=torch.tensor([[1], [2]]), return_attention=True)
    n = model.config.n_layers
    with pytest.raises(IndexError, match=f"layer must be < n_layers = {n}, got {n}"):
        model.layer_attention(tokens, n)


def test_score_bias_reaches_the_logits():
    """An ALiBi model and the same weights without the bias (nope) differ; the bias is what the hook returns."""
    alibi, nope = _model("alibi"), _model("nope")
    nope.load_state_dict(alibi.state_dict())
    tokens, _ = lm_batch(1, 16, 3)
    assert not torch.allclose(alibi(tokens), nope(tokens))


def test_learned_table_cannot_run_past_its_rows():
    model = _model("learned")
    tokens, _ = lm_batch(1, 33, 0)
    with pytest.raises(IndexError, match="cannot extrapolate"):
        model(tokens)


def test_config_and_forward_reject_bad_arguments():
    with pytest.raises(ValueError, match="family must be one of"):
        LabConfig(family="none")
    with pytest.raises(ValueError, match="n_heads"):
        LabConfig(d_model=64, n_heads=3)
    with pytest.raises(ValueError, match="rope_type"):
        LabConfig.build(rope_scaling={"rope_type": "magic"})
    with pytest.raises(ValueError, match="only applies to family 'rope'"):
        LabConfig.build("alibi", rope_scaling={"rope_type": "linear", "factor": 2.0})
    with pytest.raises(ValueError, match=r"unknown parameters \['rope_base'\] of family 'alibi'"):
        LabConfig(family="alibi", positional={"rope_base": 10.0})
    with pytest.raises(ValueError, match="unknown LabConfig fields"):
        LabConfig.from_dict({"position": "rope"})
    model = _model("nope")
    with pytest.raises(ValueError, match="only applies to a RoPE model"):
        model(torch.zeros(1, 4, dtype=torch.int64), rope_scaling={"rope_type": "linear", "factor": 2.0})
    with pytest.raises(TypeError, match="tokens must be an integer tensor"):
        model(torch.zeros(1, 4))
    with pytest.raises(TypeError, match="return_attention must be a bool"):
        model(torch.zeros(1, 4, dtype=torch.int64), return_attention=1)


def test_rope_layouts_agree_after_permuting_q_k_rows():
    """A half_split model and an interleaved model whose W_q, W_k rows are permuted compute the same logits."""
    half = _model("rope", rope_layout="half_split")
    inter = _model("rope", rope_layout="interleaved")
    state = half.state_dict()
    d, heads = TINY["d_model"], TINY["n_heads"]
    for key in [k for k in state if k.endswith("attn.qkv.weight")]:
        w = state[key].clone()  # (3D, D)
        w[:d] = permute_qk_rows(w[:d], heads, to="interleaved")
        w[d : 2 * d] = permute_qk_rows(w[d : 2 * d], heads, to="interleaved")
        state[key] = w
    inter.load_state_dict(state)
    tokens, _ = lm_batch(2, 24, 1)
    scaling = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 16}
    torch.testing.assert_close(inter(tokens, rope_scaling=scaling), half(tokens, rope_scaling=scaling))


# --------------------------------------------------------------------------- training settings
ALTERNATIVES = {
    "steps": 5,
    "length": 24,
    "batch_size": 3,
    "lr": 1e-2,
    "warmup": 1,
    "seed": 9,
    "passkey_fraction": 1.0,
    "passkey_after": 0.0,
}


def test_every_training_setting_takes_effect():
    """Changing any one field of TrainSettings changes the trained weights (issue 10: passkey_after was dropped)."""
    assert set(ALTERNATIVES) == {f.name for f in dataclasses.fields(TrainSettings)}
    config = _config("rope")
    base = TrainSettings(steps=4, batch_size=4, warmup=2, passkey_after=0.5, passkey_fraction=0.5)
    reference, _ = train_model(config, base, progress=False)
    for name, value in ALTERNATIVES.items():
        assert getattr(base, name) != value, name
        model, log = train_model(config, base, progress=False, **{name: value})
        assert getattr(log.settings, name) == value
        changed = any(not torch.equal(v, model.state_dict()[k]) for k, v in reference.state_dict().items())
        assert changed, f"setting {name} had no effect"


def test_unknown_or_bad_training_settings_raise():
    config = _config("rope")
    with pytest.raises(TypeError, match=r"unknown training settings \['pass_key_after'\]"):
        train_model(config, steps=1, pass_key_after=0.5, progress=False)
    with pytest.raises(TypeError, match="unknown training settings"):
        fine_tune(TinyTransformer(config), {"rope_type": "linear", "factor": 2.0}, learning_rate=1e-3)
    with pytest.raises(ValueError, match="passkey_after must be a number in"):
        TrainSettings(passkey_after=1.5)
    with pytest.raises(TypeError, match="settings must be a TrainSettings"):
        train_model(config, {"steps": 3})


def test_training_smoke_loss_falls():
    model, log = train_model(_config("rope"), steps=40, batch_size=8, lr=1e-2, warmup=5, progress=False)
    assert log.steps == 40 and len(log.losses) == 40
    assert np.mean(log.losses[-5:]) < np.mean(log.losses[:5]) - 0.3
    assert not model.training


@pytest.mark.parametrize("family", ["rope", "t5_bias"])
def test_training_is_reproducible_from_the_seed(family):
    first, _ = train_model(_config(family), progress=False, **QUICK)
    second, _ = train_model(_config(family), progress=False, **QUICK)
    for key, value in first.state_dict().items():
        assert torch.equal(value, second.state_dict()[key]), key


def test_t5_bias_table_is_trained():
    model, _ = train_model(_config("t5_bias"), progress=False, **QUICK)
    initial = TinyTransformer(_config("t5_bias")).positional.relative.table
    assert not torch.equal(model.positional.relative.table, initial)


def test_t5_alibi_start_puts_every_head_on_alibis_line_at_each_buckets_first_distance():
    from helpers.lab.positional import bucket_start_distances
    from helpers.score_biases import alibi_bias, t5_relative_bucket

    starts = bucket_start_distances(32, 64)  # (32,)
    d = torch.arange(0, 300)
    buckets = t5_relative_bucket(-d, bidirectional=False, num_buckets=32, max_distance=64)  # (300,)
    for b in torch.unique(buckets):  # every bucket that is reached starts where the helper says
        assert d[buckets == b].min() == starts[b]
    model = TinyTransformer(_config("t5_bias", t5_init="alibi"))
    bias = model.positional.score_bias(16)  # (H, T, T)
    exact = torch.tril(torch.ones(16, 16, dtype=torch.bool))  # distances 0..15: exact buckets, equal to ALiBi there
    torch.testing.assert_close(bias[:, exact], alibi_bias(2, 16)[:, exact])
    plain = TinyTransformer(_config("t5_bias"))  # only the table differs from the normal start
    for (name, p), (_, q) in zip(model.named_parameters(), plain.named_parameters(), strict=True):
        assert torch.equal(p, q) or name == "positional.relative.table", name
    with pytest.raises(ValueError, match="t5_init must be one of"):
        LabConfig.build("t5_bias", t5_init="zeros")
    with pytest.raises(ValueError, match="t5_table_lr_scale"):
        LabConfig.build("t5_bias", t5_table_lr_scale=0.0)


def test_t5_table_learning_rate_scale_moves_only_the_table_less():
    runs = {}
    for scale in (1.0, 0.1):
        config = _config("t5_bias", t5_table_lr_scale=scale)
        model, _ = train_model(config, progress=False, **QUICK)
        start = TinyTransformer(config)
        runs[scale] = (model.positional.relative.table - start.positional.relative.table).abs().max().item()
        if scale == 1.0:
            baseline = model
        else:
            for (name, p), (_, q) in zip(model.named_parameters(), baseline.named_parameters(), strict=True):
                if name != "positional.relative.table":
                    assert p.shape == q.shape
    assert 0 < runs[0.1] < 0.2 * runs[1.0]  # Adam's step is about the learning rate: a tenth of it moves it less


def test_untrained_rows_of_learned_table_keep_their_initial_values():
    model, _ = train_model(_config("learned"), length=16, progress=False, steps=5, batch_size=4, warmup=2)
    table, reached = learned_table(model)
    init = initial_learned_table(model)
    assert reached == 16 and table.shape == (32, 32)
    np.testing.assert_array_equal(table[16:], init[16:])  # never reached: exactly the initial values
    assert np.abs(table[:16] - init[:16]).max() > 1e-3  # reached rows moved


def test_fine_tune_copies_and_sets_scaling():
    model, _ = train_model(_config("rope"), steps=2, batch_size=2, warmup=1, progress=False)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    scaling = {"rope_type": "linear", "factor": 2.0}
    tuned, log = fine_tune(model, scaling, length=32, steps=2, batch_size=2, warmup=1, progress=False)
    assert tuned.rope_scaling == scaling and tuned.train_len == 16 and log.length == 32
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())  # parent untouched
    with pytest.raises(ValueError, match="needs a RoPE model"):
        fine_tune(TinyTransformer(_config("nope")), scaling, steps=1, progress=False)


def test_progress_bar_one_line_and_silenced():
    stream = io.StringIO()
    bar = ProgressBar(10, stream=stream, interval=0.0, prefix="run 1/2 ", terminal=True)
    bar.update(5, 1.2346)
    bar.close()
    text = stream.getvalue()
    assert text.startswith("\rrun 1/2 [") and "step 5/10" in text and "loss 1.235" in text and "steps/s" in text
    log = io.StringIO()  # not a terminal (a log file): whole lines, one per interval and one at the end
    bar = ProgressBar(10, stream=log, log_interval=3600.0, prefix="run 1/2 ")
    for step in range(1, 11):
        bar.update(step, 1.0)
    bar.close()
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) == 1 and "step 10/10" in lines[0]
    quiet = io.StringIO()
    silent = ProgressBar(10, enabled=False, stream=quiet)
    silent.update(10, 1.0)
    silent.close()
    assert quiet.getvalue() == ""


def test_learning_rate_schedule():
    assert learning_rate(0, peak=1.0, warmup=10, total=100) == pytest.approx(0.1)
    assert learning_rate(10, peak=1.0, warmup=10, total=100) == pytest.approx(1.0)
    assert learning_rate(100, peak=1.0, warmup=10, total=100) == pytest.approx(0.1)


# --------------------------------------------------------------------------- checkpoints and the resumable grid
def test_checkpoint_round_trip(tmp_path):
    model, log = train_model(_config("learned"), steps=2, batch_size=2, warmup=1, progress=False)
    save_checkpoint(model, "learned", 3, log, directory=tmp_path, command="test")
    weights, meta = checkpoint_paths("learned", 3, tmp_path)
    assert weights.name == "learned.seed3.pt" and meta.name == "learned.seed3.json"
    state = torch.load(weights, weights_only=True)  # plain tensors only
    assert all(isinstance(v, torch.Tensor) for v in state.values())
    loaded = load_model("learned", 3, directory=tmp_path, cache=False)
    tokens, _ = lm_batch(2, 16, 0)
    torch.testing.assert_close(loaded(tokens), model(tokens), rtol=0, atol=0)
    saved = json.loads(meta.read_text())
    assert loaded.rows_reached == 16 and saved["command"] == "test" and saved["settings"]["steps"] == 2
    assert saved["stored_dtype"] == "float32"
    save_checkpoint(model, "rope+yarn_ft_lr1e-4", 3, log, directory=tmp_path)  # a sweep recipe: stored as float16
    half = torch.load(checkpoint_paths("rope+yarn_ft_lr1e-4", 3, tmp_path)[0], weights_only=True)
    assert {v.dtype for v in half.values()} == {torch.float16}
    for k, v in model.state_dict().items():
        torch.testing.assert_close(half[k].float(), v, rtol=2**-11, atol=2**-24)  # float16 rounding, no more
    with pytest.raises(ValueError, match="storage must be one of"):
        lab.checkpoints.stored_state(model.state_dict(), "int8")
    with pytest.raises(ValueError, match="model name must be one of"):
        load_model("gpt2")
    with pytest.raises(FileNotFoundError, match="not trained yet"):
        load_model("rope", 7, directory=tmp_path)


def test_grid_is_resumable_and_trains_parents_first(tmp_path):
    runs = pending_runs(["rope+yarn_ft"], [0, 1], directory=tmp_path)
    assert runs == [("rope", 0), ("rope", 1), ("rope+yarn_ft", 0), ("rope+yarn_ft", 1)]
    done = train_all(["nope"], [0], directory=tmp_path, progress=False, steps=2, log=lambda _: None)
    assert [(r["name"], r["seed"]) for r in done] == [("nope", 0)]
    assert pending_runs(["nope"], [0, 1], directory=tmp_path) == [("nope", 1)]  # finished runs are kept
    checkpoint_paths("nope", 1, tmp_path)[0].write_bytes(b"cut off")  # weights without JSON: redone
    assert pending_runs(["nope"], [0, 1], directory=tmp_path) == [("nope", 1)]
    assert pending_runs(["nope"], [0], directory=tmp_path, force=True) == [("nope", 0)]


# --------------------------------------------------------------------------- methods: one vocabulary
def test_method_names_labels_and_colours_come_from_helpers_methods():
    for name, m in METHODS.items():
        assert m.family in POSITIONAL_FAMILIES
        assert m.scaling is None or m.scaling in SCALING_METHODS
        assert m.name == name and lab_method(name) is m
        if m.scaling is None:
            assert name == m.family and m.color == POSITIONAL_FAMILIES[name].color
        else:
            assert name.startswith(f"rope+{m.scaling}") and SCALING_METHODS[m.scaling].label in m.label
        assert m.checkpoint in MODELS
    assert {m.checkpoint for m in METHODS.values()} == {n for n in MODELS if "/" not in n}
    assert {n for n in MODELS if "/" in n} == {f"small/{m.checkpoint}" for m in METHODS.values() if m.family == "rope"}
    ft = [m for m in METHODS.values() if m.finetune]
    assert all(m.color != SCALING_METHODS[m.scaling].color for m in ft)  # fine-tunes never share the zero-shot colour
    assert lab_method("rope+linear_ft").checkpoint == "rope+linear_ft" and lab_method("rope+ntk").checkpoint == "rope"
    with pytest.raises(ValueError, match="method must be one of"):
        lab_method("pi")


def test_the_lab_runs_every_registry_method_of_its_groups_zero_shot():
    """A registry method with a lab group is evaluated (in that group), and its dict runs at 4L."""
    plain = {m.scaling: name for name, m in METHODS.items() if m.zero_shot and m.variant is None}
    for name, spec in ROPE_SCALING.items():
        assert (name in plain) == (spec.lab is not None), name
        if spec.lab is not None:
            assert plain[name] in {"main": MAIN, "ablation": ABLATIONS}[spec.lab], name
    for method in METHODS:
        config = rope_scaling_for(method, 256, 64, {"rope_type": "linear", "factor": 4.0})
        inv_freq, a = rope_parameters_from_config(
            config, head_dim=16, base=500.0, max_position_embeddings=64, seq_len=256
        )
        assert inv_freq.shape == (8,) and a > 0, method


def test_zero_shot_scaling_is_plain_rope_at_training_length():
    model = load_model("rope", 0)
    for method in ("rope+linear", "rope+ntk", "rope+yarn", "rope+dynamic"):
        scaling = scaling_for(method, model.train_len, model)
        torch.testing.assert_close(model.positional.cos_sin(64, scaling), model.positional.cos_sin(64, None))
    assert rope_scaling_for("rope+linear", 256, 64) == {"rope_type": "linear", "factor": 4.0}
    assert rope_scaling_for("alibi", 256, 64) is None
    assert protocol("rope+dynamic", 256, "lm") == "KV cache" == protocol("rope+dynamic", 256, "passkey")
    assert protocol("rope+dynamic", 64, "lm") == "one pass" == protocol("rope+dynamic_onepass", 256, "lm")


# --------------------------------------------------------------------------- shipped checkpoints and results
def test_shipped_checkpoints_are_small_tensor_files_of_known_runs():
    rows = list_checkpoints()
    shipped = {(r["name"], r["seed"]) for r in rows}
    assert shipped <= {(m, s) for m in MODELS for s in SHIPPED_SEEDS}
    assert {m for m, _ in shipped} == set(MODELS)  # every model ships ...
    for m in {m for m, _ in shipped}:  # ... on every shipped seed (the others' records ship, not their files)
        assert {s for name, s in shipped if name == m} == set(SHIPPED_SEEDS), m
    assert set(SHIPPED_SEEDS) < set(SEEDS) and len(SEEDS) == 10
    total = sum(p.stat().st_size for p in CHECKPOINT_DIR.rglob("*") if p.is_file())
    assert total <= 25 * 1024 * 1024  # issue 12's budget
    assert not list(CHECKPOINT_DIR.glob("*.lock")) and not list(CHECKPOINT_DIR.glob("*.tmp"))
    for r in rows:
        assert r["command"] == f"python -m helpers.lab train {r['name']} --seeds {r['seed']}"
        weights = checkpoint_paths(r["name"], r["seed"])[0]
        sweep = "_lr" in r["name"]  # the learning-rate sweep's extra runs are stored as float16 (the budget)
        assert r["stored_dtype"] == lab.RECIPES[r["name"]].storage == ("float16" if sweep else "float32")
        stored = {v.dtype for v in torch.load(weights, weights_only=True).values()}
        assert stored == {torch.float16 if sweep else torch.float32}, r["name"]
        assert next(load_model(r["name"], r["seed"]).parameters()).dtype == torch.float32  # loaded back as float32


def test_shipped_learned_table_rows_past_training_are_untouched():
    for seed in sorted(r["seed"] for r in list_checkpoints() if r["name"] == "learned"):
        model = load_model("learned", seed)
        table, reached = learned_table(model)
        assert reached == model.train_len < len(table)
        np.testing.assert_array_equal(table[reached:], initial_learned_table(model)[reached:])
    sim = position_similarity(table[:reached])
    assert sim.shape == (reached, reached) and np.allclose(np.diag(sim), 1.0)


# A sample of stored records, recomputed from the shipped weights with the stored evaluation settings: every model
# on one shipped seed each (seeds rotate where more than one ships), at 1×L and 2×L. Tolerance: 1e-4 nats on a loss (the data are identical, so only
# float summation order can differ: ~1e-7 here) and one key (1/100) on a passkey accuracy (a near-tie argmax could
# flip on another CPU's BLAS).
SAMPLE = [
    ("nope", 1),
    ("sinusoidal", 1),
    ("learned", 0),
    ("alibi", 0),
    ("t5_bias", 0),
    ("rope+yarn", 2),
    ("rope+linear_ft", 1),
    ("rope+yarn_ft", 2),
    ("rope+dynamic", 1),
    ("rope+linear_keep_fast", 0),
    ("rope+yarn_ft_lr1e-4", 2),
]
#: A sample of the second scale's records, re-evaluated from the shipped checkpoints.
SAMPLE_SMALL = [("rope+yarn", 0), ("rope+dynamic", 2), ("rope+linear_ft", 1)]


@pytest.mark.parametrize(
    ("scale", "method", "seed"), [("tiny", *x) for x in SAMPLE] + [("small", *x) for x in SAMPLE_SMALL]
)
def test_stored_records_reproduce(scale, method, seed):
    results = at_scale(load_results(), scale)
    train_len = results["meta"]["train_len"]
    n_keys = len(results["meta"]["passkey_depths"]) * results["meta"]["passkey_keys_per_depth"]
    for length in (train_len, 2 * train_len):
        stored_lm = record(results, method, seed, "lm", length)
        stored_pk = record(results, method, seed, "passkey", length)
        lm_cell = evaluate_lm(method, length, seed=seed, scale=scale)
        pk = evaluate_passkey(method, length, seed=seed, scale=scale)
        assert lm_cell["status"] == stored_lm["status"] == "ok"
        assert lm_cell["loss"] == pytest.approx(stored_lm["metrics"]["loss"], abs=1e-4)
        np.testing.assert_allclose(lm_cell["loss_by_bucket"], stored_lm["metrics"]["loss_by_bucket"], atol=1e-4)
        assert pk["accuracy"] == pytest.approx(stored_pk["metrics"]["accuracy"], abs=1 / n_keys + 1e-9)
        prefix = "" if scale == "tiny" else f"{scale}/"
        assert stored_lm["config"]["checkpoint"] == f"{prefix}{lab_method(method).checkpoint}.seed{seed}"


def test_results_hold_one_record_per_method_seed_task_length():
    results = load_results()
    meta = results["meta"]
    from helpers.lab.methods import HYBRIDS, REMAPS

    # the shipped grid's methods, and the hybrid families (notebook 08), each on all ten seeds; the remappings (DCA)
    # on the shipped RoPE checkpoints' seeds
    assert meta["seeds"] == list(SEEDS) and len(SEEDS) >= 3
    assert set(results["methods"]) == {*METHODS, *HYBRIDS, *REMAPS}
    assert all(seeds_of(results, m) == list(SHIPPED_SEEDS) for m in REMAPS)
    for m in ("rope+default", "rope+yarn", "rope+linear_ft", "rope+yarn_ft", *HYBRIDS):
        assert seeds_of(results, m) == list(SEEDS), m
    keys = [(r["scale"], r["method"], r["seed"], r["task"], r["length"]) for r in results["records"]]
    small = at_scale(results, "small")
    assert not set(HYBRIDS) & set(small["methods"])  # the hybrids have recipes at tiny only
    n_runs = sum(len(seeds_of(results, m)) for m in (*METHODS, *HYBRIDS, *REMAPS))
    n_small = sum(len(seeds_of(small, m)) for m in small["methods"])
    assert len(keys) == len(set(keys)) == (n_runs + n_small) * 2 * len(meta["lengths"])
    assert small["meta"]["lengths"] == [256, 512, 1024, 2048] and small["meta"]["train_len"] == 256
    for m in ("rope+default", "rope+yarn", "rope+dynamic", "rope+linear_ft", "rope+yarn_ft"):
        assert seeds_of(small, m) == list(SEEDS), m
    for m in METHODS:  # every method on all ten seeds, but the learning-rate sweep's on the shipped seeds
        sweep = "_lr" in lab_method(m).checkpoint
        assert seeds_of(results, m) == list(SHIPPED_SEEDS if sweep else SEEDS), m
        if m in small["methods"]:
            assert seeds_of(small, m) == list(SHIPPED_SEEDS if sweep else SEEDS), m
    assert meta["lengths"] == [64, 128, 256, 512]
    for r in results["records"]:
        assert r["scale"] in ("tiny", "small")
        assert set(r["config"]) == {"checkpoint", "train_len", "rope_scaling", "protocol"}
        assert r["status"] == "ok" or (r["method"] == "learned" and r["length"] > 128)
    for cid, c in results["checkpoints"].items():
        assert c["training"]["seconds"] > 0 and cid.endswith(f".seed{c['seed']}")


def test_learned_is_reported_as_cannot_run_past_its_table():
    results = load_results()
    for task in ("lm", "passkey"):
        r = record(results, "learned", 0, task, 512)
        assert r["status"] == "cannot run" and "cannot extrapolate" in r["message"]
    assert math.isnan(summary(results, "learned", "loss", 256)["mean"])
    assert evaluate_lm("learned", 256)["status"] == "cannot run"


def test_tables_findings_and_readme_are_generated_from_results():
    results = load_results()
    text = RESULTS_MD.read_text()
    assert results_tables(results) in text
    assert findings_markdown(results) in text and papers_markdown(results) in text
    assert overview_markdown(results) == LAB_DOC.read_text()  # docs/lab-results.md, every number generated
    for path in PLOTS.values():
        assert path.exists() and path.stat().st_size > 10_000
    s = summary(results, "rope+yarn", "accuracy", 128)
    v = seed_values(results, "rope+yarn", "accuracy", 128)
    assert s["min"] == v.min() and s["max"] == v.max() and s["mean"] == pytest.approx(v.mean())


# --------------------------------------------------------------------------- command line
def test_cli_help_and_bad_arguments_exit_nonzero():
    done = subprocess.run([sys.executable, "-m", "helpers.lab", "--help"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "train" in done.stdout and "evaluate" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "helpers.lab", "train", "gpt2"], capture_output=True, text=True, timeout=600
    )
    assert bad.returncode == 2 and "invalid choice: 'gpt2'" in bad.stderr and "rope+yarn_ft" in bad.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "--lengths", "8"], "must be an integer from 16 to 4096 tokens"),
        (["evaluate", "--lengths", "ten"], "must be an integer from 16 to 4096 tokens"),
        (["evaluate", "--methods", "pi"], "invalid choice: 'pi'"),
        (["train", "none"], "invalid choice: 'none'"),
        (["train", "small/irope"], "invalid choice: 'small/irope'"),
        (["train", "hybrids"], "invalid choice: 'hybrids'"),
        (["evaluate", "--methods", "irope+yarn"], "invalid choice: 'irope+yarn'"),
        (["train", "rope", "--seeds", "-1"], "must be an integer >= 0, got -1"),
        (["train", "rope", "--steps", "-3"], "must be an integer >= 1, got -3"),
        (["fly"], "invalid choice: 'fly'"),
        ([], "required"),
    ],
)
def test_cli_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_train_and_evaluate_into_temporary_directories(tmp_path, capsys):
    argv = ["train", "rope", "--seeds", "0", "1", "--steps", "2", "--quiet", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    meta = json.loads((tmp_path / "rope.seed1.json").read_text())
    assert meta["training"]["steps"] == 2 and meta["command"].endswith(f"--seeds 1 --steps 2 --out {tmp_path}")
    assert cli.main(argv) == 0 and "trained 0 run(s)" in capsys.readouterr().out  # resumable: nothing left to do
    out = tmp_path / "results"
    argv = ["evaluate", "--methods", "rope+default", "rope+linear", "--lengths", "64", "128", "--seeds", "0", "1"]
    assert cli.main([*argv, "--checkpoints", str(tmp_path), "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert {r["method"] for r in results["records"]} == {"rope+default", "rope+linear"}
    assert len(results["records"]) == 2 * 2 * 2 * 2
    assert "| `rope+linear` (PI zero-shot) |" in capsys.readouterr().out
    assert results["meta"]["wall_seconds"]["jobs"] == 2  # the default: two processes share the (scale, seed) parts
    one = tmp_path / "one-process"
    assert cli.main([*argv, "--checkpoints", str(tmp_path), "--out", str(one), "--jobs", "1"]) == 0
    serial = json.loads((one / "results.json").read_text())
    assert serial["records"] == results["records"]  # the same records in the same order
    assert serial["methods"] == results["methods"] and serial["checkpoints"] == results["checkpoints"]
    assert cli.main([*argv, "--checkpoints", str(tmp_path), "--out", str(one), "--reuse"]) == 0
    reused = json.loads((one / "results.json").read_text())
    assert reused["records"] == serial["records"] and reused["meta"]["reused_runs"] == 4
    assert reused["meta"]["wall_seconds"] == serial["meta"]["wall_seconds"]  # the full evaluation's time is kept


def _evaluate_argv(out: Path, *extra: str) -> list[str]:
    return [
        "evaluate",
        "--methods",
        "rope+default",
        "--lengths",
        "64",
        "--scales",
        "tiny",
        "--jobs",
        "1",
        "--out",
        str(out),
        *extra,
    ]


def test_cli_evaluate_with_a_missing_checkpoint_names_it_and_the_directory_flag(tmp_path, capsys):
    code = cli.main([*_evaluate_argv(tmp_path / "out", "--seeds", "7"), "--checkpoints", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and str(tmp_path / "rope.seed7.json") in err and "--checkpoints DIR" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_cli_evaluate_of_some_seeds_merges_and_refuses_another_sample(tmp_path, capsys):
    out = tmp_path / "results"
    assert cli.main(_evaluate_argv(out, "--seeds", "0")) == 0
    first = json.loads((out / "results.json").read_text())
    assert cli.main(_evaluate_argv(out, "--seeds", "1")) == 0 and "merged" in capsys.readouterr().out
    merged = json.loads((out / "results.json").read_text())
    assert merged["methods"]["rope+default"]["seeds"] == [0, 1] and merged["meta"]["seeds"] == [0, 1]
    assert [r for r in merged["records"] if r["seed"] == 0] == first["records"]  # seed 0's records kept as they were
    assert [(r["seed"], r["task"]) for r in merged["records"]] == [(0, "lm"), (0, "passkey"), (1, "lm"), (1, "passkey")]
    # only new runs (seed 1): the evaluation work adds up (records.merge_results), it is not replaced by the new run's
    assert merged["meta"]["eval_seconds"] >= first["meta"]["eval_seconds"]
    assert cli.main(_evaluate_argv(out, "--seeds", "1", "--eval-protocol", "keys60-20")) == 1
    err = capsys.readouterr().err
    assert "--eval-protocol" in err and "keys60-20" in err and "--out DIR" in err and "Traceback" not in err
    assert json.loads((out / "results.json").read_text()) == merged  # refused: the file is untouched
    with pytest.raises(ValueError, match="lengths"):
        lab.records.merge_results(merged, merged | {"meta": merged["meta"] | {"lengths": [96]}})


def test_generated_documents_state_the_cost_not_the_machine_they_were_made_on():
    results = load_results()
    texts = {
        "RESULTS.md tables": results_tables(results),
        "docs/lab-results.md": overview_markdown(results),
        "checkpoints/README.md": (CHECKPOINT_DIR / "README.md").read_text(),
    }
    for where, text in texts.items():
        for phrase in ("shared", "loaded 2-core", "other jobs", "issue 12", "this machine", "the load"):
            assert phrase not in text, (where, phrase)
    assert "bit for bit only on the same kind of CPU" in texts["docs/lab-results.md"]
    assert "conclusions, not the weights" in texts["checkpoints/README.md"]


@pytest.mark.slow
def test_retrained_fine_tune_reproduces_the_shipped_records_within_the_evaluation_noise(tmp_path):
    """Retrain `rope+linear_ft` seed 0 (400 steps at 4L) from the shipped `rope` seed 0, evaluate it at L..8L and
    compare with the shipped records: the weights may differ (another CPU kind), the records may not move more
    than changing the evaluation sample moves that method's records (``eval_noise.json``, the keys100 protocol, tiny)."""
    from helpers.lab.train_grid import train_recipe

    noise = json.loads((lab.RESULTS_DIR / "eval_noise.json").read_text())["protocols"]["keys100"]["records"]["tiny"]
    noise = noise["by_method_max"]["rope+linear_ft"]  # {"loss": nats, "accuracy": fraction of keys}
    model, log = train_recipe("rope+linear_ft", 0, progress=False)
    save_checkpoint(model, "rope+linear_ft", 0, log, directory=tmp_path)
    shipped = load_results()
    for length in lab.LENGTHS:
        lm_cell = evaluate_lm("rope+linear_ft", length, directory=tmp_path)
        pk = evaluate_passkey("rope+linear_ft", length, directory=tmp_path)
        stored_lm = record(shipped, "rope+linear_ft", 0, "lm", length)["metrics"]
        stored_pk = record(shipped, "rope+linear_ft", 0, "passkey", length)["metrics"]
        assert abs(lm_cell["loss"] - stored_lm["loss"]) <= noise["loss"], length
        assert abs(pk["accuracy"] - stored_pk["accuracy"]) <= noise["accuracy"] + 1e-9, length


def test_findings_name_their_seeds():
    results = load_results()
    for f in findings(results):
        assert 0 <= f["holds"] <= f["n"] == len(f["seeds"]) >= 1
        if f["holds"] == f["n"] and f["n"] > 1:
            assert f"on all {f['n']} seeds" in f["text"]
        elif f["holds"] < f["n"]:
            assert "seed" in f["text"] and "on all" not in f["text"]


def test_notebook_api_is_exported():
    for name in ("load_model", "attention_weights", "load_results", "seed_values", "summary", "METHODS"):
        assert hasattr(lab, name)


# --------------------------------------------------------------------------- issue 12: protocols and ablations
def _generate_with_kv_cache(model: TinyTransformer, tokens: torch.Tensor, scaling: dict) -> torch.Tensor:
    """Reference: logits (T, V) from feeding tokens (T,) one at a time, each layer caching its rotated keys and its
    values; token t's q and k are rotated by t·θ(t + 1), the frequencies HF's dynamic update uses after t + 1
    tokens. Written out by hand (no call to the model's forward)."""
    cfg = model.config
    h_dim, n_heads = cfg.head_dim, cfg.n_heads
    caches = [([], []) for _ in model.blocks]
    out = []
    for t in range(tokens.shape[0]):
        inv_freq, a = rope_parameters_from_config(
            scaling, head_dim=h_dim, base=cfg.rope_base, seq_len=t + 1, max_position_embeddings=cfg.train_len
        )
        angle = t * torch.as_tensor(inv_freq, dtype=torch.float64)  # (d_h/2,)
        cos, sin = (angle.cos() * a).float()[None], (angle.sin() * a).float()[None]  # (1, d_h/2) each
        h = model.token_embedding(tokens[t : t + 1]) * model.embed_scale  # (1, D)
        for block, (keys, values) in zip(model.blocks, caches, strict=True):
            q, k, v = block.attn.qkv(block.ln1(h)).view(3, n_heads, 1, h_dim)  # 3 × (H, 1, d_h)
            keys.append(apply_rope(k, cos, sin, layout=cfg.rope_layout))  # (H, 1, d_h), never rotated again
            values.append(v)
            q = apply_rope(q, cos, sin, layout=cfg.rope_layout)  # (H, 1, d_h)
            scores = q @ torch.cat(keys, 1).transpose(1, 2) / math.sqrt(h_dim)  # (H, 1, t+1)
            y = torch.softmax(scores, -1) @ torch.cat(values, 1)  # (H, 1, d_h)
            h = h + block.attn.out(y.transpose(0, 1).reshape(1, n_heads * h_dim))  # (1, D)
            h = h + block.mlp(block.ln2(h))  # (1, D)
        out.append(model.lm_head(model.ln_f(h)))  # (1, V)
    return torch.cat(out)  # (T, V)


@pytest.mark.parametrize("head_dim", [None, 8])
def test_kv_cache_protocol_equals_token_by_token_generation_with_stale_keys(head_dim):
    cfg = LabConfig.build("rope", d_model=32, n_heads=2, head_dim=head_dim, d_ff=64, train_len=8, rope_base=50.0)
    model = TinyTransformer(cfg).eval()
    tokens = torch.randint(0, cfg.vocab_size, (1, 30), generator=torch.Generator().manual_seed(0))  # (1, T)
    scaling = {"rope_type": "dynamic", "factor": 1.0}
    with torch.no_grad():
        fast = model(tokens, rope_scaling=scaling, kv_cache=True)[0]  # (T, V)
        slow = _generate_with_kv_cache(model, tokens[0], scaling)  # (T, V)
        one_pass = model(tokens, rope_scaling=scaling)[0]  # (T, V): every key re-rotated with s = T/L
    torch.testing.assert_close(fast, slow, atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(fast[:8], model(tokens[:, :8], rope_scaling=None)[0])  # s = 1 while t < L
    assert (fast[8:] - one_pass[8:]).abs().max() > 1e-3  # stale keys differ from one-pass re-rotation


def test_kv_cache_flag_needs_a_length_dependent_method():
    model = TinyTransformer(LabConfig(family="rope", d_model=32, n_heads=2, train_len=8))
    with pytest.raises(ValueError, match=r"kv_cache=True only changes length-dependent methods"):
        model(torch.zeros(1, 12, dtype=torch.long), rope_scaling={"rope_type": "ntk", "factor": 2.0}, kv_cache=True)
    with pytest.raises(TypeError, match="kv_cache must be a bool"):
        model(torch.zeros(1, 12, dtype=torch.long), kv_cache=1)


def test_ablation_dicts_at_both_scales():
    assert rope_scaling_for("rope+yarn_no_temperature", 256, 64)["attention_factor"] == 1.0
    assert rope_scaling_for("rope+ntk_alpha2s", 256, 64) == {"rope_type": "ntk", "factor": 8.0}
    assert rope_scaling_for("rope+ntk_alpha2s", 64, 64) == {"rope_type": "ntk", "factor": 1.0}
    assert rope_scaling_for("rope+linear_keep_fast", 128, 64, keep_pairs=2)["keep_pairs"] == 2
    assert rope_scaling_for("rope+llama3", 128, 64)["original_max_position_embeddings"] == 64
    tiny = TinyTransformer(LabConfig(**lab.checkpoints.RECIPES["rope"].config.to_dict()))
    small = TinyTransformer(LabConfig(**lab.checkpoints.RECIPES["small/rope"].config.to_dict()))
    # tiny: only pair 0, and only through the code's clamp; small: pairs 0 and 1 make > 32 turns within L
    assert yarn_kept_pairs(tiny) == 1 and yarn_kept_pairs(small) == 2
    turns = small.train_len * np.asarray(rope_parameters_from_config(None, head_dim=64, base=1250.0)[0]) / (2 * math.pi)
    assert (
        (turns > 32).sum() == 2
        and (turns < 1).sum() >= 2
        and 2 * math.pi / rope_parameters_from_config(None, head_dim=64, base=1250.0)[0][-1] > 8 * small.train_len
    )


def test_float16_measurement_covers_exactly_the_float16_checkpoints():
    """scripts/measure_float16_effect.py retrains every float16-stored run (and only those) from a shipped parent."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "measure_float16_effect.py"
    spec = importlib.util.spec_from_file_location("measure_float16_effect", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    runs = script.sweep_runs(["tiny", "small"])
    stored_half = {(r["name"], r["seed"]) for r in list_checkpoints() if r["stored_dtype"] == "float16"}
    assert set(runs) == stored_half and len(runs) == 24  # 2 fine-tunes x 2 extra rates x 3 seeds x 2 scales
    for name, seed in runs:
        parent = lab.RECIPES[name].init_from
        assert parent is not None and lab.RECIPES[parent].storage == "float32" and is_trained(parent, seed)
    assert {scale_of(n) for n, _ in script.sweep_runs(["small"])} == {"small"}
    effect = lab.checkpoints.FLOAT16_EFFECT
    assert 0 <= effect["max_loss_change_nats"] < 1e-3 and effect["passkey_cells"] == 4 * len(runs)


# --------------------------------------------------------------------------- issue 25: hybrid families
HYBRID_FAMILIES = [f for f, cls in FAMILIES.items() if cls.group == "hybrid"]


def _rope_by_hand(x: torch.Tensor, base: float) -> torch.Tensor:
    """Half-split RoPE written out: pair i of position m turns by m·b^(−2i/d) (x (B, H, T, d))."""
    d, t = x.shape[-1], x.shape[-2]
    theta = torch.tensor([base ** (-2 * i / d) for i in range(d // 2)], dtype=torch.float64)  # (d/2,)
    angle = torch.arange(t, dtype=torch.float64)[:, None] * theta[None]  # (T, d/2)
    cos, sin = angle.cos().float(), angle.sin().float()
    a, b = x[..., : d // 2], x[..., d // 2 :]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


#: Each hybrid's two layers as the reference runs them: RoPE base (None = NoPE), temperature (α, F), window.
HAND_SCHEDULES = {
    "irope": [(500.0, None, None), (None, None, None)],
    "irope_temp": [(500.0, None, None), (None, (0.3, 4), None)],
    "local_global": [(500.0, None, 5), (5000.0, None, None)],
}


def _hybrid_by_hand(model: TinyTransformer, tokens: torch.Tensor, schedule) -> tuple[torch.Tensor, list]:
    """Logits (B, T, V) and per-layer weights (B, H, T, T) of ``model`` on ``tokens``, every positional step written
    out (no call to the model's forward or to its positional objects)."""
    cfg = model.config
    b, t = tokens.shape
    h = model.token_embedding(tokens) * model.embed_scale  # (B, T, D)
    weights = []
    for block, (base, temperature, window) in zip(model.blocks, schedule, strict=True):
        q, k, v = block.attn.qkv(block.ln1(h)).view(b, t, 3, cfg.n_heads, cfg.head_dim).permute(2, 0, 3, 1, 4)
        if base is not None:
            q, k = _rope_by_hand(q, base), _rope_by_hand(k, base)
        if temperature is not None:
            alpha, floor = temperature
            tau = torch.tensor([1 + alpha * math.log(1 + math.floor((m + 1) / floor)) for m in range(t)])  # (T,)
            q = q * tau[:, None]
        seen = torch.tensor([[n <= m and (window is None or m - n < window) for n in range(t)] for m in range(t)])
        scores = (q @ k.transpose(-2, -1) / math.sqrt(cfg.head_dim)).masked_fill(~seen, float("-inf"))
        w = torch.softmax(scores, dim=-1)  # (B, H, T, T)
        weights.append(w)
        h = h + block.attn.out((w @ v).transpose(1, 2).reshape(b, t, -1))
        h = h + block.mlp(block.ln2(h))
    return model.lm_head(model.ln_f(h)), weights


@pytest.mark.parametrize(
    "family", list(HAND_SCHEDULES)
)  # the RoPE/NoPE hybrids (conv_nope: tests/test_order_carriers.py)
def test_hybrid_forward_equals_a_hand_written_reference(family):
    """The hybrid's forward (fast path, written-out path, ``logits_at``) equals the reference above: NoPE layers
    rotate nothing, the temperature scales only the NoPE layer's queries, local layers see only their window."""
    model = _model(family, rope_base=500.0)
    assert [x.rope is not None for x in model.positional.layers] == [s[0] is not None for s in HAND_SCHEDULES[family]]
    tokens, _ = lm_batch(2, 40, 0)  # T = 40 > L = 16: past the window and several temperature steps
    with torch.no_grad():
        expected, expected_weights = _hybrid_by_hand(model, tokens, HAND_SCHEDULES[family])
        fast = model(tokens)
        full, weights = model(tokens, return_attention=True)
        at = torch.tensor([[3, 39], [20, 0]])
        part = model(tokens, logits_at=at)
    torch.testing.assert_close(fast, expected, rtol=0, atol=1e-5)
    torch.testing.assert_close(full, expected, rtol=0, atol=1e-5)
    torch.testing.assert_close(
        part, expected.gather(1, at[..., None].expand(-1, -1, expected.shape[-1])), atol=1e-5, rtol=0
    )
    for w, ref in zip(weights, expected_weights, strict=True):
        torch.testing.assert_close(w, ref, rtol=0, atol=1e-6)


def test_irope_nope_layers_rotate_nothing_and_only_their_queries_get_the_temperature():
    q, k = torch.randn(2, 2, 24, 16), torch.randn(2, 2, 24, 16)  # (B, H, T, d_h)
    plain, temp = _model("irope").positional, _model("irope_temp").positional
    rope = _model("rope").positional  # the same base (TINY's default) and layout
    for pos in (plain, temp):
        torch.testing.assert_close(pos.layer(0).rotate(q, k), rope.rotate(q, k), rtol=0, atol=0)  # a RoPE layer
        assert pos.layer(0).score_bias(24) is None and pos.layer(1).score_bias(24) is None  # full attention
    q1, k1 = plain.layer(1).rotate(q, k)
    assert torch.equal(q1, q) and torch.equal(k1, k)  # NoPE: nothing at all
    q2, k2 = temp.layer(1).rotate(q, k)
    tau = torch.tensor([1 + 0.3 * math.log(1 + (m + 1) // 4) for m in range(24)])  # (T,)
    assert torch.equal(k2, k) and tau[2] == 1 and tau[3] > 1
    torch.testing.assert_close(q2, q * tau[:, None], rtol=1e-7, atol=0)


def test_irope_temperature_layer_equals_hf_llama4_nope_layer():
    """The NoPE layer of ``irope_temp`` (attention block 1 of the lab model, its weights copied into HF 5.24's
    Llama4TextAttention with the same attn_scale and floor_scale) gives HF's output."""
    from transformers import Llama4TextConfig
    from transformers.models.llama4.modeling_llama4 import Llama4TextAttention

    from helpers.score_biases import causal_additive_mask

    model = _model("irope_temp")
    d, heads, dh = TINY["d_model"], TINY["n_heads"], model.config.head_dim
    cfg = Llama4TextConfig(
        hidden_size=d,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        head_dim=dh,
        num_hidden_layers=2,
        no_rope_layers=[1, 0],
        intermediate_size=64,
        intermediate_size_mlp=64,
        attention_bias=False,
        attn_temperature_tuning=True,
        attn_scale=model.config.attn_scale,
        floor_scale=model.config.floor_scale,
        attn_implementation="eager",
    )
    hf = Llama4TextAttention(cfg, 1).eval()
    assert not hf.use_rope
    ours = model.blocks[1].attn
    with torch.no_grad():
        w = ours.qkv.weight.view(3, d, d)  # the fused (3D, D) projection: q, k, v rows
        for proj, i in ((hf.q_proj, 0), (hf.k_proj, 1), (hf.v_proj, 2)):
            proj.weight.copy_(w[i])
        hf.o_proj.weight.copy_(ours.out.weight)
        t = 30
        x = torch.randn(2, t, d, generator=torch.Generator().manual_seed(1))  # (B, T, D)
        mask = causal_additive_mask(t)[None, None]  # (1, 1, T, T): HF's eager attention adds it
        expected, _ = hf(x, torch.ones(1, t, dh // 2, dtype=torch.complex64), mask)  # (B, T, D)
        got, _ = ours(x, model.positional.layer(1), {}, None)  # (B, T, D)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-5)


def test_local_layers_give_exactly_zero_weight_beyond_the_window():
    model = _model("local_global")
    tokens, _ = lm_batch(3, 48, 2)
    with torch.no_grad():
        _, (local, global_) = model(tokens, return_attention=True)  # (B, H, T, T) each
    m, n = torch.meshgrid(torch.arange(48), torch.arange(48), indexing="ij")
    beyond, inside = m - n >= 5, (m - n >= 0) & (m - n < 5)
    assert bool((local[:, :, beyond] == 0).all()) and bool((local[:, :, inside] > 0).all())
    assert bool((global_[:, :, m >= n] > 0).all())  # the full layer sees every earlier key
    assert model.positional.layer(1).rope.base == 5000.0 and model.positional.layer(0).rope.base == 10000.0
    torch.testing.assert_close(model.layer_attention(tokens, 0), local, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("family", "params", "error", "match"),
    [
        ("irope", {"n_layers": 1}, ValueError, "no_rope_layer_interval = 2 leaves no NoPE layer among n_layers = 1"),
        ("irope", {"no_rope_layer_interval": 1}, ValueError, "no_rope_layer_interval must be an integer >= 2, got 1"),
        ("irope_temp", {"floor_scale": 0}, ValueError, "floor_scale must be an integer >= 1, got 0"),
        ("irope_temp", {"attn_scale": -0.1}, ValueError, "attn_scale"),
        ("local_global", {"sliding_window": 0}, ValueError, "sliding_window must be an integer >= 1, got 0"),
        ("local_global", {"sliding_window": 2.5}, TypeError, "sliding_window must be an integer, got 2.5"),
        (
            "local_global",
            {"sliding_window_pattern": 3},
            ValueError,
            "leaves no full-attention layer among n_layers = 2",
        ),
        ("local_global", {"global_rope_base": 0.5}, ValueError, "global_rope_base"),
    ],
)
def test_hybrid_configs_reject_bad_input(family, params, error, match):
    with pytest.raises(error, match=match):
        TinyTransformer(_config(family, **params))


def test_hybrid_models_reject_rope_options_and_layer_objects_reject_misuse():
    from helpers.lab.hybrids import HybridLayer

    model = _model("irope")
    with pytest.raises(ValueError, match="only applies to a RoPE model; this model's family is 'irope'"):
        model(torch.zeros(1, 4, dtype=torch.int64), rope_scaling={"rope_type": "linear", "factor": 2.0})
    with pytest.raises(IndexError, match="layer must be < n_layers = 2, got 2"):
        model.positional.layer(2)
    rope = _model("rope").positional
    with pytest.raises(ValueError, match="temperature applies to a NoPE layer only"):
        HybridLayer(n_heads=2, rope=rope, temperature=(0.1, 4))
    with pytest.raises(TypeError, match="rope must be a RopeRotation or None"):
        HybridLayer(n_heads=2, rope="rope")
    with pytest.raises(ValueError, match=r"rope_base only applies to families 'rope', 'irope', 'irope_temp'"):
        LabConfig.build("alibi", rope_base=10.0)


def test_hybrid_recipes_are_the_tiny_recipe_with_their_schedule_and_are_not_shipped():
    """Matched comparison: same steps, data, optimiser, architecture and (where it applies) RoPE base as `rope`;
    the hybrids are neither in the shipped grid (MODELS, METHODS) nor trained by default."""
    from helpers.lab.checkpoints import HYBRID_MODELS, RECIPES, SCALES, L
    from helpers.lab.methods import ALL_METHODS, HYBRID_METHODS

    assert HYBRID_MODELS == tuple(HYBRID_FAMILIES) == ("conv_nope", "irope", "irope_temp", "local_global")
    rope = RECIPES["rope"]
    for name in HYBRID_MODELS:
        spec = RECIPES[name]
        assert spec.settings == rope.settings and spec.init_from is None and spec.storage == "float32"
        assert dataclasses.replace(spec.config, family="rope", positional={}) == dataclasses.replace(
            rope.config, positional={}
        )
        # conv_nope has no RoPE; its q and k filters add 2 layers × 2 × K·H·d_h = 1,024 parameters (K = 4)
        extra = 2 * 2 * 4 * rope.config.n_heads * rope.config.head_dim if name == "conv_nope" else 0
        assert name == "conv_nope" or spec.config.rope_base == rope.config.rope_base == 500.0
        assert TinyTransformer(spec.config).n_parameters == TinyTransformer(rope.config).n_parameters + extra
        assert name not in MODELS and name not in METHODS and name in ALL_METHODS
        m = HYBRID_METHODS[name]
        assert m.checkpoint == name and m.group == "hybrid" and m.color == POSITIONAL_FAMILIES[name].color
        assert m.label == POSITIONAL_FAMILIES[name].label
    schedules = {n: TinyTransformer(RECIPES[n].config).positional.schedule for n in HYBRID_MODELS[1:]}
    assert schedules == {
        "irope": ["RoPE b=500, full causal attention", "NoPE, full causal attention"],
        "irope_temp": [
            "RoPE b=500, full causal attention",
            "NoPE, query temperature (attn_scale 0.1, floor_scale 2), full causal attention",
        ],
        "local_global": ["RoPE b=500, window 16", "RoPE b=50000, full causal attention"],
    }
    assert RECIPES["local_global"].config.sliding_window < L and RECIPES["irope_temp"].config.floor_scale == L // 32
    for name, layers in schedules.items():  # the description states the schedule the model builds
        assert "; ".join(f"layer {i}: {kind}" for i, kind in enumerate(layers)) in RECIPES[name].description
    assert SCALES["small"].hybrids == () and not any(n.startswith("small/") for n in HYBRID_MODELS)
    assert not any(name in HYBRID_MODELS for name, _ in pending_runs(MODELS, SEEDS, directory=Path("/nonexistent")))


def test_cli_trains_and_evaluates_the_hybrids_only_when_asked(tmp_path, capsys):
    argv = ["train", "hybrid", "--seeds", "0", "--steps", "2", "--quiet", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [f"{n}.seed0.json" for n in sorted(HYBRID_FAMILIES)]
    capsys.readouterr()
    out = tmp_path / "results"
    argv = ["evaluate", "--methods", "hybrid", "--lengths", "64", "128", "--seeds", "0", "--jobs", "1"]
    assert cli.main([*argv, "--scales", "tiny", "--checkpoints", str(tmp_path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    results = json.loads((out / "results.json").read_text())
    assert [m for m in results["methods"]] == HYBRID_FAMILIES
    assert len(results["records"]) == len(HYBRID_FAMILIES) * 2 * 2
    assert all(r["status"] == "ok" for r in results["records"])
    for family in HYBRID_FAMILIES:
        assert f"| `{family}` ({POSITIONAL_FAMILIES[family].label}) |" in printed
    assert findings(results) == []  # the claims are defined on L..8L only: nothing judged, nothing fails
    # the default evaluation of the same directory asks for no hybrid: it finds nothing of the shipped grid there
    assert cli.main(["evaluate", "--scales", "tiny", "--checkpoints", str(tmp_path), "--no-write"]) == 1
    assert "no trained checkpoint" in capsys.readouterr().err
    missing = ["evaluate", "--methods", "irope", "--seeds", "3", "--scales", "tiny", "--checkpoints", str(tmp_path)]
    assert cli.main([*missing, "--no-write"]) == 1
    err = capsys.readouterr().err
    assert str(tmp_path / "irope.seed3.json") in err and "Traceback" not in err


def test_hybrid_findings_are_judged_where_their_records_exist_and_absent_otherwise():
    """The shipped results without the hybrids' records: no hybrid finding. Records named after the hybrids (copies
    of `nope`'s and `alibi`'s, so the numbers are known) make each hybrid finding appear, judged on every seed."""
    import copy

    from helpers.lab.methods import HYBRIDS
    from helpers.lab.report import without_methods

    shipped = without_methods(load_results(), HYBRIDS)
    keys = {f["key"] for f in findings(shipped)}
    hybrid_keys = {*(f"{h}_family" for h in HYBRIDS), *(f"{h}_passkey_past_L" for h in HYBRIDS), "irope_temperature"}
    assert not keys & hybrid_keys
    results = copy.deepcopy(shipped)
    source = {"conv_nope": "alibi", "irope": "nope", "irope_temp": "alibi", "local_global": "nope"}
    for hybrid, other in source.items():
        results["methods"][hybrid] = {**results["methods"][other], "name": hybrid, "family": hybrid}
        results["records"] += [
            {**r, "method": hybrid, "family": hybrid}
            for r in shipped["records"]
            if r["method"] == other and r.get("scale", "tiny") == "tiny"
        ]
    found = {f["key"]: f for f in findings(results)}
    assert hybrid_keys <= set(found)
    for key in hybrid_keys:
        assert found[key]["n"] == len(SEEDS) and found[key]["seeds"] == list(SEEDS)
    expected = {f["key"]: f["holds"] for f in findings(shipped)}
    assert found["irope_family"]["holds"] == expected["nope_family"]  # the same records: the same verdict
    assert found["irope_temp_family"]["holds"] == expected["alibi_family"]
    loss8 = {m: seed_values(results, m, "loss", 512) for m in ("irope", "irope_temp")}
    assert found["irope_temperature"]["holds"] == int((loss8["irope_temp"] < loss8["irope"]).sum())


def test_without_methods_drops_the_hybrids_and_their_findings():
    from helpers.lab import report
    from helpers.lab.methods import HYBRIDS

    results = report.load_results()
    tiny = report.at_scale(results, "tiny")
    assert set(HYBRIDS) <= set(tiny["methods"])  # the shipped records hold the hybrids' ten seeds
    grid = report.without_methods(tiny, HYBRIDS)
    assert not set(HYBRIDS) & set(grid["methods"]) and not {r["method"] for r in grid["records"]} & set(HYBRIDS)
    assert len(grid["records"]) == len(tiny["records"]) - sum(r["method"] in HYBRIDS for r in tiny["records"])
    keys = {f["key"] for f in report.findings(grid)}
    assert not {k for k in keys if k.startswith(("irope", "local_global"))}
    assert {"irope_family", "local_global_passkey_past_L", "irope_temperature"} <= {
        f["key"] for f in report.findings(tiny)
    }
    with pytest.raises(ValueError, match=r"names must be methods of these results .*got \['nope\+x'\]"):
        report.without_methods(tiny, ["nope+x"])


def test_attention_weights_in_place_and_the_kept_causal_mask():
    """The weights ``return_attention`` gives are softmax(q·kᵀ/√d_h + mask) to the last bit (scaled and masked in
    place), and the kept causal mask equals a fresh one and is a normal tensor even when first built during an
    evaluation (inference mode), so training at that length can use it."""
    from helpers.lab.model import _causal_mask
    from helpers.score_biases import causal_additive_mask

    _causal_mask.cache_clear()
    with torch.inference_mode():
        kept = _causal_mask(24)
    assert torch.equal(kept, causal_additive_mask(24)) and not kept.is_inference()
    model = _model("rope")
    tokens, _ = lm_batch(2, 24, 5)
    with torch.no_grad():
        got = model.layer_attention(tokens, 0)  # (B, H, T, T)
        h = model.positional.add_to_embeddings(model.token_embedding(tokens) * model.embed_scale)  # (B, T, D)
        attn, b, t = model.blocks[0].attn, tokens.shape[0], tokens.shape[1]
        q, k, _ = attn.qkv(model.blocks[0].ln1(h)).view(b, t, 3, attn.n_heads, attn.head_dim).permute(2, 0, 3, 1, 4)
        q, k = model.positional.layer(0).rotate(q, k, **model.positional.run_options())
        expected = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(attn.head_dim) + causal_additive_mask(t), dim=-1)
    assert torch.equal(got, expected)
