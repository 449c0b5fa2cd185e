"""The chat of each table in the store (``motley_chat``, migration 0008): :class:`ChatRows` is the part of
:class:`~motley.server.store.storage.Storage` that keeps it. A line's number is unique at its table, so two writers
of one table (a process that lost the table's lease and the one that took it) never store two lines as one."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, insert, select

from motley.server.store.schema import chat_t

__all__ = ["ChatRows"]


class ChatRows:
    """The chat lines of the tables (a mixin of the storage: it needs :attr:`engine`)."""

    engine: Engine

    def add_chat_line(self, table_id: str, line: dict[str, Any]) -> None:
        """Store one chat line of table ``table_id``: ``{"number", "seat", "name", "text", "at"}`` (``seat`` None:
        a spectator's).

        Raises:
            sqlalchemy.exc.IntegrityError: if the table has a line of that number already.
        """
        with self.engine.begin() as conn:
            conn.execute(insert(chat_t).values(table_id=table_id, number=int(line["number"]), seat=line["seat"],
                                               name=str(line["name"]), text=str(line["text"]), at=float(line["at"])))

    def chat_lines(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` chat lines of table ``table_id``, oldest first, each ``{"number", "seat", "name",
        "text", "at"}``."""
        query = (select(chat_t.c.number, chat_t.c.seat, chat_t.c.name, chat_t.c.text, chat_t.c.at)
                 .where(chat_t.c.table_id == table_id).order_by(chat_t.c.number.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [{"number": int(r.number), "seat": None if r.seat is None else int(r.seat), "name": r.name,
                 "text": r.text, "at": float(r.at)} for r in reversed(rows)]
