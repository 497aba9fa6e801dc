"""The exercise protocol (helpers.exercises): waiting lines before the learner acts, reasons in words after, and
never the expected value."""

from __future__ import annotations

import contextlib
import io
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import exercises

EXPECTED = np.array([[0.5, 1.25, -2.0], [3.0, 0.75, 4.5], [1.5, -0.25, 2.0]])


def _one_line(capsys) -> str:
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1, out
    return out[0]


def _stub(*_):
    raise NotImplementedError


def test_an_untouched_stub_prints_the_waiting_line_only(capsys):
    assert exercises.check(_stub, [((1,), 2.0)], name="f") is False
    line = _one_line(capsys)
    assert exercises.is_waiting_message(line) and line.startswith("f:")


def test_a_right_answer_says_right(capsys):
    assert exercises.check(lambda x: 2 * x, [((1,), 2.0), ((3,), 6.0)], name="double") is True
    assert _one_line(capsys) == "double: right on all 2 cases."


@pytest.mark.parametrize(
    ("got", "words"),
    [
        (None, "returned None"),
        ("text", "not a number"),
        (EXPECTED[:2], "shape (2, 3)"),
        (EXPECTED.T, "transpose"),
        (-EXPECTED, "opposite sign"),
        (2 * EXPECTED, "constant factor of 2"),
        (1.04 * EXPECTED, "too large by the same factor"),
        (EXPECTED - 1, "same amount, −1"),
        ("5", "returned text"),
        (np.array(3.21), "shape ()"),
        (EXPECTED + 0.5, "same amount, +1/2"),
        (EXPECTED + 0.37, "too large by the same amount"),
        (np.where(EXPECTED == 3.0, np.nan, EXPECTED), "NaN"),
        (np.where(EXPECTED == 3.0, 7.0, EXPECTED), "1 of its 9 entries are off; the first one is at index (1, 0)"),
    ],
)
def test_diagnose_names_the_mistake_in_words(got, words):
    assert words in exercises.diagnose(got, EXPECTED)


def test_diagnose_is_none_for_a_match():
    assert exercises.diagnose(EXPECTED + 1e-12, EXPECTED) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(1.0, 1e3, allow_nan=False), min_size=1, max_size=6),
    st.lists(st.floats(-50, 50, allow_nan=False).filter(lambda v: abs(v) > 1e-2), min_size=6, max_size=6),
)
def test_a_wrong_answer_never_prints_an_expected_value(values, noise):
    expected = np.array(values)  # (n,)
    wrong = expected + np.array(noise[: len(values)])  # (n,)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exercises.check(lambda: wrong, [((), expected)], name="f")
    line = buffer.getvalue().strip()
    assert "not right yet" in line
    reason = line.split("): ", 1)[1]
    numbers = [float(t) for t in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", reason)]
    diff = wrong - expected  # (n,)
    named = [float(diff[0]), float(wrong[0] / expected[0])]  # a constant offset or factor may be named
    for number in numbers:
        leaks = [v for v in expected if math.isclose(number, v, rel_tol=5e-3) and abs(v) > 10]
        assert not leaks or any(math.isclose(number, n, rel_tol=5e-3) for n in named), reason


def test_a_learners_exception_is_a_sentence_not_a_traceback(capsys):
    def broken(x):
        return [1, 2][x]

    assert exercises.check(broken, [((5,), 1.0)], name="g") is False
    assert "raised IndexError: list index out of range" in _one_line(capsys)


def test_a_slip_is_named(capsys):
    slips = {"forgetting the factor 2π": lambda w: 1 / w}
    exercises.check(lambda w: 1 / w, [((0.5,), 2 * math.pi / 0.5)], name="wavelength", slips=slips)
    assert "it looks like forgetting the factor 2π" in _one_line(capsys)


def test_verify_is_silent_for_a_right_solution_and_raises_for_a_wrong_one_or_an_accepted_slip(capsys):
    cases = [((2.0,), 4.0), ((3.0,), 9.0)]
    exercises.verify(lambda x: x * x, cases, slips={"doubling": lambda x: 2 * x})
    assert capsys.readouterr().out == ""
    with pytest.raises(AssertionError, match="fails case 2"):
        exercises.verify(lambda x: 2 * x, cases)
    with pytest.raises(AssertionError, match="accepts a slip"):
        exercises.verify(lambda x: x * x, cases, slips={"same thing": lambda x: x**2})


def test_predict_waits_then_judges_then_explains(capsys):
    assert exercises.predict(None, 31, name="my_sign_changes") is None
    assert exercises.is_waiting_message(_one_line(capsys))
    assert exercises.predict(30, 31, name="n", tolerance=1, explanation=lambda: "why: ...") is True
    assert capsys.readouterr().out.splitlines() == ["n: right.", "why: ..."]
    assert exercises.predict(40, 31, name="n", tolerance=1) is False
    assert _one_line(capsys) == "n: not right: too high."


def test_predict_refuses_an_answer_of_the_wrong_kind_naming_what_is_allowed(capsys):
    assert exercises.predict("maybe", "above", name="p", choices=("above", "below")) is None
    line = _one_line(capsys)
    assert "'maybe'" in line and "'above', 'below'" in line
    assert exercises.predict("yes", True, name="q") is None
    assert "not True or False" in _one_line(capsys)
    assert exercises.predict(2.5, 3, name="r") is None
    assert "not a whole number" in _one_line(capsys)
    assert exercises.predict(" Above", "above", name="p", choices=("above", "below")) is True


def test_reveal_only_when_asked(capsys):
    assert exercises.reveal("the answer", when=False) is False
    assert exercises.is_waiting_message(_one_line(capsys))
    assert exercises.reveal(lambda: "the answer", when=True) is True
    assert _one_line(capsys) == "the answer"
    assert exercises.reveal("x", when="yes") is False
    assert "True or False" in _one_line(capsys)


@pytest.mark.parametrize("key", sorted(exercises.WAITING))
def test_every_waiting_line_is_recognised(key):
    line = exercises.WAITING[key].format(name="my_x", what="The worked answer", flag="reveal_2")
    assert exercises.is_waiting_message(line)
    assert not exercises.is_waiting_message(line + " 31")
