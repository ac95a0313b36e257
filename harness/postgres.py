"""PostgreSQL for tests and benches: scratch databases on the shared server, or a private cluster of one's own.

* :func:`scratch_database` — a new, empty database on the shared server
  (``TEST_POSTGRES_URL``, default 127.0.0.1:5432 with trust auth), dropped afterwards;
  its name starts with ``TEST_DATABASE_PREFIX``, so that engineers sharing the server
  keep apart.
* :class:`PrivateCluster` — a cluster in a temporary directory, made with the machine's
  own binaries (``/usr/lib/postgresql/*/bin``: ``initdb``, ``pg_ctl``) on a free port of
  127.0.0.1, which its owner may stop and start at will (a fault test's outage) without
  touching the shared server; :meth:`PrivateCluster.replica` adds a streaming replica
  (``pg_basebackup``). PostgreSQL refuses to run as root: as root, its binaries run as
  the ``postgres`` user (``runuser``), in a directory that user owns.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .ports import free_port

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
#: Put before every scratch database's name: engineers sharing one server keep apart by it.
NAME_PREFIX = os.environ.get("TEST_DATABASE_PREFIX", "")


def reachable(url: str = POSTGRES_URL) -> str | None:
    """None when the server at ``url`` answers, else why not."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        with engine.connect():
            return None
    except sa.exc.OperationalError as error:
        return f"PostgreSQL unreachable: {error}"
    finally:
        engine.dispose()


@contextmanager
def scratch_database(prefix: str, admin_url: str = POSTGRES_URL) -> Iterator[str]:
    """A new, empty database on the server of ``admin_url`` for the block's duration; its URL.

    Raises ``sqlalchemy.exc.OperationalError`` when the server cannot be reached.
    """
    import sqlalchemy as sa

    # pre-ping: a private cluster's owner may have restarted it meanwhile.
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    name = f"{NAME_PREFIX}{prefix}_{uuid.uuid4().hex[:10]}"
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except BaseException:
        admin.dispose()
        raise
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@contextmanager
def scratch_url(kind: str, name: str) -> Iterator[str]:
    """A new, empty database of ``kind`` (``sqlite``: a file in a temporary directory; ``postgresql``:
    :func:`scratch_database`) for the block's duration; its URL."""
    if kind == "postgresql":
        with scratch_database(name) as url:
            yield url
        return
    with tempfile.TemporaryDirectory(prefix=f"harness-{name}-") as directory:
        yield f"sqlite:///{directory}/{name}.db"


def binaries() -> Path | None:
    """The newest ``/usr/lib/postgresql/*/bin`` with ``initdb`` and ``pg_ctl``, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(Path(path).parts[-3]))
    return Path(found[-1]).parent if found else None


def _run_as() -> list[str]:
    """The prefix that runs a PostgreSQL binary as a user it accepts (not root)."""
    if os.geteuid() != 0:
        return []
    return ["runuser", "-u", "postgres", "--"]


class PrivateCluster:
    """A PostgreSQL cluster of one's own in ``directory`` (default a new temporary one), on ``port`` (default free).

    Trust auth for local connections as ``postgres``; ``url`` is SQLAlchemy's. Use it as
    a context manager (initdb and start, then stop and remove), or call :meth:`create`,
    :meth:`start`, :meth:`stop` and :meth:`remove` yourself.
    """

    def __init__(self, directory: Path | None = None, port: int | None = None) -> None:
        self.bin = binaries()
        if self.bin is None:
            raise RuntimeError("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
        self._owned_directory = directory is None
        self.directory = Path(directory or tempfile.mkdtemp(prefix="harness-postgres-"))
        self.data = self.directory / "data"
        self.port = port or free_port()
        self.log = self.directory / "postgres.log"
        self.replicas: list[PrivateCluster] = []

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _give_to_postgres(self, path: Path) -> None:
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(path, user.pw_uid, user.pw_gid)

    def _run(self, tool: str, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
        command = [*_run_as(), str(self.bin / tool), *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr.strip()}\n{self.log_tail()}")
        return done

    def log_tail(self, size: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-size:]
        except OSError:
            return ""

    def create(self) -> PrivateCluster:
        """``initdb`` the data directory (trust auth, user ``postgres``, UTF-8)."""
        self._give_to_postgres(self.directory)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
        return self

    def start(self, timeout: float = 60.0) -> PrivateCluster:
        """``pg_ctl start`` on 127.0.0.1:``port`` (its socket in the directory); returns once it accepts connections."""
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", str(int(timeout)),
                  "start", timeout=timeout + 10)
        return self

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop`` (``fast``: connections are cut, as in an outage); nothing when it is not running."""
        if self.running():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def ready(self, timeout: float = 30.0) -> bool:
        """Whether it accepts connections within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            probe = subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"])
            if probe.returncode == 0:
                return True
            time.sleep(0.2)
        return False

    def replica(self, port: int | None = None) -> PrivateCluster:
        """A streaming replica of this (running) cluster: ``pg_basebackup -R`` into a new directory, started.

        It follows the primary until stopped; :meth:`remove` of the primary removes it too.
        """
        standby = PrivateCluster(port=port)
        standby._give_to_postgres(standby.directory)
        standby._run("pg_basebackup", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                     "-D", str(standby.data), "-R", "-X", "stream", "--no-sync")
        self.replicas.append(standby)
        return standby.start()

    def remove(self) -> None:
        """Stop it (and its replicas), then delete its directory if it made it."""
        for standby in self.replicas:
            standby.remove()
        self.stop("immediate")
        if self._owned_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> PrivateCluster:
        try:
            return self.create().start()
        except BaseException:
            self.remove()
            raise

    def __exit__(self, *exc) -> None:
        self.remove()
