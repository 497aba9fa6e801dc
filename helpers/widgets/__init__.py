"""Thin ipywidgets panels wiring sliders to :mod:`helpers.plots`, one module per notebook: ``blindness`` (01),
``sinusoidal`` (02), ``learned`` (03), ``rope`` (04), ``extension`` (05), ``score_biases`` (06), ``real`` (07), ``modern`` (08),
``position_2026`` (09), and
``lab`` (05's live run of a trained lab model); ``_common`` is the toolkit every panel is built with, and
``_language`` shows widget text in the course's language (Chinese labels from the catalogs).

Each panel's redraw function is a plain function (tests call it without a browser). Only APIs that
ipywidgets 7.7 (Colab) and 8 both have are used: ``interactive_output``/``interact``, IntSlider,
FloatSlider, FloatLogSlider, Dropdown, Checkbox, HBox/VBox, Output, Image (a panel's frames, see ``_common``).
"""
