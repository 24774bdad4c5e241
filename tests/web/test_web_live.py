"""Shared play that feels safe (issue 22): the join page, whose move, what changed since you last
looked, and the live stream an open page listens to.

The table is ``seats_table``'s (Hank opened it and holds no seat; Ann plays Finland, Bob the
Soviets, Rita referees; Carol has no seat). The expected words come from the table's own play
(``seats_kit``), not from the code under test: Finland has a pending distribution after the
referee's check, so it is Finland's move and the Soviets wait for Finland.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from web.conftest import BACKENDS, database
from web.seats_table import SCENARIO, SECRETS, Person, Table, open_table

STATIC = Path(__file__).resolve().parents[2] / "src" / "rallypoint" / "web" / "static"


@pytest.fixture(params=BACKENDS)
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Table]:
    for db in database(request.param, tmp_path):
        yield from open_table(db, tmp_path, creator="host")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- the join page ------------------------------------------------------------------------------


def test_the_join_page_names_the_campaign_ruleset_and_seat_before_taking_it(
        table: Table) -> None:
    host = table.people["host"]
    carol = table.people["outsider"]
    # Hank makes a new campaign whose Soviet invite Carol will open.
    made = host.post("/api/campaigns", {"scenario_toml": SCENARIO.read_text(encoding="utf-8"),
                                        "name": "Kollaa", "referee": True}).json()
    url = f"/join/{made['invites']['soviet']}"
    page = carol.get(url).text
    assert 'id="join-campaign">Kollaa<' in page
    assert 'id="join-ruleset">The Gamers\' Tactical Combat Series<' in page \
        or "Tactical Combat Series" in _text(page)
    assert 'id="join-seat">Soviet Union (soviet)<' in page
    assert "finland: free" in _text(page) and "the referee: free" in _text(page)
    assert "Join only if you trust them" in page  # a referee seat sees every secret
    assert 'id="join-button"' in page
    # Looking takes nothing: the seat is still free, and the invite still works.
    seats = {s["seat"]: s["holder"] for s in host.get(
        f"/api/campaigns/{made['id']}/seats").json()["seats"]}
    assert seats["soviet"] is None
    assert carol.post("/api/join", {"invite": made["invites"]["soviet"]}).status_code == 201
    # A used invite names nothing any more.
    page = carol.get(url).text
    assert 'id="join-none"' in page and "Kollaa" not in page and 'id="join-button"' not in page


def test_a_made_up_invite_names_no_campaign(table: Table) -> None:
    page = table.people["outsider"].get("/join/made-up-token").text
    assert 'id="join-none"' in page and "tolvajarvi" not in page
    assert 'id="join-button"' not in page


def test_an_invite_to_a_campaign_you_sit_in_says_so(table: Table) -> None:
    host = table.people["host"]
    ann = table.people["finland"]
    fresh = host.post(f"/api/campaigns/{table.ref}/invites", {"seat": "soviet"})
    assert fresh.status_code == 409  # Bob holds it: no invite for a taken seat
    made = host.post("/api/campaigns", {"scenario_toml": SCENARIO.read_text(encoding="utf-8"),
                                        "name": "Summa"}).json()
    assert ann.post("/api/join", {"invite": made["invites"]["finland"]}).status_code == 201
    page = ann.get(f"/join/{made['invites']['soviet']}").text
    assert "You hold the seat finland of this campaign already" in page
    assert 'id="join-button"' not in page


# --- whose move, and what changed since you last looked ----------------------------------------


def _move(person: Person, ref: str) -> dict[str, object]:
    body: dict[str, object] = person.get(f"/api/campaigns/{ref}/news").json()["move"]
    return body


def test_whose_move_follows_what_each_side_has_due(table: Table) -> None:
    ann = table.people["finland"]
    # Finland's sheet was checked and passed: its distribution is pending, Finland's alone.
    # The Soviets have their own sheet to check and the FO roll (theirs: the scenario gives
    # the FO pile to the Soviet side), so it is each side's move.
    for who in ("finland", "soviet", "referee"):
        assert _move(table.people[who], table.ref)["turn"] == "yours", who
    answered = ann.post(f"/api/campaigns/{table.ref}/answers",
                        {"policy": "rebuild", "expected_version": table.version()})
    assert answered.status_code == 201, answered.text
    # Finland has nothing of its own left: it waits for the Soviets' FO roll.
    assert _move(ann, table.ref) == {
        "turn": "theirs", "waiting_for": ["soviet"], "words": "waiting for soviet"}
    assert _move(table.people["soviet"], table.ref)["turn"] == "yours"
    assert 'data-turn="theirs"><strong>Waiting for soviet</strong>' in ann.get(
        f"/c/{table.ref}").text
    row = re.search(r"tolvajarvi</a>.*?</tr>", ann.get("/").text, re.S)
    assert row is not None and "waiting for soviet" in row.group(0)


def test_news_lists_what_the_other_seat_did_since_you_looked(table: Table) -> None:
    ann = table.people["finland"]
    ann.get(f"/c/{table.ref}")  # Ann looks: her mark is the version she saw
    seen = table.version()
    listed = _text(ann.get("/").text)
    assert "events since you last looked" in ann.get("/").text and "0" in listed
    # Bob checks his sheet (a secret of his: its name, its roll) and moves a counter (public).
    checked = table.command("soviet", {"kind": "check", "sheet": "S-lair"})
    assert checked.status_code == 201, checked.text
    assert table.command("soviet", {"kind": "move", "counter": "1/609-1",
                                    "hex": "30.11"}).status_code == 201
    # The list counts the two events; the JSON names them as Ann's log does (withheld sheet).
    row = re.search(r"tolvajarvi</a>.*?</tr>", ann.get("/").text, re.S)
    assert row is not None and "<strong>2</strong>" in row.group(0)
    news = ann.get(f"/api/campaigns/{table.ref}/news").json()
    assert news["since"] == seen and news["version"] == seen + 2 and news["older"] == 0
    assert [e["seq"] for e in news["events"]] == [seen + 2, seen + 1]
    assert "30.11" in news["events"][0]["summary"]
    assert "S-lair" not in str(news) and "31.10" not in str(news)
    assert "(withheld)" in news["events"][1]["summary"]
    # The page shows them once, and moves the mark: the next look has nothing new.
    page = ann.get(f"/c/{table.ref}").text
    assert "Since you last looked" in page and f"#{seen + 2}" in page
    assert "S-lair" not in page and "31.10" not in page
    again = ann.get(f"/c/{table.ref}").text
    assert 'id="news-none"' in again and "Since you last looked" not in again
    assert ann.get(f"/api/campaigns/{table.ref}/news").json()["events"] == []


def test_a_mark_never_moves_back_and_goes_with_its_campaign(table: Table) -> None:
    service = table.app.state.service
    book = service.book
    seats = {s.seat: s.account_id for s in book.seats(table.ref)}
    ann = seats["finland"]
    book.mark_seen(table.ref, ann, 7)
    book.mark_seen(table.ref, ann, 3)
    assert book.seen(table.ref, ann) == 7
    assert book.seen_by(ann) == {table.ref: 7}
    service.delete(table.ref, table.version(), seats["@referee"])
    assert book.seen(table.ref, ann) is None and book.seen_by(ann) == {}


# --- the live stream ---------------------------------------------------------------------------


def test_the_stream_signals_a_change_and_nothing_else(table: Table) -> None:
    version = table.version()
    bob = table.people["soviet"]
    r = bob.get(f"/c/{table.ref}/live?v={version - 1}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-store"
    assert r.text.startswith("retry: ")
    assert re.findall(r"event: (\w+)\ndata: (.*)\n", r.text) == [("changed", str(version))]
    for secret in (*SECRETS["finland"], *SECRETS["soviet"]):
        assert secret not in r.text
    quiet = bob.get(f"/c/{table.ref}/live?v={version}")
    assert "event:" not in quiet.text


def test_the_stream_is_the_seats_alone(table: Table) -> None:
    assert table.people["outsider"].get(f"/c/{table.ref}/live").status_code == 404
    anonymous = table.people["anonymous"].get(f"/c/{table.ref}/live", follow_redirects=False)
    assert anonymous.status_code in (303, 401)
    assert table.people["outsider"].get("/c/nonesuch/live").status_code == 404


def test_the_fragment_says_what_changed_since_the_page_was_drawn(table: Table) -> None:
    version = table.version()
    assert table.command("soviet", {"kind": "move", "counter": "1/609-1",
                                    "hex": "30.11"}).status_code == 201
    part = table.people["finland"].get(f"/c/{table.ref}/news?since={version}").text
    assert "this page shows version" in part and f"it is at version {version + 1}" in part
    assert "Since this page was drawn" in part and "30.11" in part


def test_the_vendored_sse_extension_is_the_one_recorded() -> None:
    digest = hashlib.sha256((STATIC / "htmx-ext-sse.js").read_bytes()).hexdigest()
    assert digest in (STATIC / "VENDORED.md").read_text(encoding="utf-8")
    assert "0BSD" in (STATIC / "VENDORED.md").read_text(encoding="utf-8")
    assert "Zero Clause" in (STATIC / "htmx-ext-sse.LICENSE").read_text(encoding="utf-8")
