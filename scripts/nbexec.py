"""Run a notebook in a child process that cannot stall silently (used by run_notebooks.py and the tests).

    from nbexec import run_notebook, NotebookRunError
    executed = run_notebook(nb, name="02_sinusoidal.ipynb", cwd=Path("notebooks"))

Each call starts one child process (``_CHILD``, which calls ``_child_main``) with its own event loop, kernel
manager and ZMQ context; the child runs the notebook cell by cell with nbclient and reports every cell it starts
and ends on its stdout. Nothing is shared between notebooks, so callers may run several in threads.

Why (the cause, reproduced): nbclient waits for a cell's ``execute_reply`` with ``await socket.poll(timeout)`` on
the shell socket, a ``zmq.asyncio`` socket whose wake-up is ZeroMQ's edge-triggered file descriptor. While it
waits, nbclient's Output-widget mimic sends ``comm_msg`` on that same socket (every output an ipywidgets Output
widget captures, so every cell that draws a panel), and ``jupyter_client.Session.send`` sends on a synchronous
*shadow* of the socket. libzmq's send processes the socket's pending commands, which can consume the edge that
announced the reply; pyzmq's asyncio layer never learns of a send it did not make, so nothing re-checks the
socket: the reply sits there unread, the kernel idle, until the poll's timeout (the whole cell timeout). The
same race on the kernel side was ipython/ipykernel#1529; the symptom is jupyter/nbclient#312. Measured with
``zmq.asyncio`` alone: replies lost this way in a few rounds per thousand with shadow sends, none with sends
through the asyncio socket. The child therefore

* sends on the shell channel through the asyncio socket itself (which re-checks the socket after each send);
* polls the shell and IOPub sockets in slices of ``POLL_SLICE`` seconds (a slice that ends does a real
  ``zmq_poll``), so any other missed wake-up costs at most one slice;
* watches each cell's request: if the kernel shows no sign of it (no IOPub message with it as parent) after
  ``stall_timeout`` seconds, it sends a ``kernel_info_request``, which makes the kernel read its shell socket
  again (a stranded request is read first, in order); after two such nudges it fails; if the kernel reported
  "idle" for the cell but the reply did not come within ``stall_timeout``, or the kernel is "busy" but used no
  CPU for ``2 * stall_timeout`` seconds, it fails;
* fails with a message naming the notebook, the cell index, the first line of its source and what was
  missing; the parent also kills a child that reports nothing for longer than any cell may take.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from queue import Empty

import nbformat
import zmq

EVENT_MARK = "@@nbexec@@ "
POLL_SLICE = 0.5  # s: longest a message can wait in a socket unread
IOPUB_TIMEOUT = 30  # s: after a cell's reply, how long its remaining outputs may take (then: fail, not warn)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class NotebookRunError(RuntimeError):
    """A notebook did not run to the end: an error, a timeout, a stall or a dead kernel, with where it happened.

    ``kind`` is one of "error", "timeout", "stall", "dead", "crash"; ``cell`` is the notebook cell index (or None
    outside any cell); ``notebook`` is the executed notebook as far as it got (or None).
    """

    def __init__(self, message: str, *, kind: str, cell: int | None, notebook=None):
        super().__init__(message)
        self.kind, self.cell, self.notebook = kind, cell, notebook


def cell_label(nb: nbformat.NotebookNode, index: int | None) -> str:
    """'cell 7 (`first line of its source`)' for messages."""
    if index is None or not 0 <= index < len(nb.cells):
        return "outside any cell (kernel start-up)"
    first = next((ln.strip() for ln in nb.cells[index].source.splitlines() if ln.strip()), "")
    return f"cell {index} (`{first[:70]}`)"


def error_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Every error output in the notebook, as "cell i (`line`): Name: value" (callbacks' errors included)."""
    return [
        f"{cell_label(nb, i)}: {o.get('ename')}: {ANSI.sub('', str(o.get('evalue')))[:300]}"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]


# ----------------------------------------------------------------------------- parent side
def run_notebook(
    nb: nbformat.NotebookNode,
    *,
    name: str,
    cwd: Path,
    kernel_env: dict[str, str] | None = None,
    cell_timeout: int = 300,
    stall_timeout: float = 30,
    allow_tagged_errors: bool = False,
    _faults: tuple[str, ...] = (),
) -> nbformat.NotebookNode:
    """Run ``nb`` top to bottom in a fresh kernel (started in ``cwd``), in a child process; return it executed.

    Raises NotebookRunError (naming ``name`` and the cell) on an error in a cell (also a cell tagged
    ``raises-exception`` unless ``allow_tagged_errors``), a cell running longer than ``cell_timeout`` seconds, a
    stall (see the module docstring) or a dead kernel. ``_faults`` injects the failures the tests check the
    watchdog with (see ``_Guard._inject``). Saved widget state is in ``metadata.widgets`` (strip it
    before committing). ``kernel_env`` is the kernel's environment (default: ours).
    """
    with tempfile.TemporaryDirectory(prefix="nbexec-") as tmp:
        tmp = Path(tmp)
        nbformat.write(nb, tmp / "in.ipynb")
        job = {
            "in": str(tmp / "in.ipynb"),
            "out": str(tmp / "out.ipynb"),
            "cwd": str(Path(cwd).resolve()),
            "kernel_env": kernel_env,
            "cell_timeout": cell_timeout,
            "stall_timeout": stall_timeout,
            "allow_tagged_errors": allow_tagged_errors,
            "faults": list(_faults),
        }
        (tmp / "job.json").write_text(json.dumps(job))
        t0 = time.monotonic()
        with open(tmp / "stderr.txt", "w") as err:
            proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(Path(__file__).resolve().parent), str(tmp / "job.json")],
                stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL, text=True, cwd=job["cwd"],
            )  # fmt: skip
            backstop = cell_timeout + 3 * stall_timeout + 60  # longer than any cell may take before the child says so
            events, fail, kernel_pid = _watch(proc, backstop)
        out = nbformat.read(tmp / "out.ipynb", as_version=4) if (tmp / "out.ipynb").exists() else None
        _log_run(name, events, fail, proc.returncode, time.monotonic() - t0)
        if fail is None and proc.returncode == 0 and out is not None:
            return out
        stderr = (tmp / "stderr.txt").read_text(errors="replace").strip().splitlines()
    cell = fail.get("cell") if fail else next((e["cell"] for e in reversed(events) if e["ev"] == "start"), None)
    if fail is None:  # the child died or hung without saying why
        if kernel_pid:
            _kill(kernel_pid)
        how = f"reported nothing for {backstop:.0f} s and was killed" if proc.returncode == -9 else "crashed"
        fail = {"kind": "crash", "msg": f"the notebook runner {how} (exit {proc.returncode})"}
    msg = f"{name}, {cell_label(nb, cell)}: {fail['msg']}"
    if fail["kind"] == "crash" and stderr:
        msg += "\nrunner stderr:\n" + "\n".join(stderr[-15:])
    raise NotebookRunError(msg, kind=fail["kind"], cell=cell, notebook=out)


def _log_run(name: str, events: list[dict], fail: dict | None, returncode: int, seconds: float) -> None:
    """With NBEXEC_LOG=path set, append one JSON line per notebook run: time, slowest cell, nudges, outcome."""
    path = os.environ.get("NBEXEC_LOG")
    if not path:
        return
    ends = [e for e in events if e["ev"] == "end"]
    slowest = max(ends, key=lambda e: e["s"], default=None)
    line = {"when": time.strftime("%Y-%m-%dT%H:%M:%S"), "notebook": name, "seconds": round(seconds, 1),
            "cells": len(ends), "slowest_cell": slowest and [slowest["cell"], slowest["s"]],
            "nudges": sum(e["ev"] == "nudge" for e in events), "result": fail["kind"] if fail else "ok" if returncode == 0 else f"exit {returncode}"}  # fmt: skip
    with open(path, "a") as f:
        f.write(json.dumps(line) + "\n")


def _watch(proc: subprocess.Popen, backstop: float) -> tuple[list[dict], dict | None, int | None]:
    """Read the child's events; kill it (and its kernel) if it is silent for ``backstop`` seconds."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout] + [lines.put(None)], daemon=True).start()
    events, fail, kernel_pid, last = [], None, None, time.monotonic()
    while True:
        try:
            line = lines.get(timeout=1.0)
        except Empty:
            if proc.poll() is not None:  # exited and everything it wrote has been read
                break
            if time.monotonic() - last > backstop:
                if kernel_pid:
                    _kill(kernel_pid)
                proc.kill()
                break
            continue
        if line is None:
            break
        last = time.monotonic()
        if not line.startswith(EVENT_MARK):
            continue
        ev = json.loads(line[len(EVENT_MARK) :])
        events.append(ev)
        if ev["ev"] == "kernel":
            kernel_pid = ev["pid"]
        elif ev["ev"] == "fail":
            fail = ev
    proc.wait()
    return events, fail, kernel_pid


def _kill(pid: int) -> None:
    """SIGKILL our kernel, if that pid is still a kernel (not a pid since reused by something else)."""
    try:
        if b"ipykernel" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


# ----------------------------------------------------------------------------- child side
class StallError(RuntimeError):
    pass


def _emit(ev: str, **kw) -> None:
    print(EVENT_MARK + json.dumps({"ev": ev, **kw}), flush=True)


def _cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process and its reaped children (Linux /proc), or None where unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime
    except (OSError, ValueError, IndexError, TypeError):
        return None


def _send_through_asyncio_socket(chan):
    """``chan.send`` that sends on the ``zmq.asyncio`` socket, not on a synchronous shadow of it.

    ``Session.send`` shadows an asyncio socket and sends raw; that send can swallow the wake-up of a message
    arriving at the same moment (module docstring). The asyncio socket's own send re-checks ``ZMQ_EVENTS`` for
    the pending poll after sending.
    """

    def send(msg: dict) -> None:
        frames = chan.session.serialize(msg)
        frames.extend(msg.get("buffers") or [])
        chan.socket.send_multipart(frames)  # a Future, already done unless the socket is full; then queued

    return send


class _Guard:
    """Sends and sliced polls on the shell and IOPub channels, plus the stall checks of the module docstring."""

    def __init__(self, kc, stall_timeout: float, kernel_pid: int | None):
        self.kc, self.stall, self.kernel_pid = kc, stall_timeout, kernel_pid
        self.pending: dict | None = None  # the execute_request waiting for its reply
        self.drop = lambda msg: False  # test faults only
        execute = kc.execute

        def traced_execute(*a, **k):
            msg_id = execute(*a, **k)
            now = time.monotonic()
            self.pending = {"id": msg_id, "sent": now, "seen": None, "idle": None, "nudges": 0, "cpu": (now, None)}
            return msg_id

        kc.execute = traced_execute
        kc.shell_channel.send = _send_through_asyncio_socket(kc.shell_channel)
        for chan in (kc.shell_channel, kc.iopub_channel):
            chan.get_msg = self._sliced_get_msg(chan)

    def _sliced_get_msg(self, chan):
        async def get_msg(timeout: float | None = None) -> dict:
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                step = POLL_SLICE if deadline is None else min(POLL_SLICE, max(0.0, deadline - time.monotonic()))
                if await chan.socket.poll(int(step * 1000)):
                    frames = await chan.socket.recv_multipart(flags=zmq.NOBLOCK)  # ready: never waits
                    _, smsg = chan.session.feed_identities(frames)
                    msg = chan.session.deserialize(smsg)
                    if not self.drop(msg):
                        self._observe(chan is self.kc.iopub_channel, msg)
                        return msg
                if chan is self.kc.shell_channel:  # nbclient waits here for every reply: check from one place
                    self._check()
                if deadline is not None and time.monotonic() >= deadline:
                    raise Empty

        return get_msg

    def _observe(self, iopub: bool, msg: dict) -> None:
        p = self.pending
        if p is None or msg["parent_header"].get("msg_id") != p["id"]:
            return
        if not iopub:
            self.pending = None  # the reply
            return
        p["seen"] = p["seen"] or time.monotonic()
        if msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle":
            p["idle"] = time.monotonic()

    def _check(self) -> None:
        p, now = self.pending, time.monotonic()
        if p is None:
            return
        if p["idle"] is not None and now - p["idle"] > self.stall:
            raise StallError(
                f"stalled: the kernel reported the cell finished (status idle) {now - p['idle']:.0f} s ago, "
                "but its execute_reply never arrived"
            )
        if p["seen"] is None and now - p["sent"] > self.stall * (p["nudges"] + 1):
            if p["nudges"] < 2:
                p["nudges"] += 1
                self.kc.kernel_info()  # makes the kernel read its shell socket; a stranded request comes first
                _emit("nudge", after=round(now - p["sent"], 1))
                return
            raise StallError(
                f"stalled: the kernel never started the cell (no IOPub message for it {now - p['sent']:.0f} s after "
                "the execute_request, two kernel_info nudges did not help)"
            )
        if p["seen"] is not None and p["idle"] is None:  # busy: is the kernel using any CPU?
            t0, cpu0 = p["cpu"]
            cpu = _cpu_seconds(self.kernel_pid)
            if cpu is None:
                return
            if cpu0 is None or cpu > cpu0:
                p["cpu"] = (now, cpu)
            elif now - t0 > 2 * self.stall:
                raise StallError(
                    f"stalled: the kernel is busy with the cell but used no CPU for {now - t0:.0f} s (deadlock?)"
                )

    def _inject(self, faults: list[str]) -> None:
        """Test faults: "deaf-poll" (no socket poll wakes before its timeout: every wake-up lost), "lost-request"
        (execute_requests whose code has the marker NBEXEC_FAULT are never sent), "lost-reply" (their replies
        are dropped on arrival)."""
        kc = self.kc
        if "deaf-poll" in faults:
            for chan in (kc.shell_channel, kc.iopub_channel):
                real_poll = chan.socket.poll

                async def deaf_poll(timeout=None, flags=None, _real=real_poll):
                    await asyncio.sleep((timeout or 0) / 1000)
                    return await _real(0)

                chan.socket.poll = deaf_poll
        if "lost-request" in faults:
            send = kc.shell_channel.send
            kc.shell_channel.send = lambda msg: None if "NBEXEC_FAULT" in msg["content"].get("code", "") else send(msg)
        if "lost-reply" in faults:
            execute, marked = kc.execute, set()

            def marking_execute(code, *a, **k):
                msg_id = execute(code, *a, **k)
                if "NBEXEC_FAULT" in code:
                    marked.add(msg_id)
                return msg_id

            kc.execute = marking_execute
            self.drop = lambda msg: msg["msg_type"] == "execute_reply" and msg["parent_header"]["msg_id"] in marked


async def _child_run(job: dict) -> int:
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(job["in"], as_version=4)
    client = NotebookClient(
        nb,
        timeout=job["cell_timeout"],
        kernel_name="python3",
        resources={"metadata": {"path": job["cwd"]}},
        store_widget_state=True,  # nbclient's Output-widget hook raises KeyError without it; callers strip it
        iopub_timeout=IOPUB_TIMEOUT,
        raise_on_iopub_timeout=True,
        force_raise_errors=not job["allow_tagged_errors"],
    )
    kw = {"stdout": subprocess.DEVNULL}  # our stdout carries the events; the kernel's stderr stays ours
    if job["kernel_env"] is not None:
        kw["env"] = job["kernel_env"]
    index, code = None, 0
    try:
        client.km = client.create_kernel_manager()
        await client.async_start_new_kernel(**kw)  # first, so that the parent knows the pid during start-up
        pid = getattr(getattr(getattr(client.km, "provisioner", None), "process", None), "pid", None)
        _emit("kernel", pid=pid)
        async with client.async_setup_kernel():  # connects the client; shuts the kernel down at the end
            guard = _Guard(client.kc, job["stall_timeout"], pid)
            guard._inject(job["faults"])
            nb.metadata["language_info"] = (await _kernel_info(client, guard))["content"]["language_info"]
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code" or not cell.source.strip():
                    continue
                _emit("start", cell=index)
                t0 = time.monotonic()
                await client.async_execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                _emit("end", cell=index, s=round(time.monotonic() - t0, 2))
            index = None
            client.set_widgets_metadata()
    except CellTimeoutError:
        code = _fail("timeout", index, f"timed out: the kernel was still busy with it after {job['cell_timeout']} s")
    except CellExecutionError as e:
        code = _fail("error", index, "raised an error:\n" + ANSI.sub("", str(e))[-2500:])
    except StallError as e:
        code = _fail("stall", index, str(e))
    except DeadKernelError as e:
        code = _fail("dead", index, f"the kernel died ({e})")
    except Exception:  # noqa: BLE001 - reported with its traceback, then the notebook as far as it got is written
        code = _fail("crash", index, "the notebook runner failed:\n" + traceback.format_exc()[-2500:])
    finally:
        if client.km is not None and client.km.has_kernel:  # failed before the client connected
            await client.km.shutdown_kernel(now=True)
    nbformat.write(nb, job["out"])
    return code


async def _kernel_info(client, guard: _Guard) -> dict:
    """The kernel_info reply, asking again (it is idempotent) if one does not come within the stall timeout."""
    for _ in range(3):
        msg_id = client.kc.kernel_info()
        deadline = time.monotonic() + guard.stall
        while time.monotonic() < deadline:
            try:
                msg = await client.kc.shell_channel.get_msg(timeout=max(0.0, deadline - time.monotonic()))
            except Empty:
                break
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg
    raise StallError(f"stalled: no kernel_info reply in {3 * guard.stall:.0f} s")


def _fail(kind: str, index: int | None, msg: str) -> int:
    _emit("fail", kind=kind, cell=index, msg=msg)
    return 1


def _child_main(job_path: str) -> int:
    return asyncio.run(_child_run(json.loads(Path(job_path).read_text())))


# The child's command line. nbclient imports nbformat, which imports jsonschema, which imports rfc3987_syntax when
# it is installed (a Jupyter server dependency) only to check the "iri" string format; that import builds a
# grammar: 1.5 s of CPU, 5-8 s on a loaded machine, in every child. Notebook schemas use no such format: skip it.
_CHILD = (
    "import sys; sys.modules.setdefault('rfc3987_syntax', None); sys.path.insert(0, sys.argv[1]); "
    "import nbexec; sys.exit(nbexec._child_main(sys.argv[2]))"
)
