"""nginx in front of app servers, configured as deployed: ``deploy/stack.py`` renders ``deploy/nginx.conf.template``.

:class:`Proxy` is nginx alone in front of servers already running (the bench's proxy
cost); ``stack`` is the deploy module itself, whose ``up``/``down`` start and stop the
whole production shape (nginx and two app masters).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from . import ROOT
from .ports import free_port
from .servers import wait_for

sys.path.insert(0, str(ROOT / "deploy"))

import stack  # noqa: E402  (deploy/stack.py)


def installed() -> bool:
    """Whether nginx can be run here."""
    return shutil.which("nginx") is not None or Path("/usr/sbin/nginx").exists()


class Proxy:
    """nginx on ``port`` (default a free one) in front of ``app_ports``; ``settings``: ``stack.StackSettings``'s."""

    def __init__(self, app_ports: list[int], *, port: int | None = None, **settings) -> None:
        self.port = port or free_port()
        self._run_dir = tempfile.TemporaryDirectory(prefix="harness-nginx-")
        self.settings = stack.StackSettings(port=self.port, app_ports=app_ports, run_dir=Path(self._run_dir.name),
                                            **settings)

    def start(self, timeout: float = 30.0) -> Proxy:
        stack.start_nginx(self.settings)
        try:
            wait_for(self.port, "/healthz", timeout)
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        stack.down(self.settings.run_dir)
        self._run_dir.cleanup()

    def __enter__(self) -> Proxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
