"""Helper processes that never outlive the process that started them.

A worker (a server's search pool, a training run's actors) is started by a parent that may be killed with
SIGKILL, which gives it no chance to stop its workers; and a worker blocked on a queue nobody reads would run
on forever. :func:`exit_with_parent` makes the worker exit within half a second of its parent's end.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["exit_with_parent"]


def exit_with_parent(parent: int) -> None:
    """In a worker process: exit as soon as process ``parent`` (the one that started it) is gone.

    A daemon thread polls the parent id every 0.5 s; when the worker has been re-parented, it ends the process
    at once (``os._exit(0)``: no clean-up runs, there is nobody left to report to).
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="motley-parent-watch", daemon=True).start()
