"""The browser key by which a person finds and cancels the tables they made ("your tables", in every browser the
lobby keeps a key in): the page draws a random key once, keeps it in its storage and sends it when it makes a
table, lists its tables (``GET /api/my-tables``) and cancels one (``POST /api/tables/{id}/cancel``).

The server never stores the key itself, only its digest (:func:`owner_of`), on the table's row
(:attr:`~motley.server.store.records.TableRecord.owner`): whoever reads the store cannot act as the browser. The
key is the browser's alone, unlike its address, which everyone behind one NAT shares: another browser at the same
address neither sees nor cancels the tables (the address's quota of unfinished tables is kept as before,
:class:`~motley.server.play.limits.TableGate`).
"""

from __future__ import annotations

import hashlib
import re

from motley.core import MotleyError
from motley.server.play.live import LiveTable
from motley.server.play.service import Service

#: A browser key: 22 to 128 URL-safe characters (the page draws 32 random bytes, 43 characters in base64url).
KEY = re.compile(r"[A-Za-z0-9_-]{22,128}")


def owner_of(key: str) -> str:
    """The digest stored for the browser key ``key`` (SHA-256, 64 hex digits).

    Raises:
        MotleyError: for a key that is not 22 to 128 URL-safe characters (``A-Z a-z 0-9 _ -``).
    """
    if not KEY.fullmatch(key):
        raise MotleyError("the browser key must be 22 to 128 URL-safe characters (A-Z, a-z, 0-9, _ and -)")
    return hashlib.sha256(key.encode("ascii")).hexdigest()


async def owned(service: Service, owner: str) -> list[LiveTable]:
    """The unfinished tables of ``service`` made by the browser whose key's digest is ``owner`` (:func:`owner_of`),
    newest first, wherever they are driven (the store knows them all; one another process of the site drives is a
    copy, ``Service.copy_of``).

    Raises:
        StoreError: if the store cannot be read.
    """
    found = []
    for table_id in await service.store.call(service.store.storage.owned, owner):
        live = await service.copy_of(table_id)
        if live is not None and live.table.record.owner == owner and not live.closed \
                and not live.table.state.is_terminal():
            found.append(live)
    return found
