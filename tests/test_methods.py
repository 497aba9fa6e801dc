"""The one vocabulary: scaling-method identifiers are the registry's keys (each spec carries its entry), every entry
is complete."""

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


def test_the_vocabulary_is_each_spec_s_info_in_the_registry_s_order():
    """Each entry is written once, in its spec, and registered when helpers.scaling is imported."""
    assert list(methods.SCALING_METHODS) == list(scaling.ROPE_SCALING)
    assert all(methods.SCALING_METHODS[name] is spec.info for name, spec in scaling.ROPE_SCALING.items())


def test_registering_refuses_a_family_name_and_a_second_entry():
    info = methods.MethodInfo("another label", "black", "-", "a description", "")
    with pytest.raises(ValueError, match=r"'rope' is a positional family"):
        methods.register_scaling_method("rope", info)
    with pytest.raises(ValueError, match=r"scaling method 'linear' is already registered"):
        methods.register_scaling_method("linear", info)
    with pytest.raises(TypeError, match=r"takes a name \(str\) and a MethodInfo"):
        methods.register_scaling_method("new", ("label", "black"))
    methods.register_scaling_method("linear", scaling.ROPE_SCALING["linear"].info)  # the same entry again: no-op
    assert list(methods.SCALING_METHODS) == list(scaling.ROPE_SCALING)


def test_a_scaling_name_before_the_registry_is_imported_says_so():
    """helpers.methods alone knows the families; a scaling name raises, saying where scaling methods come from."""
    import subprocess
    import sys

    code = (
        "import helpers.methods as m\n"
        "print(m.method_info('rope').label)\n"
        "try:\n    m.method_info('linear')\nexcept ValueError as e:\n    print(e)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("RoPE\n") and "registered when helpers.scaling is imported" in out


def test_unknown_method_names_the_value_and_the_choices():
    with pytest.raises(ValueError, match=r"unknown method 'PI'; known methods: \[.*'linear'"):
        methods.method_info("PI")
    with pytest.raises(TypeError, match="name must be a method identifier"):
        methods.method_info(3)
