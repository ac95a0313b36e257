"""The app under gunicorn, as ``make serve`` runs it, on a port of 127.0.0.1: started, watched, stopped.

:class:`AppServer` starts ``gunicorn -c gunicorn.conf.py APP`` in a session of its own
(so that its master and workers can be signalled together), waits until a path answers
200, and stops what it started, nothing else. The helpers read a process's children
and CPU time from ``/proc`` (Linux).
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import ROOT
from .ports import free_port


def get(port: int, path: str, timeout: float = 2.0) -> int:
    """The status of ``GET path`` on 127.0.0.1:``port``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def wait_for(port: int, path: str, timeout: float = 30.0, process: subprocess.Popen | None = None,
             status: int | None = 200) -> None:
    """Wait until ``GET path`` answers (``status``; None: any status), or raise; a ``process`` that exits fails it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server for port {port} exited with {process.returncode}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            answered = get(port, path)
            if status is None or answered == status:
                return
        time.sleep(0.1)
    raise RuntimeError(f"no answer from {path} on port {port} within {timeout:.0f} s")


def migrate(url: str, cwd: Path = ROOT) -> None:
    """The service's migrations (``flask db upgrade``) on the database of ``url``, from the checkout at ``cwd``."""
    subprocess.run([sys.executable, "-m", "flask", "--app", "service", "db", "upgrade"], cwd=cwd,
                   env={**os.environ, "DATABASE_URL": url, "RATELIMIT_ENABLED": "0"}, check=True, capture_output=True,
                   timeout=300)


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (a gunicorn master's workers)."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) ``pid`` has used so far; 0 for a process that is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


class AppServer:
    """gunicorn serving ``app`` (default the service) with ``gunicorn.conf.py`` on ``port`` (default a free one).

    ``environment`` is added to this process's (``DATABASE_URL``, ``WEB_WORKERS`` …);
    ``BIND`` is the port's. ``log``: a file for gunicorn's output (default: discarded).
    The port stays the server's across :meth:`stop` and :meth:`start`, for a restart.
    """

    def __init__(self, environment: dict, *, port: int | None = None, app: str = "service:create_app()",
                 options: tuple[str, ...] = (), log: Path | None = None, cwd: Path = ROOT,
                 ready_path: str = "/healthz", ready_status: int | None = 200) -> None:
        self.port = port or free_port()
        self.environment = {**environment, "BIND": f"127.0.0.1:{self.port}"}
        self.command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", *options, app]
        self.log, self.cwd = log, cwd
        self.ready_path, self.ready_status = ready_path, ready_status
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0, workers: int | None = None) -> AppServer:
        """Start gunicorn; return once the ready path answers (and ``workers`` workers run, if given)."""
        output = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115 (the child keeps it)
        try:
            self.process = subprocess.Popen(self.command, cwd=self.cwd, env={**os.environ, **self.environment},
                                            stdout=output, stderr=output, start_new_session=True)
        finally:
            if self.log:
                output.close()
        try:
            wait_for(self.port, self.ready_path, timeout, self.process, self.ready_status)
            deadline = time.monotonic() + timeout
            while workers is not None and len(self.workers()) != workers:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not start {workers} workers")
                time.sleep(0.05)
        except RuntimeError as error:
            self.stop()
            raise RuntimeError(f"{error}\n{self.log_tail()}") from None
        return self

    def log_tail(self, size: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-size:] if self.log and self.log.exists() else ""

    def workers(self) -> list[int]:
        return children(self.process.pid) if self.process else []

    def workers_cpu(self) -> float:
        """CPU seconds the workers have used so far (the master's own work is not the app's)."""
        return sum(cpu_seconds(pid) for pid in self.workers())

    def kill_worker(self, timeout: float = 20.0) -> None:
        """``kill -9`` one worker and wait until the master has forked its replacement."""
        workers = self.workers()
        assert workers, "no worker to kill"
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            current = self.workers()
            if len(current) == len(workers) and workers[0] not in current:
                return
            time.sleep(0.05)
        raise RuntimeError("no new worker after kill -9")

    def kill(self) -> None:
        """``kill -9`` the master and its workers at once."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 15.0) -> None:
        """Stop gracefully (SIGTERM to its session), then kill what is left after ``timeout``."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
