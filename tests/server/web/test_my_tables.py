"""A browser's own tables: the key a page sends when it makes a table lists that browser's unfinished tables
(``GET /api/my-tables``, with the seat links it was given) and lets it cancel one (``POST .../cancel``), which frees
its slot of the address's quota; another key (another browser behind the same address) neither sees nor cancels
them; a missing or malformed key, or a stranger's cancel, is refused with the one refusal body."""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from motley.server.play.limits import Limits
from motley.server.web.testing import ServerThread

PEOPLE: dict[str, Any] = {"game": "fools_errand", "seats": [{"kind": "human", "name": "Ann"},
                                                            {"kind": "human", "name": "Bo", "open": True}]}


def new_key() -> str:
    """A browser key as the page draws it: 32 random bytes in base64url."""
    return secrets.token_urlsafe(32)


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[ServerThread]:
    """The server over SQLite in ``tmp_path``, whose client address may have two unfinished tables."""
    with ServerThread(f"sqlite:///{tmp_path / 'mine.db'}", bot_delay=0.0, pace=0.0, summary_wait=0.0, searches=1,
                      limits=Limits(tables_per_address=2)) as running:
        yield running


def refusal_of(answer: httpx.Response) -> dict[str, Any]:
    """The refusal body of ``answer``, checked to be the one shape."""
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    error: dict[str, Any] = body["error"]
    return error


def make(client: httpx.Client, key: str | None) -> httpx.Response:
    return client.post("/api/tables", json=PEOPLE, headers={"X-Motley-Key": key} if key else {})


def mine(client: httpx.Client, key: str) -> list[dict[str, Any]]:
    answer = client.get("/api/my-tables", headers={"X-Motley-Key": key})
    assert answer.status_code == 200, answer.text
    tables: list[dict[str, Any]] = answer.json()
    return tables


def test_a_browser_lists_and_cancels_its_own_tables_and_the_quota_frees(server: ServerThread, tmp_path: Path) -> None:
    client = httpx.Client(base_url=server.base, timeout=10)
    key, other = new_key(), new_key()
    first = make(client, key).json()
    second = make(client, other).json()
    full = make(client, key)
    assert full.status_code == 429 and refusal_of(full)["code"] == "too_many_tables", "the address's quota is kept"
    listed = mine(client, key)
    assert [t["id"] for t in listed] == [first["id"]], "a browser sees its own tables, not the address's"
    assert [t["id"] for t in mine(client, other)] == [second["id"]]
    line = listed[0]
    assert line["title"] == "The Fool's Errand" and not line["finished"] and line["names"] == ["Ann", "Bo"]
    given = {s["seat"]: s["link"] for s in first["seats"] if s["link"]}
    assert {s["seat"]: s["link"] for s in line["links"]} == given, "the seat links the maker was given"
    stored = sqlite3.connect(tmp_path / "mine.db").execute(
        "select owner_key from motley_tables where id = ?", (first["id"],)).fetchone()[0]
    assert stored == hashlib.sha256(key.encode()).hexdigest() and key not in stored, "only the key's digest is kept"

    stranger = client.post(f"/api/tables/{first['id']}/cancel", json={"key": other})
    assert stranger.status_code == 403 and refusal_of(stranger)["code"] == "not_yours"
    assert mine(client, key), "a refused cancel changes nothing"
    cancelled = client.post(f"/api/tables/{first['id']}/cancel", json={"key": key})
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json() == {"id": first["id"], "cancelled": True}
    assert mine(client, key) == []
    assert first["id"] not in {t["id"] for t in client.get("/api/tables").json() if not t["finished"]}
    again = client.post(f"/api/tables/{first['id']}/cancel", json={"key": key})
    assert again.status_code == 409 and refusal_of(again)["code"] == "table_over"
    assert make(client, key).status_code == 200, "the cancelled table's slot of the quota is free again"


def test_a_person_at_the_table_may_cancel_it_by_their_seat_link(server: ServerThread) -> None:
    client = httpx.Client(base_url=server.base, timeout=10)
    made = make(client, None).json()
    token = made["seats"][0]["link"].split("token=")[1]
    assert client.post(f"/api/tables/{made['id']}/cancel", json={"token": "x" * 24}).status_code == 403
    answer = client.post(f"/api/tables/{made['id']}/cancel", json={"token": token})
    assert answer.status_code == 200, answer.text
    record = client.get(f"/api/tables/{made['id']}/record")
    assert record.status_code == 409, "a cancelled table has no record"


@pytest.mark.parametrize(("headers", "status", "words"),
                         [({}, 400, "X-Motley-Key header"), ({"X-Motley-Key": "short"}, 422, "X-Motley-Key"),
                          ({"X-Motley-Key": "a" * 30 + "/" + "b" * 10}, 422, "pattern")])
def test_a_missing_or_malformed_key_is_refused(server: ServerThread, headers: dict[str, str], status: int,
                                               words: str) -> None:
    client = httpx.Client(base_url=server.base, timeout=10)
    answer = client.get("/api/my-tables", headers=headers)
    assert answer.status_code == status and refusal_of(answer)["code"] in ("bad_request", "invalid_request")
    assert words in refusal_of(answer)["message"]
    made = client.post("/api/tables", json=PEOPLE, headers={"X-Motley-Key": "short"})
    assert made.status_code == 422 and "X-Motley-Key" in refusal_of(made)["message"], "nothing is made"
    assert client.get("/api/tables").json() == []
    table_id = make(client, new_key()).json()["id"]
    for body in ({}, {"key": "short"}, {"key": new_key(), "seat": 0}):
        refused = client.post(f"/api/tables/{table_id}/cancel", json=body)
        assert refused.status_code == 400 and refusal_of(refused)["code"] == "bad_request", body


def test_the_winner_of_a_join_sits_under_their_name_and_the_loser_is_told(server: ServerThread) -> None:
    client = httpx.Client(base_url=server.base, timeout=10)
    table_id = make(client, None).json()["id"]
    won = client.post(f"/api/tables/{table_id}/join", params={"name": "  Cleo  "})
    assert won.status_code == 200, won.text
    assert won.json()["seat"] == 1
    line = next(t for t in client.get("/api/tables").json() if t["id"] == table_id)
    assert line["names"] == ["Ann", "Cleo"] and line["free_seats"] == 0
    lost = client.post(f"/api/tables/{table_id}/join", params={"name": "Dee"})
    assert lost.status_code == 409 and refusal_of(lost)["code"] == "seat_refused"
    assert next(t for t in client.get("/api/tables").json() if t["id"] == table_id)["names"] == ["Ann", "Cleo"]
    long = client.post(f"/api/tables/{table_id}/join", params={"name": "x" * 31})
    assert long.status_code == 422 and refusal_of(long)["code"] == "invalid_request"
