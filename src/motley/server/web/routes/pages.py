"""The pages (the lobby, a table, a replay, the API's own docs) and the static files (``.js``, ``.css``, ``.svg``)."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from motley.server.web.refusals import NotFound, contents, refusals

STATIC = resources.files("motley.server").joinpath("static")
#: The names a static file may have (anything else is 404 before the file system is asked).
STATIC_NAME = re.compile(r"[A-Za-z0-9_-]+\.(js|css|svg)")
#: The folders of static files below ``static/``: the vendored libraries and the per-game table views.
STATIC_FOLDERS = ("vendor", "games")
#: The content types of the static files (``/static/...``).
STATIC_TYPES = {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}

router = APIRouter()
STATIC_ANSWERS = {**contents(*STATIC_TYPES.values(), what="the file"), **refusals(404, e404="no such file")}


def page(name: str) -> HTMLResponse:
    """The page ``name`` of ``static/``."""
    return HTMLResponse(STATIC.joinpath(name).read_text(encoding="utf-8"))


def static_file(folder: Any, name: str) -> Response:
    """The ``.js``, ``.css`` or ``.svg`` file ``name`` of a static ``folder``.

    Raises:
        NotFound: for any other name (a NUL byte, a separator, "..", another kind of file) or a file that is not
            there.
    """
    match = STATIC_NAME.fullmatch(name)
    if match is None:
        raise NotFound("no such file")
    path = folder.joinpath(name)
    try:
        found = path.is_file()
        body = path.read_text(encoding="utf-8") if found else ""
    except (OSError, UnicodeDecodeError):  # the name is checked: no NUL byte, no separator
        found = False
    if not found:
        raise NotFound("no such file")
    return Response(body, media_type=STATIC_TYPES[match.group(1)])


@router.get("/", response_class=HTMLResponse)
def lobby() -> HTMLResponse:
    return page("index.html")


@router.get("/table/{table_id}", response_class=HTMLResponse)
def table_page(table_id: str) -> HTMLResponse:
    return page("table.html")


@router.get("/docs", response_class=HTMLResponse)
def docs_page() -> HTMLResponse:
    return page("docs.html")


@router.get("/replay/{table_id}", response_class=HTMLResponse)
def replay_page(table_id: str) -> HTMLResponse:
    return page("replay.html")


@router.get("/static/{name}", response_class=Response, responses=STATIC_ANSWERS)
def static(name: str) -> Response:
    return static_file(STATIC, name)


@router.get("/favicon.ico", response_class=Response,
            responses={**contents("image/svg+xml", what="the icon"), **refusals(404, e404="no icon")})
def favicon() -> Response:
    return static_file(STATIC, "favicon.svg")


@router.get("/static/{folder}/{name}", response_class=Response, responses=STATIC_ANSWERS)
def static_in_folder(folder: str, name: str) -> Response:
    if folder not in STATIC_FOLDERS:
        raise NotFound("no such file")
    return static_file(STATIC.joinpath(folder), name)
