"""The edges of a site of two real processes over one PostgreSQL: what a process that does not drive a table
answers for it (the same refusals as its owner), and the bound on what a relayed socket may hold for a client that
does not read (the same as the owner's)."""

from __future__ import annotations

from typing import Any

import httpx

from motley.server.web.testing import ServerProcess

PEOPLE = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human"}] * 2}


def test_a_live_tables_record_replay_and_analysis_are_refused_409_alike_by_its_owner_and_the_other(
        postgres: Any) -> None:
    """A table of two people made on A (nobody moves: it stays live, driven by A): its record, its replay index, a
    replay step, an analysis's state and an analysis asked of A and of B are each refused 409 ``not_finished``,
    with the same words on both processes (B does not drive the table; it answered 503 ``elsewhere`` before)."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0).start()
    b = ServerProcess(url, lease_ttl=6.0).start()
    try:
        table_id = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).json()["id"]
        asked = [("GET", f"/api/tables/{table_id}/record"), ("GET", f"/api/tables/{table_id}/replay"),
                 ("GET", f"/api/tables/{table_id}/replay/0"), ("GET", f"/api/tables/{table_id}/analysis?seat=0"),
                 ("POST", f"/api/tables/{table_id}/analysis?seat=0")]
        for method, path in asked:
            answers = [httpx.request(method, f"{server.base}{path}", timeout=10) for server in (a, b)]
            assert [answer.status_code for answer in answers] == [409, 409], (path, [x.text for x in answers])
            bodies = [answer.json() for answer in answers]
            assert bodies[0] == bodies[1], path
            assert bodies[0]["error"]["code"] == "not_finished" and bodies[0]["error"]["message"]
        assert not any(t["id"] == table_id and t["seats"] for t in httpx.get(f"{b.base}/api/tables",
                                                                              timeout=10).json())  # A drives it
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)
