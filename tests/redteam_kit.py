"""A suspicious opponent's toolkit for the red-team tests by mail (issue 18).

Two seats' databases and the files between them, as the README's by-mail flows make them, and
what a cheating sender can do with its own seat key: edit any field of a turn file, re-seal the
hash chain and the header, and sign it again (:func:`forge`). Nothing here imports the re-derivation
under test: the forgeries are plain JSON edits, re-hashed by the chain's published formula.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rallypoint.core.events import GENESIS_HASH, event_hash
from rallypoint.session import Session
from rallypoint.session.pbem import create_seated, export_turn, import_turn, new_seat
from rallypoint.store.exchange import (
    ExportedCampaign,
    ExportedCampaignHeader,
    ExportedHead,
    TurnHeader,
    header_hash,
)
from rallypoint.store.signing import SeatKey, seat_cards
from rallypoint.store.visibility import redacted_digest

Edit = Callable[[dict[str, Any]], None]
"""Changes a turn file's JSON in place."""


@dataclass
class Mail:
    """Two seats' databases and the mail folder between them."""

    dbs: dict[str, Session]
    mail: Path
    campaign: str
    count: int = 0

    def other(self, side: str) -> str:
        return next(s for s in self.dbs if s != side)

    def export(self, side: str, *, whole: bool = False) -> Path:
        """``side``'s turn file for the other seat (``whole``: a plain signed export)."""
        self.count += 1
        path = self.mail / f"{self.count:02d}-{side}.json"
        export_turn(self.dbs[side], self.campaign, path,
                    for_seat=None if whole else self.other(side))
        return path

    def send(self, side: str) -> Path:
        """``side`` exports a turn file and the other seat imports it."""
        path = self.export(side)
        import_turn(self.dbs[self.other(side)], path)
        return path

    def command(self, side: str, body: dict[str, Any], dice: str | None = None) -> Any:
        session = self.dbs[side]
        version = session.load(self.campaign).version
        return session.execute(self.campaign, {**body, "expected_version": version}, dice=dice)


def seated(tmp_path: Path, scenario: Path, sides: tuple[str, str], name: str) -> Mail:
    """A two-seat campaign the first side starts from both cards; the second has imported it."""
    dbs = {side: Session(tmp_path / f"{side}.sqlite3") for side in sides}
    cards = [new_seat(dbs[side], side) for side in sides]
    info = create_seated(dbs[sides[0]], scenario, cards, name=name)
    mail = tmp_path / "mail"
    mail.mkdir()
    game = Mail(dbs, mail, info.id)
    game.send(sides[0])
    return game


def seat_key(session: Session, campaign: str, seat: str) -> SeatKey:
    """The private seat key a database holds (the cheater's own)."""
    with session._store() as store:
        created = store.events(campaign)[0].payload
        kept = store.seat_key(seat_cards(created)[seat].key)
    assert kept is not None
    return SeatKey(seat, bytes.fromhex(kept.private))


def forge(source: Path, target: Path, edit: Edit, key: SeatKey) -> Path:
    """``source`` edited, its chain and header re-sealed and re-signed with ``key``."""
    data = json.loads(source.read_text(encoding="utf-8"))
    edit(data)
    reseal(data, key)
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


def reseal(data: dict[str, Any], key: SeatKey) -> None:
    """Re-hash every event shown whole (a redacted one keeps its committed hash), the head, the
    withheld digest and the header, then sign as ``key``'s seat."""
    prev = GENESIS_HASH
    for event in data["events"]:
        event["prev_hash"] = prev
        if not {"$withheld", "$redacted"} & set(event["payload"]):  # shown whole
            event["hash"] = event_hash(event["campaign_id"], event["seq"], event["type"],
                                       event["payload"], event["recorded_at"], prev)
        prev = event["hash"]
    data["head"] = {"seq": data["events"][-1]["seq"], "hash": prev}
    turn = data.get("turn") or {}
    if turn.get("redacted") is not None:
        turn["redacted"] = redacted_digest(ExportedCampaign.model_validate(data).events)
    data["header_hash"] = header_hash(ExportedCampaignHeader(**data["campaign"]),
                                      ExportedHead(**data["head"]), data["format_version"],
                                      TurnHeader(**turn) if data.get("turn") else None)
    data["signatures"] = [key.sign(data["header_hash"], turn.get("reader")).model_dump()]


def event_of(data: dict[str, Any], seq: int) -> dict[str, Any]:
    """The payload of event ``seq`` in a file's JSON."""
    found: dict[str, Any] = data["events"][seq - 1]["payload"]
    return found


def database_bytes(session: Session) -> bytes:
    """Every byte of a SQLite database as it rests (its file and any write-ahead log)."""
    path = Path(str(session.path))
    parts = [path, path.with_name(path.name + "-wal")]
    return b"".join(p.read_bytes() for p in parts if p.exists())


def pg_rows(url: str) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """Every row of every table of a PostgreSQL database, sorted: its content as a dump."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
        return [(t, sorted(map(tuple, conn.execute(f'SELECT * FROM "{t}"')), key=repr))
                for t in tables]


def copied(session: Session, target: Path) -> Session:
    """A copy of a SQLite database, to try one forgery on."""
    shutil.copy(str(session.path), target)
    return Session(target)


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every field of a JSON value, containers included, as (path, value)."""
    yield path, value
    if isinstance(value, dict):
        for key in sorted(value):
            yield from leaves(value[key], (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
