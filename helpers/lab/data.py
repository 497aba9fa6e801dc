"""Deterministic synthetic data for the lab: an induction-copy language-modelling task and passkey retrieval.

Everything is generated on the fly from a seed (``numpy.random.default_rng(seed)``), so a batch is a pure function
of its arguments: training, evaluation and the tests see exactly the same tokens on every machine. No downloads.

Vocabulary (``VOCAB_SIZE`` = 128 token ids)::

    0..9      digits (passkeys)
    10        BOS      start of a document
    11        KEY      "the pass key is"
    12        QUERY    "what is the pass key?"
    13..20    FILLER   one fixed 8-token sentence, repeated ("the grass is green. the sky is blue.")
    21..127   WORDS    107 content tokens for the language-modelling task

(a) Language modelling with repeated spans (:func:`lm_document`, :func:`lm_batch`): after BOS, a document is a
chain of segments of 8..16 words. With probability ``P_COPY`` = 0.8 a segment copies the span that starts at a
uniformly random earlier position, otherwise it is fresh random words. A fresh word costs ln 107 ≈ 4.67 nats; a
copied word after the first can be predicted by an induction head that finds the source. Measured on 64 documents:
at T = 64 half of the tokens continue a bigram seen earlier in the document, at T = 512 71 %; at T = 512 the
nearest earlier occurrence is more than L = 64 tokens back for 24 % of them (copies are copied again, so the
nearest source is often closer than the one drawn). So *long context measurably lowers the loss*: a model cut into
L-token windows loses every far copy (the "window" reference of :mod:`helpers.lab.evaluate`), and a model that
cannot attend further than L stops improving there. The loss against position is the papers' perplexity-vs-context
curve in miniature.

(b) Passkey retrieval in the style of the PI and YaRN papers (:func:`passkey_batch`)::

    BOS  FILLER…  KEY d1 … d5  FILLER…  QUERY KEY d1 … d5

(as in the papers' prompt "…The pass key is 71432. Remember it. … What is the pass key? The pass key is", the
answer follows a repeat of the key's marker).

The key (``N_DIGITS`` = 5 random digits) sits at a depth in [0, 1] of the filler (0 = right after BOS, 1 = right
before the query). The model must produce the key after QUERY; a key counts as retrieved when the greedy prediction
of all five digits is right (teacher-forced argmax, which equals greedy decoding when every digit is right).
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
import torch

from helpers._checks import check_int, check_positive

VOCAB_SIZE = 128
N_DIGITS = 5
BOS, KEY, QUERY = 10, 11, 12
FILLER = tuple(range(13, 21))
WORD_START = 21
N_WORDS = VOCAB_SIZE - WORD_START
SPAN_LENGTHS = (8, 16)  # inclusive range of words per segment
P_COPY = 0.8  # probability that a segment copies an earlier span (0.5 left the induction head unformed at 3000 steps)

Seed = int | tuple[int, ...]


class PasskeyBatch(NamedTuple):
    """Passkey sequences of length T.

    ``tokens`` (B, T) int64: the model input. ``targets`` (B, T) int64: next tokens (the language-modelling
    target; the last position's target is the final key digit). ``answer_positions`` (B, n_digits) int64: the input
    positions whose next-token prediction is a key digit (QUERY, d1, …, d4). ``keys`` (B, n_digits) int64.
    ``depths`` (B,) float64: where the key sits, 0 = start of the filler, 1 = end.
    """

    tokens: torch.Tensor
    targets: torch.Tensor
    answer_positions: torch.Tensor
    keys: torch.Tensor
    depths: torch.Tensor


def _rng(seed: Seed) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, tuple)):
        raise TypeError(f"seed must be an int or a tuple of ints, got {seed!r} ({type(seed).__name__})")
    return np.random.default_rng(seed)


def lm_document(rng: np.random.Generator, n_tokens: int) -> np.ndarray:
    """One document of ``n_tokens`` tokens: BOS, then segments of SPAN_LENGTHS words each.

    Each segment is, with probability P_COPY (and once the prefix is long enough), a copy of a span that starts at
    a uniformly random earlier position; otherwise fresh random words. Returns int64 array of shape (n_tokens,).
    """
    lo, hi = SPAN_LENGTHS
    doc = np.empty(n_tokens + hi, dtype=np.int64)
    doc[0] = BOS
    n = 1
    while n < n_tokens:
        span = int(rng.integers(lo, hi + 1))
        if n - 1 >= span and rng.random() < P_COPY:
            start = int(rng.integers(1, n - span + 1))  # uniform over the prefix (never the BOS)
            doc[n : n + span] = doc[start : start + span]
        else:
            doc[n : n + span] = rng.integers(WORD_START, VOCAB_SIZE, size=span)
        n += span
    return doc[:n_tokens]  # (n_tokens,)


def lm_batch(batch_size: int, length: int, seed: Seed) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of the copy language-modelling task.

    Each row is a document of length T+1; inputs are its first T tokens and targets its last T
    (targets[b, t] = document[b, t+1]). Returns (tokens (B, T) int64, targets (B, T) int64).
    """
    batch_size = check_int("batch_size", batch_size, minimum=1)
    length = check_int("length", length, minimum=2)
    rng = _rng(seed)
    docs = np.stack([lm_document(rng, length + 1) for _ in range(batch_size)])  # (B, T+1)
    docs_t = torch.from_numpy(docs)  # (B, T+1)
    return docs_t[:, :-1].contiguous(), docs_t[:, 1:].contiguous()  # (B, T), (B, T)


def random_keys(n: int, seed: Seed, n_digits: int = N_DIGITS) -> torch.Tensor:
    """``n`` random passkeys of ``n_digits`` digits each (leading zeros allowed). Returns (n, n_digits) int64."""
    n = check_int("n", n, minimum=1)
    n_digits = check_int("n_digits", n_digits, minimum=1)
    return torch.from_numpy(_rng(seed).integers(0, 10, size=(n, n_digits)).astype(np.int64))  # (n, n_digits)


def min_passkey_length(n_digits: int = N_DIGITS) -> int:
    """Shortest passkey input: BOS KEY d… QUERY KEY d… needs T + 1 >= 2·n_digits + 4 tokens, i.e. T >= 2·n_digits + 3."""
    return 2 * n_digits + 3


def passkey_document(key: np.ndarray, depth: float, n_tokens: int) -> np.ndarray:
    """BOS, filler, KEY + key, filler, QUERY KEY + key: ``n_tokens`` tokens, the key block at ``depth`` of the filler.

    filler length F = n_tokens − 2·n_digits − 4; the key block starts after round(depth·F) filler tokens and the
    filler continues where it stopped, so the filler reads the same whatever the depth. Returns (n_tokens,) int64.
    """
    n = len(key)
    filler_len = n_tokens - 2 * n - 4
    before = int(round(depth * filler_len))
    stream = np.resize(np.array(FILLER), filler_len)  # (F,) the sentence repeated
    parts = [[BOS], stream[:before], [KEY], key, stream[before:], [QUERY, KEY], key]
    return np.concatenate(parts).astype(np.int64)  # (n_tokens,)


def passkey_batch(keys: torch.Tensor, depths, length: int) -> PasskeyBatch:
    """Passkey sequences of input length T = ``length`` for ``keys`` (B, n_digits) at ``depths`` (B,) in [0, 1].

    Each document has T + 1 tokens (:func:`passkey_document`); inputs are the first T, targets the last T, so the
    answer digits are predicted at input positions T − n_digits … T − 1 (the QUERY token and the first n−1 digits).
    """
    if not isinstance(keys, torch.Tensor) or keys.ndim != 2 or keys.is_floating_point():
        raise TypeError(f"keys must be an integer tensor of shape (B, n_digits), got {keys!r}")
    if keys.numel() and (int(keys.min()) < 0 or int(keys.max()) > 9):
        raise ValueError(f"keys must hold digits 0..9, got values in [{int(keys.min())}, {int(keys.max())}]")
    n_digits = keys.shape[1]
    length = check_int("length", length, minimum=min_passkey_length(n_digits))
    depths = np.asarray(depths, dtype=np.float64).reshape(-1)  # (B,)
    if depths.shape[0] != keys.shape[0]:
        raise ValueError(f"depths must have one value per key ({keys.shape[0]}), got {depths.shape[0]}")
    if depths.size and (not np.all(np.isfinite(depths)) or depths.min() < 0 or depths.max() > 1):
        raise ValueError(f"depths must lie in [0, 1], got values in [{depths.min()}, {depths.max()}]")
    docs = np.stack([passkey_document(k, d, length + 1) for k, d in zip(keys.numpy(), depths, strict=True)])
    docs_t = torch.from_numpy(docs)  # (B, T+1)
    answer = torch.arange(length - n_digits, length).expand(keys.shape[0], -1)  # (B, n_digits)
    return PasskeyBatch(
        docs_t[:, :-1].contiguous(), docs_t[:, 1:].contiguous(), answer.contiguous(), keys, torch.from_numpy(depths)
    )


def training_batch(
    batch_size: int, length: int, seed: Seed, *, passkey_fraction: float = 0.5
) -> tuple[torch.Tensor, torch.Tensor]:
    """The training mixture: round(passkey_fraction·B) passkey rows (uniform depths, random keys), the rest LM rows.

    Returns (tokens (B, T) int64, targets (B, T) int64); every target counts in the loss.
    """
    batch_size = check_int("batch_size", batch_size, minimum=1)
    passkey_fraction = check_positive("passkey_fraction", passkey_fraction, inclusive=True)
    if passkey_fraction > 1:
        raise ValueError(f"passkey_fraction must be in [0, 1], got {passkey_fraction}")
    seed = seed if isinstance(seed, tuple) else (seed,)
    n_key = int(round(passkey_fraction * batch_size))
    parts = []
    if batch_size - n_key:
        parts.append(lm_batch(batch_size - n_key, length, (*seed, 0)))
    if n_key:
        depths = _rng((*seed, 1)).uniform(0.0, 1.0, size=n_key)  # (n_key,)
        pk = passkey_batch(random_keys(n_key, (*seed, 2)), depths, length)
        parts.append((pk.tokens, pk.targets))
    tokens = torch.cat([p[0] for p in parts])  # (B, T)
    targets = torch.cat([p[1] for p in parts])  # (B, T)
    return tokens, targets
