"""A shared server with a two-sided TCS campaign and a client per person, for the seats tests.

Ann (Finland) creates the campaign through the API with a referee's seat, takes her seat and
hands the invites to Bob (the Soviets) and Rita (the referee); Carol has an account and no
seat; Dan is not logged in.
The seats then play ``seats_kit``'s opening: each side writes its own sheet, three turns, and the
referee checks Finland's sheet with the dice 6,6,3 (only the referee may type dice in), leaving
Finland a pending distribution.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from rallypoint.web.app import create_app
from rallypoint.web.settings import WebSettings

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "tcs_two_sides.toml"
PASSWORD = "correct horse battery"
SECRETS = {"finland": ("F-hideout", "22.15"), "soviet": ("S-lair", "31.10")}
SHEETS = {
    "finland": {"kind": "write_sheet", "sheet": "F-hideout", "members": ["ErP112"],
                "centers": {"1/ErP112": "22.15"}, "size": 0, "attest": True},
    "soviet": {"kind": "write_sheet", "sheet": "S-lair", "members": ["1/609"],
               "centers": {"1/609": "31.10"}, "size": 1, "attest": True},
}


def csrf(client: TestClient) -> str:
    """The CSRF token the server hands this client (its cookie is set by the same request)."""
    token: str = client.get("/api/session").json()["csrf_token"]
    return token


class Person:
    """One browser: a TestClient with its own cookies, and its CSRF header for JSON writes."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.token = csrf(client)

    def post(self, url: str, body: dict[str, Any] | None = None) -> Any:
        """A JSON write with the CSRF header."""
        return self.client.post(url, json=body or {}, headers={"x-csrf-token": self.token})

    def get(self, url: str, **kwargs: Any) -> Any:
        """A read."""
        return self.client.get(url, **kwargs)

    def log_in(self, login: str, new: bool = True) -> None:
        """Make the account (or log in to it)."""
        url = "/api/accounts" if new else "/api/session"
        r = self.post(url, {"login": login, "password": PASSWORD})
        assert r.status_code in (200, 201), r.text


@dataclass
class Table:
    """The shared server, its campaign and its people."""

    app: FastAPI
    ref: str
    people: dict[str, Person]

    def version(self) -> int:
        """The campaign's version (read as the referee)."""
        return int(self.people["referee"].get(f"/api/campaigns/{self.ref}").json()["version"])

    def command(self, who: str, command: dict[str, Any], dice: str | None = None) -> Any:
        """A command through the API by one person, at the current version."""
        body = {"command": {**command, "expected_version": self.version()}, "dice": dice}
        return self.people[who].post(f"/api/campaigns/{self.ref}/commands", body)


def open_table(db: Path | str, tmp_path: Path, creator: str = "finland",
               settings: dict[str, Any] | None = None) -> Iterator[Table]:
    """Build and play the table (see the module docstring) on the database ``db``.

    ``creator="host"``: Hank creates the campaign (with a referee's seat) and hands every
    invite on, holding no seat himself (he is ``people["host"]``). ``settings``: more
    :class:`WebSettings` fields (a mail server).
    """
    # A live stream (``/c/ID/live``) ends within a fraction of a second, so a test reading it
    # whole gets its answer.
    app = create_app(WebSettings(db=db, allowed_hosts=("testserver",), shared=True,
                                 backups=tmp_path / "backups", live_poll=0.05,
                                 live_seconds=0.3, **(settings or {})))
    who_all = ("finland", "soviet", "referee", "outsider", "anonymous",
               *(("host",) if creator == "host" else ()))
    with ExitStack() as stack:
        clients = {who: stack.enter_context(TestClient(app, base_url="http://testserver"))
                   for who in who_all}
        people = {who: Person(c) for who, c in clients.items()}
        for who, login in (("finland", "ann"), ("soviet", "bob"), ("referee", "rita"),
                           ("outsider", "carol"), ("host", "hank")):
            if who in people:
                people[who].log_in(login)
        made = people[creator].post("/api/campaigns", {
            "scenario_toml": SCENARIO.read_text(encoding="utf-8"), "name": "tolvajarvi",
            "referee": True})
        assert made.status_code == 201, made.text
        body = made.json()
        for who, seat in (("finland", "finland"), ("soviet", "soviet"),
                          ("referee", "@referee")):
            joined = people[who].post("/api/join", {"invite": body["invites"][seat]})
            assert joined.status_code == 201, joined.text
        table = Table(app, body["id"], people)
        for side, sheet in SHEETS.items():
            assert table.command(side, sheet).status_code == 201
        for who in ("finland", "soviet", "finland"):
            # The Soviet FO is dead: its hourly roll is let pass.
            assert table.command(who, {"kind": "turn", "skip_fo": True}).status_code == 201
        checked = table.command("referee", {"kind": "check", "sheet": "F-hideout"}, "6,6,3")
        assert checked.status_code == 201, checked.text
        yield table
