"""``rallypoint serve``: the web app, on a player's machine or hosted (docs/hosting.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from rallypoint.cli.session import SETTINGS, guarded


def serve(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    db: Annotated[str | None, typer.Option(
        "--db", help="SQLite database file or postgresql:// URL (default: the global --db, "
        "RALLYPOINT_DB, or the user data dir).")] = None,
    allow_host: Annotated[list[str] | None, typer.Option(
        help="Another host name the server may be reached under (repeatable).")] = None,
    shared: Annotated[bool, typer.Option(
        "--shared", help="Seats, accounts and logins: each player sees only their side's "
        "secrets and acts only for their side (for a server others can reach).")] = False,
    secure_cookies: Annotated[bool, typer.Option(
        "--secure-cookies", help="Mark cookies Secure (the server is behind HTTPS).")] = False,
    workers: Annotated[int, typer.Option(
        help="Worker processes (a hosted server: about one per core).", min=1, max=64)] = 1,
    proxy_headers: Annotated[bool, typer.Option(
        "--proxy-headers", help="Behind a reverse proxy: take the client's address from "
        "X-Forwarded-For, sent only by --forwarded-allow-ips.")] = False,
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        help="The reverse proxy's addresses, comma-separated (with --proxy-headers).")] = None,
    header_timeout: Annotated[float, typer.Option(
        help="Seconds a client has to send a request's headers.", min=0.1, max=300)] = 10.0,
    access_log: Annotated[bool, typer.Option(
        "--access-log", help="Log each request: address, method, path, status, time "
        "(never the query string).")] = False,
    log_json: Annotated[bool, typer.Option(
        "--log-json", help="Write logs as one JSON object a line.")] = False,
    smtp_host: Annotated[str | None, typer.Option(
        help="Mail server for 'your move' mails (with --shared; players opt in on a "
        "campaign's seats page; the password: docs/hosting.md).")] = None,
    smtp_port: Annotated[int, typer.Option(help="Its port.", min=1, max=65535)] = 25,
    smtp_from: Annotated[str, typer.Option(help="The mails' From address.")]
    = "rallypoint@localhost",
    smtp_starttls: Annotated[bool, typer.Option(
        "--smtp-starttls", help="Upgrade the mail connection with STARTTLS.")] = False,
    smtp_user: Annotated[str | None, typer.Option(help="Log in to the mail server as.")] = None,
    public_url: Annotated[str | None, typer.Option(
        help="Where players reach this server (the mails' links).")] = None,
) -> None:
    """Serve the campaigns in the browser (pages and a JSON API at /api).

    Hosting for a club (PostgreSQL, several workers, a reverse proxy, a health check at
    /healthz, backups): docs/hosting.md.
    """
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.extras import Extra, require
    from rallypoint.session import default_db_path

    with guarded():
        require(Extra.WEB)
        if smtp_host is not None and not shared:
            raise MalformedInputError(
                "--smtp-host has no effect without --shared (mails go to seats)",
                fix="Add --shared, or leave out --smtp-host.")
        if forwarded_allow_ips is not None and not proxy_headers:
            raise MalformedInputError(
                "--forwarded-allow-ips has no effect without --proxy-headers",
                fix="Add --proxy-headers (only behind a reverse proxy you run).")
    from rallypoint.web.server import Running
    from rallypoint.web.server import serve as run_server

    run_server(db or SETTINGS.db or default_db_path(), host=host, port=port,
               allowed_hosts=tuple(allow_host or ()), shared=shared,
               secure_cookies=secure_cookies, access_log=access_log,
               running=Running(workers=workers, proxy_headers=proxy_headers,
                               forwarded_allow_ips=forwarded_allow_ips or
                               ("127.0.0.1" if proxy_headers else None),
                               header_timeout=header_timeout, log_json=log_json),
               mail={"smtp_host": smtp_host, "smtp_port": smtp_port, "smtp_from": smtp_from,
                     "smtp_starttls": smtp_starttls, "smtp_user": smtp_user,
                     "public_url": public_url})


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the top-level app."""
    app.command()(serve)
