"""Who is asking: accounts, login sessions and seats on a shared server (``serve --shared``).

A server without ``--shared`` (loopback, or one screen at the table) has no accounts: every
request sees and does everything, as before. A shared server knows each request's account from
a signed session cookie (``itsdangerous``, HttpOnly, SameSite=Strict, ``Secure`` over HTTPS)
naming a login session kept in the database, and its seat in the campaign asked about; a
campaign the account holds no seat in does not exist for it (404, like an unknown one).
Logins, signups and invite redemptions are rate-limited in the database (every worker
process counts the same attempts): per client address, and failed logins per login *and* address.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import Request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from rallypoint.core.errors import RallypointError, UnknownIdError
from rallypoint.core.visibility import EVERYTHING, Viewer
from rallypoint.session.limits import SharedLimits
from rallypoint.session.seats import SESSION_DAYS, Account, SeatBook

SESSION_COOKIE = "rallypoint_session"
"""The signed login-session cookie."""
LOGIN_LIMIT = (10, 60.0)
"""At most this many login attempts per client address per this many seconds (any login)."""
LOGIN_FAILURE_LIMIT = (5, 300.0)
"""At most this many failed logins on one login name *from one address* per this many seconds:
per address, so that someone guessing a player's password cannot lock the player out."""
SIGNUP_LIMIT = (5, 3600.0)
"""At most this many new accounts per client address per this many seconds (each costs the
server an argon2 hash, and a refused name tells that a login exists)."""
JOIN_LIMIT = (10, 60.0)
"""At most this many invite redemptions per client address per this many seconds."""

class NotLoggedInError(RallypointError):
    """A shared server needs a logged-in account for this."""

    code = "not-logged-in"


def client_address(request: Request) -> str:
    """The address limits are counted for: the connection's peer, or the one a trusted proxy
    named (``serve --proxy-headers``; uvicorn replaces the peer with it before we see it)."""
    return request.client.host if request.client else "unknown"


@dataclass
class Auth:
    """The shared server's accounts and seats, and how cookies name them."""

    book: SeatBook
    key: bytes

    def __post_init__(self) -> None:
        self.signer = URLSafeTimedSerializer(self.key, salt="rallypoint-session")
        self.limits = SharedLimits(self.book.location)

    def limit_signup(self, request: Request) -> None:
        """Count a signup from the request's address.

        Raises:
            RateLimitedError: Too many from there lately.
        """
        self.limits.take("signup", client_address(request), SIGNUP_LIMIT, "new accounts")

    def limit_join(self, request: Request) -> None:
        """Count an invite redemption from the request's address.

        Raises:
            RateLimitedError: Too many from there lately.
        """
        self.limits.take("join", client_address(request), JOIN_LIMIT, "invite attempts")

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
        address = client_address(request)
        self.limits.take("login", address, LOGIN_LIMIT, "login attempts")
        # Counted as a failure before the password is checked, so that two workers cannot both
        # spend the last attempt; given back when the password is right.
        pair = f"{login.casefold()}\n{address}"
        at = self.limits.take("login-failure", pair, LOGIN_FAILURE_LIMIT, "failed logins")
        account = self.book.check_password(login, password)
        if account is None:
            raise NotLoggedInError("wrong login or password", where="login",
                                   fix="Check both and try again.")
        self.limits.give_back("login-failure", pair, at)
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


def account_id(request: Request) -> str | None:
    """The id of the account making ``request`` on a shared server (``None``: a server without
    accounts, where everyone may do everything).

    Raises:
        NotLoggedInError: A shared server and nobody logged in.
    """
    from rallypoint.web import deps

    auth = deps.auth(request)
    return None if auth is None else require_account(auth, request).id


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
