"""The exercise protocol of every notebook: predict or write, run the check, and only then see the answer.

Three kinds of cells use it.

* A **checking cell** runs the learner's function on hidden cases with :func:`check`, or compares a prediction with
  :func:`predict`. Until the learner acts (the stub still raises ``NotImplementedError``, the prediction is still
  ``None``) it prints one *waiting* line and nothing else. Afterwards it says right or not right, and **why in words**
  ("off by a factor of about 2", "the transpose of the answer", "it looks like you forgot the factor 2π"): never the
  expected value, array or token. It never raises: a learner's exception is reported as a sentence.
* A **solution cell** (tag ``solution``; hidden in JupyterLab, source *and* outputs; form view in Colab:
  ``cellView: "form"`` and a first line ``#@title ...``) defines the solution under its own name and calls
  :func:`verify`, which prints nothing and raises only when the *solution* is wrong, or when a plausible slip is
  accepted by the check: Run All keeps verifying the solutions under nbval without showing them.
* A **reveal** (:func:`reveal`) prints a worked answer or an explanation only after the learner asks for it
  (``reveal = True``) or has entered a prediction.

The waiting lines are the only text a learner sees under a question before acting; ``tests/test_exercise_cells.py``
holds every notebook to that with :func:`is_waiting_message`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from helpers.i18n import LANGUAGES, N_, _, answer_forms, pN_, translation

__all__ = ["check", "verify", "predict", "reveal", "diagnose", "is_waiting_message", "WAITING"]

#: The only lines a checking or reveal cell prints before the learner acts (one format string per situation).
WAITING = {
    "stub": N_("{name}: not attempted yet. Fill in the function above, then re-run this cell."),
    "prediction": N_("{name}: no prediction yet. Enter it in the cell above, then re-run this cell."),
    "reveal": N_("{what}: hidden until you ask for it. Set {flag} = True, then re-run this cell."),
}

#: The answers notebooks offer as words (``predict(..., choices=("above", "below"))``): each has a translation
#: (context "answer"), and a learner may type either language's form (:func:`helpers.i18n.answer_forms`).
ANSWER_WORDS = (
    pN_("answer", "above"), pN_("answer", "below"), pN_("answer", "larger"), pN_("answer", "smaller"),
    pN_("answer", "more"), pN_("answer", "fewer"), pN_("answer", "same"), pN_("answer", "different"),
    pN_("answer", "falls"), pN_("answer", "rises"),
)  # fmt: skip


def _waiting_pattern(text: str) -> re.Pattern:
    return re.compile(
        "^"
        + re.escape(text)
        .replace(r"\{name\}", ".+")
        .replace(r"\{what\}", ".+")
        .replace(r"\{flag\}", r"[A-Za-z_][A-Za-z0-9_]*")
        + "$"
    )


#: The waiting lines in every language of the course (a Chinese notebook shows the Chinese ones).
_WAITING_RES = [_waiting_pattern(translation(lang).gettext(text)) for text in WAITING.values() for lang in LANGUAGES]


def is_waiting_message(line: str) -> bool:
    """True when ``line`` is one of the :data:`WAITING` lines, in any language (what a cell may show before the learner
    acts)."""
    return any(pattern.match(line.strip()) for pattern in _WAITING_RES)


# --- why an answer is wrong, in words --------------------------------------------------------------------------


def _close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol))


def diagnose(got: object, expected: object, *, rtol: float = 1e-6, atol: float = 1e-9) -> str | None:
    """Say in words how ``got`` differs from ``expected``, without stating the expected value; None when it matches.

    Checks, in order: no value returned, not numeric, a different shape, NaN or infinity, the transpose, the
    opposite sign, a constant factor, a constant offset, then how many entries are off and where the first one is.
    """
    if got is None:
        return _("it returned None (is a `return` missing?)")
    if isinstance(got, str | bytes) or (isinstance(got, np.ndarray) and got.dtype.kind in "USO"):
        return _("it returned text ({kind}), not a number or an array of numbers").format(kind=type(got).__name__)
    try:
        g = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return _("it returned a {kind}, which is not a number or an array of numbers").format(kind=type(got).__name__)
    e = np.asarray(expected, dtype=float)
    if g.shape != e.shape:
        if g.size == e.size:
            return _("its shape {got} is not the shape the check expects, {expected} (same number of entries)").format(
                got=g.shape, expected=e.shape
            )
        return _("its shape {got} is not the shape the check expects, {expected}").format(got=g.shape, expected=e.shape)
    if not np.all(np.isfinite(g)):
        return _("it contains NaN or infinity")
    if _close(g, e, rtol, atol):
        return None
    if g.ndim == 2 and g.shape[0] == g.shape[1] and _close(g.T, e, rtol, atol):
        return _("it is the transpose of the answer: rows and columns are swapped")
    if _close(-g, e, rtol, atol):
        return _("it has the opposite sign")
    nonzero = np.abs(e) > atol
    if nonzero.any() and np.all(np.abs(g[~nonzero]) <= atol):
        ratio = g[nonzero] / e[nonzero]
        if np.allclose(ratio, ratio.flat[0], rtol=1e-6) and ratio.flat[0] > 0:
            return _factor_words(float(ratio.flat[0]))
    offset = g - e
    if g.size > 1 and np.allclose(offset, offset.flat[0], rtol=0, atol=max(atol, 1e-9 * float(np.abs(e).max()))):
        return _offset_words(float(offset.flat[0]))
    if g.size == 1:
        return _("it is too large") if float(offset.flat[0]) > 0 else _("it is too small")
    wrong = ~np.isclose(g, e, rtol=rtol, atol=atol)
    first = tuple(int(i) for i in np.argwhere(wrong)[0])
    where = first[0] if len(first) == 1 else first
    return _("{wrong} of its {size} entries are off; the first one is at index {where}").format(
        wrong=int(wrong.sum()), size=g.size, where=where
    )


#: Factors and offsets a learner's slip typically makes; any other is described without a number, since an exact
#: factor or offset would give the expected value away (got / factor).
_NAMED_FACTORS = {
    "2": 2.0, "1/2": 0.5, "4": 4.0, "1/4": 0.25, "π": math.pi, "1/π": 1 / math.pi, "2π": 2 * math.pi,
    "1/(2π)": 1 / (2 * math.pi), "10": 10.0, "1/10": 0.1, "√2": math.sqrt(2), "1/√2": 1 / math.sqrt(2),
    "e": math.e, "1/e": 1 / math.e,
}  # fmt: skip
_NAMED_OFFSETS = {"+1": 1.0, "−1": -1.0, "+1/2": 0.5, "−1/2": -0.5, "+π": math.pi, "−π": -math.pi}


def _factor_words(ratio: float) -> str:
    for words, value in _NAMED_FACTORS.items():
        if math.isclose(ratio, value, rel_tol=1e-3):
            return _("it is off by a constant factor of {factor}").format(factor=words)
    if ratio > 1:
        return _("every entry is too large by the same factor")
    return _("every entry is too small by the same factor")


def _offset_words(offset: float) -> str:
    for words, value in _NAMED_OFFSETS.items():
        if math.isclose(offset, value, rel_tol=1e-6):
            return _("every entry is off by the same amount, {offset}").format(offset=words)
    if offset > 0:
        return _("every entry is too large by the same amount")
    return _("every entry is too small by the same amount")


def _as_slips(slips: Mapping[str, Callable] | Sequence[tuple[str, Callable]]) -> list[tuple[str, Callable]]:
    return list(slips.items()) if isinstance(slips, Mapping) else list(slips)


def _matches(fn: Callable, args: tuple, expected: object, rtol: float, atol: float) -> bool:
    try:
        return diagnose(fn(*args), expected, rtol=rtol, atol=atol) is None
    except Exception:  # noqa: BLE001 - a slip that cannot run simply does not match
        return False


def _first_failure(candidate, cases, rtol, atol, slips):
    """None when every case passes; else (case number, sentence). NotImplementedError propagates."""
    for number, (args, expected) in enumerate(cases, start=1):
        try:
            got = candidate(*args)
        except NotImplementedError:
            raise
        except Exception as err:  # noqa: BLE001 - the learner's error, reported as a sentence
            return number, _("it raised {error}: {message}").format(error=type(err).__name__, message=err)
        why = diagnose(got, expected, rtol=rtol, atol=atol)
        if why is None:
            continue
        for slip_why, slip in slips:
            if _matches(slip, args, got, rtol, atol):
                return number, _("it looks like {slip}").format(slip=slip_why)
        return number, why
    return None


def check(
    candidate: Callable,
    cases: Iterable[tuple[tuple, object]],
    *,
    name: str | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    slips: Mapping[str, Callable] | Sequence[tuple[str, Callable]] = (),
) -> bool:
    """Run ``candidate(*args)`` for every ``(args, expected)`` case and print one line: waiting, right, or why not.

    ``slips`` maps a plausible mistake, in words ("forgetting the factor 2π"), to a function that makes it: when the
    learner's output equals the slip's, the message names the mistake. Returns True only when every case matches.
    Never raises and never prints an expected value.
    """
    name = name or getattr(candidate, "__name__", N_("your function"))
    name = _(name)
    cases = list(cases)
    try:
        failure = _first_failure(candidate, cases, rtol, atol, _as_slips(slips))
    except NotImplementedError:
        print(_(WAITING["stub"]).format(name=name))
        return False
    if failure is None:
        print(_("{name}: right on all {n} cases.").format(name=name, n=len(cases)))
        return True
    number, why = failure
    print(
        _("{name}: not right yet (case {number} of {n}): {why}.").format(
            name=name, number=number, n=len(cases), why=why
        )
    )
    return False


def verify(
    solution: Callable,
    cases: Iterable[tuple[tuple, object]],
    *,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    slips: Mapping[str, Callable] | Sequence[tuple[str, Callable]] = (),
) -> None:
    """For solution cells: silent when ``solution`` passes every case and every slip fails at least one.

    Raises AssertionError otherwise (the notebook's own solution or check is broken: nbval reports it).
    """
    cases = list(cases)
    failure = _first_failure(solution, cases, rtol, atol, [])
    if failure is not None:
        raise AssertionError(_("the solution fails case {number}: {why}").format(number=failure[0], why=failure[1]))
    for why, slip in _as_slips(slips):
        if all(_matches(slip, args, expected, rtol, atol) for args, expected in cases):
            raise AssertionError(_("the check accepts a slip it should reject: {slip}").format(slip=why))


def _normalise(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


def _as_choice(prediction: object, choices: Sequence) -> object | None:
    """The choice ``prediction`` names, typed in any language of the course (``"below"`` or ``"低于"``), or None."""
    for choice in choices:
        if _normalise(prediction) == _normalise(choice) or (
            isinstance(prediction, str) and isinstance(choice, str) and _normalise(prediction) in answer_forms(choice)
        ):
            return choice
    return None


def _prediction_problem(prediction: object, choices: Sequence | None, kind: type | None) -> str | None:
    if choices is not None:
        if _as_choice(prediction, choices) is None:
            return _("{prediction} is not one of the allowed answers: {allowed}").format(
                prediction=repr(prediction), allowed=", ".join(repr(c) for c in choices)
            )
        return None
    if kind is bool and not isinstance(prediction, bool):
        return _("{prediction} is not True or False").format(prediction=repr(prediction))
    if kind in (int, float) and (isinstance(prediction, bool) or not isinstance(prediction, int | float)):
        return _("{prediction} is not a number").format(prediction=repr(prediction))
    if kind is int and isinstance(prediction, float) and not prediction.is_integer():
        return _("{prediction} is not a whole number").format(prediction=repr(prediction))
    return None


def predict(
    prediction: object,
    answer: object,
    *,
    name: str = N_("your prediction"),
    choices: Sequence | None = None,
    tolerance: float = 0.0,
    relative: bool = False,
    explanation: str | Callable[[], str] | None = None,
) -> bool | None:
    """Compare a prediction with the answer the notebook *computed*; print waiting, or right / not right + why.

    ``prediction`` None -> the waiting line only (returns None). ``choices`` lists the allowed answers (strings are
    compared case-insensitively); otherwise ``answer``'s type decides (bool, whole number, number) and a number is
    right within ``tolerance`` (absolute, or relative when ``relative``). After an attempt the explanation (a string
    or a function returning one, so that nothing is computed or shown before) is printed, right or not.
    """
    name = _(name)
    if prediction is None:
        print(_(WAITING["prediction"]).format(name=name))
        return None
    kind = type(answer) if choices is None else None
    if kind is np.bool_:
        kind = bool
    elif kind is not None and issubclass(kind, np.integer):
        kind = int
    elif kind is not None and issubclass(kind, np.floating):
        kind = float
    problem = _prediction_problem(prediction, choices, kind)
    if problem is not None:
        print(
            _("{name}: {problem}. Change it in the cell above, then re-run this cell.").format(
                name=name, problem=problem
            )
        )
        return None
    if choices is not None:
        right = _normalise(_as_choice(prediction, choices)) == _normalise(answer)
    elif kind is bool:
        right = _normalise(prediction) == _normalise(answer)
    if choices is not None or kind is bool:
        message = _("{name}: right.") if right else _("{name}: not right.")
    else:
        gap = abs(float(prediction) - float(answer))
        limit = tolerance * abs(float(answer)) if relative else tolerance
        right = gap <= limit or math.isclose(gap, limit)
        too_high = float(prediction) > float(answer)
        message = (
            _("{name}: right.")
            if right
            else _("{name}: not right: too high.")
            if too_high
            else _("{name}: not right: too low.")
        )
    print(message.format(name=name))
    if explanation is not None:
        print(explanation() if callable(explanation) else explanation)
    return right


def reveal(
    text: str | Callable[[], str], *, when: bool, what: str = N_("The worked answer"), flag: str = "reveal"
) -> bool:
    """Print ``text`` (or what the function returns) only when ``when`` is True; else the waiting line."""
    what = _(what)
    if not isinstance(when, bool | np.bool_):
        print(
            _("{flag} should be True or False, got {value}. Change it, then re-run this cell.").format(
                flag=flag, value=repr(when)
            )
        )
        return False
    if not when:
        print(_(WAITING["reveal"]).format(what=what, flag=flag))
        return False
    print(text() if callable(text) else text)
    return True
