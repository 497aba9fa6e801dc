"""The one widget toolkit every chapter's panels use (ipywidgets 7.7 and 8 compatible).

* sliders with their unit in the description (:func:`int_slider`, :func:`float_slider`, :func:`log_slider`) and
  :func:`dropdown`;
* :class:`Layout` and :func:`fixed_axes`: a figure of fixed size and margins (no layout engine, no tight bbox);
* :class:`View` and :func:`view_on`: a figure's artists created once and updated in place on every redraw;
* :func:`png_bytes` at :data:`DPI`, and :func:`panel`, which wires controls to a draw function and shows its PNG.

A chapter's ``draw_*(…, fig=None)`` is ``view_on(SomeView, fig).update(…)``: the static notebook cell calls it
without ``fig`` (a new pyplot figure), the panel with its one kept figure. Speed: a redraw sets data and texts of
existing artists and renders one PNG; it creates no figure, axes, ticks or legend.

Redrawing only what moved (blitting). A panel does not re-rasterise its whole figure on every move: :class:`Frames`
keeps the figure's static background (axes, ticks, labels, static lines; Agg's ``copy_from_bbox``) and, on a move,
restores it and draws only the *moving* artists on it (``restore_region`` + ``draw_artist``), then encodes the PNG.
The whole figure is drawn again only when something static changed: an axes' limits, scales, position, tick locations
or tick labels, an axis label, or the set of artists (one added or removed, e.g. a legend rebuilt with new entries).
How a View declares its moving artists:

* override :meth:`View.moving_artists` to return the artists that ``update`` changes on a move (lines, collections,
  texts, titles, a legend whose texts change); they are drawn on top of the background on every frame, in the order
  a full draw would draw them. Declaring is optional:
* any other artist that ``update`` changed (matplotlib marks it ``stale``) is found after the move and becomes moving
  from then on (that one frame is a full redraw), so an undeclared View is never shown stale pixels, only slower on
  the first move of each control;
* artists above a moving one in the same axes (higher ``zorder``: spines, texts, legends) are drawn with it, so the
  layering is that of a full draw: a blitted frame equals a fresh drawing pixel for pixel (``tests/test_panels.py``);
* a View whose axes must not move keeps fixed limits that cover its controls' whole range: a limit that follows the
  data makes every move a full redraw, unless
* an axis itself is declared moving (``ax.xaxis`` or ``ax.yaxis`` among the moving artists): its limits, ticks,
  tick labels and label are then drawn on every frame and are not part of the background, so they may follow the
  values (tokens as tick labels, a range a slider chooses, a y label a toggle changes). The View promises that no
  static artist of that axes depends on that direction's limits (declare such artists moving too); the pixel
  comparison with a fresh drawing (``tests/test_panels.py``) checks it.

Axes side by side (one row or one column of axes, :class:`Strips`), in a View that sets
:attr:`View.keeps_unchanged_axes`: a move that changes nothing in one of them (05's YaRN panel: the scale factor
leaves the ramp on the left as it is) keeps that axes' strip of the last frame instead of drawing its moving artists
again; exact because every axes' moving artists are checked to stay in their strip, and because such a View changes
its artists only through matplotlib's setters (which mark them ``stale``).

Drawing what moved, faster (matplotlib 3.11; older versions draw the same pixels the slower way). A moving legend,
title or tick label is mostly text, redrawn on every frame with strings seen before. A panel's canvas
(:class:`GlyphCacheCanvas`) keeps each string's glyph layout and each glyph's FreeType bitmap per 1/64-pixel phase
(:class:`GlyphCacheRenderer`), each string drawn at one place as a few images of its glyphs, one per run of glyphs
that share no pixel (:func:`_merged`), and each text's layout by everything it depends on (:func:`_text_layout_key`);
a legend's nested boxes are measured once per frame (:func:`_offsetbox_layouts_once`); the PNG is encoded without
filters in bands of rows, a band that did not change since the last frame not compressed again (:func:`png_of_rgba`).
All of these give the same pixels and bytes as the uncached path (``tests/test_panels.py`` compares every frame with
a fresh drawing on a plain Agg canvas).

The frame is shown in an :class:`ipywidgets.Image` whose ``value`` is replaced (one binary message; the output area
is not cleared and no base64 is decoded), inside the panel's last child, an :class:`ipywidgets.Output` (so a panel
is still ``VBox([*rows of controls, Output])``). Both work under ipywidgets 7.7 (Colab) and 8. For the benchmark only,
``PE_PANEL_REDRAW=full`` (the whole figure on every move, through ``savefig``) and ``PE_PANEL_TRANSPORT=output``
(``display(Image)`` into the cleared output area, as ``interactive_output`` does) bring back the previous code path,
``PE_PANEL_RASTER=plain`` Agg's own text drawing and PIL's PNG encoder (no caches: the same pixels, slower);
``PE_PANEL_TIMING_LOG=<file>`` appends one JSON line per frame (the kernel's time: draw, frame, whole redraw).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import struct
import time
import weakref
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MethodType

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Image, display
from matplotlib.artist import Artist
from matplotlib.axis import Axis
from matplotlib.backends import backend_agg
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.offsetbox import OffsetBox
from matplotlib.spines import Spine
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from PIL import Image as PILImage

from helpers.widgets import _language  # noqa: F401  (widget text follows the course's language from here on)

STYLE = {"description_width": "initial"}
LAYOUT = W.Layout(width="380px")


def _slider(kind, description: str, **options) -> W.Widget:
    """A slider of ``kind`` with its unit in the description. Every panel redraws while its slider is dragged
    (``continuous_update``): a frame costs a few tens of ms (docs/benchmarks.md), and the widget sends the next value
    only once the kernel has taken the last one, so a drag never queues up moves."""
    return kind(description=description, style=STYLE, layout=LAYOUT, continuous_update=True, **options)


def int_slider(description: str, value: int, lo: int, hi: int, step: int = 1) -> W.IntSlider:
    """An IntSlider with its unit in the description (e.g. "position m")."""
    return _slider(W.IntSlider, description, value=value, min=lo, max=hi, step=step)


def float_slider(
    description: str, value: float, lo: float, hi: float, step: float, *, fmt: str = ".2f"
) -> W.FloatSlider:
    """A FloatSlider over [lo, hi]; ``fmt`` formats its readout."""
    return _slider(W.FloatSlider, description, value=value, min=lo, max=hi, step=step, readout_format=fmt)


def log_slider(
    description: str,
    value: float,
    lo_exp: float,
    hi_exp: float,
    step: float = 0.1,
    *,
    base: float = 10,
    fmt: str = ".3g",
) -> W.FloatLogSlider:
    """A slider over base**[lo_exp, hi_exp] (e.g. the RoPE base from 10^2 to 10^7)."""
    return _slider(
        W.FloatLogSlider,
        description,
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
    #: Axes side by side: a move that changes nothing in one of them keeps its pixels from the last frame
    #: (:class:`Strips`). Only for views whose ``update`` changes artists through matplotlib's setters, which mark them
    #: ``stale``: a change made in place (an annotation's ``xy``, an array written into) would keep old pixels.
    keeps_unchanged_axes: bool = False

    def __init__(self, fig, **data):
        self.fig, self.axes = fixed_axes(self.layout, fig)
        self.data = data  # what the view was built for (e.g. precomputed tables), fixed for its figure
        self.setup(self.axes, **data)

    def setup(self, axes, **data) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def update(self, **values):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def moving_artists(self) -> Iterable[Artist]:
        """The artists ``update`` changes on a move (drawn on the cached background on every frame, see
        :class:`Frames`). Default: none declared; the ones a move changes are then found after that move."""
        return ()


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

    At the figure's own dpi the bytes are those of a panel's frame showing the same pixels (one encoder,
    :func:`png_of_rgba`); at another dpi ``savefig`` writes them (PIL, zlib level 1: several times faster than the
    default level 6, for ~15 % larger PNGs).
    """
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)  # attach an Agg canvas (pyplot figures already have one)
    if dpi == fig.dpi and fig not in _FRAMES:  # a panel's figure has animated artists, which only savefig draws
        fig.canvas.draw()
        return encode_png(fig.canvas)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def encode_png(canvas: FigureCanvasAgg, bands: dict | None = None) -> bytes:
    """The Agg canvas's current pixels as an RGBA PNG (:func:`png_of_rgba`; ``bands``: its cache of bands)."""
    return png_of_rgba(np.asarray(canvas.buffer_rgba()), bands)


#: Rows per independently compressed band of a PNG (:func:`png_of_rgba`).
PNG_BAND_ROWS = 16


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _drawn(canvas: FigureCanvasAgg) -> FigureCanvasAgg:
    canvas.draw()
    return canvas


def png_of_rgba(rgba: np.ndarray, bands: dict | None = None) -> bytes:
    """An RGBA image ``(H, W, 4)`` uint8 as PNG bytes: filter "none" on every row, zlib level 1.

    PNG (ISO/IEC 15948, sections 6.3 and 10): each row is a filter-type byte (0: none) and the row's bytes; the rows
    go through one zlib stream (RFC 1950) of deflate blocks (RFC 1951). Here every :data:`PNG_BAND_ROWS` rows are
    deflated on their own and end on a byte boundary (``Z_SYNC_FLUSH``, no reference to an earlier band), so a
    band's compressed bytes depend only on its pixels: ``bands`` (one dict per panel) keeps the last frame's rows
    and compressed bands, and a band whose pixels did not change is not compressed again. The bytes are a function
    of the pixels alone, cached or not. Against PIL at the same zlib level (adaptive filters) it encodes and decodes
    several times faster for about as many bytes (``python benchmarks/panel_redraw.py --png``).
    """
    height, width, channels = rgba.shape
    if channels != 4 or rgba.dtype != np.uint8:
        raise ValueError(f"png_of_rgba takes (H, W, 4) uint8 pixels, not {rgba.shape} {rgba.dtype}")
    rows = np.empty((height, 4 * width + 1), np.uint8)  # (H, 1 + 4W): filter byte 0, then the row's RGBA bytes
    rows[:, 0] = 0
    rows[:, 1:] = rgba.reshape(height, 4 * width)
    bands = {} if bands is None else bands
    previous = bands.get("rows")
    if previous is None or previous.shape != rows.shape:
        bands.clear()
    deflated = []
    for top in range(0, height, PNG_BAND_ROWS):
        band = rows[top : top + PNG_BAND_ROWS]  # (≤ PNG_BAND_ROWS, 1 + 4W), contiguous
        if top not in bands or not np.array_equal(band, previous[top : top + PNG_BAND_ROWS]):
            deflate = zlib.compressobj(1, zlib.DEFLATED, -15)  # raw deflate: the zlib header and checksum are below
            bands[top] = deflate.compress(band) + deflate.flush(zlib.Z_SYNC_FLUSH)
        deflated.append(bands[top])
    bands["rows"] = rows
    last = zlib.compressobj(1, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)  # an empty final block
    stream = b"\x78\x01" + b"".join(deflated) + last + struct.pack(">I", zlib.adler32(rows))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits per channel, RGBA, no interlace
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", stream) + _png_chunk(b"IEND", b"")


def _pil_png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas's pixels through PIL at zlib level 1 (the encoder before :func:`png_of_rgba`; benchmark only)."""
    width, height = canvas.get_width_height(physical=True)
    image = PILImage.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buf = io.BytesIO()
    image.save(buf, format="png", compress_level=1)
    return buf.getvalue()


#: The glyph bitmaps ({face: {glyph and phase: bitmap}}) and text layouts the panels' renderers keep
#: (:class:`GlyphCacheRenderer`), shared by all panels.
_GLYPHS: dict = {}
_LAYOUTS: dict = {}
#: Entries kept at most in each cache (then it starts again empty): ~10⁵ glyph bitmaps are a few tens of MB.
GLYPH_CACHE_SIZE = 100_000
#: Each string drawn at one place, ready to blend (:func:`_merged`), keyed by its layout and exact position; a
#: panel's static texts (legend entries, titles, tick labels) are then one to a few blends each per frame. At most
#: :data:`STAMP_CACHE_SIZE` strings (a few kB each).
_STAMPS: dict = {}
STAMP_CACHE_SIZE = 5_000


def _glyph_api() -> bool:
    """Does this matplotlib draw text glyph by glyph at 1/64-pixel positions (3.11), as the caches assume?"""
    from matplotlib import ft2font

    return hasattr(RendererAgg, "_draw_text_glyphs_and_boxes") and all(
        hasattr(ft2font.FT2Font, name) for name in ("_layout", "_render_glyph", "_set_transform")
    )


class GlyphCacheRenderer(RendererAgg):
    """Agg's renderer, keeping each text's glyph layout and each glyph's bitmap: the same pixels, drawn faster.

    Agg (matplotlib 3.11, ``RendererAgg.draw_text``) lays a string out into glyphs (FreeType + HarfBuzz, a few ms per
    string), then renders each glyph with FreeType at its position in 1/64 pixel (26.6 fixed point) and blends the
    bitmap at whole-pixel offsets. A panel draws the same strings (legend entries, tick labels, titles) on every
    frame, so this renderer keeps (1) each string's layout, keyed by font, size, dpi, hinting, features and language,
    and (2) each glyph's coverage bitmap, keyed by font, size, dpi, glyph, angle, hinting, antialiasing and the
    *fractional* part of its 26.6 position: moving a FreeType outline by whole pixels moves its bitmap by whole pixels
    and leaves the bitmap unchanged, so the cached bitmap blended at the new whole-pixel offset is what FreeType
    would render there, bit for bit (``tests/test_panels.py`` compares every frame with an uncached fresh drawing).
    Colour, alpha and clipping are applied when blending (``draw_text_image``), as in Agg. Mathtext, TeX and
    matplotlib versions without this glyph path are drawn by :class:`RendererAgg` itself.
    """

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath:
            return super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        font = self._prepare_font(prop)
        size = prop.get_size_in_points()
        flags = backend_agg.get_hinting_flag()
        features = mtext.get_fontfeatures() if mtext is not None else None
        language = mtext.get_language() if mtext is not None else None
        key = (font, size, self.dpi, s, flags, _hashable(features), _hashable(language))
        stamp_key = (key, x, y, angle, gc.get_antialiased(), self.height)
        stamp = _STAMPS.get(stamp_key)
        if stamp is None:
            glyphs = _LAYOUTS.get(key)
            if glyphs is None:
                items = font._layout(s, flags=flags, features=features, language=language)
                glyphs = [(item.ft_object, item.glyph_index, item.x, item.y) for item in items]
                _store(_LAYOUTS, key, glyphs)
            stamp = _merged(self._placed_glyphs(gc, x, y, angle, size, flags, glyphs))
            _store(_STAMPS, stamp_key, stamp, limit=STAMP_CACHE_SIZE)
        draw_text_image = self._renderer.draw_text_image
        for buffer, column, row in stamp:
            draw_text_image(buffer, column, row, 0, gc)

    def _get_font_height_metrics(self, prop) -> tuple:
        """(ascent, descent, line gap) in pixels of ``prop``'s font, from its OS/2 or hhea table, cached.

        matplotlib 3.11's ``Text._get_layout`` asks the renderer for this if it can (else it reads the same tables
        itself on every layout, twice per text); same tables, same arithmetic, so the same numbers."""
        key = (tuple(_font_files(prop)), prop.get_size_in_points(), self.dpi)
        metrics = _LAYOUTS.get(key)
        if metrics is None:
            metrics = _font_height_metrics(prop, self.dpi)
            _store(_LAYOUTS, key, metrics)
        return metrics

    def _placed_glyphs(self, gc, x: float, y: float, angle: float, size: float, flags, glyphs) -> list[tuple]:
        """Where ``RendererAgg._draw_text_glyphs_and_boxes`` (without boxes) blends each glyph of a string drawn at
        (x, y): [(coverage (rows, columns) uint8, left column, bottom row + 1 counted from the top)], the arguments
        of ``draw_text_image``; each glyph's bitmap rendered once per sub-pixel phase."""
        from matplotlib.ft2font import RenderMode

        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        antialiased = gc.get_antialiased()
        height = self.height
        face = (size, self.dpi, angle, flags, antialiased)  # what every glyph of this string shares
        bitmaps = _GLYPHS.get(face)
        if bitmaps is None or len(bitmaps) >= GLYPH_CACHE_SIZE:
            bitmaps = _GLYPHS[face] = {}
        top_row = int(height)
        placed = []
        for font, glyph_index, dx, dy in glyphs:  # dx, dy: the glyph's pen position in pixels (dy upwards)
            px = round(0x40 * (x + dx * cos - dy * sin))  # 26.6 fixed point; FreeType's y is upwards
            py = round(0x40 * (height - y + dx * sin + dy * cos))
            key = (font, glyph_index, px & 0x3F, py & 0x3F)
            cached = bitmaps.get(key)
            if cached is None:
                font.set_size(size, self.dpi)
                matrix = (0x10000 * np.array([[cos, -sin], [sin, cos]])).round().astype(int)
                font._set_transform(matrix, [px, py])
                bitmap = font._render_glyph(glyph_index, flags, RenderMode.NORMAL if antialiased else RenderMode.MONO)
                buffer = np.array(bitmap.buffer)  # (rows, columns) coverage, a copy the cache owns
                if not antialiased:
                    buffer *= 0xFF
                # offsets from the whole pixel (px >> 6, py >> 6): left column, and bottom row below the top
                cached = bitmaps[key] = (buffer, bitmap.left - (px >> 6), buffer.shape[0] - bitmap.top + (py >> 6))
            buffer, left, bottom = cached
            placed.append((buffer, left + (px >> 6), top_row + bottom - (py >> 6)))
        return placed


def _merged(placed: list[tuple]) -> list[tuple]:
    """A string's placed glyphs (:meth:`GlyphCacheRenderer._placed_glyphs`) as few coverage images: each run of
    consecutive glyphs of which no two cover the same pixel becomes one image.

    ``draw_text_image`` blends each pixel by its own coverage and leaves a pixel of coverage 0 as it is, so blending
    glyphs that cover disjoint pixels one by one equals blending their sum once; where a glyph's ink meets the run
    before it (neighbours whose antialiased edges share a pixel column, kerned pairs, combining marks) the order of
    blending matters, and it starts the next run: the runs are blended in the string's order."""
    placed = [p for p in placed if p[0].size]  # a space has no bitmap
    if len(placed) < 2:
        return placed
    left, top, right, bottom = _box(placed)
    ink = np.zeros((bottom - top, right - left), np.uint8)  # (rows, columns): the current run's coverage

    def image_of(run: list[tuple]) -> tuple:
        if len(run) == 1:
            return run[0]
        x0, y0, x1, y1 = _box(run)
        return ink[y0 - top : y1 - top, x0 - left : x1 - left].copy(), x0, y1

    runs, run = [], []
    for glyph in placed:
        buffer, column, row = glyph
        rows, columns = buffer.shape
        region = ink[row - rows - top : row - top, column - left : column - left + columns]
        if run and np.logical_and(region, buffer).any():
            runs.append(image_of(run))
            ink[:] = 0
            run = []
        region |= buffer
        run.append(glyph)
    runs.append(image_of(run))
    return runs


def _box(placed: list[tuple]) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) pixels, rows from the top, right and bottom excluded, around placed coverages."""
    return (
        min(column for _, column, _ in placed),
        min(row - buffer.shape[0] for buffer, _, row in placed),
        max(column + buffer.shape[1] for buffer, column, _ in placed),
        max(row for _, _, row in placed),
    )


def _font_files(prop) -> list:
    from matplotlib.font_manager import fontManager

    return fontManager._find_fonts_by_props(prop)


def _font_height_metrics(prop, dpi: float) -> tuple:
    """``Text._get_layout``'s reading of a font's vertical metrics (matplotlib 3.11, text.py): (None,) * 3 if the
    font has neither table (the text then measures "lp")."""
    font = backend_agg.get_font(_font_files(prop))
    for table_name, gap_key, ascent_key, descent_key in (
        ("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
        ("hhea", "lineGap", "ascent", "descent"),
    ):
        table = font.get_sfnt_table(table_name)
        if table is None:
            continue
        scale = 1 / font.get_sfnt_table("head")["unitsPerEm"] * prop.get_size_in_points() * dpi / 72
        return table[ascent_key] * scale, -table[descent_key] * scale, table[gap_key] * scale
    return None, None, None


def _hashable(value):
    """A font feature or language setting as a dictionary key (lists become tuples)."""
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    return value


def _store(cache: dict, key, value, *, limit: int = GLYPH_CACHE_SIZE) -> None:
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value


_TEXT_LAYOUTS: dict = {}  # Text._get_layout's results by everything they depend on (_text_layout_key)


def _text_layout_key(text: Text, renderer) -> tuple | None:
    """Everything ``Text._get_layout`` (matplotlib 3.11) reads: the string, font, line spacing, alignments, rotation
    and dpi; the renderer only through its kind and dpi (Agg's text metrics). None where it reads more (wrapped text
    depends on the figure, TeX on its own tools, a rotation that follows the transform on the position; a text
    removed from its figure)."""
    figure = text.get_figure(root=True)
    if figure is None or text.get_wrap() or text.get_usetex() or text.get_transform_rotates_text():
        return None
    prop = text.get_fontproperties()
    font = (tuple(prop.get_family()), prop.get_style(), prop.get_variant(), prop.get_weight(), prop.get_stretch())
    font += (prop.get_size_in_points(), prop.get_file(), prop.get_math_fontfamily())
    return (
        type(renderer),
        renderer.dpi,
        figure.dpi,
        text.get_text(),
        text.get_parse_math(),
        font,
    ) + (
        text._linespacing,
        text._multialignment,
        text._horizontalalignment,
        text._verticalalignment,
        text._rotation,
        text.get_rotation_mode(),
    )


def _cached_text_layout(text: Text, renderer):
    """``Text._get_layout(renderer)``, computed once per key (:func:`_text_layout_key`); its callers only read it."""
    key = _text_layout_key(text, renderer)
    if key is None:
        return type(text)._get_layout(text, renderer)
    layout = _TEXT_LAYOUTS.get(key)
    if layout is None:
        layout = type(text)._get_layout(text, renderer)
        _store(_TEXT_LAYOUTS, key, layout)
    return layout


def _cache_text_layouts(fig: Figure) -> None:
    """Let every text of ``fig`` take its layout from :func:`_cached_text_layout` (matplotlib 3.11 only)."""
    if not _glyph_api():
        return
    for text in fig.findobj(Text):
        if "_get_layout" not in vars(text):
            text._get_layout = MethodType(_cached_text_layout, text)


@contextlib.contextmanager
def _offsetbox_layouts_once(boxes: Iterable[OffsetBox]):
    """While a frame is drawn, each offset box computes its size and its children's offsets once.

    A legend is nested boxes (``VPacker`` of ``HPacker`` s of ``TextArea`` s and ``DrawingArea`` s); matplotlib asks
    each box for its bbox again at every level above it and again when drawing it (quadratic in the depth). Nothing
    changes a box's size during a draw (drawing only moves boxes: ``set_offset``), so the first answer is kept for
    the rest of the frame, then forgotten: the next frame asks again."""
    names = ("get_bbox", "_get_bbox_and_child_offsets")
    boxes = list(boxes)
    for box in boxes:
        for name in names:
            setattr(box, name, _once_per_renderer(getattr(box, name)))
    try:
        yield
    finally:
        for box in boxes:
            for name in names:
                vars(box).pop(name, None)


def _once_per_renderer(method: Callable) -> Callable:
    results: dict = {}

    def once(renderer):
        if id(renderer) not in results:
            results[id(renderer)] = method(renderer)
        return results[id(renderer)]

    return once


class GlyphCacheCanvas(FigureCanvasAgg):
    """An Agg canvas whose renderer is a :class:`GlyphCacheRenderer` (where this matplotlib allows it)."""

    def get_renderer(self):
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key:
            kind = GlyphCacheRenderer if _glyph_api() else RendererAgg
            self.renderer = kind(w, h, self.figure.dpi)
            self._lastKey = key
        return self.renderer


#: Environment switches of the panels' code path, used only by the benchmark (``docs/benchmarks.md``): each name,
#: its allowed values, the first one the default.
SWITCHES = {
    "PE_PANEL_REDRAW": ("blit", "full"),
    "PE_PANEL_TRANSPORT": ("image", "output"),
    "PE_PANEL_RASTER": ("cached", "plain"),
}


def panel_mode() -> dict[str, str]:
    """{switch: value} from the environment (unset: the default); an unknown value is refused with a message."""
    mode = {}
    for name, allowed in SWITCHES.items():
        value = os.environ.get(name, "") or allowed[0]
        if value not in allowed:
            raise ValueError(f"environment variable {name}={value!r}: allowed values are {', '.join(allowed)}")
        mode[name] = value
    return mode


def _stale(artist: Artist) -> bool:
    """Has anything in ``artist`` (itself or a part of it, e.g. a legend's texts) been changed since it was drawn?"""
    return artist.stale or any(a.stale for a in artist.findobj(include_self=False))


def _unstale(artist: Artist) -> None:
    for a in artist.findobj():
        a.stale = False


def _ticks(axis: Axis) -> tuple:
    locs = tuple(float(v) for v in axis.get_majorticklocs())
    return locs, tuple(axis.get_major_formatter().format_ticks(list(locs))), axis.label.get_text()


def _drawn_in(artist: Artist, ax) -> bool:
    """Does a full draw of ``ax`` draw ``artist`` (one of its children)? Not when the axes is hidden, nor its axis
    objects and spines when the axes' axis is off (``ax.axis("off")``)."""
    if not ax.get_visible():
        return False
    if isinstance(artist, Axis) or artist in ax.spines.values():
        return ax.axison and (ax._frameon or isinstance(artist, Axis))
    return True


def _strips(fig: Figure, width: int, height: int) -> dict | None:
    """{axes: (x0, y0, x1, y1) pixels} cutting the figure into one strip per axes, or None.

    Only for axes side by side in one row (or one above the other in one column) whose boxes do not overlap: the cut
    between two neighbours is the middle of the gap between their boxes; the strips tile the figure."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    if len(axes) < 2 or len(axes) != len(fig.axes):
        return None
    for dim, size in ((0, width), (1, height)):  # 0: a row (cut along x), 1: a column (cut along y)
        boxes = sorted(((ax.bbox.extents[dim], ax.bbox.extents[dim + 2], ax) for ax in axes), key=lambda b: b[0])
        if all(a[1] <= b[0] for a, b in zip(boxes, boxes[1:], strict=False)):
            cuts = [0, *(round((a[1] + b[0]) / 2) for a, b in zip(boxes, boxes[1:], strict=False)), size]
            return {
                ax: (lo, 0, hi, height) if dim == 0 else (0, lo, width, hi)
                for (_, _, ax), lo, hi in zip(boxes, cuts[:-1], cuts[1:], strict=True)
            }
    return None


#: Pixels of antialiasing and rounding around an artist's measured extent.
_EDGE_PX = 2


def _within(artist: Artist, ax, strip: tuple[int, int, int, int], renderer) -> bool:
    """Does every pixel ``artist`` (a moving artist of ``ax``) draws lie inside ``strip``? Measured for the artists
    whose extent bounds their pixels (clipped ones by their clip box; texts without a box, legends without a
    shadow, axis objects with their ticks, spines, unclipped lines); any other artist answers no."""
    if not artist.get_visible() or not _drawn_in(artist, ax):
        return True  # draws nothing
    if artist.get_path_effects() or artist.get_agg_filter() is not None:
        return False
    points = artist.figure.dpi / 72  # pixels per point
    clip = artist.get_clip_box() if artist.get_clip_on() else None
    if clip is not None and not isinstance(artist, (Text, Legend, Axis)):
        box = clip.padded(_EDGE_PX)
    elif isinstance(artist, Axis):  # tick labels and label, and the tick marks around the axes' box
        ticks = max((t.get_tick_padding() for t in artist.majorTicks[:1] + artist.minorTicks[:1]), default=0)
        box = Bbox.union([artist.get_tightbbox(renderer) or ax.bbox, ax.bbox.padded(points * ticks + _EDGE_PX)])
    elif (isinstance(artist, Text) and artist.get_bbox_patch() is None) or (
        isinstance(artist, Legend) and not artist.shadow
    ):
        box = artist.get_window_extent(renderer).padded(_EDGE_PX)
    elif isinstance(artist, Spine) and artist.spine_type in ax.spines and artist.get_position() == ("outward", 0.0):
        box = ax.bbox.padded(_EDGE_PX + points * artist.get_linewidth())  # on the axes' edge
    elif isinstance(artist, (Line2D, Spine)):  # its path and half its markers, padded by a line width or marker edge
        marked = isinstance(artist, Line2D) and artist.get_marker() not in ("", "None", None)
        width = max(artist.get_linewidth(), artist.get_markeredgewidth() if marked else 0)
        box = artist.get_window_extent(renderer).padded(_EDGE_PX + points * 2 * width)
    else:
        return False
    x0, y0, x1, y1 = box.extents
    return (
        bool(np.isfinite(box.extents).all()) and strip[0] <= x0 and strip[1] <= y0 and x1 <= strip[2] and y1 <= strip[3]
    )


class Strips:
    """Moving artists kept from the last frame, axes by axes (for figures of axes side by side, :func:`_strips`).

    When a move changes nothing in one axes (none of its moving artists ``stale``, its limits the same), that axes'
    strip of the last frame is copied instead of drawing its moving artists again. This is exact when every axes'
    moving artists draw only inside its own strip, in the last frame and in this one: checked (:func:`_within`)
    before a frame for every axes it draws, whenever some axes is unchanged (a frame that changes every axes keeps
    nothing and is not checked, so the frame after it keeps nothing either, but is checked); a frame that fails the
    check keeps nothing."""

    def __init__(self, strips: dict):
        self.strips = strips  # {axes: (x0, y0, x1, y1) pixels}
        self.previous: np.ndarray | None = None  # the last frame's pixels (H, W, 4), rows from the top, if trusted
        self.limits: dict = {}  # axes -> its limits in the last frame
        self.trusted = False  # the frame being drawn draws every axes' moving artists inside its strip

    @classmethod
    def after_full_draw(cls, fig: Figure, groups: dict, renderer) -> Strips | None:
        """The strips of a figure just drawn whole (None where its axes are not side by side), checked: the next
        frame may keep an axes only if this one drew inside the strips."""
        cut = _strips(fig, *fig.canvas.get_width_height(physical=True))
        if cut is None:
            return None
        strips = cls(cut)
        strips.trusted = strips.check(groups, set(groups), renderer)
        return strips

    @staticmethod
    def groups(layers, moving: set[Artist]) -> dict:
        """{axes: its moving artists}."""
        return {ax: [a for a in artists if a in moving] for ax, artists in layers[1:]}

    def check(self, groups: dict, axes, renderer) -> bool:
        return all(_within(a, ax, self.strips[ax], renderer) for ax in axes for a in groups[ax])

    def plan(self, groups: dict, renderer) -> set:
        """The axes whose strip this frame takes from the last one (see the class docstring)."""
        same = {
            ax
            for ax, artists in groups.items()
            if (ax.get_xlim(), ax.get_ylim()) == self.limits.get(ax) and not any(map(_stale, artists))
        }
        if not same:
            self.trusted = False
            return set()
        keep = same if self.trusted and self.previous is not None else set()
        self.trusted = self.check(groups, set(groups) - keep, renderer)
        return keep if self.trusted else set()

    def keep(self, pixels: np.ndarray, axes) -> None:
        """Copy the strips of ``axes`` from the last frame into ``pixels`` (H, W, 4)."""
        height = pixels.shape[0]
        for ax in axes:
            x0, y0, x1, y1 = self.strips[ax]
            pixels[height - y1 : height - y0, x0:x1] = self.previous[height - y1 : height - y0, x0:x1]

    def remember(self, pixels: np.ndarray, groups: dict) -> None:
        """After a frame: its limits, and its pixels if it was checked."""
        self.limits = {ax: (ax.get_xlim(), ax.get_ylim()) for ax in groups}
        self.previous = pixels.copy() if self.trusted else None


class Frames:
    """A figure's frames, redrawing only its moving artists on a cached background (see the module docstring).

    ``frame()`` after the artists were updated returns the PNG of the figure as a fresh full draw would show it.
    ``declared``: artists known to move (:meth:`View.moving_artists`). ``counts``: frames drawn, by kind.
    """

    def __init__(self, fig: Figure, declared: Iterable[Artist] = (), *, plain: bool = False, keep_axes: bool = False):
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        if not plain and type(fig.canvas) is FigureCanvasAgg and fig.canvas.manager is None:
            GlyphCacheCanvas(fig)  # a panel's own figure (not pyplot's): its text drawn from the glyph caches
        self.fig = fig
        self.plain = plain  # the benchmark's "before": Agg's own text drawing and PIL's PNG encoder
        self.bands: dict = {}  # the last frame's PNG bands (png_of_rgba)
        self.boxes: list[OffsetBox] = []  # the figure's offset boxes (legends' packers, text areas)
        self.moving: set[Artist] = set(declared)
        self.background = None
        self.structure = None
        self.counts = {"full": 0, "blit": 0}
        self.last = ""  # the kind of the last frame: "full" or "blit"
        self.keep_axes = keep_axes and not plain  # View.keeps_unchanged_axes
        self.strips: Strips | None = None  # axes side by side: an unchanged axes' moving artists kept (Strips)
        self.kept: set = set()  # the axes whose strip the last frame took from the frame before

    def _layers(self) -> list[tuple[object, list[Artist]]]:
        """(container, its artists in drawing order) for the figure, then each axes (the order of a full draw)."""
        fig = self.fig
        skip = {id(fig.patch), *map(id, fig.axes)}
        layers = [(fig, [a for a in fig.get_children() if id(a) not in skip])]
        for ax in sorted(fig.axes, key=lambda a: a.get_zorder()):
            kids = [a for a in ax.get_children() if a is not ax.patch and a not in ax.child_axes]
            layers.append((ax, sorted(kids, key=lambda a: a.get_zorder())))
        return layers

    def _structure(self, layers) -> tuple:
        """Everything the background depends on besides its artists' own state (which ``stale`` tracks).

        A moving axis (an :class:`~matplotlib.axis.Axis` among the moving artists) is drawn on every frame, so its
        limits and ticks are not part of the background: they may change without a full redraw."""
        fig = self.fig
        key = [tuple(fig.get_size_inches()), fig.dpi]
        for container, artists in layers:
            key.append(tuple(map(id, artists)))
            if container is not fig:
                ax = container
                key += [tuple(ax.get_position().bounds), ax.get_xscale(), ax.get_yscale(), ax.get_visible(), ax.axison]
                for axis, limits in ((ax.xaxis, ax.get_xlim), (ax.yaxis, ax.get_ylim)):
                    if axis not in self.moving:
                        key += [limits(), _ticks(axis)]
        return tuple(key)

    @staticmethod
    def _above(artists: list[Artist], moving: set[Artist]) -> set[Artist]:
        """The artists of one axes a full draw paints over its lowest moving artist (they must be drawn again on top
        of it): higher zorder, or equal zorder and later. Axis objects only where they overlap the data area (grid
        lines, ticks pointing in); a legend placed "best" moves with the data."""
        first = next((i for i, a in enumerate(artists) if a in moving), None)
        if first is None:
            return set()
        above = set()
        for a in artists[first + 1 :]:
            if isinstance(a, Axis):
                ticks = a.get_major_ticks()[:1]
                if not any(t.gridline.get_visible() or t._tickdir != "out" for t in ticks):
                    continue
            above.add(a)
        above |= {a for a in artists if isinstance(a, Legend) and a._loc in (0, "best")}
        return above

    def frame(self) -> bytes:
        """The PNG of the figure now: the moving artists on the cached background, or a full redraw if needed."""
        layers = self._layers()
        structure = self._structure(layers)
        everything = {a for _, artists in layers for a in artists}
        self.moving &= everything  # artists removed since the last frame
        full = self.background is None or structure != self.structure
        if not full:
            changed = {a for a in everything - self.moving if not isinstance(a, Axis) and _stale(a)}
            if changed:  # undeclared moving artists: from now on they are redrawn on every frame
                self.moving |= changed
                full = True
        for _, artists in layers[1:]:
            self.moving |= self._above(artists, self.moving)
        canvas = self.fig.canvas
        if full and not self.plain and _glyph_api():  # the matplotlib whose text and box layout these follow
            _cache_text_layouts(self.fig)
            self.boxes = [box for a in everything for box in a.findobj(OffsetBox)]
        with _offsetbox_layouts_once(() if self.plain else self.boxes):
            groups = Strips.groups(layers, self.moving) if self.keep_axes else {}
            self.kept = set()
            if full:
                for a in everything:
                    a.set_animated(a in self.moving)
                canvas.draw()
                renderer = canvas.get_renderer()
                self.background = canvas.copy_from_bbox(self.fig.bbox)
                self.structure = self._structure(layers)
                figure_level = any(a in self.moving for a in layers[0][1])
                keep = self.keep_axes and not figure_level
                self.strips = Strips.after_full_draw(self.fig, groups, renderer) if keep else None
            else:
                canvas.restore_region(self.background)
                renderer = canvas.get_renderer()
                if self.strips is not None:
                    self.kept = self.strips.plan(groups, renderer)
                    self.strips.keep(np.asarray(canvas.buffer_rgba()), self.kept)
            for container, artists in layers[1:] + layers[:1]:  # axes (zorder 0) first, then figure-level artists
                if container in self.kept:
                    continue
                for a in artists:
                    if a in self.moving and (container is self.fig or _drawn_in(a, container)):
                        a.draw(renderer)
            if self.strips is not None:
                self.strips.remember(np.asarray(canvas.buffer_rgba()), groups)
        for a in everything if full else self.moving:  # a static artist stays unstale until something changes it
            _unstale(a)
        self.last = "full" if full else "blit"
        self.counts[self.last] += 1
        return _pil_png(canvas) if self.plain else encode_png(canvas, self.bands)


_FRAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # figure -> its Frames


def frame_png(fig: Figure, *, plain: bool = False) -> bytes:
    """The PNG a panel shows for ``fig`` now (blitted through the figure's :class:`Frames`; ``plain``: see it)."""
    frames = _FRAMES.get(fig)
    if frames is None:
        view = _VIEWS.get(fig)
        declared = view.moving_artists() if view is not None else ()
        keep = view is not None and view.keeps_unchanged_axes
        frames = _FRAMES[fig] = Frames(fig, declared, plain=plain, keep_axes=keep)
    return frames.frame()


def _log_timing(path: str, **fields) -> None:
    with open(path, "a") as f:
        f.write(json.dumps({"t": time.time(), **fields}) + "\n")


def _publish(target, png: bytes) -> None:
    """Put a frame on screen: replace the Image widget's value, or (``PE_PANEL_TRANSPORT=output``) display it."""
    if isinstance(target, W.Image):
        target.value = png
    else:
        display(Image(data=png, format="png"))


def _image_output(image: W.Image) -> W.Output:
    """An Output widget that shows ``image`` (set directly: no kernel or display hook needed)."""
    bundle = {
        "text/plain": repr(image),
        "application/vnd.jupyter.widget-view+json": {
            "version_major": 2,
            "version_minor": 0,
            "model_id": image.model_id,
        },
    }
    out = W.Output()
    out.outputs = ({"output_type": "display_data", "data": bundle, "metadata": {}},)
    return out


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
    artists in place (:class:`View`). Every change renders one PNG at the figure's own size, redrawing only the
    artists that moved (:class:`Frames`), into an :class:`ipywidgets.Image` shown in the panel's last child, an
    Output widget: the page neither grows nor flickers. While ``hold["on"]`` is true a change does not redraw: set it
    around an update that moves several controls at once (the change that caused it then redraws once, with every
    new value). ipywidgets 7.7 and 8 both have everything used here.
    """
    mode = panel_mode()
    fig = Figure(figsize=layout.figsize, dpi=DPI)
    plain = mode["PE_PANEL_RASTER"] == "plain"
    (FigureCanvasAgg if plain else GlyphCacheCanvas)(fig)  # attaches itself to the figure
    hold = {"on": False} if hold is None else hold
    blit = mode["PE_PANEL_REDRAW"] == "blit"
    timing_log = os.environ.get("PE_PANEL_TIMING_LOG")

    def render(target, values):
        start, start_cpu = time.perf_counter(), time.process_time()
        draw(**values, fig=fig)
        drawn = time.perf_counter()
        if blit:
            png = frame_png(fig, plain=plain)
        else:
            png = _pil_png(_drawn(fig.canvas)) if plain else png_bytes(fig)
        framed = time.perf_counter()
        _publish(target, png)
        if timing_log:
            ms = {k: round(1000 * v, 2) for k, v in (("draw_ms", drawn - start), ("frame_ms", framed - drawn))}
            total = round(1000 * (time.perf_counter() - start), 2)
            kind = _FRAMES[fig].last if blit else "full"
            cpu = round(1000 * (time.process_time() - start_cpu), 2)  # the kernel's own work (not the machine's load)
            _log_timing(timing_log, **ms, kernel_ms=total, cpu_ms=cpu, frame=kind, **mode, ipywidgets=W.__version__)

    boxes = list(controls.values())
    rows = [W.HBox(boxes[i : i + columns]) for i in range(0, len(boxes), columns)]
    if mode["PE_PANEL_TRANSPORT"] == "output":
        out = W.interactive_output(lambda **values: hold["on"] or render(None, values), controls)
        return W.VBox([*rows, out])
    image = W.Image(format="png")
    out = _image_output(image)
    shows_image = out.outputs

    def on_change(_change=None):
        if hold["on"]:
            return
        try:
            render(image, {name: control.value for name, control in controls.items()})
        except Exception:
            with out:  # in a kernel: the traceback is shown under the picture (as interactive_output shows it)
                raise
        else:
            if out.outputs != shows_image:  # an earlier error's traceback: gone once a redraw works
                out.outputs = shows_image

    for control in boxes:
        control.observe(on_change, names="value")
    on_change()
    return W.VBox([*rows, out])
