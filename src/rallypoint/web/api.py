"""The JSON API under ``/api``: the session API over HTTP, described by its OpenAPI schema.

Each route is one session-API call. Commands are the rulesets' own JSON forms (the same ones
``rallypoint.session.Session.execute`` takes); refusals are 4xx ``{code, message, where, fix}``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from rallypoint.core.errors import MalformedInputError
from rallypoint.core.visibility import Viewer
from rallypoint.session import CampaignInfo, Executed
from rallypoint.web import deps
from rallypoint.web.auth import account_id, campaign_viewer, require_account
from rallypoint.web.errors import ErrorBody
from rallypoint.web.security import SAFE_METHODS, check_csrf

REFUSALS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text} for status, text in (
        (400, "Malformed request or command (`malformed-input`, `bad-data-file`)"),
        (404, "Unknown campaign or id (`unknown-id`)"),
        (409, "Refused by the rules (`illegal-now`) or stale (`stale-version`)"),
        (413, "Body too large (`too-large`)"),
        (415, "Write requests must be `application/json`"),
        (401, "A shared server: log in first (`not-logged-in`)"),
        (403, "Not your seat's to do (`not-your-seat`), or a CSRF or cross-site refusal"),
    )}

def _shared_csrf(request: Request) -> None:
    """On a shared server every JSON write also carries ``X-CSRF-Token`` (from
    ``GET /api/session``), bound to the browser's CSRF cookie."""
    if deps.auth(request) is not None and request.method not in SAFE_METHODS:
        check_csrf(deps.settings(request).secret,
                   request.scope.get("state", {}).get("csrf_cookie"),
                   request.headers.get("x-csrf-token"))


router = APIRouter(prefix="/api", tags=["campaigns"], responses=REFUSALS,
                   dependencies=[Depends(_shared_csrf)])

Ref = Annotated[str, Path(description="campaign name, id, or unique id prefix (≥ 4)",
                          max_length=200, examples=["ridge"])]


class Strict(BaseModel):
    """Request bodies refuse unknown fields."""

    model_config = ConfigDict(extra="forbid")


class NewCampaign(Strict):
    """Create a campaign from a shipped scenario (by name) or a scenario file's text."""

    scenario: str | None = Field(default=None, max_length=200,
                                 description="a shipped scenario's name (see /api/scenarios)")
    scenario_toml: str | None = Field(default=None, description="a scenario file's TOML text")
    name: str | None = Field(default=None, max_length=200)
    seed: str | None = Field(default=None, max_length=200)
    referee: bool = Field(default=False, description="a shared server: open a referee's seat "
                          "too (it sees every secret, types dice, reveals and deletes alone; "
                          "only now can it be opened)")


class CommandRequest(Strict):
    """A ruleset command, in the JSON form the session API takes."""

    command: dict[str, Any] = Field(
        description='{"kind": ..., "expected_version": N, ...fields of the command}')
    dice: str | None = Field(default=None, max_length=400,
                             description="scripted dice, e.g. '6,6,5' (default: the "
                             "campaign's seeded dice)")


class PreviewRequest(Strict):
    """A command to decide in memory; nothing is stored and no die is rolled."""

    command: dict[str, Any]


class AnswerRequest(Strict):
    """Answer a pending decision by a named policy."""

    expected_version: int = Field(ge=1)
    decision: str | None = Field(default=None, description="key or subject (default: the next)")
    policy: str | None = Field(default=None, description="policy name (default: the first)")


class VersionRequest(Strict):
    """The campaign version the request was made against."""

    expected_version: int = Field(ge=1)


class RenameRequest(Strict):
    """A new name for the campaign."""

    expected_version: int = Field(ge=1)
    name: str = Field(min_length=1, max_length=200)


class Deleted(BaseModel):
    """A deleted campaign: how many events went, and where their backup export is."""

    events: int
    backup: str


class ImportRequest(Strict):
    """An export document (as ``GET /api/campaigns/{ref}/export`` gives it)."""

    document: dict[str, Any]
    name: str | None = Field(default=None, max_length=200)


class Scenario(BaseModel):
    """A scenario shipped with a ruleset."""

    ruleset: str
    name: str


class CreatedCampaign(CampaignInfo):
    """A new campaign; on a shared server, with the invite token of each of its seats (shown
    this once: the server keeps only their hashes)."""

    invites: dict[str, str] | None = None


class Recorded(BaseModel):
    """A stored event and what it did."""

    seq: int
    type: str
    summary: str
    payload: dict[str, Any]
    version: int
    retried: bool
    pending: list[dict[str, Any]]


def _recorded(request: Request, done: Executed, viewer: Viewer) -> Recorded:
    """What was recorded, as the seat that made it may see it."""
    service = deps.service(request)
    payload, summary = service.recorded(done, viewer)
    return Recorded(seq=done.record.seq, type=done.record.type, summary=summary,
                    payload=payload, version=done.campaign.version, retried=done.retried,
                    pending=[d.model_dump() for d in service.pending(done.campaign, viewer)])


@router.get("/scenarios")
def scenarios(request: Request) -> list[Scenario]:
    """The scenarios shipped with each ruleset."""
    return [Scenario(ruleset=r, name=p.stem) for r, _, p in deps.service(request).scenarios()]


@router.get("/campaigns")
def list_campaigns(request: Request) -> list[CampaignInfo]:
    """Every campaign in the database, oldest first (a shared server: those you hold a seat
    in)."""
    auth = deps.auth(request)
    account = require_account(auth, request) if auth is not None else None
    return deps.service(request).campaigns(account.id if account else None)


@router.post("/campaigns", status_code=201)
def create_campaign(request: Request, body: NewCampaign) -> CreatedCampaign:
    """Create a campaign (exactly one of ``scenario`` and ``scenario_toml``); on a shared
    server it gets a seat per side (and a referee's if ``referee``), and the answer their
    invites; its creator makes new ones and renames it."""
    service, auth = deps.service(request), deps.auth(request)
    if auth is not None:
        require_account(auth, request)
    if (body.scenario is None) == (body.scenario_toml is None):
        raise MalformedInputError("give exactly one of scenario and scenario_toml",
                                  where="scenario", fix="Name a shipped scenario or send TOML.")
    if body.scenario_toml is not None:
        info = service.create_uploaded("scenario.toml", body.scenario_toml.encode(), body.name,
                                       body.seed)
    else:
        info = service.create_shipped(body.scenario or "", body.name, body.seed)
    invites = service.open_seats(info, account_id(request) or "", body.referee) \
        if auth is not None else None
    return CreatedCampaign(**info.model_dump(), invites=invites)


@router.get("/campaigns/{ref}")
def view(request: Request, ref: Ref) -> dict[str, Any]:
    """The campaign's view: id, name, version, the ruleset's state view, pending decisions."""
    return deps.service(request).view(ref, campaign_viewer(request, ref))


@router.patch("/campaigns/{ref}")
def rename(request: Request, ref: Ref, body: RenameRequest) -> CampaignInfo:
    """Give the campaign a new name (its events, and so its exports, keep theirs); on a shared
    server its creator or its referee may."""
    campaign_viewer(request, ref)
    return deps.service(request).rename(ref, body.name, body.expected_version,
                                        account_id(request))


@router.delete("/campaigns/{ref}")
def delete(request: Request, ref: Ref,
           expected_version: Annotated[int, Query(ge=1)]) -> Deleted:
    """Delete the campaign and its whole log, after writing a backup export beside the
    database (import it to have the campaign back)."""
    campaign_viewer(request, ref)
    count, backup = deps.service(request).delete(ref, expected_version, account_id(request))
    return Deleted(events=count, backup=str(backup))


@router.get("/campaigns/{ref}/decisions")
def decisions(request: Request, ref: Ref) -> dict[str, Any]:
    """Pending decisions with their legal choices, and the policies that can answer them."""
    viewer = campaign_viewer(request, ref)
    c = deps.service(request).load(ref)
    return {"version": c.version,
            "pending": [d.model_dump() for d in deps.service(request).pending(c, viewer)],
            "policies": [{"name": p.name, "summary": p.summary} for p in c.ruleset.policies()]}


@router.post("/campaigns/{ref}/commands", status_code=201)
def execute(request: Request, ref: Ref, body: CommandRequest) -> Recorded:
    """Decide a command and store its event.

    A command made against an older version that is still legal now is decided again at the
    current version once (``retried: true``); otherwise it is refused as ``stale-version``.
    """
    viewer = campaign_viewer(request, ref)
    done = deps.service(request).execute(ref, body.command, body.dice, strict=False,
                                         viewer=viewer)
    return _recorded(request, done, viewer)


@router.post("/campaigns/{ref}/preview")
def preview_command(request: Request, ref: Ref, body: PreviewRequest) -> dict[str, Any]:
    """What a command would do now, decided in memory: nothing is stored, no die is rolled."""
    viewer = campaign_viewer(request, ref)
    return deps.service(request).preview(ref, body.command, viewer).to_json()


@router.post("/campaigns/{ref}/answers", status_code=201)
def answer(request: Request, ref: Ref, body: AnswerRequest) -> Recorded:
    """Answer a pending decision by a named policy."""
    viewer = campaign_viewer(request, ref)
    return _recorded(request, deps.service(request).answer(
        ref, body.decision, body.policy, body.expected_version, viewer), viewer)


@router.post("/campaigns/{ref}/undo", status_code=201)
def undo(request: Request, ref: Ref, body: VersionRequest) -> Recorded:
    """Undo the latest effective event (appends an ``undone`` event; history is kept)."""
    viewer = campaign_viewer(request, ref)
    return _recorded(request, deps.service(request).undo(ref, body.expected_version, viewer),
                     viewer)


@router.get("/campaigns/{ref}/log")
def log(request: Request, ref: Ref) -> list[dict[str, Any]]:
    """Every event, oldest first: summary, whether undone, every roll with its odds."""
    return [e.to_json() for e in deps.service(request).log(ref, campaign_viewer(request, ref))]


@router.get("/campaigns/{ref}/export")
def export(request: Request, ref: Ref) -> JSONResponse:
    """The campaign's export document (for ``POST /api/import`` or ``rallypoint import``)."""
    name, text = deps.service(request).export_text(ref, campaign_viewer(request, ref))
    return JSONResponse(json.loads(text),
                        headers={"content-disposition": f'attachment; filename="{name}"'})


@router.post("/import", status_code=201)
def import_(request: Request, body: ImportRequest) -> CampaignInfo:
    """Import an export document: a new campaign, or the newer events of one already here."""
    text = json.dumps(body.document, ensure_ascii=False)
    return deps.service(request).import_uploaded("import.json", text.encode(), body.name)
