"""A CJK font for the Chinese edition's figures: Noto Sans CJK SC, registered with matplotlib as a fallback font.

Colab and a fresh JupyterLab have no font with Chinese glyphs, so matplotlib draws Chinese figure text as empty
boxes (and warns "Glyph ... missing from font(s) DejaVu Sans"). The font comes from the PyPI wheel pinned in
:data:`helpers.real.pins.WHEELS` (``"cjk_font"``: ``mplfonts==0.0.11``, SHA-256 checked): only
``NotoSansCJKsc-Regular.otf`` (SIL Open Font License 1.1) is read from it, once, into the course's cache (with a
stamp, :func:`helpers.real.fetch.record_derived_file`); the wheel is never installed, and its other fonts (among
them SimHei, whose licence is doubtful) never leave it.

:func:`helpers.plots._style.use_cjk_font` adds the font to matplotlib and appends it to ``font.family`` (default
``["sans-serif"]``, i.e. DejaVu Sans): Latin text looks as before, and each Chinese character falls back to Noto Sans
CJK SC (matplotlib's per-glyph font fallback over the ``font.family`` list, matplotlib >= 3.6). This module only
fetches the file (no matplotlib: it sits below the plots, which register the font when the course turns Chinese).
"""

from __future__ import annotations

import os
from pathlib import Path

from helpers.real import fetch

__all__ = ["WHEEL_KEY", "FONT_FAMILY", "cjk_font_path"]

#: The key of the font's wheel in :data:`helpers.real.pins.WHEELS`.
WHEEL_KEY = "cjk_font"
#: The font's family name, as matplotlib reads it from the file.
FONT_FAMILY = "Noto Sans CJK SC"


def cjk_font_path(*, quiet: bool = True) -> Path:
    """The cached ``NotoSansCJKsc-Regular.otf``, read from the pinned wheel the first time (about 85 MB downloaded
    once; 16 MB kept). Raises :class:`helpers.real.fetch.FetchError` when the wheel cannot be fetched."""
    w = fetch.WHEELS[WHEEL_KEY]
    path = fetch.cache_dir() / "fonts" / Path(w.member).name
    made_from = {"wheel_sha256": w.sha256, "member": w.member}
    if fetch.derived_file_problem(path, made_from) is None:
        return path
    data = fetch.read_member(WHEEL_KEY, quiet=quiet)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    fetch.record_derived_file(path, made_from)
    return path
