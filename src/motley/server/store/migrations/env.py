"""Alembic's environment for the store's migrations: run on the connection :func:`..migrations.upgrade`
hands in (``config.attributes["connection"]``), in its transaction."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
