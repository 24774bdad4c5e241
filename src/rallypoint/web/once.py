"""What a successful POST has to say once, carried over its redirect (Post/Redirect/Get).

A write answers ``303 See Other`` so that reloading the page never sends it again. Two writes
have something to show only once: a deletion's notice (where its backup went) and a new
campaign's or seat's invite links, which the server cannot show again (it keeps only their
hashes). They travel to the page the redirect names in a short-lived cookie:

* signed with the server's key (every worker of a shared server has the same one), so no one
  else can make a page show links or words of their choosing;
* bound to the page's path (the browser sends it nowhere else), to the account that made it
  (a signed-in other person on the same browser is shown nothing), and to :data:`LIFETIME`;
* ``HttpOnly``, ``SameSite=Strict``, ``Secure`` behind HTTPS, and cleared by the page that
  shows it: a reload shows the page without it (the pages are ``no-store``).

The invite links leave the server only as they did before, in the answer to their own creator.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any, TypeVar

from fastapi import Request, Response

from rallypoint.web import deps

COOKIE = "rallypoint_once"
R = TypeVar("R", bound=Response)
LIFETIME = 120
"""Seconds a carried notice waits for its page: a redirect is followed at once."""


def _sign(secret: bytes, body: str) -> str:
    return hmac.new(secret, b"once:" + body.encode(), hashlib.sha256).hexdigest()


def carry(request: Request, response: R, kind: str, path: str, data: dict[str, Any],
          account: str | None) -> R:
    """Put ``data`` in ``response`` for the page at ``path`` to show once, as ``kind``."""
    body = base64.urlsafe_b64encode(json.dumps(
        {"k": kind, "p": path, "a": account, "e": int(time.time()) + LIFETIME, "d": data},
        separators=(",", ":")).encode()).decode().rstrip("=")  # no quoting in the cookie
    secure = deps.settings(request).secure_cookies or request.url.scheme == "https"
    response.set_cookie(COOKIE, f"{body}.{_sign(deps.settings(request).secret, body)}",
                        max_age=LIFETIME, path=path, httponly=True, samesite="strict",
                        secure=secure)
    return response


def take(request: Request, kind: str, account: str | None) -> dict[str, Any] | None:
    """What the redirect carried to this page as ``kind``, if it is genuine, meant for this
    page and this account, and fresh; else None. Pair with :func:`clear` on the answer."""
    value = request.cookies.get(COOKIE, "")
    body, _, mac = value.rpartition(".")
    if not body or not hmac.compare_digest(mac, _sign(deps.settings(request).secret, body)):
        return None
    try:
        note = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except ValueError:
        return None
    if not isinstance(note, dict) or note.get("k") != kind or note.get("a") != account \
            or note.get("p") != request.url.path or not isinstance(note.get("d"), dict) \
            or not isinstance(note.get("e"), int) or note["e"] < time.time():
        return None
    return dict(note["d"])


def clear(response: R, path: str) -> R:
    """Tell the browser to drop the carried notice (it was shown)."""
    response.delete_cookie(COOKIE, path=path, httponly=True, samesite="strict")
    return response
