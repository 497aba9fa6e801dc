"""Passkey retrieval on the real model: the prompt, its reproducible keys and depths, and one trial scored in one pass.

Passkey retrieval (Mohtashami & Jaggi 2023, arXiv 2305.16300; the PI paper's §3.2 evaluation, arXiv 2306.15595):
a 5-digit key hidden at a given depth inside repeated filler; the model must continue "The pass key is" with it.
It is scored in one forward pass with the answer appended (teacher forcing): the greedy answer is right exactly
when the argmax at each of the answer's 6 positions (a space, then 5 digits) is the answer token.
Used by notebook 07 and :mod:`helpers.real.evaluate` (which re-exports everything here).
"""

from __future__ import annotations

import numpy as np

from helpers.real.model import RealLlama

__all__ = ["DEPTHS", "FILLER", "KEY_LINE", "QUESTION", "TASK", "passkey_keys", "passkey_prompt", "passkey_trial"]

TASK = "There is a pass key hidden in the long text below. Remember it: you will be asked for it at the end.\n"
FILLER = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. "
KEY_LINE = "The pass key is {key}. Remember it. {key} is the pass key. "
QUESTION = "What is the pass key? The pass key is"
#: Depth of trial t is DEPTHS[t % 10]; its key is passkey_keys(n)[t] (the first keys do not depend on n).
DEPTHS = (0.5, 0.1, 0.9, 0.3, 0.7, 0.0, 0.2, 0.8, 0.4, 0.6)


def passkey_keys(n: int, seed: int = 0) -> list[int]:
    """``n`` reproducible 5-digit keys (NumPy's default_rng(seed))."""
    return [int(k) for k in np.random.default_rng(seed).integers(10000, 100000, size=n)]


def passkey_prompt(
    tokenizer, n_tokens: int, depth: float, key: int, *, bos: int | None = None
) -> tuple[list[int], list[int]]:
    """Prompt ids (about ``n_tokens`` long with the answer, never more) with the key line at fraction ``depth`` of
    the filler, and the answer ids (" " + the 5 digits: 6 tokens with SmolLM2's tokenizer). Plain text, no chat
    template. ``bos``: a token id put first (Gemma 3 is run with ``<bos>`` first; SmolLM2 without)."""
    if not 0.0 <= depth <= 1.0:
        raise ValueError(f"depth must be in [0, 1], got {depth}")
    if not 10000 <= int(key) <= 99999:
        raise ValueError(f"key must be a 5-digit int, got {key}")
    enc = tokenizer.encode
    task, filler, question = enc(TASK).ids, enc(FILLER).ids, enc(QUESTION).ids
    key_ids = enc(KEY_LINE.format(key=key)).ids
    answer = enc(f" {key}").ids
    if bos is not None:
        task = [int(bos)] + task
    n_fill = (n_tokens - len(task) - len(key_ids) - len(question) - len(answer)) // len(filler)
    if n_fill < 1:
        raise ValueError(f"n_tokens = {n_tokens} is too short for a passkey prompt")
    at = round(depth * n_fill)
    prompt = task + filler * at + key_ids + filler * (n_fill - at) + question
    return prompt, answer


def passkey_trial(
    model: RealLlama, tokenizer, n_tokens: int, depth: float, key: int, *, bos: int | None = None, **rope
) -> dict:
    """One passkey trial scored in one pass (teacher forcing; see the module docstring). ``rope``: method, factor
    (SmolLM2's :class:`~helpers.real.model.RealLlama`; a :class:`~helpers.real.gemma3.RealGemma3` carries its
    rotation and takes none). ``bos``: see :func:`passkey_prompt`. ``digits_correct`` counts the answer's tokens
    after the first (the 5 digits, one token each, with either tokenizer) whose argmax is right."""
    prompt, answer = passkey_prompt(tokenizer, n_tokens, depth, key, bos=bos)
    ids = prompt + answer
    hidden = model.hidden_states(ids, **rope)  # (T, d_model)
    n = len(answer)
    losses, hits = model.head_losses(hidden[-n - 1 : -1], answer)  # (n,), (n,)
    pred = (hidden[-n - 1 : -1] @ model.head.T).argmax(-1).tolist()  # (n,): the greedy answer
    return {
        "correct": bool(hits.all()),
        "digits_correct": int(hits[1:].sum()),
        "answer_nats": round(float(losses.sum()), 4),
        "predicted": tokenizer.decode(pred),
        "prompt_tokens": len(ids),
    }
