"""The server's logs: plain lines for a person, or one JSON object a line (``--log-json``) for a
log collector; and an access log (``--access-log``) that never records a query string.

Query strings are left out of the access log on purpose: an invite link carries its token there
(``/join?token=…``), and a log file is read by more people than a seat's invite should be.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

from rallypoint.web.security import ASGIApp, Message, Receive, Scope, Send

ACCESS_LOGGER = "rallypoint.access"
"""The logger each request's line goes to."""

_ACCESS_FIELDS = ("client", "method", "path", "status", "ms")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC), level, logger, message, and the access fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update({k: getattr(record, k) for k in _ACCESS_FIELDS if hasattr(record, k)})
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def log_config(*, as_json: bool, access: bool) -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for uvicorn and rallypoint (uvicorn's ``log_config``).

    Args:
        as_json: One JSON object per line instead of plain text.
        access: Log every request (``rallypoint.access``), INFO level.
    """
    formatter: dict[str, Any] = (
        {"()": f"{__name__}.JsonFormatter"} if as_json else
        {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"})
    handler = {"class": "logging.StreamHandler", "formatter": "main",
               "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "handlers": {"main": handler},
        "loggers": {
            "uvicorn": {"handlers": ["main"], "level": "WARNING", "propagate": False},
            "uvicorn.error": {"handlers": ["main"], "level": "WARNING", "propagate": False},
            # uvicorn's own access line prints the query string: ours replaces it.
            "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
            "rallypoint": {"handlers": ["main"], "level": "WARNING", "propagate": False},
            ACCESS_LOGGER: {"handlers": ["main"], "level": "INFO" if access else "WARNING",
                            "propagate": False},
        },
    }


class AccessLogMiddleware:
    """Logs one line per HTTP request: client address, method, path, status, milliseconds."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.logger = logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.logger.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]  # what a crash before the response start is logged as

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self._line(scope, status[0], started)

    def _line(self, scope: Scope, status: int, started: float) -> None:
        client = scope.get("client")
        fields = {"client": client[0] if client else "-", "method": scope["method"],
                  "path": scope["path"], "status": status,
                  "ms": round((time.perf_counter() - started) * 1000, 1)}
        self.logger.info("%(client)s %(method)s %(path)s %(status)s %(ms)sms", fields,
                         extra=fields)
