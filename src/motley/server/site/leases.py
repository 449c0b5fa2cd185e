"""Several server processes as one site over one store: which process drives which table (docs/scaling.md).

A :class:`Site` is this process's part in a site; its membership
(:class:`~motley.server.site.membership.SiteMembership`, handed to :class:`~motley.server.play.service.Service`)
drives each unfinished table only while the process holds its lease (``Storage.claim``/``renew``/``release``/
``unowned``, migration 0004, :class:`~motley.server.store.leases.LeaseRows`), kept by a heartbeat; a process takes
over the tables whose lease expired (their owner died) and stops driving a table whose lease it lost. Without one
(the default, :class:`~motley.server.play.membership.Alone`) a process drives every table, as one process always
did.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from motley.core import MotleyError
from motley.server.play.membership import CLOSE_MOVED as CLOSE_MOVED
from motley.server.store.leases import new_owner

#: Seconds a lease lasts without a heartbeat: how long the tables of a dead process wait for another one.
LEASE_TTL = 6.0
#: The header of a WebSocket handshake relayed by another process of the site (never relayed again).
RELAYED = "x-motley-relayed"
#: The header of a seat request (join, rematch, decline) forwarded by another process of the site: the owner id of
#: the process it is sent to, read from the store; only a process of the site knows it, so the owner trusts
#: :data:`FORWARDED_CLIENT` only when this header is its own owner id.
FORWARDED_TO = "x-motley-owner"
#: The header of a forwarded seat request naming the client's address as the forwarding process saw it.
FORWARDED_CLIENT = "x-motley-client"


@runtime_checkable
class Leases(Protocol):
    """What a site needs of its store: the lease calls and the unfinished tables' headers
    (:class:`~motley.server.store.storage.Storage` has them)."""

    def claim(self, table_id: str, owner: str, ttl: float) -> int | None:
        """Own ``table_id`` for ``ttl`` s if free, expired or already ours; returns the lease's new epoch (the
        fence of the table's writes), None if we do not own it."""

    def renew(self, owner: str, ttl: float, held: Collection[str] = ()) -> set[str]:
        """Extend ``owner``'s leases; returns those of ``held`` it no longer owns."""

    def release(self, table_id: str | None, owner: str) -> int:
        """Give up one lease of ``owner`` (None: all of them); returns how many."""

    def unowned(self) -> list[str]:
        """The unfinished tables without a live lease, oldest first."""

    def register(self, owner: str, address: str) -> None:
        """Record the address at which the process ``owner`` takes relayed sockets."""

    def unregister(self, owner: str) -> None:
        """Forget the process ``owner``."""

    def process_of(self, table_id: str) -> tuple[str, str] | None:
        """The owner id and address of the process holding the live lease of ``table_id``, or None."""

    def running_headers(self) -> list[dict[str, Any]]:
        """The newest unfinished tables' headers, with their stored seats (the other processes' lobby lines)."""


@dataclass(frozen=True)
class Site:
    """This process's part in a site: its lease ``owner`` id (:func:`new_owner`), the lease length ``ttl``
    (seconds), the heartbeat every ``beat`` seconds (default ``ttl / 3``), the search for orphaned tables every
    ``scan`` seconds; ``address``: ``host:port`` at which the other processes reach this one to relay a WebSocket
    for a table it owns (None: sockets that land elsewhere are told to reconnect instead); ``secret``: the site's
    shared secret (bytes, :func:`motley.server.site.signing.load_secret`), given which every internal request this
    process sends is signed and every one it receives must be (:mod:`motley.server.site.signing`); None: internal
    requests are not signed (one machine: the internal addresses are loopback ones). Never in a ``repr``.

    Raises:
        MotleyError: for a ``ttl``, ``beat`` or ``scan`` that is not a positive number of seconds, or a ``beat``
            not below ``ttl``.
    """

    owner: str = field(default_factory=new_owner)
    ttl: float = LEASE_TTL
    beat: float | None = None
    scan: float = 1.0
    address: str | None = None
    secret: bytes | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not (self.ttl > 0 and self.scan > 0 and (self.beat is None or 0 < self.beat < self.ttl)):
            raise MotleyError(f"a site's lease ttl, beat and scan are positive seconds, the beat below the ttl; "
                              f"got ttl={self.ttl}, beat={self.beat}, scan={self.scan}")

    @property
    def every(self) -> float:
        """Seconds between two heartbeats."""
        return self.beat if self.beat is not None else self.ttl / 3
