"""Accounts, logins, invites and seats on a shared server: pages and the JSON API.

Every route here answers 404 ``not-shared`` on a server without ``--shared``. State-changing
requests carry the CSRF token (forms: the hidden field; JSON: the ``X-CSRF-Token`` header, which
``GET /api/session`` hands out) like every other write.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from rallypoint.core.errors import Hint, RallypointError, UnknownIdError
from rallypoint.core.visibility import Role
from rallypoint.session.powers import Power
from rallypoint.session.seats import REFEREE_SEAT
from rallypoint.web import deps, once
from rallypoint.web.auth import (
    SESSION_COOKIE,
    Auth,
    campaign_viewer,
    require_account,
)
from rallypoint.web.errors import status_for
from rallypoint.web.security import CSRF_COOKIE, CSRF_FIELD, check_csrf, csrf_token

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api", tags=["seats"])

Ref = Annotated[str, Path(description="campaign name, id, or unique id prefix (≥ 4)",
                          max_length=200)]


class NotSharedError(UnknownIdError):
    """The route exists only on a shared server."""

    code = "not-shared"


def _auth(request: Request) -> Auth:
    auth = deps.auth(request)
    if auth is None:
        raise NotSharedError("this server has no accounts (it is not shared)",
                             fix="Start it with `rallypoint serve --shared` to use seats.",
                             instead=Hint.SERVER)
    return auth


def _safe_next(value: str | None) -> str:
    """Only a path on this server (never ``//elsewhere`` or a full URL)."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return "/"


def _with_session(response: Response, request: Request, auth: Auth, token: str) -> Response:
    secure = deps.settings(request).secure_cookies or request.url.scheme == "https"
    response.set_cookie(SESSION_COOKIE, auth.cookie_value(token), httponly=True,
                        samesite="strict", secure=secure, path="/",
                        max_age=30 * 86400)
    return response


async def _form_fields(request: Request) -> dict[str, str]:
    form = await request.form(max_fields=20, max_files=0)
    token = form.get(CSRF_FIELD)
    check_csrf(deps.settings(request).secret, request.scope.get("state", {}).get("csrf_cookie"),
               token if isinstance(token, str) else None)
    return {k: v for k, v in form.items() if isinstance(v, str)}


# --- pages -----------------------------------------------------------------------------------


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, next: str | None = None) -> HTMLResponse:
    """Log in, or make an account."""
    _auth(request)
    return deps.renderer(request).html(request, "login.html", next=_safe_next(next),
                                       error=None, error_form=None)


@router.post("/login")
async def login(request: Request) -> Response:
    """Check the login; set the session cookie."""
    auth = _auth(request)
    fields = await _form_fields(request)
    target = _safe_next(fields.get("next"))
    try:
        _, token = auth.login(request, fields.get("login", ""), fields.get("password", ""))
    except RallypointError as exc:
        return deps.renderer(request).html(request, "login.html", status=status_for(exc),
                                           next=target, error=exc, error_form="login")
    return _with_session(RedirectResponse(target, status_code=303), request, auth, token)


@router.post("/signup")
async def signup(request: Request) -> Response:
    """Make an account and log in."""
    auth = _auth(request)
    fields = await _form_fields(request)
    target = _safe_next(fields.get("next"))
    try:
        auth.limit_signup(request)
        account = auth.book.create_account(fields.get("login", ""), fields.get("password", ""))
    except RallypointError as exc:
        return deps.renderer(request).html(request, "login.html", status=status_for(exc),
                                           next=target, error=exc, error_form="signup")
    token = auth.book.start_session(account)
    return _with_session(RedirectResponse(target, status_code=303), request, auth, token)


@router.post("/logout")
async def logout(request: Request) -> Response:
    """End the login session."""
    auth = _auth(request)
    await _form_fields(request)
    token = auth.token_of(request)
    if token:
        auth.book.end_session(token)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/join/{token}", response_class=HTMLResponse)
def join_page(request: Request, token: str) -> HTMLResponse:
    """An invite: log in (or make an account), then take the seat."""
    auth = _auth(request)
    account = require_account(auth, request)
    return deps.renderer(request).html(request, "join.html", token=token, error=None,
                                       offer=_offer(request, token, account.id))


def _offer(request: Request, token: str, account_id: str) -> dict[str, Any] | None:
    """What an invite opens, for the join page to name before the player accepts: the
    campaign, its ruleset, the seat (and the side's name in the scenario), who holds the other
    seats, and the seat the player holds there already if any (``None``: no free seat)."""
    book = _auth(request).book
    seat = book.invited(token[:200])
    if seat is None:
        return None
    service = deps.service(request)
    info = service.info(seat.campaign_id)
    campaign = service.load(seat.campaign_id)
    names = {str(s.get("id")): str(s.get("name") or s.get("id"))
             for s in campaign.created.scenario.get("sides") or () if isinstance(s, dict)}
    return {"name": info.name, "ruleset": campaign.ruleset.title,
            "version": info.version,
            "seat": seat.seat, "side": names.get(seat.seat), "referee": REFEREE_SEAT,
            "others": [s for s in book.seats(seat.campaign_id) if s.seat != seat.seat],
            "held": book.seat_of(seat.campaign_id, account_id)}


@router.post("/join")
async def join(request: Request) -> Response:
    """Take the seat an invite opens."""
    auth = _auth(request)
    fields = await _form_fields(request)
    account = require_account(auth, request)
    try:
        auth.limit_join(request)
        seat = auth.book.join(fields.get("token", ""), account)
    except RallypointError as exc:
        return deps.renderer(request).html(
            request, "join.html", status=status_for(exc), token=fields.get("token", ""),
            error=exc, offer=_offer(request, fields.get("token", ""), account.id))
    deps.service(request).forget()
    return RedirectResponse(f"/c/{seat.campaign_id}", status_code=303)


def seats_page(request: Request, cid: str, invites: dict[str, str] | None = None,
               status: int = 200, error: RallypointError | None = None) -> HTMLResponse:
    """A campaign's seats: who holds each, invites (shown once), the reveal, undo consent."""
    auth = _auth(request)
    service = deps.service(request)
    info = service.info(cid)
    account = require_account(auth, request)
    seated = auth.book.seat_of(info.id, account.id)
    if seated is None and invites is None:
        campaign_viewer(request, cid)  # refuses alike an unknown campaign and a foreign one
    campaign = service.load(info.id)
    whole = service.session.load(info.id, whole=True)
    effective = whole.effective()
    latest = effective[-1].seq if effective else None
    # Consent is asked for an undo of the other side's latest event when it rolled dice.
    if latest is None or seated is None or not whole.rolls(latest) \
            or auth.book.author_of(info.id, latest) in (None, seated.seat):
        latest = None
    base = str(request.base_url).rstrip("/")
    return deps.renderer(request).html(
        request, "seats.html", status=status, c=campaign, name=info.name,
        seats=auth.book.seats(info.id), mine=seated, revealed=auth.book.revealed(info.id),
        invites={k: f"{base}/join/{v}" for k, v in (invites or {}).items()},
        latest=latest, error=error, referee=REFEREE_SEAT,
        mail_offered=bool(deps.settings(request).smtp_host) and seated is not None,
        mail=auth.book.mail_of(info.id, account.id) if seated is not None else None,
        may_invite=Power.INVITE in auth.book.powers(info.id, account.id))


@router.get("/c/{cid}/seats", response_class=HTMLResponse)
def seats(request: Request, cid: str) -> HTMLResponse:
    """The campaign's seats (and, once, the invite links the redirect of the write that made
    them carried: :mod:`rallypoint.web.once`)."""
    carried = once.take(request, "invites", require_account(_auth(request), request).id)
    page = seats_page(request, cid, invites={str(k): str(v) for k, v in carried.items()}
                      if carried else None)
    return once.clear(page, request.url.path) if carried else page


@router.post("/c/{cid}/seats")
async def seat_action(request: Request, cid: str) -> Response:
    """New invite for a free seat, ask for the reveal, or consent to undoing the latest event."""
    auth = _auth(request)
    fields = await _form_fields(request)
    viewer = campaign_viewer(request, cid)
    service = deps.service(request)
    info = service.info(cid)
    account = require_account(auth, request)
    try:
        action = fields.get("action")
        if action == "invite":
            token = service.new_invite(info.id, fields.get("seat", ""), account.id)
            seats_path = f"/c/{info.id}/seats"
            return once.carry(request, RedirectResponse(seats_path, status_code=303), "invites",
                              seats_path, {fields.get("seat", ""): token}, account.id)
        if action == "reveal":
            auth.book.ask_reveal(info.id, account.id)
        elif action == "mail":
            if not deps.settings(request).smtp_host:
                raise UnknownIdError("this server sends no mail",
                                     fix="Ask whoever runs it to set --smtp-host.",
                                     instead=Hint.SERVER)
            auth.book.set_mail(info.id, account.id, fields.get("address"))
        elif action == "consent":
            service.consent_to_undo(info.id, int(fields.get("target", "0") or 0), viewer)
        else:
            raise UnknownIdError(f"no seat action {action!r}",
                                 fix="Use invite, reveal, mail or consent.")
    except (RallypointError, ValueError) as exc:
        error = exc if isinstance(exc, RallypointError) else UnknownIdError(str(exc))
        return seats_page(request, cid, status=status_for(error), error=error)
    service.forget()
    return RedirectResponse(f"/c/{info.id}/seats", status_code=303)


# --- the JSON API ----------------------------------------------------------------------------


class Credentials(BaseModel):
    """A login and its password."""

    model_config = ConfigDict(extra="forbid")

    login: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=1000)


class Invite(BaseModel):
    """An invite token (the last part of the invite link)."""

    model_config = ConfigDict(extra="forbid")

    invite: str = Field(min_length=1, max_length=200)


class SeatName(BaseModel):
    """A seat of the campaign: a side's id, or ``@referee``."""

    model_config = ConfigDict(extra="forbid")

    seat: str = Field(min_length=1, max_length=200)


class Target(BaseModel):
    """The event an undo would cancel (the latest effective one)."""

    model_config = ConfigDict(extra="forbid")

    target: int = Field(ge=1)


def _json_csrf(request: Request) -> None:
    check_csrf(deps.settings(request).secret, request.scope.get("state", {}).get("csrf_cookie"),
               request.headers.get("x-csrf-token"))


@api_router.get("/session")
def session(request: Request) -> dict[str, Any]:
    """Who is logged in, and the CSRF token every write sends as ``X-CSRF-Token``."""
    auth = _auth(request)
    account = auth.account_of(request)
    cookie = request.scope.get("state", {}).get("csrf_cookie") or ""
    return {"login": account.display if account else None,
            "csrf_token": csrf_token(deps.settings(request).secret, cookie),
            "csrf_cookie": CSRF_COOKIE}


@api_router.post("/session")
def log_in(request: Request, body: Credentials) -> Response:
    """Log in: sets the signed session cookie."""
    auth = _auth(request)
    _json_csrf(request)
    account, token = auth.login(request, body.login, body.password)
    return _with_session(JSONResponse({"login": account.display}), request, auth, token)


@api_router.delete("/session", status_code=204)
def log_out(request: Request) -> Response:
    """Log out."""
    auth = _auth(request)
    _json_csrf(request)
    token = auth.token_of(request)
    if token:
        auth.book.end_session(token)
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@api_router.post("/accounts", status_code=201)
def make_account(request: Request, body: Credentials) -> Response:
    """Make an account and log in."""
    auth = _auth(request)
    _json_csrf(request)
    auth.limit_signup(request)
    account = auth.book.create_account(body.login, body.password)
    token = auth.book.start_session(account)
    return _with_session(JSONResponse({"login": account.display}, status_code=201), request,
                         auth, token)


@api_router.post("/join", status_code=201)
def join_seat(request: Request, body: Invite) -> dict[str, str]:
    """Take the seat an invite opens."""
    auth = _auth(request)
    _json_csrf(request)
    account = require_account(auth, request)
    auth.limit_join(request)
    seat = auth.book.join(body.invite, account)
    deps.service(request).forget()
    return {"campaign": seat.campaign_id, "seat": seat.seat}


@api_router.get("/campaigns/{ref}/seats")
def list_seats(request: Request, ref: Ref) -> dict[str, Any]:
    """The campaign's seats, who holds each, yours, whether all is revealed, and your powers
    over the campaign (``invite``, ``rename``, ``delete``...: docs/web.md)."""
    auth = _auth(request)
    viewer = campaign_viewer(request, ref)
    info = deps.service(request).info(ref)
    powers = auth.book.powers(info.id, require_account(auth, request).id)
    return {"campaign": info.id, "revealed": auth.book.revealed(info.id),
            "yours": REFEREE_SEAT if viewer.role is Role.REFEREE else viewer.side,
            "powers": sorted(powers),
            "seats": [{"seat": s.seat, "holder": s.holder, "joined_at": s.joined_at,
                       "reveal_asked": s.reveal_asked} for s in auth.book.seats(info.id)]}


@api_router.post("/campaigns/{ref}/invites", status_code=201)
def new_invite(request: Request, ref: Ref, body: SeatName) -> dict[str, str]:
    """A new invite for a seat no one holds (the old one stops working): the creator's or the
    referee's to make."""
    auth = _auth(request)
    _json_csrf(request)
    campaign_viewer(request, ref)
    token = deps.service(request).new_invite(ref, body.seat, require_account(auth, request).id)
    return {"seat": body.seat, "invite": token}


@api_router.post("/campaigns/{ref}/reveal")
def reveal(request: Request, ref: Ref) -> dict[str, bool]:
    """Ask for everything to be shown (the referee's word, or every side's, reveals it)."""
    auth = _auth(request)
    _json_csrf(request)
    campaign_viewer(request, ref)
    info = deps.service(request).info(ref)
    revealed = auth.book.ask_reveal(info.id, require_account(auth, request).id)
    deps.service(request).forget()
    return {"revealed": revealed}


@api_router.post("/campaigns/{ref}/undo-consent", status_code=204)
def undo_consent(request: Request, ref: Ref, body: Target) -> Response:
    """Agree that the latest event (which rolled dice) may be undone by the seat that made it."""
    _auth(request)
    _json_csrf(request)
    viewer = campaign_viewer(request, ref)
    deps.service(request).consent_to_undo(ref, body.target, viewer)
    return Response(status_code=204)
