"""A panel's frames drawn in the browser: a canvas widget (anywidget) that strokes the moving lines itself.

Every panel (:func:`helpers.widgets._common.panel`) draws its figure with Agg and shows it as a PNG. The front end
described here saves the PNG's encoding, transfer and decoding on every move: the browser keeps the figure's static
part (its background, sent once as a PNG after each full redraw) and, on a move, receives only

* the moving :class:`~matplotlib.lines.Line2D` artists' data, as float32 (binary, not JSON), with each line's colour,
  width (pixels at the figure's dpi), alpha, dash pattern, caps, joins and clip box, and its axes' pixel box, data
  limits and scales (linear or log); the canvas maps the data to pixels through them and strokes the polylines in
  the order a full draw would draw them;
* every other moving artist (titles, legends, spines, tick labels, arrows, markers, spans) as *sprites*: the exact
  pixels Agg drew in that artist's box (:meth:`Frames.draw <helpers.widgets._common.Frames.draw>`, raw RGBA), pasted
  over the lines. Inside a sprite the picture is Agg's own, lines included; outside, the background and the lines.

The maths stays in Python (the chapters' ``update`` sets the lines' data; nothing is computed in JavaScript but the
mapping of data to pixels). The canvas sets ``rendered`` after its first frame; until then, and wherever it never
does (Colab without its custom widget manager, nbval, a reader without a kernel), the panel shows the PNG as before.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox

try:  # optional: without it (or in Colab, whose default widget manager loads no third-party widget) PNG only
    import anywidget
    import traitlets as T
except ImportError:  # pragma: no cover - requirements.txt installs it
    anywidget = None

#: Line2D markers the canvas draws (none); a line with markers is shown as a sprite.
_NO_MARKER = (None, "None", "none", "", " ")
_CAPS = {"butt": "butt", "round": "round", "projecting": "square"}
#: Pixels added around a sprite's box (antialiasing and glyph overhang).
SPRITE_PAD = 3


def available() -> bool:
    """Can a panel use the canvas front end here? anywidget installed, ipywidgets 8 (under 7.7.1 JupyterLab 4 shows
    neither the canvas nor the picture beside it in one box), and not Colab (whose default widget manager shows no
    third-party widget: the PNG is what a learner sees there)."""
    import ipywidgets

    major = int(ipywidgets.__version__.split(".")[0])
    return anywidget is not None and major >= 8 and "google.colab" not in sys.modules


def _coordinate_kinds(line: Line2D, ax) -> tuple[str, str] | None:
    """("data" | "axes", "data" | "axes") for a line's x and y, or None when its transform is another one."""
    t = line.get_transform()
    if t is ax.transData:
        return "data", "data"
    if t is ax.get_xaxis_transform(which="grid"):
        return "data", "axes"
    if t is ax.get_yaxis_transform(which="grid"):
        return "axes", "data"
    return None


def drawable_line(artist, container) -> bool:
    """Can the canvas stroke ``artist`` as Agg would: a plain Line2D in an axes (no markers, default draw style,
    linear or log axes, data or axes coordinates, no clip path, path effects or sketch)?"""
    if type(artist) is not Line2D or isinstance(container, Figure):
        return False
    ax = container
    return (
        artist.get_marker() in _NO_MARKER
        and artist.get_drawstyle() in ("default", None)
        and artist.get_clip_path() is None
        and not artist.get_path_effects()
        and artist.get_sketch_params() is None
        and artist.get_gapcolor() is None
        and artist.get_antialiased()
        and ax.get_xscale() in ("linear", "log")
        and ax.get_yscale() in ("linear", "log")
        and _coordinate_kinds(artist, ax) is not None
    )


def _extent(artist, container, renderer, fig) -> Bbox:
    """The display box of what ``artist`` drew (generous: a sprite larger than the artist is still exact)."""
    try:
        if isinstance(artist, Axis):
            box = artist.get_tightbbox(renderer)
            if any(t.gridline.get_visible() for t in artist.get_major_ticks()[:1]):
                box = Bbox.union([box, container.bbox]) if box is not None else container.bbox
        elif hasattr(artist, "get_window_extent") and not _is_collection(artist):
            box = artist.get_window_extent(renderer)
        else:
            box = None
    except Exception:  # noqa: BLE001 - an artist that cannot say: the whole figure (still exact)
        box = None
    if box is None or not np.all(np.isfinite(box.bounds)):
        box = container.bbox if artist.get_clip_on() and not isinstance(container, Figure) else fig.bbox
    return box


def _is_collection(artist) -> bool:
    from matplotlib.collections import Collection

    return isinstance(artist, Collection)  # their window extents follow their offsets, not always what they draw


class CanvasMessage:
    """What the canvas needs for the frame the figure's Agg canvas holds now (see :func:`message`)."""

    def __init__(self, frames, drawn, previous: dict | None = None):
        fig = frames.fig
        canvas = fig.canvas
        renderer = canvas.get_renderer()
        width, height = canvas.get_width_height(physical=True)
        self.width, self.height = width, height
        self.axes: list[dict] = []
        self.lines: list[dict] = []
        self.sprites: list[list[int]] = []
        chunks: list[np.ndarray] = []
        sprite_chunks: list[bytes] = []
        axes_index: dict[int, int] = {}
        offset = 0
        sprite_offset = 0
        rgba = np.asarray(canvas.buffer_rgba())  # (H, W, 4), row 0 at the top
        boxes: list[tuple[int, int, int, int]] = []
        for container, artist in drawn:
            if not artist.get_visible():
                continue
            if drawable_line(artist, container):
                ax = container
                if id(ax) not in axes_index:
                    axes_index[id(ax)] = len(self.axes)
                    self.axes.append(
                        {
                            "box": [float(v) for v in ax.bbox.bounds],  # x0, y0 (from the bottom), w, h in pixels
                            "xlim": [float(v) for v in ax.get_xlim()],
                            "ylim": [float(v) for v in ax.get_ylim()],
                            "xlog": ax.get_xscale() == "log",
                            "ylog": ax.get_yscale() == "log",
                        }
                    )
                x = np.asarray(artist.get_xdata(), dtype=np.float64).ravel()  # (n,)
                y = np.asarray(artist.get_ydata(), dtype=np.float64).ravel()  # (n,)
                n = int(min(x.size, y.size))
                chunks += [x[:n], y[:n]]
                r, g, b, a = _rgba(artist)
                dash_offset, dashes = artist._dash_pattern
                dashed = dashes is not None and len(dashes) > 0
                clip = artist.get_clip_box() if artist.get_clip_on() else None
                xkind, ykind = _coordinate_kinds(artist, ax)
                self.lines.append(
                    {
                        "axes": axes_index[id(ax)],
                        "offset": offset,
                        "n": n,
                        "color": [r, g, b, a],
                        # pixels as Agg computes them (RendererAgg.points_to_pixels), and the points they came from
                        "width": float(artist.get_linewidth()) * fig.dpi / 72,
                        "dashes": [float(v) * fig.dpi / 72 for v in dashes] if dashed else [],
                        "dash_offset": float(dash_offset or 0) * fig.dpi / 72 if dashed else 0.0,
                        "points": [float(artist.get_linewidth()), float(dash_offset or 0), *map(float, dashes or ())],
                        "cap": _CAPS[artist.get_dash_capstyle() if dashed else artist.get_solid_capstyle()],
                        "join": artist.get_dash_joinstyle() if dashed else artist.get_solid_joinstyle(),
                        "clip": [float(v) for v in clip.bounds] if clip is not None else None,
                        "x": xkind,
                        "y": ykind,
                    }
                )
                offset += 2 * n
            else:
                box = _extent(artist, container, renderer, fig)
                x0 = max(0, int(np.floor(box.x0)) - SPRITE_PAD)
                x1 = min(width, int(np.ceil(box.x1)) + SPRITE_PAD)
                top = max(0, int(np.floor(height - box.y1)) - SPRITE_PAD)
                bottom = min(height, int(np.ceil(height - box.y0)) + SPRITE_PAD)
                if x1 > x0 and bottom > top:
                    boxes.append((x0, top, x1, bottom))
        previous = {} if previous is None else previous
        self.sums: dict = {}  # box -> checksum of its pixels, for the next frame
        for box in dict.fromkeys(boxes):  # overlapping sprites agree: each is the final pixels there
            x0, top, x1, bottom = box
            pixels = np.ascontiguousarray(rgba[top:bottom, x0:x1]).tobytes()  # (h, w, 4) rows
            self.sums[box] = zlib.crc32(pixels)
            if previous.get(box) == self.sums[box]:  # the canvas has these very pixels from the last frame
                self.sprites.append([x0, top, x1 - x0, bottom - top, -1])
                continue
            self.sprites.append([x0, top, x1 - x0, bottom - top, sprite_offset])
            sprite_chunks.append(pixels)
            sprite_offset += len(pixels)
        self.data64 = np.concatenate(chunks) if chunks else np.zeros(0)  # (sum of 2n,) x then y of each line
        self.data = self.data64.astype(np.float32).tobytes()  # what the canvas receives
        self.sprite_data = b"".join(sprite_chunks)  # raw RGBA rows of each sprite (not compressed: drawn at once)
        picture = repr((self.lines, self.axes, sorted(self.sums.items()))).encode()
        self.key = f"{frames.background_version}:{zlib.crc32(self.data):08x}:{zlib.crc32(picture):08x}"


def _rgba(line: Line2D) -> tuple[float, float, float, float]:
    from matplotlib.colors import to_rgba

    return tuple(float(v) for v in to_rgba(line.get_color(), line.get_alpha()))


if anywidget is not None:

    class CanvasFrames(anywidget.AnyWidget):
        """The canvas showing a panel's frames in the browser (see the module docstring)."""

        _esm = (Path(__file__).with_name("_canvas.js")).read_text()
        width = T.Int(0).tag(sync=True)
        height = T.Int(0).tag(sync=True)
        background = T.Bytes(b"").tag(sync=True)  # PNG of the static part, after each full redraw
        background_version = T.Int(0).tag(sync=True)
        axes = T.List().tag(sync=True)
        lines = T.List().tag(sync=True)
        data = T.Bytes(b"").tag(sync=True)  # float32
        sprites = T.List().tag(sync=True)
        sprite_data = T.Bytes(b"").tag(sync=True)  # raw RGBA
        key = T.Unicode("").tag(sync=True)  # identifies the picture (the browser suite tells frames apart by it)
        frame = T.Int(0).tag(sync=True)  # set last: the canvas draws on its change
        rendered = T.Bool(False).tag(sync=True)  # set by the canvas after its first frame
        check_request = T.Int(0).tag(sync=True)  # the browser suite asks for a full redraw to compare with
        check_png = T.Bytes(b"").tag(sync=True)
        _sums: dict = {}  # the sprites the canvas has (box -> checksum)

        def show(self, frames, drawn, encode_png) -> None:
            """Send the frame the figure's canvas holds now (one comm message)."""
            resend = frames.background_version != self.background_version
            msg = CanvasMessage(frames, drawn, None if resend else self._sums)
            self._sums = msg.sums
            self.data64 = msg.data64  # the sent data before float32 rounding (tests/test_canvas_frames.py)
            with self.hold_sync():
                if resend:
                    self.background = encode_png(frames.background_rgba)
                    self.background_version = frames.background_version
                self.width, self.height = msg.width, msg.height
                self.axes, self.lines, self.data = msg.axes, msg.lines, msg.data
                self.sprites, self.sprite_data = msg.sprites, msg.sprite_data
                self.key = msg.key
                self.frame += 1

else:  # pragma: no cover
    CanvasFrames = None
