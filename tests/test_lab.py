"""Tests of the tiny-model lab (helpers.lab): data, model, training, checkpoints, evaluation, command line.

The headline test re-evaluates a subset of the stored table from the shipped checkpoints (tolerance stated there),
so results/results.json and RESULTS.md cannot drift from the code. The whole file runs in well under a minute.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from helpers.lab import (
    CHECKPOINT_DIR,
    CHECKPOINT_NAMES,
    METHODS,
    PLOTS,
    RESULTS_MD,
    LabConfig,
    TinyTransformer,
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
from helpers.lab.data import BOS, KEY, QUERY, VOCAB_SIZE, training_batch
from helpers.lab.evaluate import dynamic_chunk_ends, results_table, rope_scaling_for
from helpers.lab.train import ProgressBar, learning_rate
from helpers.rope import permute_qk_rows
from helpers.scaling import yarn_get_mscale

TINY = {"d_model": 32, "n_layers": 1, "n_heads": 2, "d_ff": 64, "train_len": 16, "max_seq_len": 32}


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


# --------------------------------------------------------------------------- model
@pytest.mark.parametrize("positional", ["none", "sinusoidal", "learned", "rope"])
def test_forward_shapes(positional):
    model = TinyTransformer(LabConfig(positional=positional, **TINY)).eval()
    tokens, _ = lm_batch(2, 16, 0)
    assert model(tokens).shape == (2, 16, VOCAB_SIZE)


def test_learned_table_cannot_run_past_its_rows():
    model = TinyTransformer(LabConfig(positional="learned", **TINY))
    tokens, _ = lm_batch(1, 33, 0)
    with pytest.raises(IndexError, match="cannot extrapolate"):
        model(tokens)


def test_config_and_forward_reject_bad_arguments():
    with pytest.raises(ValueError, match="positional must be one of"):
        LabConfig(positional="alibi")
    with pytest.raises(ValueError, match="n_heads"):
        LabConfig(d_model=64, n_heads=3)
    with pytest.raises(ValueError, match="rope_type"):
        LabConfig(rope_scaling={"rope_type": "magic"})
    model = TinyTransformer(LabConfig(positional="none", **TINY))
    with pytest.raises(ValueError, match="only applies to a RoPE model"):
        model(torch.zeros(1, 4, dtype=torch.int64), rope_scaling={"rope_type": "linear", "factor": 2.0})
    with pytest.raises(TypeError, match="tokens must be an integer tensor"):
        model(torch.zeros(1, 4))


def test_rope_layouts_agree_after_permuting_q_k_rows():
    """A half_split model and an interleaved model whose W_q, W_k rows are permuted compute the same logits."""
    half = TinyTransformer(LabConfig(positional="rope", rope_layout="half_split", **TINY)).eval()
    inter = TinyTransformer(LabConfig(positional="rope", rope_layout="interleaved", **TINY)).eval()
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


def test_rope_scaling_reaches_cos_sin():
    model = TinyTransformer(LabConfig(positional="rope", **TINY))
    cos, _ = model.rope_cos_sin(8, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16})
    assert cos[0, 0].item() == pytest.approx(yarn_get_mscale(4.0))  # YaRN's attention factor multiplies cos, sin
    # dynamic NTK with factor 1 at length T is static NTK with s = T/L (the evaluation relies on it for passkey)
    dyn = model.rope_cos_sin(64, {"rope_type": "dynamic", "factor": 1.0})
    ntk = model.rope_cos_sin(64, {"rope_type": "ntk", "factor": 64 / 16})
    torch.testing.assert_close(dyn, ntk)
    plain = model.rope_cos_sin(16, None)
    torch.testing.assert_close(model.rope_cos_sin(16, {"rope_type": "dynamic", "factor": 1.0}), plain)


# --------------------------------------------------------------------------- training and checkpoints
def test_training_smoke_loss_falls():
    model, log = train_model(
        LabConfig(positional="rope", **TINY), steps=40, batch_size=8, lr=1e-2, warmup=5, progress=False
    )
    assert log.steps == 40 and len(log.losses) == 40
    assert np.mean(log.losses[-5:]) < np.mean(log.losses[:5]) - 0.3
    assert not model.training


def test_training_is_reproducible_from_the_seed():
    first, _ = train_model(LabConfig(positional="rope", **TINY), steps=4, batch_size=4, warmup=2, progress=False)
    second, _ = train_model(LabConfig(positional="rope", **TINY), steps=4, batch_size=4, warmup=2, progress=False)
    for key, value in first.state_dict().items():
        assert torch.equal(value, second.state_dict()[key]), key


def test_untrained_rows_of_learned_table_keep_their_initial_values():
    model, _ = train_model(
        LabConfig(positional="learned", **TINY), steps=5, batch_size=4, length=16, warmup=2, progress=False
    )
    table, reached = learned_table(model)
    init = initial_learned_table(model)
    assert reached == 16 and table.shape == (32, 32)
    np.testing.assert_array_equal(table[16:], init[16:])  # never reached: exactly the initial values
    assert np.abs(table[:16] - init[:16]).max() > 1e-3  # reached rows moved


def test_fine_tune_copies_and_sets_scaling():
    model, _ = train_model(LabConfig(positional="rope", **TINY), steps=2, batch_size=2, warmup=1, progress=False)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    scaling = {"rope_type": "linear", "factor": 2.0}
    tuned, log = fine_tune(model, scaling, 32, steps=2, batch_size=2, warmup=1, progress=False)
    assert tuned.rope_scaling == scaling and tuned.train_len == 16 and log.length == 32
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())  # parent untouched
    with pytest.raises(ValueError, match="needs a RoPE model"):
        fine_tune(TinyTransformer(LabConfig(positional="none", **TINY)), scaling, 32, steps=1, progress=False)


def test_checkpoint_round_trip(tmp_path):
    model, log = train_model(LabConfig(positional="learned", **TINY), steps=2, batch_size=2, warmup=1, progress=False)
    save_checkpoint(model, "learned", log, directory=tmp_path, command="test")
    state = torch.load(tmp_path / "learned.pt", weights_only=True)  # plain tensors only
    assert all(isinstance(v, torch.Tensor) for v in state.values())
    loaded = load_model("learned", directory=tmp_path)
    tokens, _ = lm_batch(2, 16, 0)
    torch.testing.assert_close(loaded(tokens), model(tokens), rtol=0, atol=0)
    assert loaded.rows_reached == 16 and json.loads((tmp_path / "learned.json").read_text())["command"] == "test"
    with pytest.raises(ValueError, match="checkpoint name must be one of"):
        load_model("gpt2")


def test_progress_bar_one_line_and_silenced():
    stream = io.StringIO()
    bar = ProgressBar(10, stream=stream, interval=0.0)
    bar.update(5, 1.2346)
    bar.close()
    text = stream.getvalue()
    assert text.startswith("\r[") and "step 5/10" in text and "loss 1.235" in text and "steps/s" in text
    quiet = io.StringIO()
    silent = ProgressBar(10, enabled=False, stream=quiet)
    silent.update(10, 1.0)
    silent.close()
    assert quiet.getvalue() == ""


def test_learning_rate_schedule():
    assert learning_rate(0, peak=1.0, warmup=10, total=100) == pytest.approx(0.1)
    assert learning_rate(10, peak=1.0, warmup=10, total=100) == pytest.approx(1.0)
    assert learning_rate(100, peak=1.0, warmup=10, total=100) == pytest.approx(0.1)


# --------------------------------------------------------------------------- shipped checkpoints and results
def test_shipped_checkpoints_are_small_and_documented():
    rows = {row["name"]: row for row in list_checkpoints()}
    assert set(rows) == set(CHECKPOINT_NAMES)
    total = sum(p.stat().st_size for p in CHECKPOINT_DIR.iterdir() if p.is_file())
    assert total <= 5 * 1024 * 1024
    for name, row in rows.items():
        assert row["command"] == f"python -m helpers.lab train {name}"
        assert row["seconds"] <= 300  # each checkpoint trained in at most 5 minutes (as measured)
    assert sum(row["seconds"] for row in rows.values()) <= 1800


def test_shipped_learned_table_rows_past_training_are_untouched():
    model = load_model("learned")
    table, reached = learned_table(model)
    assert reached == model.train_len < len(table)
    np.testing.assert_array_equal(table[reached:], initial_learned_table(model)[reached:])
    sim = position_similarity(table[:reached])
    assert sim.shape == (reached, reached) and np.allclose(np.diag(sim), 1.0)


# Headline numbers: for every checkpoint, one method's loss and passkey accuracy at 1×L and 2×L, recomputed from
# the shipped weights with the stored evaluation settings. Tolerance: 2e-3 nats on a loss (the data are identical,
# so only float summation order can differ: ~1e-6 on this machine) and one key (1/40) on a passkey accuracy (a
# near-tie argmax could flip on another CPU's BLAS).
HEADLINE = {
    "none": "none",
    "sinusoidal": "sinusoidal",
    "learned": "learned",
    "rope": "yarn",
    "rope_pi_ft": "pi_ft",
    "rope_yarn_ft": "yarn_ft",
}


@pytest.mark.parametrize("checkpoint", CHECKPOINT_NAMES)
def test_headline_numbers_reproduce(checkpoint):
    method = HEADLINE[checkpoint]
    results = load_results()
    train_len = results["meta"]["train_len"]
    n_keys = len(results["meta"]["passkey_depths"]) * results["meta"]["passkey_keys_per_depth"]
    for length in (train_len, 2 * train_len):
        stored_lm = results["lm"][method][str(length)]
        stored_pk = results["passkey"][method][str(length)]
        lm = evaluate_lm(method, length)
        pk = evaluate_passkey(method, length)
        assert lm["status"] == stored_lm["status"] == "ok"
        assert lm["loss"] == pytest.approx(stored_lm["loss"], abs=2e-3)
        np.testing.assert_allclose(lm["loss_by_bucket"], stored_lm["loss_by_bucket"], atol=2e-3)
        assert pk["accuracy"] == pytest.approx(stored_pk["accuracy"], abs=1 / n_keys + 1e-9)


def test_learned_is_reported_as_cannot_run_past_its_table():
    results = load_results()
    longest = str(max(results["meta"]["lengths"]))
    for table in ("lm", "passkey"):
        cell = results[table]["learned"][longest]
        assert cell["status"] == "cannot run" and "cannot extrapolate" in cell["message"]
    assert evaluate_lm("learned", 256)["status"] == "cannot run"


def test_stored_results_cover_every_method_and_length_and_table_is_generated():
    results = load_results()
    assert set(results["methods"]) == set(METHODS)
    for table in ("lm", "passkey"):
        for method in METHODS:
            assert set(results[table][method]) == {str(t) for t in results["meta"]["lengths"]}
    assert results["meta"]["eval_seconds"] <= 20
    assert results_table(results) in RESULTS_MD.read_text()  # the write-up's table is the generated one
    for path in PLOTS.values():
        assert path.exists() and path.stat().st_size > 10_000


def test_zero_shot_scaling_is_plain_rope_at_training_length():
    model = load_model("rope")
    for method in ("pi", "ntk", "yarn"):
        scaling = rope_scaling_for(method, model.train_len, model)
        torch.testing.assert_close(model.rope_cos_sin(64, scaling), model.rope_cos_sin(64, None))
    assert dynamic_chunk_ends(512, 64) == [64, 128, 256, 512]
    assert dynamic_chunk_ends(64, 64) == [64]


# --------------------------------------------------------------------------- command line
def test_cli_help_and_bad_arguments_exit_nonzero():
    done = subprocess.run([sys.executable, "-m", "helpers.lab", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "train" in done.stdout and "evaluate" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "helpers.lab", "train", "gpt2"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "invalid choice: 'gpt2'" in bad.stderr and "rope_pi_ft" in bad.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "--lengths", "8"], "must be an integer >= 16 (tokens), got 8"),
        (["evaluate", "--lengths", "ten"], "must be an integer >= 16 (tokens), got 'ten'"),
        (["evaluate", "--methods", "alibi"], "invalid choice: 'alibi'"),
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
    assert cli.main(["train", "rope", "--steps", "2", "--quiet", "--out", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "rope.json").read_text())
    assert meta["training"]["steps"] == 2 and meta["command"].endswith(f"--steps 2 --out {tmp_path}")
    out = tmp_path / "results"
    argv = ["evaluate", "--methods", "rope", "pi", "--lengths", "64", "128", "--checkpoints", str(tmp_path)]
    assert cli.main([*argv, "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert set(results["lm"]) == {"rope", "pi"} and set(results["lm"]["pi"]) == {"64", "128"}
    assert "| pi (PI zero-shot) |" in capsys.readouterr().out
