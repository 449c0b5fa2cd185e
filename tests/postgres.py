"""A throwaway PostgreSQL server for the tests: ``initdb`` into a temporary folder, ``pg_ctl`` on a Unix socket in
it (no TCP port), a database per test, everything removed at the end.

Debian's server binaries are in ``/usr/lib/postgresql/VERSION/bin`` (package ``postgresql``, which
``./scripts/setup`` installs). PostgreSQL refuses to run as root, so under root the server runs as the
unprivileged user ``nobody`` (the folder is handed to it).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: Server settings for tests: no fsync (a test database need not survive a power cut; a stop still writes it
#: out), a small footprint, and a Unix socket only.
SETTINGS = ("-c fsync=off -c full_page_writes=off -c synchronous_commit=on -c listen_addresses='' "
            "-c max_connections=200 -c shared_buffers=32MB")
#: The user the server runs as when the tests run as root.
UNPRIVILEGED = "nobody"


def binaries() -> Path | None:
    """The folder of the newest installed PostgreSQL server binaries (``initdb``, ``pg_ctl``), or None."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name)
                   if p.parent.parent.name.isdigit() else 0)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb and shutil.which("pg_ctl") else None


class PostgresServer:
    """A PostgreSQL server of its own in a temporary folder: :meth:`start`, :meth:`stop` (a restart keeps the
    data), :meth:`create_database` (a SQLAlchemy URL), :meth:`drop_database`, :meth:`remove`.

    Raises:
        subprocess.CalledProcessError: ``initdb`` or ``pg_ctl`` failed (its output in the exception).
    """

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        # under root, in /tmp: a folder that ``nobody`` can reach whatever TMPDIR is, with a short socket path
        self.root = Path(tempfile.mkdtemp(prefix="motley-pg-", dir="/tmp" if os.geteuid() == 0 else None))
        self.data, self.socket, self.log = self.root / "data", self.root / "socket", self.root / "server.log"
        self.socket.mkdir()
        self.user: dict[str, Any] = {}
        if os.geteuid() == 0:
            self.user = {"user": UNPRIVILEGED, "group": "nogroup" if _has_group("nogroup") else UNPRIVILEGED}
            shutil.chown(self.root, **self.user)
            shutil.chown(self.socket, **self.user)
        self._names = itertools.count(1)
        self._run("initdb", "-D", str(self.data), "-U", "motley", "--auth=trust", "-E", "UTF8", "--no-sync",
                  "--no-instructions")
        self.start()

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([str(self.bin / program), *args], check=True, capture_output=True, text=True,
                       cwd=self.root, **self.user)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                  "-o", f"-k {self.socket} {SETTINGS}", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: roll back open transactions and close every connection, as an
        administrator's restart does; ``immediate``: at once, as a crash)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def processes(self) -> list[int]:
        """The server's process ids (:func:`processes_of`)."""
        return processes_of(self.data)

    def paused(self) -> contextlib.AbstractContextManager[None]:
        """The server stopped for the ``with`` block (:func:`paused`)."""
        return paused(self.data)

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of ``database`` on this server (psycopg 3, over the Unix socket)."""
        return f"postgresql+psycopg://motley@/{database}?host={self.socket}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(host=str(self.socket), user="motley", dbname="postgres", autocommit=True) as conn:
            conn.execute(sql.encode())  # test-made names only

    def create_database(self) -> str:
        """A new empty database; its URL."""
        name = f"motley_test_{next(self._names)}"
        self._admin(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url`` (made by :meth:`create_database`), closing its connections."""
        name = url.split("/")[-1].split("?")[0]
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def remove(self) -> None:
        """Stop the server at once and delete its folder."""
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def processes_of(data: Path) -> list[int]:
    """The process ids of the PostgreSQL server of the data folder ``data``: the postmaster (``postmaster.pid``'s
    first line), then its children (the backends and background workers, read from ``/proc``)."""
    main = int((data / "postmaster.pid").read_text().split()[0])
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == main:
                children.append(int(stat.parent.name))
    return [main, *children]


@contextlib.contextmanager
def paused(data: Path) -> Iterator[None]:
    """Every process of the PostgreSQL server of ``data`` stopped (SIGSTOP, the postmaster first so that it forks
    no new backend) for the ``with`` block, then let go on (SIGCONT, the backends first) whatever happens in it:
    the server holds its connections and answers nothing, as a hung server or a network that drops packets
    without resets."""
    stopped = processes_of(data)
    for pid in stopped:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in reversed(stopped):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def _has_group(name: str) -> bool:
    import grp

    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def execute(url: str, *statements: tuple[str, dict[str, Any]]) -> list[Any]:
    """Run SQL ``(text, params)`` statements on the store at ``url`` (SQLite or PostgreSQL) in one transaction,
    behind the server's back (to damage or inspect rows); returns each statement's rows (empty for a write)."""
    import sqlalchemy

    from motley.server.store.storage import store_url

    engine = sqlalchemy.create_engine(store_url(url))
    try:
        with engine.begin() as conn:
            results = [conn.execute(sqlalchemy.text(sql), params) for sql, params in statements]
            return [list(r.all()) if r.returns_rows else [] for r in results]
    finally:
        engine.dispose()
