"""Pure matplotlib figures, one module per notebook: ``blindness`` (01), ``sinusoidal`` (02), ``learned`` (03),
``rope`` (04), ``extension`` (05; the methods side by side in ``extension_compared``, re-exported by
``extension``), ``remap`` (Dual Chunk Attention's remapped positions), ``score_biases`` (06), ``real`` (07),
``modern`` (08), ``position_2026`` (09), and ``lab`` (the tiny-model lab's stored results, 03 and 05); ``_style`` holds the shared axes and CJK font helpers.

Every ``plot_*`` function takes ``ax=None`` (or ``axes=None``), draws and returns the axes. Figures behind a slider
are drawing classes (e.g. :class:`helpers.plots.rope.Wavelengths`): built once on an axes, then ``update(...)`` sets
their data in place; the ``plot_*`` function is that class drawn once. No widgets here (see :mod:`helpers.widgets`),
no torch and no computation: the numbers come from the maths modules (:mod:`helpers.rope`, :mod:`helpers.scaling`,
:mod:`helpers.sinusoidal`, :mod:`helpers.learned`, :mod:`helpers.attention`), method names, labels and colours from
:mod:`helpers.methods`.

Conventions: how the notebooks (and the docs) import the package, the same in every chapter::

    from helpers import attention, rope, scaling, sinusoidal, learned, methods   # maths modules by their own names
    from helpers.plots import rope as rope_plots                                 # <chapter>_plots
    from helpers.widgets import rope as rope_widgets                             # <chapter>_widgets

and every ``draw_*`` / ``plot_*`` call with more than two arguments passes them by keyword.
"""

from helpers.plots._style import cjk_font, new_axes

__all__ = ["cjk_font", "new_axes"]
