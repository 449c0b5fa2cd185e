"""The signed internal channel of a site across machines (:mod:`motley.server.site.signing`, docs/scaling.md): with a
site secret, an internal request or relayed socket whose HMAC is missing, wrong, replayed or stale is refused with
403 and changes nothing; a correct one is served, its forwarded client address believed; the forwarded client
header of anyone without a valid signature is not; a site address other machines reach needs a secret to start;
the secret appears in no answer and no log line. On one server in a thread of the test (httpx, WebSockets) and
across two real processes on PostgreSQL."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer
from typer.testing import CliRunner
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from motley.cli.serve import _site_secret
from motley.server.play.limits import Limits
from motley.server.site.leases import FORWARDED_CLIENT, FORWARDED_TO, RELAYED, Site
from motley.server.site.signing import SECRET_ENV, SIGNATURE, Verifier, load_secret, sign
from motley.server.store.storage import Storage
from motley.server.web.testing import ServerProcess, ServerThread

#: The site's secret in these tests, and another one.
SECRET = b"7f3a9c2e5b8d1f4a6c0e9b2d5f8a1c4e7b0d3f6a9c2e5b8d"
OTHER = b"0000000000000000000000000000000000000000000000000"
#: This process's internal address in the app tests, and its lease owner id.
ADDRESS = "10.0.0.2:8000"
OWNER = "a1b2c3d4e5f60718"
OPEN_TWO = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human", "open": True}] * 2}


@pytest.fixture()
def server(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[ServerThread]:
    """A site process with :data:`SECRET` at the internal address :data:`ADDRESS`, one unfinished table per
    address, served by Uvicorn in a thread of the test (its log lines reach ``caplog``)."""
    caplog.set_level(logging.DEBUG)
    with ServerThread(f"sqlite:///{tmp_path / 'store.db'}", limits=Limits(tables_per_address=1),
                      site=Site(owner=OWNER, ttl=6.0, address=ADDRESS, secret=SECRET)) as running:
        yield running


@pytest.fixture()
def client(server: ServerThread) -> Iterator[httpx.Client]:
    """An HTTP client of :func:`server`."""
    with httpx.Client(base_url=server.base, timeout=10) as http:
        yield http


def internal(method: str, target: str, client: str = "203.0.113.7", secret: bytes = SECRET,
             destination: str = ADDRESS, process: str = OWNER, now: float | None = None) -> dict[str, str]:
    """The headers of an internal request from another process of the site to the process ``destination`` whose
    lease owner id is ``process``, signed with ``secret``."""
    return {RELAYED: "1", FORWARDED_CLIENT: client,
            SIGNATURE: sign(secret, method, target, client, destination, process, now=now)}


def owner_of(url: str, table_id: str) -> str:
    """The lease owner id of the process that drives ``table_id``, as the store names it."""
    storage = Storage(url)
    try:
        process = storage.process_of(table_id)
    finally:
        storage.close()
    assert process is not None, f"no process holds {table_id}"
    return process[0]


def free_seats(test_client: httpx.Client, table_id: str) -> int:
    """The open seats of ``table_id`` nobody claimed, as its lobby line says."""
    return int(next(t for t in test_client.get("/api/tables").json() if t["id"] == table_id)["free_seats"])


def test_a_join_with_a_missing_wrong_stale_or_replayed_signature_is_refused_and_changes_nothing(
        client: httpx.Client) -> None:
    table_id = client.post("/api/tables", json=OPEN_TWO).json()["id"]
    path = f"/api/tables/{table_id}/join"
    valid = internal("POST", path)
    refused = {
        "missing": {RELAYED: "1", FORWARDED_CLIENT: "203.0.113.7"},
        "malformed": {RELAYED: "1", SIGNATURE: "v1;t=1;n=zz;s=00"},
        "another secret": internal("POST", path, secret=OTHER),
        "another path": internal("POST", f"{path}?seat=1"),
        "another client": {**valid, FORWARDED_CLIENT: "198.51.100.9"},
        "another process": internal("POST", path, destination="10.0.0.3:8000"),
        "another start of this process": internal("POST", path, process="f" * 16),
        "stale": internal("POST", path, now=time.time() - 31),
        "ahead": internal("POST", path, now=time.time() + 32),
        "signature alone": {SIGNATURE: valid[SIGNATURE]},
    }
    for why, headers in refused.items():
        answer = client.post(path, headers=headers)
        assert answer.status_code == 403, why
        assert answer.json()["error"]["message"].startswith("internal request refused"), why
        assert free_seats(client, table_id) == 2, why
    assert client.post(path, headers=valid).status_code == 200
    assert free_seats(client, table_id) == 1
    replayed = client.post(path, headers=valid)
    assert replayed.status_code == 403 and "used already" in replayed.json()["error"]["message"]
    assert free_seats(client, table_id) == 1


def test_the_client_address_is_believed_from_a_valid_signature_only(server: ServerThread,
                                                                    client: httpx.Client) -> None:
    """One unfinished table per address: a signed request naming 203.0.113.7 counts for it, so a second one for
    it is refused while the test client's own address (which the unsigned headers named 203.0.113.7 cannot take
    over, with or without the owner id) still makes its table."""
    site = server.app.state.service.membership.site
    assert client.post("/api/tables", json=OPEN_TWO, headers=internal("POST", "/api/tables")).status_code == 200
    assert client.post("/api/tables", json=OPEN_TWO, headers=internal("POST", "/api/tables")).status_code == 429
    unsigned = {FORWARDED_CLIENT: "198.51.100.9", FORWARDED_TO: site.owner}
    assert client.post("/api/tables", json=OPEN_TWO, headers=unsigned).status_code == 200
    assert client.post("/api/tables", json=OPEN_TWO, headers=unsigned).status_code == 429  # counted as itself
    assert client.post("/api/tables", json=OPEN_TWO, headers={**internal("POST", "/api/tables", client="192.0.2.5"),
                                                              FORWARDED_TO: "0" * 16}).status_code == 200


def test_a_relayed_socket_needs_a_valid_signature(server: ServerThread, client: httpx.Client) -> None:
    """A relayed WebSocket handshake unsigned, signed with another secret, stale or replayed is refused with HTTP
    403 before it opens; a correctly signed one gets the table."""
    table_id = client.post("/api/tables", json=OPEN_TWO).json()["id"]
    path = f"/ws/{table_id}"
    valid = internal("GET", path)
    with connect(f"{server.ws_base}{path}", additional_headers=valid, open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    stale = internal("GET", path, now=time.time() - 60)
    for headers in ({RELAYED: "1"}, internal("GET", path, secret=OTHER), stale, valid):
        with pytest.raises(InvalidStatus) as refused:
            connect(f"{server.ws_base}{path}", additional_headers=headers, open_timeout=10)
        assert refused.value.response.status_code == 403


def test_the_secret_is_in_no_answer_and_no_log_line(server: ServerThread, client: httpx.Client,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    table_id = client.post("/api/tables", json=OPEN_TWO).json()["id"]
    answers = [client.post(f"/api/tables/{table_id}/join", headers=headers)
               for headers in ({RELAYED: "1"}, internal("POST", f"/api/tables/{table_id}/join", secret=OTHER),
                               internal("POST", f"/api/tables/{table_id}/join"))]
    assert [a.status_code for a in answers] == [403, 403, 200]
    assert "internal request" in caplog.text and "refused" in caplog.text
    shown = [caplog.text, repr(server.app.state.service.membership.site), *(a.text for a in answers),
             *(str(a.headers) for a in answers), repr(Verifier(SECRET, ADDRESS, OWNER))]
    assert not [text for text in shown if SECRET.decode() in text]


def test_a_site_reachable_from_other_machines_needs_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from motley.cli.main import app

    def started(*_args: Any, **_settings: Any) -> None:
        raise AssertionError("the server started")

    monkeypatch.delenv(SECRET_ENV, raising=False)
    monkeypatch.setattr(uvicorn, "run", started)

    refused = CliRunner().invoke(app, ["serve", "--site", "--site-address", "192.0.2.10:8000",
                                       "--db", f"sqlite:///{tmp_path / 'store.db'}"])
    assert refused.exit_code == 2 and "--site-secret" in refused.output
    assert _site_secret(None, True, "127.0.0.1:8000") is None and _site_secret(None, True, None) is None
    short = tmp_path / "short"
    short.write_text("hunter2-hunter2\n")
    with pytest.raises(typer.BadParameter) as too_short:
        _site_secret(short, True, "192.0.2.10:8000")
    assert "15 bytes" in str(too_short.value) and "hunter2" not in str(too_short.value)
    good = tmp_path / "secret"
    good.write_bytes(SECRET + b"\n")
    assert _site_secret(good, True, "192.0.2.10:8000") == SECRET
    assert load_secret(None, {SECRET_ENV: SECRET.decode()}) == SECRET
    with pytest.raises(typer.BadParameter, match="--site"):
        _site_secret(good, False, None)


def test_two_real_processes_sign_their_requests_and_refuse_forged_ones(postgres: Any, tmp_path: Path) -> None:
    """Two processes of a site with one secret on PostgreSQL: a join sent to B is forwarded to A signed and
    served, a spectator's socket through B is relayed signed and gets the table; the same join sent to A
    unsigned, stale or twice with one signature is refused with 403 and takes no seat; the secret is in no
    answer and in neither process's output."""
    url = postgres.create_database()
    secret_file = tmp_path / "site.secret"
    secret_file.write_bytes(SECRET + b"\n")
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    a = ServerProcess(url, lease_ttl=6.0, site_secret=str(secret_file), log=str(logs[0])).start()
    b = ServerProcess(url, lease_ttl=6.0, site_secret=str(secret_file), log=str(logs[1])).start()
    answers: list[httpx.Response] = []
    try:
        table_id = httpx.post(f"{a.base}/api/tables", json=OPEN_TWO, timeout=10).json()["id"]
        path = f"/api/tables/{table_id}/join"
        answers.append(httpx.post(f"{b.base}{path}", timeout=10))
        assert answers[-1].status_code == 200 and answers[-1].json()["seat"] == 0
        with connect(f"{b.ws_base}/ws/{table_id}", open_timeout=10) as spectator:
            assert json.loads(spectator.recv(timeout=10))["type"] == "state"
        a_address = f"127.0.0.1:{a.port}"
        a_owner = owner_of(url, table_id)
        once = internal("POST", f"{path}?seat=1", destination=a_address, process=a_owner)
        for headers in ({RELAYED: "1", FORWARDED_CLIENT: "203.0.113.7"},
                        internal("POST", f"{path}?seat=1", destination=a_address, process=a_owner,
                                 now=time.time() - 31),
                        internal("POST", f"{path}?seat=1", destination=f"127.0.0.1:{b.port}", process=a_owner)):
            answers.append(httpx.post(f"{a.base}{path}?seat=1", headers=headers, timeout=10))
            assert answers[-1].status_code == 403
        answers.append(httpx.post(f"{a.base}{path}?seat=1", headers=once, timeout=10))
        assert answers[-1].status_code == 200 and answers[-1].json()["seat"] == 1
        answers.append(httpx.post(f"{a.base}{path}?seat=1", headers=once, timeout=10))
        assert answers[-1].status_code == 403 and "used already" in answers[-1].json()["error"]["message"]
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)
    output = logs[0].read_text() + logs[1].read_text()
    assert "internal request from 127.0.0.1 refused" in output
    shown = [output, *(a.text for a in answers), *(str(a.headers) for a in answers)]
    assert not [text for text in shown if SECRET.decode() in text]


def test_a_request_captured_before_a_restart_is_refused_after_it(tmp_path: Path) -> None:
    """Replay protection survives a restart: a signed request a process accepted is refused by the process that
    starts next at the same internal address within the signature's window (its nonces were in the first one's
    memory only; the signature names the first one's lease owner id, and a new process draws a new one)."""
    db = f"sqlite:///{tmp_path / 'store.db'}"
    captured = internal("POST", "/api/tables", client="203.0.113.7")
    with ServerThread(db, site=Site(owner=OWNER, ttl=6.0, address=ADDRESS, secret=SECRET)) as first, \
            httpx.Client(base_url=first.base, timeout=10) as http:
        assert http.post("/api/tables", json=OPEN_TWO, headers=captured).status_code == 200
        assert http.post("/api/tables", json=OPEN_TWO, headers=captured).status_code == 403
    with ServerThread(db, site=Site(ttl=6.0, address=ADDRESS, secret=SECRET)) as second, \
            httpx.Client(base_url=second.base, timeout=10) as http:
        made = len(http.get("/api/tables").json())
        again = http.post("/api/tables", json=OPEN_TWO, headers=captured)
        assert again.status_code == 403, again.text
        assert len(http.get("/api/tables").json()) == made
        fresh = internal("POST", "/api/tables", client="203.0.113.8",
                         process=second.app.state.service.membership.owner or "")
        assert http.post("/api/tables", json=OPEN_TWO, headers=fresh).status_code == 200
