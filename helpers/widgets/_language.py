"""Widget text in the course's language: every widget a panel or a notebook's code builds shows its description,
option labels (never the values) and a Label's text through :func:`helpers.i18n.figure_text` while the language is
not English, and again whenever its code sets them (ipywidgets' widget-construction callback, installed and removed
by :func:`follow_language`, a hook of :func:`helpers.i18n.on_language_change`). In English nothing is installed."""

from __future__ import annotations

from ipywidgets import Widget

from helpers.i18n import current_language, figure_text, on_language_change


def _translate_trait(widget, name: str) -> None:
    value = getattr(widget, name, None)
    shown = figure_text(value)
    if shown != value:
        setattr(widget, name, shown)


def _translate_options(widget) -> None:
    """A selection widget's option labels in the language; its values, index and value untouched. Skipped when two
    labels would read the same (the label would no longer say which option it is)."""
    labels = tuple(widget._options_labels)
    shown = tuple(figure_text(label) for label in labels)
    if shown == labels or len(set(shown)) != len(shown):
        return
    widget.set_trait("_options_labels", shown)
    label = getattr(widget, "label", None)
    if isinstance(label, str) and label in labels:
        widget.label = shown[labels.index(label)]
    elif isinstance(label, tuple) and all(item in labels for item in label):
        widget.label = tuple(shown[labels.index(item)] for item in label)


def _widget_constructed(widget) -> None:
    """ipywidgets' construction callback in a language other than English: the new widget's description, option
    labels and Label text translated (:func:`figure_text`) now and whenever its code sets them again."""
    if current_language() == "en":
        return
    if isinstance(getattr(widget, "description", None), str):
        _translate_trait(widget, "description")
        widget.observe(lambda change: _translate_trait(change.owner, "description"), names="description")
    if hasattr(widget, "_options_labels"):
        _translate_options(widget)
        widget.observe(lambda change: _translate_options(change.owner), names="options")
    if type(widget).__name__ == "Label":
        _translate_trait(widget, "value")
        widget.observe(lambda change: _translate_trait(change.owner, "value"), names="value")


def follow_language(language: str) -> None:
    """Register (in a language other than English) or remove :func:`_widget_constructed` as ipywidgets'
    widget-construction callback (a hook of :func:`helpers.i18n.on_language_change`)."""
    if language != "en":
        Widget.on_widget_constructed(_widget_constructed)
    elif Widget._widget_construction_callback is _widget_constructed:
        Widget.on_widget_constructed(None)


on_language_change(follow_language)
