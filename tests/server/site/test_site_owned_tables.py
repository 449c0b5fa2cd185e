"""A browser's own tables in a site of several processes: the tables a browser key made through one process are
listed by every process (the store knows them), and a cancel sent to a process that does not drive the table is
forwarded to the one that does, which cancels it."""

from __future__ import annotations

import secrets
from typing import Any

import httpx

from motley.server.play.bodies import table_request
from motley.server.play.owners import owned, owner_of
from motley.server.play.service import Service
from tests.server.site.test_server_site import PEOPLE, with_pair


def test_a_browsers_tables_made_through_one_process_are_listed_by_the_other(store_url: str) -> None:
    async def body(a: Service, b: Service) -> None:
        owner, stranger = owner_of(secrets.token_urlsafe(32)), owner_of(secrets.token_urlsafe(32))
        first = await a.create(table_request(PEOPLE), seed=5, owner=owner)
        second = await b.create(table_request(PEOPLE), seed=6, owner=owner)
        await a.create(table_request(PEOPLE), seed=7, owner=stranger)
        await a.create(table_request(PEOPLE), seed=8)
        for process in (a, b):
            assert [t.id for t in await owned(process, owner)] == [second.id, first.id], "newest first"
        assert first.id not in b.tables, "listed from the store, not driven by B"
        await a.cancel(first, "cancelled by the person who made it")
        assert [t.id for t in await owned(b, owner)] == [second.id]

    with_pair(store_url, body)


def test_a_cancel_sent_to_the_other_process_is_made_by_the_owner(postgres: Any) -> None:
    from motley.server.web.testing import ServerProcess

    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0).start()
    b = ServerProcess(url, lease_ttl=6.0).start()
    try:
        key = secrets.token_urlsafe(32)
        made = httpx.post(f"{a.base}/api/tables", json=PEOPLE, headers={"X-Motley-Key": key}, timeout=10).json()
        listed = httpx.get(f"{b.base}/api/my-tables", headers={"X-Motley-Key": key}, timeout=10).json()
        assert [t["id"] for t in listed] == [made["id"]]
        assert [s["link"] for s in listed[0]["links"]] == [s["link"] for s in made["seats"]]
        other = httpx.post(f"{b.base}/api/tables/{made['id']}/cancel", json={"key": secrets.token_urlsafe(32)},
                           timeout=10)
        assert other.status_code == 403 and other.json()["error"]["code"] == "not_yours"
        cancelled = httpx.post(f"{b.base}/api/tables/{made['id']}/cancel", json={"key": key}, timeout=10)
        assert cancelled.status_code == 200 and cancelled.json() == {"id": made["id"], "cancelled": True}
        for process in (a, b):
            assert httpx.get(f"{process.base}/api/my-tables", headers={"X-Motley-Key": key}, timeout=10).json() == []
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)
