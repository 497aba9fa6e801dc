"""The ONE place the course's repository URL is written, and what is built from it.

Change :data:`REPO_URL` (and :data:`BRANCH`), then run ``python scripts/stamp_setup_cell.py`` to rewrite the
first code cell of every notebook; ``tests/test_colab_ready.py`` fails until every notebook agrees.
``python scripts/stamp_setup_cell.py --links`` prints the README's "Open in Colab" links built from it.
"""

from __future__ import annotations

from pathlib import PurePosixPath

#: Placeholder until the project has a public remote: the only line to edit when it does.
REPO_URL = "https://github.com/pe-course/positional-encodings-course"
#: Branch the Colab links open.
BRANCH = "main"
#: The distribution name in pyproject.toml ([project] name).
PACKAGE = "pe-course-helpers"

#: The exact text of every notebook's first code cell. In Colab it installs this package from the
#: repository; anywhere else the `if` is false, so it does nothing and prints nothing.
SETUP_CELL = (
    "# Colab setup: installs the course package there; does nothing (and prints nothing) elsewhere.\n"
    "import sys\n"
    "\n"
    'if "google.colab" in sys.modules:\n'
    f'    %pip install -q "{PACKAGE} @ git+{REPO_URL}"'
)

COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"


def github_path() -> str:
    """``owner/name`` of :data:`REPO_URL` (a github.com URL)."""
    prefix = "https://github.com/"
    if not REPO_URL.startswith(prefix):
        raise ValueError(f"Colab links need a github.com repository, got {REPO_URL!r}")
    return REPO_URL[len(prefix) :].removesuffix(".git").strip("/")


def colab_url(notebook: str) -> str:
    """Open-in-Colab URL of a notebook given by its path in the repository, e.g. ``notebooks/04_rope.ipynb``."""
    return f"https://colab.research.google.com/github/{github_path()}/blob/{BRANCH}/{PurePosixPath(notebook)}"


def colab_badge(notebook: str) -> str:
    """Markdown badge linking to :func:`colab_url`."""
    return f"[![Open In Colab]({COLAB_BADGE})]({colab_url(notebook)})"
