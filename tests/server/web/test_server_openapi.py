"""The server's OpenAPI schema (``/openapi.json``, read at ``/docs``) says what every route answers, its error
answers included: schemathesis sends generated requests to every operation of the ASGI app (valid ones, and for
an operation with a body or a typed parameter, invalid ones too; a table id made up, or one of a finished table
and of a table in play) and checks that no answer is a server error (5xx) and that each answer's status code,
content type and body are ones the schema documents for that operation."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.python.asgi import shutdown_lifespans
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.specs.openapi.schemas import OpenApiSchema

from motley.server.play.limits import Limits
from motley.server.web.app import create_app

#: Generated requests per operation, generation mode and table; derandomized, so every run sends the same ones.
EXAMPLES = 20
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
BOTS: dict[str, Any] = {"game": "fools_errand", "seats": [{"kind": "bot", "bot": "random"}] * 2}
PEOPLE: dict[str, Any] = {"game": "fools_errand", "seats": [{"kind": "human", "open": True}, {"kind": "human"}]}


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[OpenApiSchema]:
    """The schema of a server with no pace and few tables per address (so generated requests meet the limit),
    loaded from its ASGI app; the app's lifespan ends with the test (schemathesis's pytest plugin ends it too)."""
    db = tmp_path / "openapi.db"
    app = create_app(f"sqlite:///{db}", bot_delay=0.0, pace=0.0, summary_wait=0.0, searches=1,
                     limits=Limits(tables_per_address=4), allow_hosts=["testserver"])  # the ASGI client's Host
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    shutdown_lifespans()


def created(api: OpenApiSchema, body: dict[str, Any]) -> str:
    """The id of a table made through the API (``POST /api/tables``) with ``body``."""
    answer = api["/api/tables"]["POST"].Case(body=body, media_type="application/json").call()
    assert answer.status_code == 200, answer.text
    return str(answer.json()["id"])


def finished(api: OpenApiSchema, table_id: str) -> str:
    """``table_id`` once its match is over (its record is served)."""
    record = api["/api/tables/{table_id}/record"]["GET"]
    for _ in range(300):
        if record.Case(path_parameters={"table_id": table_id}).call().status_code == 200:
            return table_id
        time.sleep(0.05)
    raise AssertionError(f"table {table_id} did not finish")


def modes(api: OpenApiSchema, path: str, method: str) -> list[GenerationMode]:
    """Valid requests for every operation; invalid ones too where the schema constrains something (a body, a
    parameter that is not any text)."""
    raw = api.raw_schema["paths"][path][method.lower()]
    typed = "requestBody" in raw or any(p["schema"] != {"type": "string", "title": p["schema"].get("title")}
                                        for p in raw.get("parameters", []))
    return [GenerationMode.POSITIVE, GenerationMode.NEGATIVE] if typed else [GenerationMode.POSITIVE]


def test_every_answer_of_every_operation_is_one_the_schema_documents(api: OpenApiSchema) -> None:
    tables = [None, finished(api, created(api, BOTS)), created(api, PEOPLE)]
    failures: list[str] = []
    for result in api.get_all_operations():
        assert isinstance(result, Ok), f"an operation of the schema does not load: {result}"
        operation = result.ok()
        ids = tables if "{table_id}" in operation.path else [None]
        for mode in modes(api, operation.path, operation.method):
            for table_id in ids:
                fixed = None if table_id is None else {"table_id": table_id}

                @given(case=operation.as_strategy(generation_mode=mode, path_parameters=fixed))
                @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))
                def answers_as_documented(case: schemathesis.Case[Any]) -> None:
                    case.call_and_validate(checks=CHECKS)

                try:
                    answers_as_documented()
                except (Exception, BaseExceptionGroup) as exc:  # schemathesis's FailureGroup is a BaseExceptionGroup
                    failures.append(f"{operation.label} ({mode.value}, table {table_id or 'made up'}): {exc}")
    assert not failures, "\n\n".join(failures)


def test_the_answers_of_the_limits_and_the_host_and_origin_checks_are_as_documented(api: OpenApiSchema) -> None:
    """The refusals generated requests rarely meet: a foreign Host (400, plain text), a foreign Origin (403, plain
    text), a body that is not JSON (415), one over the size limit (413), and a table beyond the address's quota
    (429)."""
    create, join = api["/api/tables"]["POST"], api["/api/tables/{table_id}/join"]["POST"]
    table_id = created(api, PEOPLE)
    foreign = join.Case(path_parameters={"table_id": table_id})
    cases = {400: (api["/api/tables"]["GET"].Case(), {"host": "evil.example:8743"}),
             403: (foreign, {"origin": "http://evil.example"}),
             415: (create.Case(body=PEOPLE, media_type="application/json"), {"content-type": "text/plain"}),
             413: (create.Case(body={**PEOPLE, "options": {"pad": "x" * 20_000}}, media_type="application/json"), {})}
    while create.Case(body=PEOPLE, media_type="application/json").call().status_code == 200:
        pass  # the address's quota of unfinished tables fills up
    cases[429] = (create.Case(body=PEOPLE, media_type="application/json"), {})
    for code, (case, headers) in cases.items():
        answer = case.call(headers=headers)
        assert answer.status_code == code, (code, answer.text)
        case.validate_response(answer, checks=CHECKS)


def test_the_schema_documents_the_error_answers_of_the_table_routes(api: OpenApiSchema) -> None:
    paths = api.raw_schema["paths"]
    documented = {(path, method): set(operation["responses"]) for path, item in paths.items()
                  for method, operation in item.items()}
    assert {"400", "403", "413", "415", "429", "503"} <= documented[("/api/tables", "post")]
    assert {"400", "403", "404", "409", "503"} <= documented[("/api/tables/{table_id}/join", "post")]
    assert all({"400", "503"} <= codes for codes in documented.values()), "the Host check, the connection limit"
    for action in ("rematch", "decline"):
        assert {"400", "403", "404", "409", "413", "415", "503"} <= documented[(f"/api/tables/{{table_id}}/{action}",
                                                                                "post")]
    assert "429" in documented[("/api/tables/{table_id}/rematch", "post")], "a rematch counts in the creation rate"
    assert {"400", "404", "409", "503"} <= documented[("/api/tables/{table_id}/replay/{step}", "get")]
    refusal = paths["/api/tables/{table_id}/join"]["post"]["responses"]["409"]["content"]["application/json"]
    assert json.dumps(refusal["schema"]) == '{"$ref": "#/components/schemas/RefusalBody"}'
    schemas = api.raw_schema["components"]["schemas"]
    assert schemas["RefusalBody"]["required"] == ["error"]
    assert schemas["RefusalError"]["required"] == ["code", "message"]


def test_every_refusal_of_every_route_is_the_one_schema(api: OpenApiSchema) -> None:
    """Every JSON body of an error answer (4xx, 5xx) of every operation, FastAPI's 422 included, is the one refusal
    schema; FastAPI's own validation error schemas are gone."""
    refs = set()
    for item in api.raw_schema["paths"].values():
        for operation in item.values():
            for code, response in operation["responses"].items():
                if int(code) >= 400 and "application/json" in response.get("content", {}):
                    refs.add(json.dumps(response["content"]["application/json"]["schema"]))
    assert refs == {'{"$ref": "#/components/schemas/RefusalBody"}'}
    assert not {"HTTPValidationError", "ValidationError", "Refusal", "TableRefusal"} & set(
        api.raw_schema["components"]["schemas"])
