"""Paths and switches of the real-browser suite (environment variables documented in conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
#: Report, screenshots and the JupyterLab log of the last run (git-ignored).
ARTIFACTS = HERE / "_artifacts"
#: The notebooks under test; the JupyterLab server's root is the folder above.
NB_DIR = Path(os.environ.get("PE_BROWSER_NOTEBOOKS_DIR", ROOT / "notebooks")).resolve()
CHROMIUM = os.environ.get("PE_CHROMIUM", "/usr/bin/chromium")
REQUIRE_BROWSER = os.environ.get("PE_REQUIRE_BROWSER") == "1"
#: The Python that runs JupyterLab for the ``-ipyw7`` modes (its kernels still run this Python): one with a widget
#: manager that loads ipywidgets 7 models, e.g. a venv with ``jupyterlab==3.6.8 jupyterlab_widgets==1.1.1``.
IPYW7_LAB_PYTHON = os.environ.get("PE_BROWSER_IPYW7_LAB_PYTHON", sys.executable)
UPDATE_DOCS = os.environ.get("PE_BROWSER_UPDATE_DOCS") == "1"

#: The panels' code paths compared in one run (``PE_BROWSER_MODES=before,output,after``; default: the installed
#: path only). Each mode gets its own JupyterLab server whose kernels see these environment variables
#: (helpers/widgets/_common.py reads them); a mode ending in ``-ipyw7`` also puts ipywidgets 7.7.1 (Colab's) first on
#: the kernels' path (tests/_notebook_runs.py installs it); it is refused when JupyterLab's widget manager cannot load
#: 7.x models (:func:`ipywidgets7_frontend_problem`). Notebooks are run mode after mode, notebook by notebook,
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


def ipywidgets7_frontend_problem(python: str = IPYW7_LAB_PYTHON) -> str | None:
    """Why the JupyterLab of ``python`` cannot show an ipywidgets 7 kernel's widgets (an ``-ipyw7`` mode), or None.

    A 7.x kernel's models name ``@jupyter-widgets/base`` 1.2.0 and ``@jupyter-widgets/controls`` 1.5.0; the
    jupyterlab_widgets 3.x extension (ipywidgets 8's) registers only 2.0.0 of both, so every 7.x widget but the
    Output widget (module ``@jupyter-widgets/output`` 1.0.0 in both) is shown as JupyterLab's error view
    ("Click to show javascript error."; console: "Module @jupyter-widgets/controls, version ^1.5.0 is not
    registered, however, 2.0.0 is"): sliders and figures alike, whatever the panel does. jupyterlab_widgets 1.x
    (JupyterLab 3) loads 7.x models.
    """
    code = "import importlib.metadata as m; print(m.version('jupyterlab_widgets'), m.version('jupyterlab'))"
    try:
        p = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except OSError as e:
        return f"PE_BROWSER_IPYW7_LAB_PYTHON={python!r} cannot run: {e}"
    if p.returncode != 0:
        return f"{python} has no jupyterlab / jupyterlab_widgets ({(p.stderr.strip().splitlines() or [''])[-1]})"
    widgets, lab = p.stdout.split()
    if int(widgets.split(".")[0]) >= 2:
        return (
            f"{python}: JupyterLab {lab} with jupyterlab_widgets {widgets} loads only ipywidgets 8 models "
            "(@jupyter-widgets/controls 2.0.0), not ipywidgets 7's (1.5.0): every widget of a 7.x kernel would "
            "be an error view, so this mode cannot show or time a panel under 7.x. Point "
            "PE_BROWSER_IPYW7_LAB_PYTHON at the Python of a venv with jupyterlab==3.6.8 jupyterlab_widgets==1.1.1 "
            "(allowed: jupyterlab_widgets 1.x). The kernel side under 7.7.1 is tests/test_colab_ready.py"
        )
    return None
