"""The store room: a table's record types (:mod:`.records`), the storage's writer thread and its protocol
(:mod:`.writer`), the SQLAlchemy storage on SQLite or PostgreSQL (:mod:`.storage`), its Alembic migrations
(:mod:`.migrations`) and the per-process counters of its work (:mod:`.counters`). It imports nothing else of the
server."""
