"""Thin ipywidgets panels wiring sliders to :mod:`helpers.plots`, one module per chapter.

Each panel's redraw function is a plain function (tests call it without a browser). Only APIs that
ipywidgets 7.7 (Colab) and 8 both have are used: ``interactive_output``/``interact``, IntSlider,
FloatSlider, FloatLogSlider, Dropdown, Checkbox, HBox/VBox, Output.
"""
