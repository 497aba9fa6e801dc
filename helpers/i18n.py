"""The course's language: English (the default) or Chinese, for the package's messages and the lines cells print.

The language comes from the environment variable ``PE_COURSE_LANG`` when this module is imported, or from
:func:`set_language`, which the Chinese notebooks' setup cell calls (:data:`ZH_SETUP_LINE`, the one code line in
which a Chinese notebook differs from its English one). Any other value is refused, naming it and the allowed ones.

* :func:`_` translates a message of the package through stdlib :mod:`gettext` (domain ``helpers``; compiled
  catalogs under ``helpers/locale/<lang>/LC_MESSAGES/``, package data). The strings are marked with ``_()``
  (``N_()`` for a module-level constant translated where it is used, ``pgettext`` for a word with a context, e.g.
  ``pgettext("answer", "above")``), extracted with Babel into ``i18n/zh_CN/helpers.po`` and compiled by
  ``python scripts/i18n.py build``.
* :func:`translate_line` turns one *English* output line into the language's: a line printed by the package is
  matched against the English message templates (``"{name}: right on all {n} cases."``) and refilled in the
  translated template, its fields translated in turn. ``scripts/i18n.py build`` writes the Chinese notebooks'
  stored outputs with it, so a Chinese notebook run (messages translated at the source by :func:`_`) prints what the
  Chinese notebook stores.

  A line printed by a notebook's own code (``print(f"... {x:.3f} ...")``) is looked up as a *template*: its numbers
  replaced by ``{0}``, ``{1}``... (:func:`line_template`; digits inside words, float32 or SmolLM2, stay), so one
  catalog entry (domain ``outputs``, ``i18n/zh_CN/outputs.po``, extracted from the English notebooks' stored
  outputs) serves every value; the translation gets the numbers back, in any order.
* In Chinese, :func:`set_language` wraps ``sys.stdout`` (:class:`TranslatingStream`): whole lines pass through
  :func:`translate_line` as they are printed.
* Markdown a cell displays (``display(Markdown(text))``, e.g. notebook 05b's result tables) is translated piece by
  piece (:func:`markdown_pieces`: each table cell, each other line) with the same templates
  (:func:`translate_markdown`); in Chinese, :func:`set_language` registers it with IPython's ``text/markdown``
  formatter for :class:`IPython.display.Markdown`, and the build translates stored ``text/markdown`` outputs with it.

* Figure and widget text that a notebook's *own code* writes (``ax.set_title(f"tiny (L = {L}): ...")``, a legend
  label from a registry, a dropdown's options) cannot be marked in that code: the Chinese notebooks' code cells are
  the English bytes. :func:`figure_text` translates such a text at run time: the package's ``figure`` context
  (``pgettext("figure", ...)``) first, then the catalog of figure and widget texts (domain ``figures``,
  ``i18n/zh_CN/figures.po``), exact or as a template with its numbers as ``{0}``, ``{1}``... as printed lines are.
  ``scripts/i18n.py extract`` takes that catalog's entries from the record of a Chinese run
  (``scripts/zh_share.py record``: every text each figure and widget showed, with :func:`figure_source`, the
  English it was translated from), and ``check`` fails on a recorded English text without a translation. Two
  switches apply it, both on only while the language is not English, and both taken off by
  ``set_language("en")``: :mod:`helpers.plots._style` (a hook of :func:`on_language_change`) makes matplotlib's
  ``Text.set_text`` pass every string through :func:`figure_text` (titles, labels, legends, annotations; the
  artists that hold the English, a line's legend label, keep it), and :mod:`helpers.widgets._language` (another
  hook) makes ipywidgets' widget-construction callback translate each new widget's description, option labels
  (never the values) and a Label's text, and again whenever its code sets them.

This module imports nothing of the course (it sits below everything that prints).
"""

from __future__ import annotations

import functools
import gettext
import os
import re
import string
import sys
import unicodedata
from pathlib import Path

__all__ = [
    "LANGUAGES",
    "ENV_VAR",
    "ZH_SETUP_LINE",
    "set_language",
    "on_language_change",
    "current_language",
    "_",
    "N_",
    "pN_",
    "pgettext",
    "translation",
    "clear_translation_caches",
    "translate_line",
    "line_template",
    "NUMBER",
    "TranslatingStream",
    "markdown_pieces",
    "translate_markdown",
    "answer_forms",
    "figure_text",
    "figure_source",
    "display_width",
    "WideText",
]

#: Languages of the course: code -> name. "en" is the source language (no catalog).
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
#: Environment variable read at import: the language to start in.
ENV_VAR = "PE_COURSE_LANG"
DOMAIN = "helpers"
OUTPUTS_DOMAIN = "outputs"
FIGURES_DOMAIN = "figures"
#: A number in printed text or prose: ASCII-bounded digits with optional sign (U+2212 or '-' glued to the digits and
#: not after a letter/digit), thousands groups (1,024), decimals (0.983), exponent (1e-4), superscript digits
#: (10⁴, 2⁻¹), then an optional unit letter (2L, 8k, 135M, 7B) or times sign (2.14x) and an optional %. Digits glued to other letters
#: (float32, 1st, E9) are words, not numbers. ASCII digits only: a full-width １０ is not the number 10.
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.,])(?:[−-](?=[0-9]))?[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?(?:[eE][−+-]?[0-9]+)?[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*"
    r"(?:[kKMBGTLx](?![A-Za-z0-9_]))?%?(?![A-Za-z0-9_])"
)
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: The line ``scripts/i18n.py build`` appends to a Chinese notebook's setup cell (its only changed code line).
ZH_SETUP_LINE = 'from helpers.i18n import set_language; set_language("zh_CN")  # 中文版：输出与练习提示用中文'

_language = "en"


def _checked(language: object) -> str:
    if language not in LANGUAGES:
        raise ValueError(f"language: unknown language {language!r}; allowed: {sorted(LANGUAGES)}")
    return language  # type: ignore[return-value]


@functools.cache
def translation(language: str) -> gettext.NullTranslations:
    """The compiled catalog of the package's messages in ``language`` (stdlib gettext; English: none needed).

    A missing catalog of a supported language is an error, never a silent fall-back to English."""
    if _checked(language) == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[language])


@functools.cache
def output_translation(language: str) -> gettext.NullTranslations:
    """The compiled catalog of printed-line templates (domain ``outputs``) in ``language``."""
    if _checked(language) == "en":
        return gettext.NullTranslations()
    return gettext.translation(OUTPUTS_DOMAIN, localedir=str(LOCALE_DIR), languages=[language])


@functools.cache
def figures_translation(language: str) -> gettext.NullTranslations:
    """The compiled catalog of figure and widget texts written in notebook code (domain ``figures``)."""
    if _checked(language) == "en":
        return gettext.NullTranslations()
    return gettext.translation(FIGURES_DOMAIN, localedir=str(LOCALE_DIR), languages=[language])


def clear_translation_caches() -> None:
    """Forget the loaded catalogs (after ``scripts/i18n.py build`` has compiled new ones)."""
    translation.cache_clear()
    output_translation.cache_clear()
    figures_translation.cache_clear()
    _figure_text.cache_clear()
    _message_templates.cache_clear()


def set_language(language: str) -> None:
    """Switch the course to ``language`` ("en" or "zh_CN"); refuses any other value, naming the allowed ones."""
    global _language
    translation(_checked(language))  # load first: a missing catalog leaves the language unchanged
    output_translation(language)
    figures_translation(language)
    _language = language
    _install_stdout(language != "en")
    _install_markdown(language != "en")
    for hook in _hooks:
        hook(language)


#: Functions called with the new language whenever it is set (see :func:`on_language_change`).
_hooks: list = []


def on_language_change(hook) -> None:
    """Call ``hook(language)`` now, with the current language, and again whenever :func:`set_language` sets one:
    how a module above this one follows the language without this module importing it (the figures' CJK font,
    :mod:`helpers.plots._style`). A hook given twice is kept once."""
    if hook not in _hooks:
        _hooks.append(hook)
    hook(_language)


def current_language() -> str:
    return _language


def _(message: str) -> str:
    """``message`` in the current language (itself when English or untranslated)."""
    return translation(_language).gettext(message) if _language != "en" else message


def N_(message: str) -> str:
    """Marks ``message`` for extraction without translating it (a constant translated where it is used)."""
    return message


def pN_(context: str, message: str) -> str:
    """Marks ``message`` with a context for extraction without translating it."""
    return message


def pgettext(context: str, message: str) -> str:
    """``message`` with a context (the same English word may be translated differently elsewhere)."""
    return translation(_language).pgettext(context, message) if _language != "en" else message


#: Earlier translations of answer words, still accepted when a learner types them: English word -> forms.
EARLIER_ANSWER_FORMS = {"above": ("上方",), "below": ("下方",)}


def answer_forms(word: str) -> set[str]:
    """Every language's form of an answer a learner may type (``pgettext("answer", word)``, and an earlier
    translation, :data:`EARLIER_ANSWER_FORMS`), lower-cased: a prediction may be given in either language whatever
    the course's language."""
    return (
        {word.strip().lower()}
        | {translation(lang).pgettext("answer", word).strip().lower() for lang in LANGUAGES if lang != "en"}
        | set(EARLIER_ANSWER_FORMS.get(word.strip().lower(), ()))
    )


# ----------------------------------------------------------------------------------------- figure and widget text
_LETTERS = re.compile(r"[A-Za-z]{2}")
#: Shown text -> the English it was translated from, for every text :func:`figure_text` changed in this process.
_FIGURE_SOURCES: dict[str, str] = {}


@functools.lru_cache(maxsize=8192)
def _figure_text(text: str, language: str) -> str:
    if language == "en" or not _LETTERS.search(text):
        return text
    found = translation(language).pgettext("figure", text)
    if found != text:
        return found
    catalog = figures_translation(language)
    found = catalog.gettext(text)
    if found != text:
        return found
    template, numbers = line_template(text)
    translated = catalog.gettext(template)
    return translated.format(*numbers) if translated != template else text


def figure_text(text, language: str | None = None):
    """A figure's or widget's English ``text`` in ``language`` (default: the current one): the package's ``figure``
    context, then the ``figures`` catalog, exact or as a number template (:func:`line_template`); unchanged when
    nothing covers it, and anything not a string is returned as it is."""
    language = _checked(language if language is not None else _language)
    if language == "en" or type(text) is not str:
        return text
    shown = _figure_text(text, language)
    if shown != text:
        _FIGURE_SOURCES[shown] = text
    return shown


def figure_source(shown: str) -> str:
    """The English text that :func:`figure_text` translated into ``shown`` in this process (``shown`` itself if
    none): what the record of a Chinese run stores as the text's source."""
    return _FIGURE_SOURCES.get(shown, shown)


# ----------------------------------------------------------------------------------------- table columns
def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced output: an East Asian wide or full-width character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


_WIDTH_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>^]))?(?P<width>[0-9]+)s?")


class WideText(str):
    """A label that ``format`` pads by display width (:func:`display_width`), not by characters, so that a
    translated label in a printed table (``f"{label:50s}"``) keeps the columns after it in line. A spec other than
    fill, alignment and width (``"<50s"``, ``"50"``) is formatted as for any string; for ASCII text both agree."""

    def __format__(self, spec: str) -> str:
        m = _WIDTH_SPEC.fullmatch(spec)
        if not spec or m is None:
            return format(str(self), spec)
        wide = display_width(self) - len(self)
        width = max(0, int(m["width"]) - wide)
        return format(str(self), f"{m['fill'] or ' '}{m['align'] or '<'}{width}")


# ----------------------------------------------------------------------------------------- output lines
_FORMATTER = string.Formatter()


def _fields(template: str) -> list[tuple[str, str | None]]:
    """(literal text, field name or None) of a ``str.format`` template."""
    return [(lit, name) for lit, name, _spec, _conv in _FORMATTER.parse(template)]


def _fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each field replaced by its already formatted value (format specs and !r are ignored:
    the value was formatted when the English line was printed)."""
    return "".join(lit + (values[name] if name is not None else "") for lit, name in _fields(template))


@functools.cache
def _message_templates(language: str) -> list[tuple[re.Pattern, str]]:
    """(regex of an English message template, its translation) for every translated message with a field,
    longest literal text first (the most specific template wins)."""
    catalog = translation(language)
    messages = getattr(catalog, "_catalog", {})
    out = []
    for msgid, msgstr in messages.items():
        if not isinstance(msgid, str) or not msgid or "\x04" in msgid or not msgstr or msgid == msgstr:
            continue
        parts = _fields(msgid)
        if not any(name for _, name in parts):
            continue
        regex, seen = "", set()
        for lit, name in parts:
            regex += re.escape(lit)
            if name is not None:
                regex += "(.+?)" if name in seen else f"(?P<{name}>.+?)"
                seen.add(name)
        out.append((re.compile(regex + r"\Z", re.S), msgstr, sum(len(lit) for lit, _ in parts)))
    out.sort(key=lambda t: -t[2])
    return [(pattern, msgstr) for pattern, msgstr, _ in out]


def _translate_message(text: str, language: str, depth: int = 0) -> str | None:
    """The translation of ``text`` when it is one of the package's messages (fields translated in turn)."""
    plain = translation(language).gettext(text)
    if plain != text:
        return plain
    if depth > 3:
        return None
    for pattern, msgstr in _message_templates(language):
        m = pattern.match(text)
        if m is None:
            continue
        values = {k: (_translate_message(v, language, depth + 1) or v) for k, v in m.groupdict().items()}
        return _fill(msgstr, values)
    return None


def line_template(line: str) -> tuple[str, list[str]]:
    """A printed line as a template: literal braces doubled, each number (:data:`NUMBER`) replaced by ``{0}``,
    ``{1}``...; and the numbers. ``"loss 2.08 at 8L"`` -> ``("loss {0} at {1}", ["2.08", "8L"])``."""
    numbers: list[str] = []

    def placeholder(m: re.Match) -> str:
        numbers.append(m.group(0))
        return "{" + str(len(numbers) - 1) + "}"

    pieces = [NUMBER.sub(placeholder, part.replace("{", "{{").replace("}", "}}")) for part in [line]]
    return pieces[0], numbers


def translate_line(line: str, language: str | None = None) -> str:
    """One English output line (no newline) in ``language`` (default: the current one); unchanged when no catalog
    entry covers it. The package's messages first (:func:`_translate_message`), then the printed-line templates
    (:func:`line_template`). The build of the Chinese notebooks and a Chinese run share this function."""
    language = _checked(language if language is not None else _language)
    if language == "en" or not line.strip():
        return line
    body = line.rstrip()
    found = _translate_message(body, language)
    if found is None:
        template, numbers = line_template(body)
        translated = output_translation(language).gettext(template)
        if translated != template:
            found = translated.format(*numbers)
    return line if found is None else found + line[len(body) :]


class TranslatingStream:
    """``sys.stdout`` in Chinese: text is held until a newline, then every whole line goes out through
    :func:`translate_line` (a flush sends a held partial line the same way). Anything else is the wrapped stream's."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self._held = ""

    def write(self, text: str) -> int:
        self._held += text
        if "\n" in self._held:
            done, _, self._held = self._held.rpartition("\n")
            self.stream.write("".join(translate_line(line) + "\n" for line in done.split("\n")))
        return len(text)

    def flush(self) -> None:
        if self._held:
            held, self._held = self._held, ""
            self.stream.write(translate_line(held))
        self.stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


#: A Markdown table row (``| a | b |``) and its header rule (``|---|:--:|``).
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")
_TABLE_CELL = re.compile(r"(?<=\|)([^|]*)(?=\|)")


def markdown_pieces(text: str) -> list[str]:
    """The pieces of displayed Markdown that are looked up one by one: each cell of a table row (stripped; header
    rules skipped) and each other non-empty line (whole, its ``#``/``-`` markers included)."""
    pieces = []
    for line in text.split("\n"):
        if _TABLE_RULE.match(line):
            continue
        if _TABLE_ROW.match(line):
            pieces += [cell.strip() for cell in _TABLE_CELL.findall(line.strip()) if cell.strip()]
        elif line.strip():
            pieces.append(line.rstrip())
    return pieces


def translate_markdown(text: str, language: str | None = None) -> str:
    """Displayed Markdown in ``language``: every piece (:func:`markdown_pieces`) through :func:`translate_line`, the
    table's pipes and the spaces around each cell kept; unchanged where no catalog entry covers a piece."""

    def cell(m: re.Match) -> str:
        inner = m.group(1)
        body = inner.strip()
        if not body:
            return inner
        start = inner.index(body)
        return inner[:start] + translate_line(body, language) + inner[start + len(body) :]

    out = []
    for line in text.split("\n"):
        if _TABLE_RULE.match(line) or not line.strip():
            out.append(line)
        elif _TABLE_ROW.match(line):
            out.append(_TABLE_CELL.sub(cell, line))
        else:
            out.append(translate_line(line, language))
    return "\n".join(out)


def _markdown_in_language(obj) -> str | tuple | None:
    """IPython's ``text/markdown`` form of a :class:`IPython.display.Markdown` object, translated."""
    data = obj._repr_markdown_()
    if isinstance(data, tuple):
        return (translate_markdown(data[0]), *data[1:])
    return None if data is None else translate_markdown(data)


def _install_markdown(on: bool) -> None:
    """Register (or remove) :func:`_markdown_in_language` with the running IPython's ``text/markdown`` formatter;
    nothing outside IPython."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    formatters = getattr(getattr(shell, "display_formatter", None), "formatters", {})
    if "text/markdown" not in formatters:
        return
    from IPython.display import Markdown

    if on:
        formatters["text/markdown"].for_type(Markdown, _markdown_in_language)
    else:
        formatters["text/markdown"].type_printers.pop(Markdown, None)


def _install_stdout(on: bool) -> None:
    """Wrap ``sys.stdout`` in a :class:`TranslatingStream` (once) or unwrap it."""
    current = sys.stdout
    if on and not isinstance(current, TranslatingStream) and current is not None:
        sys.stdout = TranslatingStream(current)
    elif not on and isinstance(current, TranslatingStream):
        current.flush()
        sys.stdout = current.stream


set_language(os.environ.get(ENV_VAR, "en") or "en")
