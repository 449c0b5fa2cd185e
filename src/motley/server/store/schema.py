"""The tables of the store, as SQLAlchemy sees them (the migrations, :mod:`motley.server.store.migrations`, make
them): a table's header and its moves, its chat, the analyses of finished matches, and the site's rows (leases,
the creation buckets of client addresses, the processes' addresses; docs/scaling.md)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, Float, Index, Integer, MetaData, String, Table, Text

metadata = MetaData()

tables_t = Table(
    "motley_tables", metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(64), nullable=False),
    Column("params", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("seats", Text, nullable=False),
    Column("settings", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("finished", Boolean, nullable=False, default=False),
    Column("result", Text, nullable=True),
    # the rematch offered at this (finished) table: {"table": its id, "offered_by": seat, "plan": [...]}
    Column("rematch", Text, nullable=True),
    # the client address that created the table (the site mode: its quota is counted here), migration 0006
    Column("created_by", String(64), nullable=True),
    Index("ix_motley_tables_created_by", "created_by", "finished"),
    # the digest of the key of the browser that made the table (its "your tables" list), migration 0007
    Column("owner_key", String(64), nullable=True),
    Index("ix_motley_tables_owner_key", "owner_key", "finished"),
)

moves_t = Table(
    "motley_moves", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False, index=True),
    Column("number", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("move", String(200), nullable=False),
    Column("actor", String(16), nullable=False),
    Column("at", Float, nullable=False),
)
analyses_t = Table(
    "motley_analyses", metadata,
    # the analysis of one seat's decisions in a finished table (motley.bots.analysis), computed once
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("simulations", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("result", Text, nullable=False),  # the JSON of motley.bots.analysis.analyse_record's result
    Column("created", Float, nullable=False),
)

chat_t = Table(
    "motley_chat", metadata,
    # what the people at a table said (motley.server.play.chat), migration 0008
    Column("table_id", String(32), primary_key=True),
    Column("number", Integer, primary_key=True),  # 1, 2, ... at each table
    Column("seat", Integer, nullable=True),  # the writer's seat; null: a spectator
    Column("name", String(80), nullable=False),  # the writer's name when it was said
    Column("text", String(400), nullable=False),
    Column("at", Float, nullable=False),  # seconds since the epoch
)

#: A table's move numbers are unique: the database itself refuses a move stored twice.
move_numbers = Index("ux_motley_moves_table_number", moves_t.c.table_id, moves_t.c.number, unique=True)

leases_t = Table(
    "motley_leases", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("owner", String(64), nullable=False, index=True),  # the owning process's random id (new_owner)
    Column("holder", String(200), nullable=False),  # "host/pid" of that process, for people
    Column("expires_at", Float, nullable=False),  # seconds since the epoch, the database's clock
    # grows by one at every claim (migration 0009): with the owner, the fencing token each write of the table carries
    Column("epoch", BigInteger, nullable=False, server_default="0"),
)
buckets_t = Table(
    "motley_buckets", metadata,  # the creation rate of each client address, the site mode (migration 0006)
    Column("address", String(64), primary_key=True),
    Column("tokens", Float, nullable=False),  # tables it may create at ``at`` (the bucket then)
    Column("at", Float, nullable=False),  # seconds since the epoch, the database's clock
)
processes_t = Table(
    "motley_processes", metadata,
    Column("owner", String(64), primary_key=True),  # a site process's lease owner id (new_owner)
    Column("address", String(200), nullable=False),  # "host:port" where the others relay sockets to it
    Column("seen_at", Float, nullable=False),  # when it registered, seconds since the epoch, the database's clock
)
