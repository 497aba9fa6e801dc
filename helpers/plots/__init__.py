"""Pure matplotlib figures: every function takes ``ax=None`` (or ``axes``), draws, returns the axes.

No widgets here (see :mod:`helpers.widgets`). One module per chapter so that each lesson's figures live
together: ``blindness`` (01), ``sinusoidal`` (02), ``learned`` (03), ``rope`` (04), ``extension`` (05).
"""

from helpers.plots._style import new_axes

__all__ = ["new_axes"]
