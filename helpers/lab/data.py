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

(a) Language modelling with repeated spans (:func:`lm_batch`). Each document draws its own pool of
``N_PHRASES`` = 16 random phrases (3..6 random words each) and is the concatenation of phrases drawn uniformly from
that pool. The first time a phrase appears its words are unpredictable (loss ln 107 ≈ 4.67 nats per token); every
later occurrence can be copied by an induction head once its first word is seen. The further a position is into
the document, the more phrases have already appeared, so *long context measurably lowers the loss*: a model that
uses its whole context has a loss that falls with position, and a model that cannot attend past some distance
stops improving there. Copy sources lie anywhere in the prefix, so at 8×L most copies span more than L tokens.

(b) Passkey retrieval in the style of the PI and YaRN papers (:func:`passkey_batch`)::

    BOS  FILLER…  KEY d1 … d5  FILLER…  QUERY d1 … d5

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
N_PHRASES = 16
PHRASE_LENGTHS = (3, 6)  # inclusive range of words per phrase
IGNORE = -100  # target id ignored by the loss (torch's cross_entropy default ignore_index)

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
    """One document of ``n_tokens`` tokens: BOS then phrases drawn uniformly from a fresh pool of N_PHRASES.

    Returns int64 array of shape (n_tokens,).
    """
    lo, hi = PHRASE_LENGTHS
    lengths = rng.integers(lo, hi + 1, size=N_PHRASES)  # (P,)
    pool = rng.integers(WORD_START, VOCAB_SIZE, size=(N_PHRASES, hi))  # (P, max_len)
    n_draws = n_tokens // lo + 1  # always enough phrases to fill the document
    ids = rng.integers(0, N_PHRASES, size=n_draws)  # (n_draws,)
    body = np.concatenate([pool[i, : lengths[i]] for i in ids])  # (>= n_tokens,)
    return np.concatenate([[BOS], body])[:n_tokens].astype(np.int64)  # (n_tokens,)


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
    """Shortest passkey input: BOS KEY d… QUERY d… needs T + 1 >= 2·n_digits + 3 tokens, i.e. T >= 2·n_digits + 2."""
    return 2 * n_digits + 2


def passkey_document(key: np.ndarray, depth: float, n_tokens: int) -> np.ndarray:
    """BOS, filler, KEY + key, filler, QUERY + key: ``n_tokens`` tokens, the key block at ``depth`` of the filler.

    filler length F = n_tokens − 2·n_digits − 3; the key block starts after round(depth·F) filler tokens and the
    filler continues where it stopped, so the filler reads the same whatever the depth. Returns (n_tokens,) int64.
    """
    n = len(key)
    filler_len = n_tokens - 2 * n - 3
    before = int(round(depth * filler_len))
    stream = np.resize(np.array(FILLER), filler_len)  # (F,) the sentence repeated
    return np.concatenate([[BOS], stream[:before], [KEY], key, stream[before:], [QUERY], key]).astype(
        np.int64
    )  # (n_tokens,)


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
