"""Request guards that run before any route: Host, Origin, body size, CSRF cookie, headers.

A server on loopback is still reachable from any page the player's browser opens, so:

- **DNS rebinding**: a hostile name resolving to 127.0.0.1 sends its own ``Host``; every request
  whose host name is not one the server answers to is refused (421).
- **Cross-site writes**: a state-changing request whose ``Origin`` is not this very origin
  (scheme, host *and* port: another local server is same-site but not same-origin), or whose
  ``Sec-Fetch-Site`` says cross-site, is refused (403). Forms carry a CSRF token bound to a
  cookie (checked by :func:`check_csrf` in the form routes); the JSON API accepts only
  ``application/json`` bodies, which no cross-origin page can send without a CORS preflight that
  this server never grants.
- **Oversized bodies** are refused (413) from ``Content-Length`` or while streaming, before a
  route reads them.
- **Caching**: every response but the static assets carries ``Cache-Control: no-store`` (a
  page, an answer or an export holds the secrets of the seat that asked; no browser or proxy
  may keep it for the next person at that screen).

Every refusal is a ``{code, message}`` JSON body like the library's errors.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from rallypoint.web.settings import WebSettings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSRF_COOKIE = "rallypoint_csrf"
"""Cookie holding the browser's random CSRF key (HttpOnly, SameSite=Strict)."""
CSRF_FIELD = "csrf_token"
"""Form field (or ``X-CSRF-Token`` header) carrying the token derived from the cookie."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
STATIC_PREFIX = "/static/"
"""Where the app serves its static assets (the only responses a browser may keep)."""

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
"""Content Security Policy for HTML pages: nothing inline, nothing from elsewhere."""


class RefusedRequest(Exception):
    """A guard refused a request before any route ran."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def csrf_token(secret: bytes, cookie: str) -> str:
    """The token a form must send back for the browser holding ``cookie``."""
    return hmac.new(secret, cookie.encode(), hashlib.sha256).hexdigest()


def check_csrf(secret: bytes, cookie: str | None, token: str | None) -> None:
    """Refuse a form post whose token does not match the browser's CSRF cookie.

    Raises:
        RefusedRequest: 403 ``csrf`` when the cookie or the token is missing or wrong.
    """
    if not cookie or not token or not hmac.compare_digest(csrf_token(secret, cookie), token):
        raise RefusedRequest(
            403, "csrf", "the form's CSRF token is missing or does not match this browser. "
            "Reload the page and submit the form again.")


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _host_name(host: str) -> str:
    """``Host``/netloc without the port (keeps ``[::1]`` brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def _cookie(headers: dict[str, str], name: str) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name and value:
            return value
    return None


class GuardMiddleware:
    """Pure ASGI middleware applying the guards above to every HTTP request."""

    def __init__(self, app: ASGIApp, settings: WebSettings) -> None:
        self.app = app
        self.settings = settings
        self.hosts = settings.host_names()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        try:
            self._check(scope, headers)
        except RefusedRequest as refused:
            await _refuse(send, refused)
            return
        cookie = _cookie(headers, CSRF_COOKIE)
        new_cookie = None if cookie else _random_key()
        scope.setdefault("state", {})["csrf_cookie"] = cookie or new_cookie
        if scope["method"] not in SAFE_METHODS and "content-length" not in headers:
            try:
                receive = await self._buffered(receive)
            except RefusedRequest as refused:
                await _refuse(send, refused)
                return
        await self.app(scope, receive, self._decorated(send, new_cookie,
                                                       _may_carry_secret(scope)))

    def _check(self, scope: Scope, headers: dict[str, str]) -> None:
        host = headers.get("host", "")
        if _host_name(host) not in self.hosts:
            raise RefusedRequest(
                421, "bad-host", f"this server does not answer to host {host!r}. "
                "Open it at http://127.0.0.1 (or start it with --allow-host NAME).")
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.settings.max_upload):
            raise RefusedRequest(413, "too-large", self._too_large())
        if scope["method"] in SAFE_METHODS:
            return
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            raise RefusedRequest(403, "cross-site", "cross-site requests may not change "
                                 "anything. Use the page served by this server.")
        # DELETE carries no body and, like PUT or PATCH, no cross-origin page can send it
        # without a CORS preflight; POST is the one a plain form can send.
        if scope["method"] != "DELETE" and scope["path"].startswith("/api/") and not headers.get(
                "content-type", "").lower().startswith("application/json"):
            raise RefusedRequest(415, "unsupported-media-type", "the JSON API takes only "
                                 "Content-Type: application/json. Send the body as JSON.")
        origin = headers.get("origin")
        if origin is not None and not _same_origin(origin, scope, host):
            raise RefusedRequest(403, "cross-site", f"origin {origin!r} may not change "
                                 "anything here. Use the page served by this server.")

    def _too_large(self) -> str:
        return (f"the request body is larger than {self.settings.max_upload // 1024} KiB. "
                "Send a smaller file.")

    async def _buffered(self, receive: Receive) -> Receive:
        """Read a body of unknown length (chunked) up to the cap, then replay it to the app.

        Raises:
            RefusedRequest: 413 as soon as more than the cap has arrived.
        """
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.settings.max_upload:
                raise RefusedRequest(413, "too-large", self._too_large())
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay

    def _decorated(self, send: Send, new_cookie: str | None, no_store: bool) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if not (no_store and k.lower() == b"cache-control")]
                names = {k.lower() for k, _ in headers}
                for key, value in _security_headers(names, no_store):
                    headers.append((key, value))
                if new_cookie is not None:
                    headers.append((b"set-cookie", (
                        f"{CSRF_COOKIE}={new_cookie}; Path=/; HttpOnly; SameSite=Strict"
                    ).encode()))
                message["headers"] = headers
            await send(message)

        return wrapped


def _random_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")


def _same_origin(origin: str, scope: Scope, host: str) -> bool:
    parts = urlsplit(origin)
    scheme = scope.get("scheme", "http")
    return parts.scheme == scheme and parts.netloc.lower() == host.strip().lower()


def _may_carry_secret(scope: Scope) -> bool:
    """Whether a response to this request may hold a seat's secrets: everything but the static
    assets (the same files for everyone)."""
    return not str(scope.get("path", "")).startswith(STATIC_PREFIX)


def _security_headers(present: set[bytes], no_store: bool = True) -> list[tuple[bytes, bytes]]:
    extra = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
             (b"x-frame-options", b"DENY")]
    if no_store:
        # A page, an answer or an export holds the secrets of the seat that asked: no browser
        # cache, shared proxy or back-forward cache may keep it for the next person at that
        # screen (a route's own Cache-Control is dropped before, never trusted).
        extra = [*extra, (b"cache-control", b"no-store")]
    if b"content-security-policy" not in present:
        extra.append((b"content-security-policy", CSP.encode()))
    return [(k, v) for k, v in extra if k not in present]


async def _refuse(send: Send, refused: RefusedRequest) -> None:
    body = json.dumps({"code": refused.code, "message": refused.message}).encode()
    await send({"type": "http.response.start", "status": refused.status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *_security_headers(set())]})
    await send({"type": "http.response.body", "body": body})
