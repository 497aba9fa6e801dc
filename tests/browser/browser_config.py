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
