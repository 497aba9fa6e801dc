"""Fixtures for the real-browser tests: one JupyterLab server and one headless Chromium per test session.

Environment variables:

* ``PE_CHROMIUM``            Chromium executable (default ``/usr/bin/chromium``, Debian's ``chromium`` package).
* ``PE_REQUIRE_BROWSER=1``   fail instead of skip when Chromium or playwright is missing (set by .ci/run).
* ``PE_BROWSER_NOTEBOOKS_DIR``  test the notebooks of another folder (default notebooks/).
* ``PE_BROWSER_RUN_TIMEOUT``   seconds allowed for one notebook's Run All (default 600).
* ``PE_BROWSER_MODES=before,output,after`` run every notebook once per panel code path (browser_config.MODE_ENV),
  each on its own server, to compare them in one run (``-ipyw7`` modes: under ipywidgets 7.7.1).
* ``PE_BROWSER_IPYW7_LAB_PYTHON``  the Python whose JupyterLab serves the ``-ipyw7`` modes (default: this one, whose
  jupyterlab_widgets 3.x cannot load ipywidgets 7 models: the modes are then refused); e.g. a venv with
  ``jupyterlab==3.6.8 jupyterlab_widgets==1.1.1``. Its kernels run this Python with ipywidgets 7.7.1 first on the path.
* ``PE_BROWSER_UPDATE_DOCS=1`` also write docs/browser-report.md/.json and docs/img/<notebook>.png
  (what ``python scripts/screenshots.py`` does). Otherwise report and screenshots go to
  tests/browser/_artifacts/ (git-ignored) only.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from browser_config import (
    ARTIFACTS,
    CHROMIUM,
    IPYW7_LAB_PYTHON,
    MODE_ENV,
    NB_DIR,
    REQUIRE_BROWSER,
    ROOT,
    UPDATE_DOCS,
)

HOW_TO_ENABLE = (
    "To enable them: `sudo apt-get install chromium` (Debian/Ubuntu package) and "
    "`pip install -r requirements-dev.txt` (playwright==1.65.2). No `playwright install` is needed: the tests "
    "drive the system Chromium (PE_CHROMIUM=/path/to/chromium picks another)."
)

_skip_reasons: list[str] = []


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here, or None."""
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package is not installed")
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)) and not shutil.which(CHROMIUM):
        missing.append(f"{CHROMIUM} not found")
    return "; ".join(missing) or None


def _skip_or_fail() -> None:
    why = browser_unavailable()
    if why is None:
        return
    msg = f"{why}. {HOW_TO_ENABLE}"
    if REQUIRE_BROWSER:
        pytest.fail(f"PE_REQUIRE_BROWSER=1 but {msg}", pytrace=False)
    if msg not in _skip_reasons:
        _skip_reasons.append(msg)
    pytest.skip(msg)


def pytest_terminal_summary(terminalreporter):
    for msg in _skip_reasons:
        terminalreporter.write_line(f"NOTE: real-browser tests skipped: {msg}", yellow=True)


@pytest.fixture(scope="session")
def browser_report():
    """Collects per-notebook figures; written at the end of the session (see nb_report.py)."""
    from nb_report import Report

    rep = Report(started=time.perf_counter())
    yield rep
    rep.finish()
    ARTIFACTS.mkdir(exist_ok=True)
    rep.write(ARTIFACTS)
    if UPDATE_DOCS and rep.notebooks:
        rep.write_docs(ROOT / "docs")


def _mode_env(mode: str) -> dict[str, str]:
    env = {**MODE_ENV[mode], "PE_PANEL_TIMING_LOG": str(ARTIFACTS / f"kernel-timing{'-' + mode if mode else ''}.jsonl")}
    if mode.endswith("-ipyw7"):
        from browser_config import ipywidgets7_frontend_problem

        problem = ipywidgets7_frontend_problem()
        if problem:  # asked for explicitly (PE_BROWSER_MODES): refused, not skipped
            pytest.fail(f"PE_BROWSER_MODES: mode {mode!r} measures nothing here: {problem}", pytrace=False)

        sys.path.insert(0, str(ROOT / "tests"))
        from _notebook_runs import IPYWIDGETS7, ensure_overlay

        overlay, why = ensure_overlay()
        if overlay is None:
            pytest.skip(f"mode {mode}: {why}")
        env["PYTHONPATH"] = os.pathsep.join([str(overlay), str(ROOT)])
        env["PE_BROWSER_IPYWIDGETS"] = IPYWIDGETS7  # checked against the version the kernel's timing log names
    return env


@pytest.fixture(scope="session")
def labs(browser_report):
    """``labs(mode)``: the project's own JupyterLab on 127.0.0.1 for one panel code path (browser_config.MODE_ENV),
    fresh token and settings, started on first use; every server is stopped by PID at the end."""
    _skip_or_fail()
    from lab_server import LabServer, pid_alive

    ARTIFACTS.mkdir(exist_ok=True)
    servers: dict[str, LabServer] = {}

    def get(mode: str = "") -> LabServer:
        if mode not in servers:
            env = _mode_env(mode)
            Path(env["PE_PANEL_TIMING_LOG"]).unlink(missing_ok=True)
            log = f"jupyterlab{'-' + mode if mode else ''}.log"
            lab_python = IPYW7_LAB_PYTHON if mode.endswith("-ipyw7") else sys.executable
            kernel_python = sys.executable if lab_python != sys.executable else None
            server = servers[mode] = LabServer(
                NB_DIR.parent, log_dir=ARTIFACTS, extra_env=env, log_name=log, python=lab_python,
                kernel_python=kernel_python,
            )  # fmt: skip
            server.timing_log = Path(env["PE_PANEL_TIMING_LOG"])
            server.start()
            if math.isnan(browser_report.server_start_s):
                browser_report.server_start_s = server.startup_s
        return servers[mode]

    try:
        yield get
    finally:
        for server in servers.values():
            pid = server.proc.pid if server.proc else None
            server.stop()  # raises if the server or one of its kernels is still alive
            assert pid is None or not pid_alive(pid), f"JupyterLab PID {pid} still running after stop()"


@pytest.fixture(scope="session")
def lab(labs):
    """The JupyterLab server of the installed panel code path (see ``labs``)."""
    return labs("")


@pytest.fixture(scope="session")
def chromium():
    """Headless Debian Chromium driven by playwright (no browser download)."""
    _skip_or_fail()
    from nb_driver import BROWSER_ARGS
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    browser = None
    try:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
        yield browser
    finally:
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.close()
        pw.stop()
