"""Counters of a server process's coordination work, for the load benchmark (docs/scaling.md): statements and
transactions sent to the store, news messages published and received.

Off unless the environment variable :data:`ENV` names a folder when the process starts: then each process counts
and writes ``FOLDER/PID.json`` (``{"pid": int, "statements": int, "commits": int, "news_published": int,
"news_received": int, "at": unix seconds}``) every :data:`EVERY` seconds from a daemon thread and once more at
exit, replacing the file whole (a reader never sees half of one). Nothing is served over HTTP: the figures say
how busy the store is, which is nobody's business but the operator's, and a file needs no route, no
authentication and no port of a worker that the shared port cannot reach. Off, :func:`add` returns after one
comparison and :func:`watch_engine` adds no listener.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

#: The environment variable naming the folder the counters are written to (unset or empty: counting is off).
ENV = "MOTLEY_COUNTERS"
#: Seconds between two writes of a process's counters.
EVERY = 0.25
#: The names counted.
NAMES = ("statements", "commits", "news_published", "news_received")

_folder = os.environ.get(ENV) or None
_counts = dict.fromkeys(NAMES, 0)
_lock = threading.Lock()
_started = False


def enabled() -> bool:
    """Whether this process counts (``MOTLEY_COUNTERS`` was set when it started)."""
    return _folder is not None


def add(name: str, n: int = 1) -> None:
    """Count ``n`` more of ``name`` (one of :data:`NAMES`); nothing when counting is off."""
    if _folder is None:
        return
    with _lock:
        _counts[name] += n
    _start()


def snapshot() -> dict[str, int]:
    """The counts so far (all zero when counting is off)."""
    with _lock:
        return dict(_counts)


def watch_engine(engine: Engine) -> None:
    """Count every statement ``engine`` sends (SQLAlchemy's ``before_cursor_execute``; an ``executemany`` is one)
    and every transaction it commits; nothing when counting is off."""
    if _folder is None:
        return

    def statement(*_: Any) -> None:
        add("statements")

    def commit(*_: Any) -> None:
        add("commits")

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "commit", commit)


def _start() -> None:
    """Start the writer thread and the exit hook once."""
    global _started
    if _started:
        return
    with _lock:
        if _started:
            return
        _started = True
    atexit.register(_write)
    threading.Thread(target=_writer, name="motley-counters", daemon=True).start()


def _writer() -> None:
    while True:
        time.sleep(EVERY)
        _write()


def _write() -> None:
    """Write this process's counts to ``FOLDER/PID.json`` through a temporary file and a rename."""
    if _folder is None:
        return
    folder = Path(_folder)
    record = {"pid": os.getpid(), **snapshot(), "at": time.time()}
    temporary = folder / f".{os.getpid()}.json.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(record))
        temporary.replace(folder / f"{os.getpid()}.json")
    except OSError:
        pass  # a folder gone or full: the counters are a measurement aid, never a reason to fail a request


def read(folder: Path) -> dict[int, dict[str, int]]:
    """The counts every process wrote to ``folder``, by process id (files that are not counters skipped)."""
    found: dict[int, dict[str, int]] = {}
    for path in folder.glob("*.json"):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and isinstance(record.get("pid"), int):
            found[record["pid"]] = {name: int(record.get(name, 0)) for name in NAMES}
    return found
