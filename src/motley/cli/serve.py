"""``motley serve``: the web server (FastAPI under Uvicorn), tables stored in SQLite by default."""

from __future__ import annotations

from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 for every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the store: sqlite:///FILE or postgresql://...")]
    = "sqlite:///motley.db",
    move_time: Annotated[float | None, typer.Option(help="Default seconds per move for new tables (none: no limit).")]
    = None,
    grace: Annotated[float, typer.Option(help="Default seconds a disconnected person keeps their seat before "
                                              "a bot plays for them.")] = 30.0,
    bot_delay: Annotated[float, typer.Option(help="Default seconds a bot waits before moving, so people can "
                                                  "follow.")] = 0.6,
) -> None:
    """Serve the lobby and tables in the browser: play with friends and bots; unfinished tables resume."""
    import uvicorn

    from motley.server import create_app

    app = create_app(db, move_time=move_time, grace=grace, bot_delay=bot_delay)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    typer.echo(f"motley: open http://{shown}:{port}/ in a browser (tables stored in {db}); Ctrl-C stops.")
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=1 << 20)
