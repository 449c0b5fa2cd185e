"""The deadlines of store calls in the store's thread (:class:`~motley.server.store.writer.Store`): a call's
passage through the thread (:class:`Call`), the deadline the running call is held to (:func:`within`), and the check
the storage's engine makes before every statement and commit (:func:`check_deadline`), so that a call whose caller
was told it failed is rolled back instead of being carried out after all.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Call", "CallAbandoned", "check_deadline", "within"]

R = TypeVar("R")


class CallAbandoned(Exception):
    """Raised in a store thread before a statement or a commit of a call whose deadline has passed (its caller gave
    up and was told it failed): the call is rolled back instead of being carried out after all."""


_running = threading.local()


def check_deadline(*_args: Any) -> None:
    """In a thread running a store call: raise :class:`CallAbandoned` if the call's deadline (set by
    :func:`within`) has passed. The storage's engine calls it before every statement and every commit
    (``before_cursor_execute`` and ``commit`` events), so a call stuck on a silent store does nothing more once it
    comes back. Nothing outside a call with a deadline."""
    deadline = getattr(_running, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        raise CallAbandoned(f"the call's deadline passed {time.monotonic() - deadline:.1f} s ago: rolled back")


def within(deadline: float | None, fn: Callable[[], R]) -> R:
    """``fn()`` in the calling (store) thread under ``deadline`` (:func:`time.monotonic` seconds, counted from the
    call's start; None: none), for :func:`check_deadline`."""
    _running.deadline = deadline
    try:
        return fn()
    finally:
        _running.deadline = None


class Call:
    """A call's passage through the store's thread: when it was asked for (``submitted``) and began there
    (``began``, None: not yet; :func:`time.monotonic`), and how many callers still wait for it (``waiting``: with
    none left before it begins, it is never made)."""

    __slots__ = ("began", "submitted", "waiting")

    def __init__(self, submitted: float, waiting: int = 1) -> None:
        self.submitted = submitted
        self.waiting = waiting
        self.began: float | None = None
