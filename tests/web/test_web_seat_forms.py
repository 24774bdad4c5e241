"""Each seat's forms offer only what that seat may command (issue 22, shared play).

The oracle is the scenario file itself, read here with ``tomllib``: a TCS counter, company or
formation is a side's by the ``side`` of its formation; a squares unit by its brigade's side, a
leader by its own ``side`` or its brigade's. The page's ``<select>`` and checkbox lists must name
exactly the seat's own, the referee's every one, and a creator without a seat none.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rallypoint.web.app import create_app
from rallypoint.web.settings import WebSettings
from web.conftest import BACKENDS, database
from web.seats_table import SCENARIO, Person, Table, open_table

SQUARES = (Path(__file__).resolve().parents[2] / "src" / "rallypoint" / "rulesets" / "squares"
           / "scenarios" / "farm_below_the_ridge.toml")


@pytest.fixture(scope="module", params=BACKENDS)
def table(request: pytest.FixtureRequest,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    folder = tmp_path_factory.mktemp("seatforms")
    for db in database(request.param, folder):
        yield from open_table(db, folder, creator="host")


def options(page: str, select_id: str) -> list[str]:
    """The option texts of one ``<select>`` of a page."""
    found = re.search(rf'<select id="{re.escape(select_id)}"[^>]*>(.*?)</select>', page, re.S)
    assert found is not None, select_id
    return re.findall(r"<option[^>]*>([^<]*)</option>", found.group(1))


def boxes(page: str, section: str, name: str = "l:members") -> list[str]:
    """The values of the checkboxes called ``name`` in the page's section ``section``."""
    found = re.search(rf'<section class="panel" id="{section}">(.*?)</section>', page, re.S)
    assert found is not None, section
    return re.findall(rf'name="{re.escape(name)}" value="([^"]*)"', found.group(1))


def tcs_sides() -> dict[str, dict[str, list[str]]]:
    """Side → its counters on the map, companies and formations (from the TOML)."""
    data = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    sides: dict[str, dict[str, list[str]]] = {}
    for formation in data["formations"]:
        own = sides.setdefault(formation["side"], {"map": [], "companies": [],
                                                   "formations": []})
        own["formations"].append(formation["id"])
        for company in formation["companies"]:
            own["companies"].append(company["id"])
            own["map"] += [c["id"] for c in company["counters"]
                           if c.get("pile", "map") == "map"]
    return sides


@pytest.mark.parametrize("who", ["finland", "soviet"])
def test_a_tcs_seat_is_offered_only_its_own_side(table: Table, who: str) -> None:
    own = tcs_sides()[who]
    page = table.people[who].get(f"/c/{table.ref}").text
    assert options(page, "loss-counter") == own["map"]
    assert options(page, "move-counter") == own["map"]
    assert options(page, "morale-f") == own["formations"]
    assert set(boxes(page, "sheet-form")) == set(own["formations"] + own["companies"])
    other = next(s for s in tcs_sides() if s != who)
    assert not set(boxes(page, "sheet-form")) & set(tcs_sides()[other]["companies"])


def test_the_referee_is_offered_every_side(table: Table) -> None:
    page = table.people["referee"].get(f"/c/{table.ref}").text
    every = [c for side in tcs_sides().values() for c in side["map"]]
    assert sorted(options(page, "loss-counter")) == sorted(every)
    assert sorted(options(page, "morale-f")) == sorted(
        f for side in tcs_sides().values() for f in side["formations"])


def test_the_seatless_creator_is_offered_nothing(table: Table) -> None:
    page = table.people["host"].get(f"/c/{table.ref}").text
    assert options(page, "loss-counter") == [] and options(page, "move-counter") == []
    assert boxes(page, "sheet-form") == []


def test_an_offered_counter_is_accepted_and_the_others_refused(table: Table) -> None:
    """The list and the check agree: what Finland is offered it may record; the Soviets'
    counters, which it is not offered, are refused (the check, not just the list)."""
    sides = tcs_sides()
    before = table.version()
    for counter in sides["soviet"]["map"]:
        r = table.command("finland", {"kind": "move", "counter": counter, "hex": "30.11"})
        assert r.status_code == 403 and r.json()["code"] == "not-your-seat"
    assert table.version() == before


def squares_sides() -> dict[str, list[str]]:
    """Side → its unit and leader ids (from the shipped scenario's TOML)."""
    data = tomllib.loads(SQUARES.read_text(encoding="utf-8"))
    brigade = {b["id"]: b["side"] for b in data["brigades"]}
    sides: dict[str, list[str]] = {}
    for unit in data["units"]:
        sides.setdefault(brigade[unit["brigade"]], []).append(unit["id"])
    for leader in data["leaders"]:
        side = leader.get("side") or brigade[leader["brigade"]]
        sides.setdefault(side, []).append(leader["id"])
    return sides


@pytest.fixture(params=BACKENDS[:1])
def squares(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    for db in database(request.param, tmp_path):
        app = create_app(WebSettings(db=db, allowed_hosts=("testserver",), shared=True,
                                     backups=tmp_path / "backups"))
        with TestClient(app, base_url="http://testserver") as a, \
                TestClient(app, base_url="http://testserver") as b:
            people = {"allied": Person(a), "french": Person(b)}
            people["allied"].log_in("ann")
            people["french"].log_in("bob")
            made = people["allied"].post("/api/campaigns", {
                "scenario_toml": SQUARES.read_text(encoding="utf-8"), "name": "farm"})
            assert made.status_code == 201, made.text
            body = made.json()
            for side, person in people.items():
                assert person.post("/api/join", {"invite": body["invites"][side]}
                                   ).status_code == 201
            yield {"ref": body["id"], "people": people}


def test_a_squares_seat_is_offered_only_its_own_units_and_leaders(
        squares: dict[str, Any]) -> None:
    sides = squares_sides()
    assert set(sides) == {"allied", "french"}
    for side, person in squares["people"].items():
        page = person.get(f"/c/{squares['ref']}").text
        for select in ("act-who", "move-who"):
            assert set(options(page, select)) == set(sides[side]), (side, select)
        units = set(options(page, "fire-unit"))
        assert units and units <= set(sides[side])
        assert options(page, "fire-unit") == options(page, "lose-unit") \
            == options(page, "dis-unit")
