"""Who is asking: accounts, login sessions and seats on a shared server (``serve --shared``).

A server without ``--shared`` (loopback, or one screen at the table) has no accounts: every
request sees and does everything, as before. A shared server knows each request's account from
a signed session cookie (``itsdangerous``, HttpOnly, SameSite=Strict, ``Secure`` over HTTPS)
naming a login session kept in the database, and its seat in the campaign asked about; a
campaign the account holds no seat in does not exist for it (404, like an unknown one).
Logins are rate-limited per client address and per login name.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import Request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from rallypoint.core.errors import RallypointError, UnknownIdError
from rallypoint.core.visibility import EVERYTHING, Viewer
from rallypoint.session.seats import SESSION_DAYS, Account, SeatBook

SESSION_COOKIE = "rallypoint_session"
"""The signed login-session cookie."""
LOGIN_LIMIT = (10, 60.0)
"""At most this many login attempts per client address per this many seconds."""
LOGIN_NAME_LIMIT = (5, 300.0)
"""At most this many failed attempts on one login name per this many seconds."""


class NotLoggedInError(RallypointError):
    """A shared server needs a logged-in account for this."""

    code = "not-logged-in"


class RateLimitedError(RallypointError):
    """Too many attempts; wait before trying again."""

    code = "rate-limited"


class RateLimiter:
    """A sliding-window count of attempts per key, in memory (one server process).

    Args:
        limit: Attempts allowed per window.
        window: The window in seconds.
    """

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        seen = self._seen.setdefault(key, deque())
        while seen and seen[0] <= now - self.window:
            seen.popleft()
        return seen

    def check(self, key: str) -> None:
        """Refuse when ``key`` has used up its attempts.

        Raises:
            RateLimitedError: With how long to wait.
        """
        now = time.monotonic()
        with self._lock:
            seen = self._recent(key, now)
            if len(seen) >= self.limit:
                wait = int(seen[0] + self.window - now) + 1
                raise RateLimitedError(f"too many login attempts; try again in {wait} s",
                                       fix="Wait, then log in again.")

    def note(self, key: str) -> None:
        """Count one attempt for ``key``."""
        with self._lock:
            self._recent(key, time.monotonic()).append(time.monotonic())


@dataclass
class Auth:
    """The shared server's accounts and seats, and how cookies name them."""

    book: SeatBook
    key: bytes

    def __post_init__(self) -> None:
        self.signer = URLSafeTimedSerializer(self.key, salt="rallypoint-session")
        self.by_address = RateLimiter(*LOGIN_LIMIT)
        self.by_login = RateLimiter(*LOGIN_NAME_LIMIT)

    def cookie_value(self, token: str) -> str:
        """The signed cookie value for a login session token."""
        return self.signer.dumps(token)

    def token_of(self, request: Request) -> str | None:
        """The login session token the request's cookie carries, if its signature holds."""
        value = request.cookies.get(SESSION_COOKIE)
        if not value:
            return None
        try:
            token = self.signer.loads(value, max_age=SESSION_DAYS * 86400)
        except BadSignature:
            return None
        return token if isinstance(token, str) else None

    def account_of(self, request: Request) -> Account | None:
        """The logged-in account making ``request`` (remembered for the request)."""
        cached = request.scope.setdefault("state", {})
        if "account" not in cached:
            token = self.token_of(request)
            found = None
            if token:
                # Kept until the database changes (a logout writes it); expiry checked each time.
                from rallypoint.web import deps

                found = deps.service(request).cached(("login", token),
                                                     lambda: self.book.session(token))
            cached["account"] = found[0] if found and found[1] >= datetime.now(UTC) else None
        account: Account | None = cached["account"]
        return account

    def login(self, request: Request, login: str, password: str) -> tuple[Account, str]:
        """Check a login; return the account and its new session token.

        Raises:
            RateLimitedError: Too many attempts from this address or on this login.
            NotLoggedInError: Wrong login or password (one message for both).
        """
        address = request.client.host if request.client else "unknown"
        name = login.casefold()
        self.by_address.check(address)
        self.by_login.check(name)
        self.by_address.note(address)
        account = self.book.check_password(login, password)
        if account is None:
            self.by_login.note(name)
            raise NotLoggedInError("wrong login or password", where="login",
                                   fix="Check both and try again.")
        return account, self.book.start_session(account)


def require_account(auth: Auth | None, request: Request) -> Account:
    """The logged-in account (a shared server), refusing an anonymous request.

    Raises:
        NotLoggedInError: Nobody is logged in.
    """
    account = auth.account_of(request) if auth is not None else None
    if account is None:
        raise NotLoggedInError("log in to use this shared server",
                               fix="Log in (or make an account) at /login.")
    return account


def viewer_of(auth: Auth | None, request: Request, campaign_id: str) -> Viewer:
    """How the request's account sees a campaign: everything on an unshared server; else its
    seat (everything once revealed).

    Raises:
        NotLoggedInError: A shared server and nobody logged in.
        UnknownIdError: The account holds no seat there (as if the campaign did not exist).
    """
    if auth is None:
        return EVERYTHING
    account = require_account(auth, request)
    from rallypoint.web import deps

    # Seats change only by writes to the database, which drop the cache.
    viewer = deps.service(request).cached(("viewer", campaign_id, account.id),
                                          lambda: auth.book.viewer(campaign_id, account.id))
    if viewer is None:
        raise UnknownIdError("no such campaign among yours",
                             fix="Open one of your campaigns, or join one with its invite.")
    return viewer


def campaign_viewer(request: Request, ref: str) -> Viewer:
    """How the request sees the campaign ``ref`` names; on a shared server an unknown campaign
    and one the account holds no seat in are refused alike (so a guess learns nothing).

    Raises:
        NotLoggedInError: A shared server and nobody logged in.
        UnknownIdError: No such campaign among the account's.
    """
    from rallypoint.web import deps

    auth = deps.auth(request)
    if auth is None:
        return EVERYTHING
    require_account(auth, request)
    try:
        campaign_id = deps.service(request).info(ref).id
    except UnknownIdError:
        campaign_id = ""
    return viewer_of(auth, request, campaign_id)
