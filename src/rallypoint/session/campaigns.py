"""Opening and keeping campaigns: list, name, create, rename, delete, export and import them.

The work of :class:`rallypoint.session.Session`'s campaign calls (its methods say what each
guarantees); each function takes the database's :class:`~rallypoint.session.handle.Handle`.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from rallypoint.core.campaign import created_event, created_from_scenario
from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.errors import DataFileError, MalformedInputError
from rallypoint.core.events import ChainProblem, NewEvent
from rallypoint.core.json_types import JsonObject
from rallypoint.core.registry import get_ruleset, ruleset_line_fix
from rallypoint.dice.play import commit_server_dice
from rallypoint.errors import Hint
from rallypoint.session import snapshots
from rallypoint.session.handle import Handle
from rallypoint.session.import_stream import import_streamed
from rallypoint.store import CampaignInfo, clean_name
from rallypoint.store.location import exists


def campaigns(handle: Handle, *, missing_ok: bool = True) -> list[CampaignInfo]:
    """Every campaign in the database, oldest first (:meth:`Session.campaigns
    <rallypoint.session.Session.campaigns>`)."""
    if missing_ok and not exists(handle.location):
        return []
    with handle._store() as store:
        return store.campaigns()


def resolve(handle: Handle, ref: str, *, ruleset: str | None = None) -> CampaignInfo:
    """The campaign ``ref`` names, refused if it plays another ruleset than ``ruleset``
    (:meth:`Session.resolve <rallypoint.session.Session.resolve>`)."""
    with handle._store() as store:
        info = store.find(ref)
    if ruleset is not None and info.ruleset != ruleset:
        raise MalformedInputError(
            f"campaign {info.name!r} plays {info.ruleset}, not {ruleset}",
            where=info.id[:8], fix=f"Use `rallypoint {info.ruleset} ...` for it, or pass "
            f"--campaign with a {ruleset} campaign.", instead=Hint.FIX_FIELD)
    return info


def last_used(handle: Handle, ruleset: str | None = None) -> CampaignInfo | None:
    """The campaign this machine last wrote to, by the store's local record of writes."""
    with handle._store() as store:
        return store.latest(ruleset)


def check(handle: Handle, ref: str) -> ChainProblem | None:
    """The first integrity problem of the campaign's stored log (from a trusted snapshot on,
    when one matches), or ``None``."""
    with handle._store() as store:
        info = store.find(ref)
        usable, problem = snapshots.check_tail(store, info)
        return problem if usable else store.check(info.id)


def rename(handle: Handle, ref: str, name: str) -> CampaignInfo:
    """Give a campaign a new local name."""
    with handle._store(write=True) as store:
        return store.rename_campaign(store.find(ref).id, name)


def delete(handle: Handle, ref: str, *, backup: Path | None) -> int:
    """Delete a campaign and its log, exported to ``backup`` first unless that is ``None``;
    return the number of events deleted."""
    from rallypoint.store import export_campaign

    with handle._store(write=True) as store:
        info = store.find(ref)
        if backup is not None:
            export_campaign(store, info.id, backup, allow_broken=True)
        return store.delete_campaign(info.id, expected_version=info.version)


def create(handle: Handle, scenario: Path, *, name: str | None = None, seed: str | None = None,
           campaign_id: str | None = None) -> CampaignInfo:
    """Create a campaign from a scenario file; its ``ruleset = "..."`` line picks the rules
    (:meth:`Session.create <rallypoint.session.Session.create>`)."""
    from rallypoint.core.tomlfile import read_toml

    data, _ = read_toml(scenario)
    if "ruleset" not in data:
        raise DataFileError("the scenario does not say which ruleset it is for",
                            where=f"{scenario}:1",
                            fix=ruleset_line_fix())
    ruleset = get_ruleset(str(data["ruleset"]))
    label = clean_name(name if name is not None else scenario.stem)
    return _create(handle, label, ruleset, created_event(ruleset, scenario, label, seed=seed),
                   campaign_id, commit=seed is None)


def create_from(handle: Handle, ruleset: str, scenario: JsonObject, *, name: str,
                seed: str | None = None, campaign_id: str | None = None) -> CampaignInfo:
    """Create a campaign from an already validated, JSON-ready scenario of ``ruleset``."""
    rules = get_ruleset(ruleset)
    name = clean_name(name)
    return _create(handle, name, rules, created_from_scenario(rules, scenario, name, seed=seed),
                   campaign_id, commit=seed is None)


def _create(handle: Handle, name: str, ruleset: ErasedRuleset, created: NewEvent,
            campaign_id: str | None, *, commit: bool = False) -> CampaignInfo:
    """Store a new campaign's ``created`` event; ``commit``: its dice are the server's, so the
    log gets their commitment and the store keeps the secret."""
    secret = None
    if commit:
        # dice-v1: the log gets the commitment, the store keeps the secret (docs/dice.md).
        payload, secret = commit_server_dice(created.payload)
        created = NewEvent(type=created.type, payload=payload)
    with handle._store(write=True) as store:
        new_id = campaign_id or uuid.uuid4().hex
        if secret is not None:
            store.put_dice_secret(new_id, secret.hex())
        store.create_campaign(new_id, name, ruleset.name, created)
        return store.campaign(new_id)


def export(handle: Handle, ref: str, path: Path) -> int:
    """Write the campaign and its whole log to one JSON file; return the events written."""
    from rallypoint.store import export_campaign

    with handle._store() as store:
        return export_campaign(store, store.find(ref).id, path)


def import_file(handle: Handle, path: Path, *, name: str | None = None) -> CampaignInfo:
    """Import an export file: a new campaign, or the newer events of one already here
    (checked, folded and stored in one streaming pass, committed only if the whole file
    passes: :func:`rallypoint.session.import_stream.import_streamed`)."""
    return import_streamed(handle.transaction, path, name)
