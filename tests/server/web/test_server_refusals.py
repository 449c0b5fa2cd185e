"""One refusal, mapped once: every :class:`~motley.server.store.refusals.Refusal` of the server is answered by the
app's handlers with its status, ``{"error": {"code", "message"}}`` and, where it applies, ``Retry-After``; the same
body answers a path no route has and a parameter of the wrong type (422); and no route catches a refusal to build
its own answer."""

from __future__ import annotations

import ast
import asyncio
import builtins
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

import motley.server
from motley.core import MotleyError
from motley.server.play.analyses import AnalysisBusy, AnalysisRefused
from motley.server.play.limits import Limits, TablesRefused
from motley.server.play.replays import ViewRefused
from motley.server.play.service import OwnedElsewhere, Stopping
from motley.server.site.relay import OwnerUnreachable
from motley.server.store.records import SeatRefused
from motley.server.store.refusals import Refusal
from motley.server.store.writer import LeaseLost, QuotaReached, RateReached, StoreError, StoreSilent
from motley.server.web import refusals as web_refusals
from motley.server.web import routes
from motley.server.web.testing import ServerThread

#: What each refusal of the server answers: an example of it, its HTTP status, its code, its words (None: the
#: example's own message) and its Retry-After (None: none).
CONTRACT: dict[type[Refusal], tuple[Refusal, int, str, str | None, str | None]] = {
    StoreError: (StoreError("add_move failed: OperationalError: database is locked at /srv/db"), 503,
                 "store_unavailable", "the table store is not answering; try again", "2"),
    StoreSilent: (StoreSilent("load failed: the store did not answer within 2 s"), 503,
                  "store_unavailable", "the table store is not answering; try again", "2"),
    LeaseLost: (LeaseLost("move 12 of table abc is stored already: another process drives it"), 503,
                "store_unavailable", "the table store is not answering; try again", "2"),
    Stopping: (Stopping("this server process is stopping; try again"), 503, "stopping", None, "1"),
    OwnedElsewhere: (OwnedElsewhere("table abc is driven by another process of the site"), 503, "elsewhere",
                     "the table is served by another process of the site; try again", None),
    OwnerUnreachable: (OwnerUnreachable("the table's process of the site is not answering"), 503, "elsewhere", None,
                       None),
    QuotaReached: (QuotaReached("10.0.0.1", 3), 429, "too_many_tables", None, None),
    RateReached: (RateReached(2, 6.0, 4.2), 429, "too_fast", None, "5"),
    TablesRefused: (TablesRefused("this address already has 3 unfinished tables"), 429, "too_many_tables", None, None),
    SeatRefused: (SeatRefused("the seat is already claimed"), 409, "seat_refused", None, None),
    AnalysisRefused: (AnalysisRefused("the table has seats 0..1, not seat 5"), 400, "no_such_seat", None, None),
    AnalysisBusy: (AnalysisBusy("an analysis of this table is running"), 429, "analysis_busy", None, "30"),
    ViewRefused: (ViewRefused("the table has seats 0..1"), 400, "no_such_view", None, None),
    web_refusals.NoSuchTable: (web_refusals.NoSuchTable(), 404, "no_table", "no such table", None),
    web_refusals.NotFound: (web_refusals.NotFound("no such file"), 404, "not_found", None, None),
    web_refusals.BadRequest: (web_refusals.BadRequest("'open' of seats[0]: Input should be a valid boolean"), 400,
                              "bad_request", None, None),
    web_refusals.TooLarge: (web_refusals.TooLarge(), 413, "too_large", "request too large", None),
    web_refusals.NotJson: (web_refusals.NotJson(), 415, "not_json", "the request body must be application/json",
                           None),
    web_refusals.NotFinished: (web_refusals.NotFinished(), 409, "not_finished",
                               "the table is still being played; watch it instead", None),
    web_refusals.NotYours: (web_refusals.NotYours(), 403, "not_yours", web_refusals.NotYours.words, None),
    web_refusals.TableOver: (web_refusals.TableOver(), 409, "table_over", web_refusals.TableOver.words, None),
    web_refusals.BuildsBusy: (web_refusals.BuildsBusy("this address has 2 replays being built already"), 429,
                              "busy", None, "1"),
}
#: Refusals whose instance sets its own status or code, beside their class's: (example, status, code, Retry-After).
VARIANTS = [
    (AnalysisRefused("the match is not over", finished=False), 409, "not_finished", None),
    (TablesRefused("this address creates tables too fast", retry_after=0.2), 429, "too_fast", "1"),
]


def _server_modules() -> Iterator[str]:
    for found in pkgutil.walk_packages(motley.server.__path__, "motley.server."):
        if ".migrations" not in found.name:
            yield found.name


def every_refusal() -> set[type[Refusal]]:
    """Every subclass of :class:`Refusal` defined in the server (its modules imported first)."""
    for name in _server_modules():
        importlib.import_module(name)
    found: set[type[Refusal]] = set()
    todo = list(Refusal.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith("motley.server.") and cls not in found:
            found.add(cls)
            todo += cls.__subclasses__()
    return found


def answering(refusal: Exception, path: str = "/refused") -> httpx.Response:
    """The answer of an app with the server's refusal handlers whose one route, ``GET /refused``, raises
    ``refusal`` (``path``: another path asked for)."""
    app = FastAPI()
    web_refusals.install(app)

    @app.get("/refused")
    def refused() -> None:
        raise refusal

    async def ask() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get(path)

    return asyncio.run(ask())


def test_the_contract_names_every_refusal_of_the_server() -> None:
    assert every_refusal() == set(CONTRACT), "a refusal class without its line in CONTRACT (or one no longer there)"


def _name(cls: type[Refusal]) -> str:
    return cls.__name__


KINDS: list[type[Refusal]] = sorted(CONTRACT, key=_name)


@pytest.mark.parametrize("cls", KINDS, ids=[_name(cls) for cls in KINDS])
def test_every_refusal_is_answered_with_its_status_body_and_retry_after(cls: type[Refusal]) -> None:
    example, status, code, words, retry_after = CONTRACT[cls]
    assert type(example) is cls
    answer = answering(example)
    assert answer.status_code == status
    assert answer.json() == {"error": {"code": code, "message": words or str(example)}}
    assert answer.headers.get("retry-after") == retry_after


@pytest.mark.parametrize(("example", "status", "code", "retry_after"), VARIANTS, ids=lambda v: str(v)[:20])
def test_a_refusal_may_set_its_own_status_and_code(example: Refusal, status: int, code: str,
                                                    retry_after: str | None) -> None:
    answer = answering(example)
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert answer.headers.get("retry-after") == retry_after


def test_a_store_failure_never_shows_the_databases_words() -> None:
    answer = answering(StoreError("create_table failed: OperationalError: unable to open /srv/motley.db"))
    assert answer.status_code == 503 and "/srv" not in answer.text and "OperationalError" not in answer.text


def test_an_error_that_is_no_refusal_is_still_a_server_error() -> None:
    """A defect is not dressed as a refusal: a MotleyError no route turned into one is a 500."""
    assert answering(MotleyError("a defect")).status_code == 500


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[ServerThread]:
    """The server over SQLite in ``tmp_path``, whose client address may have one unfinished table."""
    with ServerThread(f"sqlite:///{tmp_path / 'refusals.db'}", bot_delay=0.0, pace=0.0, summary_wait=0.0, searches=1,
                      limits=Limits(tables_per_address=1)) as running:
        yield running


PEOPLE: dict[str, Any] = {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "human"}]}


def refusal_of(answer: Any) -> dict[str, Any]:
    """The refusal body of ``answer``, checked to be the one shape: ``{"error": {"code", "message"}}``, both text."""
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert all(isinstance(v, str) and v for v in body["error"].values()), body
    error: dict[str, Any] = body["error"]
    return error


def test_one_body_shape_over_http(server: ServerThread) -> None:
    client = httpx.Client(base_url=server.base, timeout=10)
    made = client.post("/api/tables", json=PEOPLE)
    assert made.status_code == 200, made.text
    table_id = made.json()["id"]
    answers = {
        (404, "no_table"): client.get("/api/tables/nosuchtable/record"),
        (404, "not_found"): client.get("/no/such/path"),
        (405, "method_not_allowed"): client.delete("/api/tables"),
        (409, "not_finished"): client.get(f"/api/tables/{table_id}/record"),
        (409, "seat_refused"): client.post(f"/api/tables/{table_id}/join"),  # no open seat
        (422, "invalid_request"): client.get(f"/api/tables/{table_id}/replay/not-a-number"),
        (400, "bad_request"): client.post("/api/tables", json={**PEOPLE, "players": "two"}),
        (415, "not_json"): client.post("/api/tables", content=b"{}", headers={"content-type": "text/plain"}),
        (429, "too_many_tables"): client.post("/api/tables", json=PEOPLE),  # its one unfinished table is made
    }
    for (status, code), answer in answers.items():
        assert answer.status_code == status, (status, answer.text)
        assert refusal_of(answer)["code"] == code, answer.text
    assert "step" in refusal_of(answers[422, "invalid_request"])["message"], "the 422 names the parameter"
    assert "players" in refusal_of(answers[400, "bad_request"])["message"], "the 400 names the field"
    server.app.state.service.membership.draining = True
    stopping = client.post("/api/tables", json=PEOPLE)
    assert stopping.status_code == 503 and stopping.headers["retry-after"] == "1"
    assert refusal_of(stopping)["code"] == "stopping"


def test_the_rate_refusal_says_when_to_ask_again(tmp_path: Path) -> None:
    with ServerThread(f"sqlite:///{tmp_path / 'rate.db'}", bot_delay=0.0, pace=0.0, searches=1,
                      limits=Limits(tables_per_minute=1, table_burst=1)) as server:
        assert httpx.post(f"{server.base}/api/tables", json=PEOPLE, timeout=10).status_code == 200
        refused = httpx.post(f"{server.base}/api/tables", json=PEOPLE, timeout=10)
    assert refused.status_code == 429 and refusal_of(refused)["code"] == "too_fast"
    assert 1 <= int(refused.headers["retry-after"]) <= 60


# ---- no route catches a refusal ------------------------------------------------------------------------------
ROUTES = Path(routes.__file__).parent


def _caught(handler: ast.ExceptHandler) -> list[ast.expr]:
    if handler.type is None:
        return []
    return list(handler.type.elts) if isinstance(handler.type, ast.Tuple) else [handler.type]


def _resolve(module: Any, node: ast.expr) -> Any:
    """The object an exception expression of ``module`` names (``Name`` or ``a.b.C``), or None."""
    if isinstance(node, ast.Name):
        return getattr(module, node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        owner = _resolve(module, node.value)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


def catching_refusals(path: Path) -> list[str]:
    """The ``except`` clauses of the route module at ``path`` that could catch a refusal: a bare ``except``, or one
    naming :class:`Refusal`, a subclass, or a class a refusal derives from (``Exception``, ``MotleyError``...)."""
    name = f"motley.server.web.routes.{path.stem}" if path.stem != "__init__" else "motley.server.web.routes"
    module = importlib.import_module(name)
    bases = {base for cls in every_refusal() for base in cls.__mro__} | {BaseException}
    problems = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.ExceptHandler):
            continue
        if node.type is None:
            problems.append(f"{path.name}:{node.lineno}: a bare except")
        for caught in _caught(node):
            target = _resolve(module, caught)
            if not isinstance(target, type) or target in bases or issubclass(target, Refusal):
                problems.append(f"{path.name}:{node.lineno}: except {ast.unparse(caught)}")
    return problems


def test_no_route_catches_a_refusal_to_build_its_own_answer() -> None:
    modules = sorted(ROUTES.glob("*.py"))
    assert len(modules) >= 6, "the routes are modules per resource"
    problems = [problem for path in modules for problem in catching_refusals(path)]
    assert not problems, f"route modules catching refusals (raise them; the app's handlers answer): {problems}"


def test_the_check_finds_a_route_that_catches_a_refusal(tmp_path: Path) -> None:
    fake = ROUTES / "pages.py"  # a real route module's names, a handler of our making
    source = fake.read_text(encoding="utf-8") + (
        "\n\ndef _caught_here() -> None:\n    try:\n        pass\n    except NotFound:\n        pass\n")
    copy = tmp_path / "pages.py"
    copy.write_text(source, encoding="utf-8")
    assert catching_refusals(copy) == [f"pages.py:{source.count(chr(10)) - 1}: except NotFound"]


def test_no_route_module_is_over_600_lines() -> None:
    long = {path.name: n for path in ROUTES.glob("*.py") if (n := len(path.read_text().splitlines())) > 600}
    assert not long, long
