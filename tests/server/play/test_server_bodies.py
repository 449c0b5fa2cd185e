"""HTTP request bodies are checked by pydantic models (motley.server.play.bodies) before anything is made, and
published in the OpenAPI schema that the /docs page reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from motley.core import MotleyError
from motley.server.play.bodies import RematchRequest, TableRequest, checked
from motley.server.web.testing import ServerThread


@pytest.fixture(scope="module")
def server(module_store_url: str) -> Iterator[ServerThread]:
    with ServerThread(module_store_url, bot_delay=0.0) as running:
        yield running


@pytest.mark.parametrize(("body", "named"), [
    ({"game": "fool", "seats": [{"kind": "human"}, {"kind": "human", "open": "yes"}]}, "'open' of seats[1]"),
    ({"game": "fool", "seats": [{"kind": "robot"}]}, "'kind' of seats[0]"),
    ({"game": "fool", "grace": "30"}, "'grace'"),
    ({"game": "fool", "bot_delay": -1}, "'bot_delay'"),
    ({"game": "fool", "colour": "green"}, "'colour'"),
    ({"game": 7}, "'game'"),
    ({"players": 4}, "'game'"),
    ({"game": "fool", "seed": 42}, "'seed' cannot be set"),
    ([{"game": "fool"}], "JSON object"),
])
def test_a_body_of_the_wrong_shape_is_refused_naming_the_field(body: Any, named: str) -> None:
    with pytest.raises(MotleyError, match=named.replace("[", r"\[").replace("]", r"\]")):
        checked(TableRequest, body)


def test_a_body_keeps_exactly_the_fields_it_gave() -> None:
    given = {"game": "fool", "players": 4, "seats": [{"kind": "human", "open": True}, {"kind": "bot", "bot": "random"}]}
    assert checked(TableRequest, given) == given
    assert checked(RematchRequest, {"token": "abc"}) == {"token": "abc"}


def test_the_server_answers_a_wrong_shape_with_400_and_makes_nothing(server: ServerThread) -> None:
    before = len(httpx.get(f"{server.base}/api/tables", timeout=10).json())
    response = httpx.post(f"{server.base}/api/tables", json={"game": "fool", "seats": [{"kind": "human", "open": 1}]},
                          timeout=10)
    assert response.status_code == 400 and "'open' of seats[0]" in response.json()["error"]["message"]
    assert len(httpx.get(f"{server.base}/api/tables", timeout=10).json()) == before


def test_the_openapi_schema_describes_the_bodies(server: ServerThread) -> None:
    api = httpx.get(f"{server.base}/openapi.json", timeout=10).json()
    create = api["paths"]["/api/tables"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(create["properties"]) == set(TableRequest.model_fields)
    seat = create["properties"]["seats"]["anyOf"][0]["items"]
    assert {"kind", "name", "open", "bot", "strength"} <= set(seat["properties"]) and "$ref" not in str(create)
    rematch = api["paths"]["/api/tables/{table_id}/rematch"]["post"]["requestBody"]["content"]["application/json"]
    assert rematch["schema"]["required"] == ["token"]
    page = httpx.get(f"{server.base}/docs", timeout=10)
    assert page.status_code == 200 and "/static/docs.js" in page.text and "<script>" not in page.text
