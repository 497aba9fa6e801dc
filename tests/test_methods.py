"""The one vocabulary: scaling-method identifiers are the registry's keys, every entry is complete."""

import pytest

from helpers import methods, scaling


def test_scaling_methods_are_exactly_the_registry_keys():
    assert set(methods.SCALING_METHODS) == set(scaling.ROPE_SCALING)


@pytest.mark.parametrize("name", [*methods.SCALING_METHODS, *methods.POSITIONAL_FAMILIES])
def test_every_entry_is_complete(name):
    info = methods.method_info(name)
    assert info.label and info.color and info.linestyle and info.description
    assert methods.method_style(name) == {"color": info.color, "ls": info.linestyle, "label": info.label}


def test_labels_are_unique_within_each_table():
    for table in (methods.SCALING_METHODS, methods.POSITIONAL_FAMILIES):
        labels = [info.label for info in table.values()]
        assert len(labels) == len(set(labels))


def test_unknown_method_names_the_value_and_the_choices():
    with pytest.raises(ValueError, match=r"unknown method 'PI'; known methods: \[.*'linear'"):
        methods.method_info("PI")
    with pytest.raises(TypeError, match="name must be a method identifier"):
        methods.method_info(3)
