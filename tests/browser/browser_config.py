"""Paths and switches of the real-browser suite (environment variables documented in conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
#: Report, screenshots and the JupyterLab log of the last run (git-ignored).
ARTIFACTS = HERE / "_artifacts"
#: The notebooks under test; the JupyterLab server's root is the folder above.
NB_DIR = Path(os.environ.get("PE_BROWSER_NOTEBOOKS_DIR", ROOT / "notebooks")).resolve()
CHROMIUM = os.environ.get("PE_CHROMIUM", "/usr/bin/chromium")
REQUIRE_BROWSER = os.environ.get("PE_REQUIRE_BROWSER") == "1"
UPDATE_DOCS = os.environ.get("PE_BROWSER_UPDATE_DOCS") == "1"

#: The panels' code paths compared in one run (``PE_BROWSER_MODES=before,output,after``; default: the installed
#: path only). Each mode gets its own JupyterLab server whose kernels see these environment variables
#: (helpers/widgets/_common.py reads them); a mode ending in ``-ipyw7`` also puts ipywidgets 7.7.1 (Colab's) first on
#: the kernels' path (tests/_notebook_runs.py installs it). Notebooks are run mode after mode, notebook by notebook,
#: so a changing load hits every mode alike.
MODE_ENV: dict[str, dict[str, str]] = {
    "": {},
    # the code path before issue 36
    "before": {"PE_PANEL_REDRAW": "full", "PE_PANEL_TRANSPORT": "output", "PE_PANEL_RASTER": "plain"},
    "output": {"PE_PANEL_REDRAW": "blit", "PE_PANEL_TRANSPORT": "output"},  # blitting, shown in the output area
    # blitting, shown in an Image widget, with Agg's own text drawing and PIL's PNG encoder (no glyph/band caches)
    "plain": {"PE_PANEL_REDRAW": "blit", "PE_PANEL_TRANSPORT": "image", "PE_PANEL_RASTER": "plain"},
    "after": {"PE_PANEL_REDRAW": "blit", "PE_PANEL_TRANSPORT": "image"},  # blitting, shown in an Image widget
}
MODE_ENV.update({f"{k}-ipyw7": v for k, v in MODE_ENV.items() if k})
MODES = [m for m in os.environ.get("PE_BROWSER_MODES", "").split(",") if m] or [""]
_unknown = [m for m in MODES if m not in MODE_ENV]
if _unknown:
    raise ValueError(f"PE_BROWSER_MODES: unknown mode(s) {_unknown}; allowed: {[m for m in MODE_ENV if m]}")
