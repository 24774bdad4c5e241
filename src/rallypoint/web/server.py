"""Run the web app under uvicorn (``rallypoint serve``): one process, or several workers.

Several workers (``--workers N``) each build the app from the same settings, passed to them in
the environment (:data:`SETTINGS_ENV`), so they agree on the CSRF key as well as the database;
each pools its own PostgreSQL connections. Everything they must share (accounts, seats, sessions,
the cookie key, login and signup limits) lives in the database, not in a process.
"""

from __future__ import annotations

import ipaddress
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rallypoint.web.settings import DEFAULT_MAX_UPLOAD, WebSettings

if TYPE_CHECKING:
    from fastapi import FastAPI

SETTINGS_ENV = "RALLYPOINT_WEB_SETTINGS"
"""Where ``serve --workers N`` leaves the settings for its worker processes (JSON)."""


@dataclass(frozen=True)
class Running:
    """How the server process(es) run, beside what the app is (:class:`WebSettings`).

    Attributes:
        workers: Worker processes (1: the app runs in this process).
        proxy_headers: Trust ``X-Forwarded-For``/``-Proto`` from :attr:`forwarded_allow_ips`
            (behind a reverse proxy). Off by default: anyone could name any address and walk
            past the per-address limits.
        forwarded_allow_ips: The proxies' addresses, comma-separated (``127.0.0.1``).
        header_timeout: Seconds a client has to send a request's headers.
        log_json: Logs as one JSON object a line.
    """

    workers: int = 1
    proxy_headers: bool = False
    forwarded_allow_ips: str | None = None
    header_timeout: float = 10.0
    log_json: bool = False


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is on this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve(db: Path | str, host: str = "127.0.0.1", port: int = 8000,
          allowed_hosts: tuple[str, ...] = (), max_upload: int = DEFAULT_MAX_UPLOAD,
          shared: bool = False, secure_cookies: bool = False, *, access_log: bool = False,
          running: Running | None = None, mail: Mapping[str, Any] | None = None) -> None:
    """Serve the campaigns in ``db`` (a SQLite file or a ``postgresql://`` URL) until
    interrupted (Ctrl-C); ``shared``: with seats, accounts and logins; ``mail``: the
    :class:`WebSettings` mail fields (``smtp_host``, ``public_url``...)."""
    import uvicorn

    from rallypoint.session.hosting import DEFAULT_POOL_SIZE
    from rallypoint.web.logs import log_config
    from rallypoint.web.protocol import HEADER_TIMEOUT_ENV, HeaderTimeoutProtocol

    running = running or Running()
    location: Path | str = db if str(db).startswith(("postgresql://", "postgres://")) \
        else Path(db)
    settings = WebSettings(db=location, host=host, port=port, allowed_hosts=allowed_hosts,
                           max_upload=max_upload, shared=shared, secure_cookies=secure_cookies,
                           pool_size=DEFAULT_POOL_SIZE, access_log=access_log,
                           **(mail or {}))
    os.environ[HEADER_TIMEOUT_ENV] = str(running.header_timeout)
    _announce(settings, running)
    options: dict[str, Any] = dict(
        host=host, port=port, log_config=log_config(as_json=running.log_json, access=access_log),
        access_log=False, server_header=False, http=HeaderTimeoutProtocol,
        proxy_headers=running.proxy_headers, forwarded_allow_ips=running.forwarded_allow_ips)
    if running.workers == 1:
        uvicorn.run(_build(settings), **options)
        return
    os.environ[SETTINGS_ENV] = settings_json(settings)
    uvicorn.run(f"{__name__}:app_from_environment", factory=True, workers=running.workers,
                **options)


def _build(settings: WebSettings) -> FastAPI:
    from rallypoint.web.app import create_app

    return create_app(settings)


def settings_json(settings: WebSettings) -> str:
    """The settings as a worker process reads them (:func:`app_from_environment`)."""
    data = asdict(settings)
    data.update(db=str(settings.db), secret=settings.secret.hex(),
                backups=None if settings.backups is None else str(settings.backups))
    return json.dumps(data)


def settings_from_json(text: str) -> WebSettings:
    """The inverse of :func:`settings_json`."""
    data = json.loads(text)
    db = data["db"]
    data.update(db=db if db.startswith(("postgresql://", "postgres://")) else Path(db),
                secret=bytes.fromhex(data["secret"]),
                allowed_hosts=tuple(data["allowed_hosts"]),
                backups=None if data["backups"] is None else Path(data["backups"]))
    return WebSettings(**data)


def app_from_environment() -> FastAPI:
    """The app a worker process serves (uvicorn's factory for ``serve --workers N``)."""
    return _build(settings_from_json(os.environ[SETTINGS_ENV]))


def _announce(settings: WebSettings, running: Running) -> None:
    shown = f"[{settings.host}]" if ":" in settings.host else settings.host
    where = _without_password(str(settings.db))
    mode = "shared: seats and logins" if settings.shared else "no accounts"
    workers = "" if running.workers == 1 else f"; {running.workers} workers"
    print(f"rallypoint: serving {where} at http://{shown}:{settings.port}/ ({mode}{workers}; "
          "Ctrl-C stops)", flush=True)
    if not is_loopback(settings.host) and not settings.shared:
        print("warning: this address may be reachable from other machines and there are no "
              "accounts; anyone who can reach it can see and change every campaign (start it "
              "with --shared for seats and logins)", file=sys.stderr, flush=True)


def _without_password(location: str) -> str:
    """A database URL as it may be printed (``user:secret@`` → ``user:***@``)."""
    head, sep, tail = location.partition("://")
    if not sep or "@" not in tail:
        return location
    credentials, _, rest = tail.partition("@")
    user = credentials.split(":", 1)[0]
    return f"{head}://{user}{':***' if ':' in credentials else ''}@{rest}"
