"""Assertions and helpers shared by the chapter plot and panel tests."""

from __future__ import annotations


def assert_text_inside(fig, context=None) -> None:
    """Every axes' labels, ticks and titles lie inside the figure (panels are shown without a tight bbox)."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        box = ax.get_tightbbox(renderer)
        assert box.x0 >= -1 and box.y0 >= -1, (context, box)
        assert box.x1 <= fig.bbox.x1 + 1 and box.y1 <= fig.bbox.y1 + 1, (context, box)


def panel_controls(panel) -> dict:
    """A panel's controls by description: every widget in the rows above its output area."""
    return {c.description: c for row in panel.children[:-1] for c in row.children}


def moved_value(control):
    """A valid value of ``control`` other than its current one: the far end of a slider, another option."""
    if hasattr(control, "options"):
        values = [o[1] if isinstance(o, tuple) else o for o in control.options]
        return next(v for v in values if v != control.value)
    if isinstance(control.value, bool):
        return not control.value
    if hasattr(control, "base"):  # FloatLogSlider: min/max are exponents
        top = control.base**control.max
        return top if abs(control.value - top) > 1e-9 * top else control.base**control.min
    return control.max if control.value != control.max else control.min
