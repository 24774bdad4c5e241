"""E-mail a seat when it is their move (issue 22), against a real SMTP server on loopback
(aiosmtpd): who gets a mail, that it says only whose move with a link, one mail until the seat
looks again, no mail for the seat that acted, and that a broken mail server never fails a
command. The oracle for "whose move" is the table's own play (``seats_table``): the Soviets have
their own sheet check and FO roll due throughout.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from web.conftest import free_port
from web.seats_table import SECRETS, Table, open_table
from web.test_web_seats import _form


@dataclass
class Inbox:
    """What the loopback SMTP server received: (recipients, message) in order."""

    mails: list[tuple[list[str], Message]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mails.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    box = Inbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


def _table(tmp_path: Path, port: int) -> Iterator[Table]:
    return open_table(tmp_path / "mail.db", tmp_path, creator="host", settings={
        "smtp_host": "127.0.0.1", "smtp_port": port, "smtp_from": "games@example.org",
        "public_url": "https://games.example.org/"})


@pytest.fixture
def table(inbox: tuple[Inbox, int], tmp_path: Path) -> Iterator[Table]:
    yield from _table(tmp_path, inbox[1])


def _opt_in(table: Table, who: str, address: str) -> Any:
    client = table.people[who].client
    sent: Any = _form(client, f"/c/{table.ref}/seats", "/", action="mail", address=address)
    return sent


def _wait(table: Table) -> None:
    table.app.state.mailer.wait()


def _move(table: Table, who: str, hex_: str) -> None:
    counter = {"finland": "1/ErP112-1", "soviet": "1/609-1"}[who]
    r = table.command(who, {"kind": "move", "counter": counter, "hex": hex_})
    assert r.status_code == 201, r.text


def test_a_seat_that_asked_is_mailed_once_until_it_looks(
        table: Table, inbox: tuple[Inbox, int]) -> None:
    box = inbox[0]
    assert _opt_in(table, "soviet", "bob@example.org").status_code == 303
    assert _opt_in(table, "finland", "ann@example.org").status_code == 303
    _move(table, "finland", "23.16")
    _wait(table)
    # Bob (whose move it is) is told; Ann, who acted, is not.
    assert [to for to, _ in box.mails] == [["bob@example.org"]]
    mail = box.mails[0][1]
    assert mail["Subject"] == "rallypoint: your move in tolvajarvi"
    assert mail["From"] == "games@example.org" and mail["To"] == "bob@example.org"
    payload = mail.get_payload(decode=True)
    assert isinstance(payload, bytes)
    body = payload.decode()
    assert f"Open the campaign: https://games.example.org/c/{table.ref}\r\n" in body
    assert "It is your move in tolvajarvi" in body
    for secret in (*SECRETS["finland"], *SECRETS["soviet"]):
        assert secret not in mail.as_string()
    # Ann moves again: Bob has not looked since his mail, so no second one.
    _move(table, "finland", "23.15")
    _wait(table)
    assert len(box.mails) == 1
    # Bob looks; Ann's next move mails him again.
    assert table.people["soviet"].get(f"/c/{table.ref}").status_code == 200
    _move(table, "finland", "23.16")
    _wait(table)
    assert [to for to, _ in box.mails] == [["bob@example.org"]] * 2


def test_no_mail_unless_asked_and_none_after_turning_it_off(
        table: Table, inbox: tuple[Inbox, int]) -> None:
    box = inbox[0]
    _move(table, "finland", "23.16")
    _wait(table)
    assert box.mails == []
    _opt_in(table, "soviet", "bob@example.org")
    assert 'value="bob@example.org"' in table.people["soviet"].get(
        f"/c/{table.ref}/seats").text
    _opt_in(table, "soviet", "")
    _move(table, "finland", "23.15")
    _wait(table)
    assert box.mails == []


@pytest.mark.parametrize("address", ["bob@example.org\r\nBcc: eve@example.org",
                                     "bob@exam\nple.org", "bob@example.org, eve@example.org",
                                     "Bob <bob@example.org>", "bob", "x" * 250 + "@example.org"])
def test_an_address_that_is_not_one_plain_address_is_refused(
        table: Table, inbox: tuple[Inbox, int], address: str) -> None:
    r = _opt_in(table, "soviet", address)
    assert r.status_code == 400
    book = table.app.state.service.book
    bob = next(s.account_id for s in book.seats(table.ref) if s.seat == "soviet")
    assert book.mail_of(table.ref, bob) is None


def test_only_a_seat_may_ask(table: Table) -> None:
    for who in ("outsider", "host"):
        r = _opt_in(table, who, "carol@example.org")
        assert r.status_code in (403, 404), (who, r.status_code)
    book = table.app.state.service.book
    assert book.mail_wanted(table.ref) == []


def test_a_dead_mail_server_fails_no_command(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    dead = free_port()  # nothing listens there
    for table in _table(tmp_path, dead):
        _opt_in(table, "soviet", "bob@example.org")
        with caplog.at_level(logging.ERROR, logger="rallypoint.mail"):
            before = table.version()
            _move(table, "finland", "23.16")
            _wait(table)
        assert table.version() == before + 1
        assert any("could not send" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("address", ["a@b.org\n", "a@b.org\r\nBcc: e@f.org", " a@b.org"])
def test_the_address_check_leaves_no_line_break_at_either_end(address: str) -> None:
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.session.seat_notes import mail_address

    with pytest.raises(MalformedInputError):
        mail_address(address)
    assert mail_address("a@b.org") == "a@b.org"
