"""The JSON Schema of the messages that cross the house, and the TypeScript declarations made from it.

:func:`schema` is one JSON Schema document (draft 2020-12) whose ``$defs`` hold every type of :mod:`.messages` (the
WebSocket messages both ways, each game's observation) and the request bodies of :mod:`.bodies`, each by its own
name; an object the server sends has ``additionalProperties: false`` (it sends exactly the keys declared).
:func:`typescript` turns it into declarations (``export interface``/``export type`` per ``$def``, with each
description as a comment), which the browser's scripts import in their JSDoc types and TypeScript checks
(``tsc --noEmit``; the browser itself never loads them). Both are committed under :data:`DIRECTORY`; write them
with ``python -m motley.server.play.schema`` (or ``scripts/schema``), and ``--check`` (as the test does) says
whether the committed files are current.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

import motley
from motley.core.registry import game_spec
from motley.server.play import bodies, messages

#: Where the generated files are committed (beside the pages that use them; the server serves them as static files).
DIRECTORY = Path(__file__).resolve().parent.parent / "static" / "schema"
#: The JSON Schema's file and the TypeScript declarations' (``import("./schema/messages")`` in a page's JSDoc).
SCHEMA_FILE = "messages.schema.json"
TYPES_FILE = "messages.d.ts"

#: The named top-level types: the unions of :mod:`.messages` (their members come along as ``$defs``), the request
#: bodies the pages send and the answers they read. Each registered game's observation
#: (``GameSpec.observation_type``) joins them, and ``GameObservation`` (any of those) is a state message's
#: ``observation``.
TOP: dict[str, Any] = {
    "ServerMessage": messages.ServerMessage,
    "ClientMessage": messages.ClientMessageJSON,
    "TableRequest": bodies.TableRequest,
    "RematchRequest": bodies.RematchRequest,
    "DeclineRequest": bodies.DeclineRequest,
    "GameInfo": messages.GameInfo,
    "TableLine": messages.TableLine,
    "ReplayIndex": messages.ReplayIndex,
    "ReplayStep": messages.ReplayStep,
}


def schema() -> dict[str, Any]:
    """The JSON Schema document of :data:`TOP` and every type they use, each a ``$def`` by its own name.

    Raises:
        ValueError: when two different types share a name (the declarations need unique names).
    """
    defs: dict[str, Any] = {}
    observations = [kind for kind in (game_spec(name).observation_type for name in motley.registered_games()) if kind]
    for name, kind in [*TOP.items(), *((kind.__name__, kind) for kind in observations)]:
        found = TypeAdapter(kind).json_schema(ref_template="#/$defs/{model}")
        for inner, definition in found.pop("$defs", {}).items():
            if defs.get(inner, definition) != definition:
                raise ValueError(f"two types are called {inner!r}; give one another name")
            defs[inner] = definition
        if found != {"$ref": f"#/$defs/{name}"}:
            defs[name] = found
    for definition in defs.values():
        _tidy(definition)
    defs["GameObservation"] = {"description": "A state message's observation: a seat's own, or the public view (the "
                                              "game's private fields left out); each game's GameSpec.observation_type.",
                               "anyOf": [{"$ref": f"#/$defs/{kind.__name__}"} for kind in observations]}
    defs["StateMessage"]["properties"]["observation"] = {"$ref": "#/$defs/GameObservation"}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "motley's messages",
            "description": (__doc__ or "").split("\n\n")[0].strip(), "$defs": dict(sorted(defs.items()))}


def _tidy(node: Any) -> None:
    """Drop the titles pydantic gives each property (its name again) and close every object that declares its
    properties (``additionalProperties: false`` unless it says otherwise)."""
    if isinstance(node, list):
        for item in node:
            _tidy(item)
        return
    if not isinstance(node, dict):
        return
    properties = node.get("properties")
    if isinstance(properties, dict):
        node.setdefault("additionalProperties", False)
        for value in properties.values():
            if isinstance(value, dict):
                value.pop("title", None)
    for value in node.values():
        _tidy(value)


def typescript(document: dict[str, Any]) -> str:
    """TypeScript declarations of the ``$defs`` of ``document`` (a :func:`schema`): an interface per object with
    properties (optional ones marked ``?``), a type alias for the rest."""
    out: list[str | None] = ["// Generated from messages.schema.json by motley.server.play.schema; do not edit.",
           "// The pages import these types in their JSDoc (@ts-check) and tsc --noEmit checks them.", ""]
    for name, definition in document["$defs"].items():
        out.append(_comment(definition.get("description"), ""))
        if definition.get("type") == "object" and "properties" in definition:
            out.append(f"export interface {name} {_object(definition, '')}")
        else:
            out.append(f"export type {name} = {_type(definition, '')};")
        out.append("")
    return "\n".join(line for line in out if line is not None) + "\n"


def _comment(text: str | None, indent: str) -> str | None:
    if not text:
        return None
    lines = text.replace("*/", "* /").splitlines()
    return "\n".join([f"{indent}/**"] + [f"{indent} * {line}".rstrip() for line in lines] + [f"{indent} */"])


def _object(definition: dict[str, Any], indent: str) -> str:
    required = set(definition.get("required", ()))
    lines = ["{"]
    for key, value in definition["properties"].items():
        comment = _comment(value.get("description"), indent + "  ")
        if comment:
            lines.append(comment)
        optional = "" if key in required else "?"
        lines.append(f"{indent}  {key}{optional}: {_type(value, indent + '  ')};")
    extra = definition.get("additionalProperties")
    if isinstance(extra, dict):
        lines.append(f"{indent}  [key: string]: {_type(extra, indent + '  ')};")
    lines.append(indent + "}")
    return "\n".join(lines)


def _type(node: dict[str, Any], indent: str) -> str:
    """The TypeScript type of one schema node."""
    if "$ref" in node:
        return str(node["$ref"]).rpartition("/")[2]
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " | ".join(json.dumps(value) for value in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " | ".join(_wrapped(choice, indent) for choice in node[key])
    kind = node.get("type")
    if isinstance(kind, list):
        return " | ".join(_type({**node, "type": one}, indent) for one in kind)
    if kind in ("integer", "number"):
        return "number"
    if kind in ("string", "boolean", "null"):
        return str(kind)
    if kind == "array":
        if "prefixItems" in node:
            return "[" + ", ".join(_type(item, indent) for item in node["prefixItems"]) + "]"
        return f"Array<{_type(node['items'], indent)}>" if "items" in node else "unknown[]"
    if kind == "object":
        if "properties" in node:
            return _object(node, indent)
        extra = node.get("additionalProperties", True)
        return f"Record<string, {_type(extra, indent) if isinstance(extra, dict) else 'unknown'}>"
    return "unknown"


def _wrapped(node: dict[str, Any], indent: str) -> str:
    text = _type(node, indent)
    return f"({text})" if re.search(r"\s\|\s", text) and not text.startswith("{") else text


def files() -> dict[str, str]:
    """The generated files by name: the JSON Schema and the TypeScript declarations."""
    document = schema()
    return {SCHEMA_FILE: json.dumps(document, indent=2, ensure_ascii=False) + "\n", TYPES_FILE: typescript(document)}


def stale(directory: Path = DIRECTORY) -> list[str]:
    """The generated files that are missing from ``directory`` or differ from what :func:`files` makes now."""
    return [name for name, text in files().items()
            if not (directory / name).is_file() or (directory / name).read_text(encoding="utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    """Write the generated files into :data:`DIRECTORY` (``--check``: write nothing, exit 1 if any is stale)."""
    parser = argparse.ArgumentParser(prog="python -m motley.server.play.schema", description=__doc__.split("\n\n")[0]
                                     if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only say whether the committed files are current")
    args = parser.parse_args(argv)
    if args.check:
        old = stale()
        for name in old:
            print(f"{DIRECTORY / name} is not current: run python -m motley.server.play.schema", file=sys.stderr)
        return 1 if old else 0
    DIRECTORY.mkdir(parents=True, exist_ok=True)
    for name, text in files().items():
        (DIRECTORY / name).write_text(text, encoding="utf-8")
        print(DIRECTORY / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
