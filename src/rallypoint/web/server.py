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


def serve(db: Path, host: str = "127.0.0.1", port: int = 8000,
          allowed_hosts: tuple[str, ...] = (), max_upload: int = DEFAULT_MAX_UPLOAD) -> None:
    """Serve the campaigns in ``db`` until interrupted (Ctrl-C)."""
    import uvicorn

    from rallypoint.web.app import create_app

    settings = WebSettings(db=db, host=host, port=port, allowed_hosts=allowed_hosts,
                           max_upload=max_upload)
    app = create_app(settings)
    shown = f"[{host}]" if ":" in host else host
    print(f"rallypoint: serving {db} at http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
    if not is_loopback(host):
        print("warning: this address may be reachable from other machines and there are no "
              "accounts yet; anyone who can reach it can change your campaigns",
              file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                server_header=False)
