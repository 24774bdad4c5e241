"""The HTTP protocol the server speaks: uvicorn's h11 protocol with a header-read timeout.

uvicorn waits for a request's headers as long as the client keeps the connection open, so a few
hundred clients sending one header byte every few seconds (a slowloris) hold every connection
slot. Here a connection whose request line and headers are not complete within
:data:`HEADER_TIMEOUT_ENV` seconds (default :data:`DEFAULT_HEADER_TIMEOUT`) of connecting, or of
its previous response, is closed. A request whose headers arrived is never cut: a slow upload is
bounded by the body size limit, not by this timer.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_ENV = "RALLYPOINT_HEADER_TIMEOUT"
"""Seconds a client has to send a request's headers (set by ``serve --header-timeout``; every
worker process reads it)."""
DEFAULT_HEADER_TIMEOUT = 10.0


def header_timeout() -> float:
    """The header-read timeout in force for this process."""
    return float(os.environ.get(HEADER_TIMEOUT_ENV, DEFAULT_HEADER_TIMEOUT))


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that is too slow to send its headers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._waiting_on: object = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on a kept-alive connection gets the same bound

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        # A new request (its headers complete) replaces ``cycle``; until then it stays this one.
        self._waiting_on = self.cycle
        self._header_timer = self.loop.call_later(header_timeout(), self._expired)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expired(self) -> None:
        self._header_timer = None
        if self.cycle is self._waiting_on and not self.transport.is_closing():
            self.transport.close()
