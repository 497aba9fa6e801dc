"""Assertions shared by the chapter plot tests."""


def assert_text_inside(fig, context=None) -> None:
    """Every axes' labels, ticks and titles lie inside the figure (panels are shown without a tight bbox)."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        box = ax.get_tightbbox(renderer)
        assert box.x0 >= -1 and box.y0 >= -1, (context, box)
        assert box.x1 <= fig.bbox.x1 + 1 and box.y1 <= fig.bbox.y1 + 1, (context, box)
