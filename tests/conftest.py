"""Shared set-up of the test modules: matplotlib without a display, figures closed after every test, panel helpers.

Every test module that draws relies on this file instead of repeating ``matplotlib.use("Agg")`` and its own clean-up:
pytest loads it before any test module is imported, so the backend is chosen before pyplot is.
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")  # no display: figures render to PNG in memory, as a panel's do

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every pyplot figure a test opened (matplotlib warns past 20 open figures, and they hold memory)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def shown(monkeypatch):
    """The PNGs every panel displays, in order (what the output area under the controls shows)."""
    from helpers.widgets import _common

    pngs: list[bytes] = []
    publish = _common._publish  # every frame a panel shows goes through it (an Image widget's value, or display)
    monkeypatch.setattr(_common, "_publish", lambda target, png: (pngs.append(png), publish(target, png)))
    return pngs


@pytest.fixture(scope="session")
def notebook_runs(request):
    """One shared run per notebook for test_colab_ready.py and test_notebook_rerun.py (tests/_notebook_runs.py).

    Its first use runs every notebook that the selected tests using this fixture are parametrized with.
    """
    from pathlib import Path

    from _notebook_runs import NotebookRuns

    wanted = []
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "notebook_runs" in getattr(item, "fixturenames", ()) and "nb_path" in params:
            wanted.append(Path(params["nb_path"]).resolve())
    return NotebookRuns(list(dict.fromkeys(wanted)))
