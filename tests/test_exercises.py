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


# --- the Chinese edition: the same messages through the package's catalog (helpers.i18n) ------------------------
from helpers import i18n  # noqa: E402


@pytest.fixture
def chinese():
    i18n.set_language("zh_CN")
    yield
    i18n.set_language("en")


def _run_every_message() -> None:
    """One call for every kind of line the protocol prints (waiting, right, wrong with a reason, refused, reveal)."""
    exercises.check(_stub, [((1,), 2.0)], name="f")
    exercises.check(lambda x: 2 * x, [((1,), 2.0)], name="double")
    exercises.check(lambda: 2 * EXPECTED, [((), EXPECTED)], name="g")
    exercises.check(lambda: EXPECTED.T, [((), EXPECTED)])
    exercises.check(lambda: None, [((), EXPECTED)], name="h")
    exercises.check(lambda: 1 / 0, [((), EXPECTED)], name="k")
    exercises.check(lambda: EXPECTED[:2], [((), EXPECTED)], name="m")
    exercises.check(lambda x: x + 1, [((1,), 1.0)], name="n", slips={"adding one": lambda x: x + 1})
    exercises.predict(None, 3)
    exercises.predict(5, 3, name="Exercise 2")
    exercises.predict(1.5, 3.0)
    exercises.predict("above", "below", choices=("above", "below"), explanation="It falls.")
    exercises.predict("up", "below", choices=("above", "below"))
    exercises.predict("below", "below", choices=("above", "below"))
    exercises.reveal("the answer", when=False)
    exercises.reveal("the answer", when="yes")


def test_chinese_messages_are_what_the_build_writes_for_the_english_ones(chinese, capsys):
    """A Chinese run prints, line for line, what scripts/i18n.py build writes into a Chinese notebook's outputs from
    the English run (helpers.i18n.translate_line): so a Chinese notebook under nbval matches its stored outputs."""
    _run_every_message()
    zh = capsys.readouterr().out.splitlines()
    i18n.set_language("en")
    _run_every_message()
    en = capsys.readouterr().out.splitlines()
    assert len(zh) == len(en) == 17
    assert [i18n.translate_line(line, "zh_CN") for line in en] == zh
    notebook_text = {"It falls."}  # printed by the notebook, not the package: stays as it is
    assert [z for z, e in zip(zh, en, strict=True) if z == e] == [e for e in en if e in notebook_text]
    assert all(exercises.is_waiting_message(z) for z in (zh[0], zh[8], zh[15]))


@pytest.mark.parametrize("typed", ["below", " BELOW ", "下方"])
def test_an_answer_word_is_accepted_in_either_language(typed, capsys):
    for language in i18n.LANGUAGES:
        i18n.set_language(language)
        try:
            assert exercises.predict(typed, "below", choices=("above", "below")) is True
            assert exercises.predict(typed, "above", choices=("above", "below")) is False
        finally:
            i18n.set_language("en")
    assert exercises.predict("上方", "above", choices=("above", "below")) is True
    assert exercises.predict("下", "above", choices=("above", "below")) is None  # refused, naming the allowed ones
    assert "is not one of the allowed answers: 'above', 'below'" in capsys.readouterr().out


def test_every_answer_word_a_notebook_offers_has_a_translation():
    from pathlib import Path

    words = set()
    for path in sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.ipynb")):
        for group in re.findall(r"choices=\(([^)]*)\)", path.read_text(encoding="utf-8")):
            words |= set(re.findall(r'\\"(\w+)\\"', group))
    assert words and words <= set(exercises.ANSWER_WORDS), sorted(words - set(exercises.ANSWER_WORDS))
    translated = {w: i18n.translation("zh_CN").pgettext("answer", w) for w in exercises.ANSWER_WORDS}
    assert all(t != w for w, t in translated.items()), translated


def test_an_unknown_language_is_refused_naming_the_allowed_ones():
    with pytest.raises(ValueError, match=r"unknown language 'fr'; allowed: \['en', 'zh_CN'\]"):
        i18n.set_language("fr")
    assert i18n.current_language() == "en"
