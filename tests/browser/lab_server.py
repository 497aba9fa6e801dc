"""A throw-away JupyterLab server for the real-browser tests (see docs/browser-report.md).

    with LabServer(root_dir=repo_root, log_dir=some_dir) as lab:
        page.goto(lab.url("lab/tree/notebooks/02_sinusoidal.ipynb"))

What it guarantees (each point is checked, not assumed):

* it listens on 127.0.0.1 only, on a free port, with a fresh random token;
* it reads no user state: fresh temporary settings, workspaces, config, data-runtime and IPython dirs;
  the settings turn the news/update toast off, windowing off (every cell is laid out, so the tests can
  read every prompt), and autosave off (Run All must never write the notebooks of the working tree);
* ``stop()`` (also run by ``atexit`` and by the context manager, whatever happens) shuts every kernel down
  through the REST API, asks the server to shut down, then waits for *its own PID*; only if that PID is
  still alive is it sent SIGTERM, then SIGKILL. Kernels the server started (its child processes, recorded
  by PID) are checked the same way. ``stop()`` raises if any of those PIDs is still running.
* On Linux the server also gets ``PR_SET_PDEATHSIG = SIGTERM``: if the test process is killed outright
  (no finaliser, no atexit) the kernel delivers SIGTERM to the server, which then stops its kernels.

Processes are only ever addressed by PID, never by name.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

#: JupyterLab user settings written into the throw-away settings dir: plugin id -> settings.
LAB_SETTINGS: dict[str, dict] = {
    # No "Would you like to get notified about official Jupyter news?" toast over the notebook.
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    # Lay out every cell (JupyterLab 4's default windowing skips off-screen cells).
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # Run All must not save outputs into the notebooks of the working tree.
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a zombie is dead; only its exit status is left)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.exists():  # Linux: zombies count as gone
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def child_pids(pid: int) -> list[int]:
    """Direct children of ``pid`` (Linux /proc; empty elsewhere)."""
    kids = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            kids.append(int(d.name))
    return kids


def _die_with_parent() -> None:  # runs in the child between fork and exec
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class LabServer:
    def __init__(
        self,
        root_dir: Path,
        *,
        log_dir: Path | None = None,
        python: str = sys.executable,
        extra_env: dict[str, str] | None = None,
        log_name: str = "jupyterlab.log",
        kernel_python: str | None = None,
    ) -> None:
        self.root_dir = Path(root_dir).resolve()
        self.extra_env = dict(extra_env or {})  # for the server and its kernels (e.g. the panels' code path)
        self.python = python
        #: the notebooks' kernel runs this Python (default: JupyterLab's own kernelspec), e.g. the project's venv
        #: under a JupyterLab installed elsewhere
        self.kernel_python = kernel_python
        self.token = secrets.token_hex(24)
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.kernel_pids: set[int] = set()
        self._tmp = Path(tempfile.mkdtemp(prefix="pe-lab-"))
        self.log_path = (Path(log_dir) if log_dir else self._tmp) / log_name
        self.startup_s = float("nan")
        self._stopped = False

    # ---------------------------------------------------------------- start
    def _write_settings(self) -> dict[str, str]:
        dirs = {k: self._tmp / k for k in ("settings", "workspaces", "config", "data", "runtime", "ipython")}
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        for plugin, values in LAB_SETTINGS.items():
            f = dirs["settings"] / f"{plugin}.jupyterlab-settings"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(json.dumps(values))
        env = {}
        if self.kernel_python:
            spec = dirs["data"] / "kernels" / "python3"
            spec.mkdir(parents=True, exist_ok=True)
            argv = [self.kernel_python, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
            (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Python 3 (ipykernel)",
                                                          "language": "python"}))  # fmt: skip
            env["JUPYTER_PREFER_ENV_PATH"] = "0"  # this kernelspec, not the one of JupyterLab's venv
        return {
            **env,
            "JUPYTERLAB_SETTINGS_DIR": str(dirs["settings"]),
            "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"]),
            "JUPYTER_CONFIG_DIR": str(dirs["config"]),
            "JUPYTER_DATA_DIR": str(dirs["data"]),
            "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
            "IPYTHONDIR": str(dirs["ipython"]),
        }

    def start(self, timeout: float = 90) -> LabServer:
        env = {**os.environ, **self._write_settings(), "PYTHONUNBUFFERED": "1", **self.extra_env}
        env.pop("JUPYTER_PATH", None)  # no foreign kernels/extensions
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        t0 = time.perf_counter()
        for _attempt in range(3):  # a free port can be taken between free_port() and bind(): retry
            self.port = free_port()
            cmd = [
                self.python, "-m", "jupyterlab", "--no-browser",
                "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root_dir}",
                "--ServerApp.terminals_enabled=False",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                # window.jupyterapp: test_zh_panels_in_browser.py opens notebook after notebook in one loaded page
                "--LabApp.expose_app_in_browser=True",
            ]  # fmt: skip
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                cmd.append("--allow-root")
            log = open(self.log_path, "ab")  # noqa: SIM115 (closed in stop())
            self._log = log
            self.proc = subprocess.Popen(
                cmd, cwd=self.root_dir, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )  # fmt: skip
            atexit.register(self.stop)
            while time.perf_counter() - t0 < timeout:
                if self.proc.poll() is not None:
                    break  # exited (port taken?): next attempt
                try:
                    self.api("GET", "api/status", timeout=2)
                    self.startup_s = time.perf_counter() - t0
                    return self
                except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                    time.sleep(0.2)
            else:
                self.stop()
                raise TimeoutError(f"JupyterLab did not answer within {timeout:.0f} s; log: {self.log_path}")
        raise RuntimeError(f"JupyterLab exited during start-up (3 tries); log: {self.log_path}")

    # ---------------------------------------------------------------- use
    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def runtime_dir(self) -> Path:
        """The server's and its kernels' JUPYTER_RUNTIME_DIR (the kernels' connection files)."""
        return self._tmp / "runtime"

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}?token={self.token}"

    def api(self, method: str, path: str, body: dict | None = None, timeout: float = 10):
        req = urllib.request.Request(
            f"{self.base}/{path.lstrip('/')}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            data = r.read()
        return json.loads(data) if data else None

    def saved_files(self) -> list[str]:
        """Paths this server has written through the contents API (its log's "Saving file at" lines)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(getattr(self, "_log_offset", 0))
                text = f.read().decode(errors="replace")
        except OSError:
            return []
        return [ln.split("Saving file at", 1)[1].strip() for ln in text.splitlines() if "Saving file at" in ln]

    def record_kernel_pids(self) -> None:
        """Remember the server's children (its kernels) so stop() can prove they are gone."""
        if self.proc is not None:
            self.kernel_pids.update(child_pids(self.proc.pid))

    def shutdown_session(self, notebook_path: str) -> None:
        """Shut down the kernel(s) of one notebook (DELETE its session(s))."""
        self.record_kernel_pids()
        for s in self.api("GET", "api/sessions"):
            if s.get("path") == notebook_path:
                self.api("DELETE", f"api/sessions/{s['id']}")

    def shutdown_kernels(self) -> list[str]:
        self.record_kernel_pids()
        ids = [k["id"] for k in self.api("GET", "api/kernels")]
        for kid in ids:
            with contextlib.suppress(urllib.error.HTTPError):
                self.api("DELETE", f"api/kernels/{kid}", timeout=20)
        return ids

    # ---------------------------------------------------------------- stop
    def stop(self) -> None:
        """Stop kernels and server (idempotent). Raises if the server's or a kernel's PID survives."""
        if self._stopped or self.proc is None:
            return
        self._stopped = True
        proc = self.proc
        if proc.poll() is None:
            with contextlib.suppress(Exception):
                self.shutdown_kernels()
            self.record_kernel_pids()
            with contextlib.suppress(Exception):
                self.api("POST", "api/shutdown", timeout=5)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)  # this PID only
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
        with contextlib.suppress(Exception):
            self._log.close()
        deadline = time.monotonic() + 10
        left = [p for p in self.kernel_pids if pid_alive(p)]
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = [p for p in left if pid_alive(p)]
        for p in left:  # a kernel the server failed to stop: by its recorded PID only
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
        shutil.rmtree(self._tmp, ignore_errors=True)
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        assert not pid_alive(proc.pid), f"JupyterLab PID {proc.pid} is still running"
        assert not left, f"kernel PIDs {left} outlived the server (killed by PID)"

    def __enter__(self) -> LabServer:
        return self.start() if self.proc is None else self

    def __exit__(self, *exc) -> None:
        self.stop()
