"""Finding the table a request names: in this process (:func:`live_table`); for a request only a finished table
answers (a record, a replay, an analysis), refused alike on every process of a site while the table is played
(:func:`ended_table`); or, for a seat request of a table another process of the site drives, that process's answer
(:func:`seat_table`, :func:`seat_write`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from fastapi import Request

from motley.server.play.live import LiveTable
from motley.server.play.service import OwnedElsewhere, Service
from motley.server.site.leases import RELAYED
from motley.server.site.relay import OwnerUnreachable, forward
from motley.server.store.refusals import Refusal
from motley.server.store.writer import LeaseLost
from motley.server.web.reading import client_address
from motley.server.web.refusals import Forwarded, NoSuchTable, NotFinished

T = TypeVar("T")


async def live_table(service: Service, table_id: str) -> LiveTable:
    """The table ``table_id``.

    Raises:
        NoSuchTable: if there is none. StoreError: if the store does not answer. OwnedElsewhere: (a site) if
            another process drives it.
    """
    live = await service.get(table_id)
    if live is None:
        raise NoSuchTable()
    return live


async def ended_table(service: Service, table_id: str,
                      unfinished: Callable[[], Refusal] = NotFinished) -> LiveTable:
    """The table ``table_id`` of a request that only a finished table answers (its record, its replay, an
    analysis), as :func:`live_table`; the caller refuses it while its match is played. A table another process of
    the site drives is one the store holds unfinished (another process could not have its lease otherwise), so it
    is refused here with ``unfinished()`` (default :class:`NotFinished`, 409), as its owner refuses it, not sent
    to the owner and not answered 503. The lease is asked first (one small read, ``Service.owner_process``), so
    such a request never makes this process load and replay the table's whole log only to find it driven
    elsewhere.

    Raises:
        Refusal: ``unfinished()``, for a table another process of the site drives. NoSuchTable, StoreError: as
            :func:`live_table`.
    """
    owner = service.membership.owner
    if owner is not None:
        process = await service.owner_process(table_id)
        if process is not None and process[0] != owner:
            raise unfinished()
    try:
        return await live_table(service, table_id)
    except OwnedElsewhere as exc:
        raise unfinished() from exc


async def seat_table(service: Service, table_id: str, request: Request, body: bytes = b"") -> LiveTable:
    """The table ``table_id`` of a seat request (join, rematch, decline), as :func:`live_table`; a table another
    process of the site drives is not answered here: the request (``body``, read by the caller, and the client's
    address) is forwarded to the owner (:func:`~motley.server.site.relay.forward`), whose answer is raised as
    :class:`Forwarded` (and answered as it came).

    Raises:
        Forwarded: the owner's answer. OwnerUnreachable: for a request forwarded already, or a table whose owner
            is unknown or does not answer. NoSuchTable, StoreError: as :func:`live_table`.
    """
    try:
        return await live_table(service, table_id)
    except OwnedElsewhere as exc:
        if request.headers.get(RELAYED) is not None:
            raise OwnerUnreachable() from exc
    process = await service.owner_process(table_id)
    if process is None:
        raise OwnerUnreachable()
    secret = service.membership.secret
    status, answer, retry_after = await forward(request.url.path, request.url.query, body,
                                                client_address(request, service), *process, secret=secret)
    raise Forwarded(status, answer, retry_after)


async def seat_write(service: Service, table_id: str, request: Request,
                     write: Callable[[LiveTable], Awaitable[T]], body: bytes = b"") -> tuple[LiveTable, T]:
    """``write(live)`` at the table of a seat request (a join, a decline; ``body``: the request's, read by the
    caller), found as :func:`seat_table` finds it; a write the store refused because another process took the
    table over meanwhile (:class:`LeaseLost`: this process was paused past its lease; its copy is dropped) is asked
    again, so that the new owner answers it (forwarded, with ``body``). Returns the table and what ``write``
    returned.

    Raises:
        Forwarded, OwnerUnreachable, NoSuchTable, StoreError: as :func:`seat_table`; whatever ``write`` raises.
    """
    live = await seat_table(service, table_id, request, body)
    try:
        return live, await write(live)
    except LeaseLost:
        live = await seat_table(service, table_id, request, body)
        return live, await write(live)
