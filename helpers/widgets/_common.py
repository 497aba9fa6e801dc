"""The one widget toolkit every chapter's panels use (ipywidgets 7.7 and 8 compatible).

* sliders with their unit in the description (:func:`int_slider`, :func:`float_slider`, :func:`log_slider`) and
  :func:`dropdown`;
* :class:`Layout` and :func:`fixed_axes`: a figure of fixed size and margins (no layout engine, no tight bbox);
* :class:`View` and :func:`view_on`: a figure's artists created once and updated in place on every redraw;
* :func:`png_bytes` at :data:`DPI`, and :func:`panel`, which wires controls to a draw function and shows its PNG.

A chapter's ``draw_*(…, fig=None)`` is ``view_on(SomeView, fig).update(…)``: the static notebook cell calls it
without ``fig`` (a new pyplot figure), the panel with its one kept figure. Speed: a redraw sets data and texts of
existing artists and renders one PNG; it creates no figure, axes, ticks or legend.
"""

from __future__ import annotations

import io
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as W
import matplotlib.pyplot as plt
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

STYLE = {"description_width": "initial"}
LAYOUT = W.Layout(width="380px")


def _slider(kind, description: str, *, heavy: bool, **options) -> W.Widget:
    """A slider of ``kind`` with its unit in the description; ``heavy`` redraws on release only."""
    return kind(description=description, style=STYLE, layout=LAYOUT, continuous_update=not heavy, **options)


def int_slider(description: str, value: int, lo: int, hi: int, step: int = 1, *, heavy: bool = False) -> W.IntSlider:
    """An IntSlider with its unit in the description (e.g. "position m"); ``heavy`` redraws on release only."""
    return _slider(W.IntSlider, description, heavy=heavy, value=value, min=lo, max=hi, step=step)


def float_slider(
    description: str, value: float, lo: float, hi: float, step: float, *, heavy: bool = False, fmt: str = ".2f"
) -> W.FloatSlider:
    """A FloatSlider over [lo, hi]; ``fmt`` formats its readout."""
    return _slider(W.FloatSlider, description, heavy=heavy, value=value, min=lo, max=hi, step=step, readout_format=fmt)


def log_slider(
    description: str,
    value: float,
    lo_exp: float,
    hi_exp: float,
    step: float = 0.1,
    *,
    base: float = 10,
    heavy: bool = False,
    fmt: str = ".3g",
) -> W.FloatLogSlider:
    """A slider over base**[lo_exp, hi_exp] (e.g. the RoPE base from 10^2 to 10^7)."""
    return _slider(
        W.FloatLogSlider,
        description,
        heavy=heavy,
        value=value,
        base=base,
        min=lo_exp,
        max=hi_exp,
        step=step,
        readout_format=fmt,
    )


def dropdown(description: str, options, value) -> W.Dropdown:
    """A Dropdown of ``options`` ([(label, value), ...] or values) at the panels' width, showing ``value``."""
    return W.Dropdown(options=options, value=value, description=description, style=STYLE, layout=LAYOUT)


#: The inline backend's resolution, so that a panel looks like the static figure above it.
DPI = 100


@dataclass(frozen=True)
class Layout:
    """A panel figure's size (inches) and fixed subplot parameters: no layout engine, no tight bounding box.

    Fixed margins mean a redraw measures no text to place the axes; every label must fit inside them (the chapter
    tests check it with :func:`matplotlib.axes.Axes.get_tightbbox`).
    """

    figsize: tuple[float, float]
    left: float
    bottom: float
    right: float
    top: float
    nrows: int = 1
    ncols: int = 1
    wspace: float | None = None
    hspace: float | None = None
    width_ratios: tuple[float, ...] | None = None
    sharex: bool = False


def fixed_axes(layout: Layout, fig=None):
    """``(fig, axes)``: the layout's grid of axes at fixed margins on ``fig`` (default: a new pyplot figure).

    ``axes`` is one Axes for a 1 × 1 grid, else a flat array of them.
    """
    if fig is None:
        fig = plt.figure(figsize=layout.figsize)
    gridspec = {"width_ratios": layout.width_ratios} if layout.width_ratios else None
    axes = fig.subplots(layout.nrows, layout.ncols, sharex=layout.sharex, squeeze=True, gridspec_kw=gridspec)
    if layout.nrows * layout.ncols > 1:
        axes = axes.ravel()
    fig.subplots_adjust(
        left=layout.left,
        bottom=layout.bottom,
        right=layout.right,
        top=layout.top,
        wspace=layout.wspace,
        hspace=layout.hspace,
    )
    return fig, axes


class View:
    """The artists of one panel figure, created once (``__init__``) and updated in place (:meth:`update`).

    Subclasses set :attr:`layout` and implement ``setup(axes)`` (create every artist, with placeholder data) and
    ``update(**values)`` (set every value-dependent property and return what the draw function returns). Because a
    fresh figure runs the same ``update``, a panel after any number of moves shows exactly what a fresh draw shows.
    """

    layout: Layout

    def __init__(self, fig, **data):
        self.fig, self.axes = fixed_axes(self.layout, fig)
        self.data = data  # what the view was built for (e.g. precomputed tables), fixed for its figure
        self.setup(self.axes, **data)

    def setup(self, axes, **data) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def update(self, **values):  # pragma: no cover - every subclass defines it
        raise NotImplementedError


_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # figure -> its view


def view_on(kind: type[View], fig=None, **data) -> View:
    """The ``kind`` view drawn on ``fig``, made on first use (``fig=None``: a new pyplot figure of its size).

    ``data``: what the view is built for (precomputed tables a panel keeps); a figure's view keeps the objects it
    was built with, and asking for it with other objects raises (draw on a new figure instead).
    """
    if fig is None:
        fig = plt.figure(figsize=kind.layout.figsize)
    view = _VIEWS.get(fig)
    if view is None:
        view = _VIEWS[fig] = kind(fig, **data)
    elif not isinstance(view, kind):
        raise ValueError(f"this figure shows a {type(view).__name__}, not a {kind.__name__}")
    elif view.data.keys() != data.keys() or any(view.data[k] is not v for k, v in data.items()):
        raise ValueError(
            f"this figure's {kind.__name__} was built for other data ({sorted(view.data)}): use a new figure"
        )
    return view


def png_bytes(fig, *, dpi: float = DPI) -> bytes:
    """Render a figure to PNG at its own size: no ``bbox_inches="tight"`` (which lays the figure out twice).

    zlib level 1 encodes several times faster than the default level 6, for ~15 % larger PNGs.
    """
    buf = io.BytesIO()
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)  # attach an Agg canvas (pyplot figures already have one)
    fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def panel(
    draw: Callable[..., object],
    controls: dict[str, W.Widget],
    *,
    layout: Layout,
    columns: int = 1,
    hold: dict | None = None,
) -> W.VBox:
    """The one panel builder: controls above one output area showing ``draw(**values, fig=fig)`` as a PNG.

    ``controls``: {keyword of ``draw``: widget}. One :class:`~matplotlib.figure.Figure` of ``layout.figsize`` is kept
    (not registered with pyplot, so nothing else displays it) and passed to every redraw; ``draw`` updates its
    artists in place (:class:`View`). Every change renders one PNG at the figure's own size (:func:`png_bytes`) into
    the output area, which ``interactive_output`` clears with ``wait=True``: the page neither grows nor flickers.
    While ``hold["on"]`` is true a change does not redraw: set it around an update that moves several controls at
    once (the change that caused it then redraws once, with every new value). ipywidgets 7.7 and 8 both have
    everything used here.
    """
    fig = Figure(figsize=layout.figsize, dpi=DPI)
    FigureCanvasAgg(fig)
    hold = {"on": False} if hold is None else hold

    def render(**values):
        if not hold["on"]:
            draw(**values, fig=fig)
            display(Image(data=png_bytes(fig), format="png"))

    out = W.interactive_output(render, controls)
    boxes = list(controls.values())
    rows = [W.HBox(boxes[i : i + columns]) for i in range(0, len(boxes), columns)]
    return W.VBox([*rows, out])
