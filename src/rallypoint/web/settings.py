"""What a running web server is configured with."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_UPLOAD = 4 * 1024 * 1024
"""Largest request body accepted (4 MiB): a long campaign export fits, a runaway upload not."""

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
"""Host names a loopback server answers to; anything else is refused (DNS rebinding)."""


@dataclass(frozen=True)
class WebSettings:
    """Configuration of one web app instance.

    Attributes:
        db: The SQLite database file.
        host: The address the server binds to (used to build the allowed ``Host`` values).
        port: The port the server listens on.
        max_upload: Largest request body in bytes; larger requests get 413 before any work.
        allowed_hosts: Extra host names (without port) accepted in ``Host``/``Origin``, for a
            server behind a name other than loopback.
        secret: Key that signs CSRF tokens; random per process unless given (tests). A shared
            server derives it from the database's own key, so every process agrees.
        shared: Campaigns have seats, accounts and logins (``serve --shared``, a hosted
            server); without it the server has no accounts and serves everything to everyone
            who can reach it (loopback, or one screen at the table).
        secure_cookies: Mark cookies ``Secure`` (a server behind HTTPS).
        backups: The folder a delete writes its backup export to (default: ``backups/`` beside
            the SQLite database; for a PostgreSQL URL, in the user data folder).
        pool_size: On PostgreSQL, the most connections this process pools (0: no pool, a
            connection per store opened, as the command line does). ``serve`` pools.
        access_log: Log one line per request (``rallypoint.access``, no query strings).
        live_poll: Seconds between two looks at a campaign's head by each open live stream
            (``/c/ID/live``, ``web.live``).
        live_seconds: How long one live stream lasts before the browser reconnects.
        smtp_host: The mail server that sends "your move" mails (``None``: no mail; the
            seats pages offer none). ``smtp_port``, ``smtp_from``, ``smtp_starttls`` and
            ``smtp_user`` go with it; the password is read from ``RALLYPOINT_SMTP_PASSWORD``.
        public_url: Where players reach this server (the mails' links), e.g.
            ``https://games.example.org``; default: the bound address.
    """

    db: Path | str
    host: str = "127.0.0.1"
    port: int = 8000
    max_upload: int = DEFAULT_MAX_UPLOAD
    allowed_hosts: tuple[str, ...] = ()
    secret: bytes = field(default_factory=lambda: os.urandom(32))
    shared: bool = False
    secure_cookies: bool = False
    backups: Path | None = None
    pool_size: int = 0
    access_log: bool = False
    live_poll: float = 1.0
    live_seconds: float = 300.0
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_from: str = "rallypoint@localhost"
    smtp_starttls: bool = False
    smtp_user: str | None = None
    public_url: str | None = None

    def host_names(self) -> frozenset[str]:
        """Every host name (no port) the server may be reached under."""
        names = {*LOOPBACK_NAMES, *self.allowed_hosts}
        if self.host not in ("0.0.0.0", "::"):
            names.add(f"[{self.host}]" if ":" in self.host else self.host)
        return frozenset(name.lower() for name in names)
