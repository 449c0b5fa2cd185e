"""``motley serve``: the web server (FastAPI under Uvicorn), tables stored in SQLite by default."""

from __future__ import annotations

import multiprocessing
import signal
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from motley.server.play.limits import IDLE_CLOSE, Limits

_DEFAULT = Limits()


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 for every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    db: Annotated[str, typer.Option(help="The store: a SQLite file (motley.db, sqlite:///FILE) or a PostgreSQL URL "
                                         "(postgresql://USER:PASSWORD@HOST/DATABASE, needs motley[postgres]).")]
    = "sqlite:///motley.db",
    move_time: Annotated[float | None, typer.Option(help="Default seconds per move for new tables (none: no limit).")]
    = None,
    grace: Annotated[float, typer.Option(help="Default seconds a disconnected person keeps their seat before "
                                              "a bot plays for them.")] = 30.0,
    bot_delay: Annotated[float, typer.Option(help="Default seconds a bot waits before moving, so people can "
                                                  "follow.")] = 0.8,
    pace: Annotated[float, typer.Option(help="Default seconds before a forced move (the only legal one, e.g. each "
                                             "draw of The Fool's Errand) is played, so people can follow.")] = 0.7,
    summary_wait: Annotated[float, typer.Option(help="Default seconds the end of a deal waits for the people to "
                                                     "press Continue before the table goes on (0: no wait; "
                                                     "negative: wait without limit).")] = 30.0,
    allow_origin: Annotated[list[str] | None, typer.Option(
        help="A public origin (scheme://host[:port]) whose pages may open sockets and create tables, besides "
             "http://127.0.0.1:PORT, http://localhost:PORT and the --host address: e.g. the address friends use on "
             "a LAN, or the public one behind a reverse proxy (its host is allowed too); repeatable.")] = None,
    allow_host: Annotated[list[str] | None, typer.Option(
        help="Another Host name the server answers to (others get 400), e.g. one a reverse proxy passes on; "
             "'*.example.org' for its subdomains, '*' for any; repeatable.")] = None,
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        help="Comma-separated proxy addresses whose X-Forwarded-For/-Proto headers are trusted for the client's "
             "address and scheme (Uvicorn's; default 127.0.0.1, '*' trusts every one).")] = None,
    tables_per_address: Annotated[int, typer.Option(help="Unfinished tables one client address may create.")]
    = _DEFAULT.tables_per_address,
    tables_per_minute: Annotated[float, typer.Option(help="Tables (new ones and rematches) one client address may "
                                                          "create per minute (bursts of --table-burst).")]
    = _DEFAULT.tables_per_minute,
    table_burst: Annotated[int, typer.Option(help="Tables one client address may create at once.")]
    = _DEFAULT.table_burst,
    sockets_per_table: Annotated[int, typer.Option(help="Open WebSockets (players and spectators) per table.")]
    = _DEFAULT.sockets_per_table,
    messages_per_second: Annotated[float, typer.Option(help="Messages one socket may send per second (bursts "
                                                            "of --message-burst).")]
    = _DEFAULT.messages_per_second,
    message_burst: Annotated[int, typer.Option(help="Messages one socket may send at once.")]
    = _DEFAULT.message_burst,
    queue_messages: Annotated[int, typer.Option(help="Messages waiting for one slow viewer before it is "
                                                     "disconnected.")] = _DEFAULT.queue_messages,
    header_timeout: Annotated[int, typer.Option(help="Seconds a connection may take to send a request's header "
                                                     "before it is closed.")] = _DEFAULT.header_timeout,
    keep_alive: Annotated[int, typer.Option(help="Seconds an idle HTTP connection is kept open between "
                                                 "requests.")] = _DEFAULT.keep_alive,
    connections_per_address: Annotated[int, typer.Option(help="Open connections (HTTP and WebSocket) from one "
                                                              "client address; behind a reverse proxy, all of "
                                                              "them come from the proxy's.")]
    = _DEFAULT.connections_per_address,
    searches: Annotated[int | None, typer.Option(help="Bot searches (ISMCTS) at once, each in a worker process "
                                                      "(default: one per core but one).")] = None,
    idle_close: Annotated[float, typer.Option(help="Seconds an unfinished table may go without a move and without "
                                                   "a viewer before it is cancelled (0: never); finished tables "
                                                   "leave the lobby's list that long after their last move.")]
        = IDLE_CLOSE,
    site: Annotated[bool, typer.Option("--site", help="Serve as one process of a site: several `motley serve` "
                                                      "processes over one store, each table driven by the process "
                                                      "holding its lease, a dead process's tables taken over "
                                                      "(docs/scaling.md).")] = False,
    lease_ttl: Annotated[float, typer.Option(help="With --site or --workers: seconds a table's lease lasts without "
                                                  "a heartbeat (how long a dead process's tables wait).")] = 6.0,
    workers: Annotated[int, typer.Option(help="Server processes on this machine sharing --port (SO_REUSEPORT) as "
                                              "one site (implies --site; a PostgreSQL --db); a worker that dies "
                                              "is started again.")] = 1,
    site_address: Annotated[str | None, typer.Option(
        help="With --site: HOST:PORT at which the other processes of the site reach this one to relay the sockets "
             "of the tables it drives (default: 127.0.0.1:--port, or --host:--port); its host must be allowed "
             "(--allow-host); one that is not loopback (a site on several machines) needs --site-secret.")] = None,
    site_secret: Annotated[Path | None, typer.Option(
        help="With --site or --workers: a file holding the site's shared secret (at least 32 bytes, e.g. made by "
             "`openssl rand -hex 32`; or the secret itself in the environment variable MOTLEY_SITE_SECRET), with "
             "which the processes sign the requests and sockets they send each other; needed when --site-address "
             "is not a loopback address (a site on several machines).")] = None,
    reuse_port: Annotated[bool, typer.Option("--reuse-port", hidden=True,
                                             help="Bind --port with SO_REUSEPORT (a worker).")] = False,
) -> None:
    """Serve the lobby and tables in the browser: play with friends and bots; unfinished tables resume."""
    params = dict(locals())
    import uvicorn

    from motley.core import MotleyError
    from motley.server import create_app
    from motley.server.site.draining import DrainingServer
    from motley.server.site.leases import Site
    from motley.server.store.storage import store_url
    from motley.server.web.connections import uvicorn_settings

    if pace < 0:
        raise typer.BadParameter("--pace must be 0 or more seconds.")
    private = _private_socket() if reuse_port else None
    if workers < 1:
        raise typer.BadParameter("--workers must be 1 or more.")
    if workers > 1:
        if not db.startswith("postgresql"):
            raise typer.BadParameter("--workers above 1 needs a PostgreSQL store: --db postgresql://USER@HOST/DB.")
        _site_secret(site_secret, True, site_address)
        _supervise(params, workers)
        return
    address = site_address or _own_address(host, port, private)
    secret = _site_secret(site_secret, site, address)
    try:
        limits = Limits(queue_messages=queue_messages, messages_per_second=messages_per_second,
                        message_burst=message_burst, tables_per_address=tables_per_address,
                        sockets_per_table=sockets_per_table, tables_per_minute=tables_per_minute,
                        table_burst=table_burst, header_timeout=header_timeout, keep_alive=keep_alive,
                        connections_per_address=connections_per_address)
        shown_db = store_url(db).render_as_string(hide_password=True)
        app = create_app(db, move_time=move_time, grace=grace, bot_delay=bot_delay, limits=limits,
                         pace=pace, summary_wait=None if summary_wait < 0 else summary_wait,
                         allow_origins=allow_origin or (), searches=searches, idle_close=idle_close or None,
                         host=host, port=port, allow_hosts=allow_host or (),
                         site=Site(ttl=lease_ttl, address=address, secret=secret) if site else None)
    except MotleyError as exc:
        raise typer.BadParameter(str(exc)) from None
    every = host in ("0.0.0.0", "::")
    shown = "127.0.0.1" if every else host
    typer.echo(f"motley: open http://{shown}:{port}/ in a browser (tables stored in {shown_db}); Ctrl-C stops.")
    if every and not allow_origin:
        typer.echo(f"motley: other machines reach it once named: --allow-origin http://THIS-MACHINE:{port} "
                   "(docs/security.md).")
    if not (reuse_port or site):
        uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=1 << 20,
                    forwarded_allow_ips=forwarded_allow_ips, **uvicorn_settings(limits))
        return
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", ws_max_size=1 << 20,
                            forwarded_allow_ips=forwarded_allow_ips, **uvicorn_settings(limits))
    server = DrainingServer(config, app.state.service)  # SIGTERM hands the tables over (docs/scaling.md)
    server.run(sockets=[_shared_socket(host, port), *([private] if private else [])] if reuse_port else None)


def _site_secret(file: Path | None, in_site: bool, address: str | None) -> bytes | None:
    """The site secret of a process (``in_site``: one of a site) whose internal address is ``address`` (None: a
    worker's loopback one): from ``file`` or the environment (:func:`~motley.server.site.signing.load_secret`).

    Raises:
        typer.BadParameter: for a secret file outside a site, a secret that cannot be read or is too short, or
            none for a site process whose internal address is not loopback (reachable from other machines).
    """
    from motley.core import MotleyError
    from motley.server.site.signing import SECRET_ENV, is_loopback, load_secret

    if not in_site:
        if file is not None:
            raise typer.BadParameter("--site-secret is for a process of a site: add --site (or --workers N).")
        return None
    try:
        secret = load_secret(file)
    except MotleyError as exc:
        raise typer.BadParameter(str(exc)) from None
    if secret is None and address is not None and not is_loopback(address):
        raise typer.BadParameter(f"--site-address {address} is reachable from other machines: a site on several "
                                 f"machines needs a shared secret to sign its internal requests, --site-secret FILE "
                                 f"or {SECRET_ENV} (docs/scaling.md).")
    return secret


def _private_socket() -> Any:
    """A listening socket on a free loopback port of a worker's own, at which the other workers relay to it."""
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    return sock


def _own_address(host: str, port: int, private: Any) -> str:
    """The ``host:port`` at which the other processes of a site on this machine reach this one: a worker's
    private socket, else the loopback address (or ``host``) and ``port``."""
    if private is not None:
        return f"127.0.0.1:{private.getsockname()[1]}"
    local = host in ("", "0.0.0.0", "::", "127.0.0.1", "localhost")
    return f"127.0.0.1:{port}" if local else f"{host}:{port}"


def _shared_socket(host: str, port: int) -> Any:
    """A listening TCP socket on ``host``:``port`` that the other workers bind too (``SO_REUSEPORT``: the kernel
    hands each new connection to one of them)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _worker(params: dict[str, Any]) -> None:
    """One worker of ``--workers``: :func:`serve` with ``params`` as one process of the site on the shared port."""
    serve(**{**params, "workers": 1, "site": True, "reuse_port": True})


def _supervise(params: dict[str, Any], workers: int) -> None:
    """Start ``workers`` processes (:func:`_worker`), start again any that dies, and stop them all on SIGTERM or
    Ctrl-C (each gives its leases up as it stops)."""
    spawn = multiprocessing.get_context("spawn")
    procs = [spawn.Process(target=_worker, args=(params,), daemon=False) for _ in range(workers)]
    for proc in procs:
        proc.start()
    stopping = False

    def stop(_signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    typer.echo(f"motley: {workers} worker processes on port {params['port']} as one site; Ctrl-C stops.")
    while not stopping:
        time.sleep(0.5)
        for i, proc in enumerate(procs):
            if not proc.is_alive() and not stopping:
                typer.echo(f"motley: worker {proc.pid} ended ({proc.exitcode}); starting another.")
                procs[i] = spawn.Process(target=_worker, args=(params,), daemon=False)
                procs[i].start()
    for proc in procs:
        if proc.is_alive() and proc.pid is not None:
            proc.terminate()
    for proc in procs:
        proc.join(timeout=15)
