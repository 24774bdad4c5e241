"""Run the web app under uvicorn (``rallypoint serve``)."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

from rallypoint.web.settings import DEFAULT_MAX_UPLOAD, WebSettings


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
          shared: bool = False, secure_cookies: bool = False) -> None:
    """Serve the campaigns in ``db`` (a SQLite file or a ``postgresql://`` URL) until
    interrupted (Ctrl-C); ``shared``: with seats, accounts and logins."""
    import uvicorn

    from rallypoint.web.app import create_app

    location: Path | str = db if str(db).startswith(("postgresql://", "postgres://")) \
        else Path(db)
    settings = WebSettings(db=location, host=host, port=port, allowed_hosts=allowed_hosts,
                           max_upload=max_upload, shared=shared, secure_cookies=secure_cookies)
    app = create_app(settings)
    shown = f"[{host}]" if ":" in host else host
    where = _without_password(str(location))
    mode = "shared: seats and logins" if shared else "no accounts"
    print(f"rallypoint: serving {where} at http://{shown}:{port}/ ({mode}; Ctrl-C stops)",
          flush=True)
    if not is_loopback(host) and not shared:
        print("warning: this address may be reachable from other machines and there are no "
              "accounts; anyone who can reach it can see and change every campaign (start it "
              "with --shared for seats and logins)", file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                server_header=False)


def _without_password(location: str) -> str:
    """A database URL as it may be printed (``user:secret@`` → ``user:***@``)."""
    head, sep, tail = location.partition("://")
    if not sep or "@" not in tail:
        return location
    credentials, _, rest = tail.partition("@")
    user = credentials.split(":", 1)[0]
    return f"{head}://{user}{':***' if ':' in credentials else ''}@{rest}"
