"""The stores the server runs on: what ``--db`` accepts and how it refuses the rest, the schema made and kept by
the migrations (on SQLite and PostgreSQL), and PostgreSQL's timeouts."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
import sqlalchemy
import uvicorn
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from typer.testing import CliRunner

from motley.cli.main import app
from motley.core.extras import MissingExtraError
from motley.server.store import migrations
from motley.server.store.storage import BadStoreUrl, Storage, StoreUnavailable, metadata, moves_t, tables_t
from motley.server.store.storage import store_url as parse_db
from tests.postgres import PostgresServer, execute


def serve(monkeypatch: pytest.MonkeyPatch, db: str) -> tuple[int, str]:
    """``motley serve --db DB`` up to the point where it would listen: its exit code and output."""
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: None)
    result = CliRunner().invoke(app, ["serve", "--db", db], env={"COLUMNS": "300"}, terminal_width=300)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, " ".join(result.output.replace("│", " ").split())


# ---- what --db accepts ---------------------------------------------------------------------------------------
def test_a_file_path_is_a_sqlite_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    code, output = serve(monkeypatch, str(path))
    assert code == 0, output
    assert path.exists() and f"sqlite:///{path}" in output
    assert parse_db("motley.db").render_as_string() == "sqlite:///motley.db"  # relative to the working folder


def test_postgresql_without_its_driver_names_the_extra_and_prints_no_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if it were not installed
    with pytest.raises(MissingExtraError, match=r"motley\[postgres\]"):
        parse_db("postgresql://motley@localhost/motley")
    code, output = serve(monkeypatch, "postgresql://motley:secret@localhost/motley")
    assert code == 2 and "pip install 'motley[postgres]'" in output and "Traceback" not in output


@pytest.mark.parametrize("db", ["mysql://u@localhost/x", "postgresql://u@local host:x/y", " "])
def test_a_database_motley_does_not_serve_on_is_refused_by_name(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BadStoreUrl, match="--db"):
        parse_db(db)
    code, output = serve(monkeypatch, db)
    assert code == 2 and "--db" in output and "Traceback" not in output


def test_an_unreachable_postgresql_is_said_in_one_line_without_its_password(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    db = f"postgresql://motley:secret@/motley?host={tmp_path}"  # no server listens in that folder
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="cannot open the store") as refused:
        Storage(db)
    assert "secret" not in str(refused.value) and "\n" not in str(refused.value)
    assert time.monotonic() - started < 10
    code, output = serve(monkeypatch, db)
    assert code == 2 and "cannot open the store" in output and "secret" not in output


# ---- the schema, through migrations --------------------------------------------------------------------------
def test_the_migrations_make_the_schema_the_queries_use(store_url: str) -> None:
    storage = Storage(store_url)
    with storage.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    assert execute(store_url, ("SELECT version_num FROM alembic_version", {})) == [[(migrations.head(),)]]
    storage.close()
    Storage(store_url).close()  # opening it again changes nothing


def test_a_store_made_before_migrations_is_adopted_with_its_tables(store_url: str) -> None:
    old = sqlalchemy.create_engine(store_url)
    metadata.create_all(old, tables=[tables_t, moves_t])  # as the server made its stores before it had migrations
    with old.begin() as conn:
        conn.execute(sqlalchemy.text("INSERT INTO motley_tables (id, game, params, seed, seats, settings, created, "
                                     "finished) VALUES ('t1', 'fool', '{}', 1, '[]', '{}', 0, false)"))
    old.dispose()
    storage = Storage(store_url)
    assert [r.id for r in storage.load_all()] == ["t1"]
    assert execute(store_url, ("SELECT version_num FROM alembic_version", {})) == [[(migrations.head(),)]]
    storage.close()


def test_a_store_of_a_newer_motley_is_refused_by_name(store_url: str) -> None:
    Storage(store_url).close()
    execute(store_url, ("UPDATE alembic_version SET version_num = '9999'", {}))
    with pytest.raises(StoreUnavailable, match="9999"):
        Storage(store_url)


# ---- PostgreSQL's timeouts -------------------------------------------------------------------------------------
def test_postgresql_connections_bound_lock_and_statement_waits(postgres: PostgresServer) -> None:
    url = postgres.create_database()
    storage = Storage(url, busy_timeout=0.25, statement_timeout=0.5)
    try:
        with storage.engine.connect() as conn:
            assert conn.execute(sqlalchemy.text("SHOW lock_timeout")).scalar() == "250ms"
            assert conn.execute(sqlalchemy.text("SHOW statement_timeout")).scalar() == "500ms"
            started = time.monotonic()
            with pytest.raises(sqlalchemy.exc.OperationalError, match="statement timeout"):
                conn.execute(sqlalchemy.text("SELECT pg_sleep(5)"))
            assert time.monotonic() - started < 3
    finally:
        storage.close()
        postgres.drop_database(url)
