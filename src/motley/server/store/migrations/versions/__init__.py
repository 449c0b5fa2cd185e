"""The store's schema changes, one Alembic revision a file, in order (see :mod:`motley.server.store.migrations`)."""
