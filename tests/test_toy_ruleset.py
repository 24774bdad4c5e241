"""A fourth ruleset that brings only its rules (tests/data/toy) works in every front end.

The toy is installed as a third-party package is (an entry point, :mod:`toy_kit`); it names no
CLI verbs, renderer, web view or lab kernel, so everything below runs on the generic fallbacks.
The expected lines are written from the toy's rules by hand (d6: 1 ambushed -1, 5-6 found +1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toy_kit
from rallypoint.cli.main import app
from rallypoint.core.parts import Demo
from rallypoint.core.registry import RulesetPlugin, get_ruleset, plugin, register, unregister

runner = CliRunner()


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    with toy_kit.installed():
        yield


def rp(db: Path, *args: str, code: int = 0) -> str:
    result = runner.invoke(app, ["--db", str(db), *args])
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.output


def _started(tmp_path: Path) -> Path:
    db = tmp_path / "toy.sqlite3"
    assert rp(db, "new", str(toy_kit.SCENARIO), "--seed", "s1").startswith(
        "created campaign ford (toy, id ")
    return db


def test_show_prints_the_state_outline_without_a_renderer(tmp_path: Path) -> None:
    db = _started(tmp_path)
    assert plugin("toy").render is None
    assert rp(db, "show") == ("ford — Foraging (one command, one d6) · version 1\n"
                              "parties: north, south\nsupplies: 2\nforays: 0\n")


def test_play_sends_the_command_built_from_its_fields(tmp_path: Path) -> None:
    db = _started(tmp_path)
    assert rp(db, "play") == "forage party=PARTY\n"
    assert rp(db, "play", "forage", "party=north", "--dice", "6") == (
        "ford #2 north forages: 3 supplies\n"
        "  north forages: 1d6 6 = 6 → found [P(found) = 1/3]\n")
    assert rp(db, "play", "forage", "--data", '{"party": "south"}', "--dice", "1") == (
        "ford #3 south forages: 2 supplies\n"
        "  south forages: 1d6 1 = 1 → ambushed [P(ambushed) = 1/6]\n")
    assert "supplies: 2\nforays: 2\n" in rp(db, "show")
    log = rp(db, "log")
    assert log.splitlines()[0] == "#1   campaign 'ford' created (toy)"
    assert "#3   south forages: 2 supplies" in log


HINT = " `rallypoint play` lists each command's fields."


@pytest.mark.parametrize(("args", "line"), [
    (("play", "forage", "party=west"),
     "error (illegal-now): no party 'west' in camp (at party). Send one of: north, south."),
    (("play", "forage"),
     "error (malformed-input): bad toy command: Field required (at party)." + HINT),
    (("play", "forage", "party=north", "size=3"), "error (malformed-input): bad toy command: "
     "Extra inputs are not permitted (at size)." + HINT),
    (("play", "march", "party=north"), "error (malformed-input): bad toy command: Input "
     "should be 'forage' (at kind)." + HINT),
    (("play", "forage", "--data", "{nope"), "error (malformed-input): --data is not JSON: "
     "Expecting property name enclosed in double quotes (at --data column 2). Give an object "
     "like '{\"party\": \"north\"}'."),
    (("play", "forage", "north"), "error (malformed-input): 'north' is not FIELD=VALUE (at "
     "fields). Write each field as FIELD=VALUE;" + HINT),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path, args: tuple[str, ...],
                                                         line: str) -> None:
    db = _started(tmp_path)
    out = rp(db, *args, code=2)
    assert out.strip() == line
    assert len(out.strip().splitlines()) == 1, out
    assert "Traceback" not in out
    assert json.loads(rp(db, "show", "--json"))["version"] == 1


def test_export_and_import_carry_a_toy_campaign(tmp_path: Path) -> None:
    db = _started(tmp_path)
    rp(db, "play", "forage", "party=north", "--dice", "5")
    rp(db, "export", str(tmp_path / "ford.json"))
    other = tmp_path / "other.sqlite3"
    rp(other, "import", str(tmp_path / "ford.json"))
    shown = json.loads(rp(other, "show", "--json"))
    assert shown["state"] == {"parties": ["north", "south"], "supplies": 3, "forays": 1}
    assert rp(other, "verify").startswith("ok: 2 events")


def test_a_plugin_registered_at_run_time_is_found_like_an_installed_one() -> None:
    toy_kit.uninstall()
    try:
        register(RulesetPlugin(name="toy2", rules="rallypoint_toy.rules:RULESET"))
        toy_kit.install()  # the module's folder on sys.path, its entry point unused
        assert plugin("toy2").rules == "rallypoint_toy.rules:RULESET"
        assert get_ruleset("toy2").title == "Foraging (one command, one d6)"
    finally:
        unregister("toy2")
    with pytest.raises(Exception, match="no ruleset named 'toy2'"):
        plugin("toy2")


def test_what_is_due_is_typed_with_the_generic_verb() -> None:
    from rallypoint.cli.due import command_words
    from rallypoint.core.due import Due

    assert command_words("toy", Due("forage", "a party may forage", "forage")) == (
        "rallypoint play forage")
    # A ruleset with verbs of its own keeps them.
    assert command_words("squares", Due("turn", "next turn", "turn")) == "rallypoint squares turn"


def test_odds_now_lists_the_declared_rolls_exactly(tmp_path: Path) -> None:
    db = _started(tmp_path)
    # By hand: a d6, 1 ambushed, 2-4 nothing, 5-6 found.
    assert rp(db, "odds", "now") == ("north forages: 1d6: ambushed 1/6, nothing 1/2, found 1/3\n"
                                     "south forages: 1d6: ambushed 1/6, nothing 1/2, found 1/3\n")
    assert json.loads(rp(db, "odds", "now", "--json"))[0] == {
        "roll": "north forages", "dice": "1d6", "modifiers": [],
        "odds": {"ambushed": "1/6", "nothing": "1/2", "found": "1/3"}}


def test_scenarios_lists_the_toy_by_its_title_and_new_takes_its_name(tmp_path: Path) -> None:
    db = tmp_path / "toy.sqlite3"
    listed = json.loads(rp(db, "scenarios", "--json"))
    assert {"name": "ford", "ruleset": "toy", "title": "Two parties forage near the ford",
            "path": str(toy_kit.SCENARIO)} in listed
    assert rp(db, "new", "ford").startswith("created campaign ford (toy, id ")


def _toy_scene() -> None:
    from rallypoint.cli.kit import console

    console.print("the toy's scene: two parties at the ford")


TOY_DEMO = Demo(order=15, play=_toy_scene)
"""A demo part for a run-time plugin (the toy's entry point names none)."""


def test_the_demo_plays_each_demo_part_in_order_and_skips_a_ruleset_without() -> None:
    from rallypoint.cli.demo import demo_parts

    assert plugin("toy").demo is None
    assert [part.order for part in demo_parts()] == [10, 20, 30]  # the toy is left out
    register(RulesetPlugin(name="toy2", rules="rallypoint_toy.rules:RULESET",
                           demo="test_toy_ruleset:TOY_DEMO"))
    try:
        out = runner.invoke(app, ["demo"]).output
    finally:
        unregister("toy2")
    first, toy, second = (out.index(s) for s in (
        "Example #1", "the toy's scene: two parties at the ford", "Squares: disorder"))
    assert first < toy < second, "order 15 plays between TCS (10) and squares (20)"


def test_simulate_scene_runs_the_toys_lab_part(tmp_path: Path) -> None:
    from statistics import mean

    from rallypoint_toy.lab import three_forays

    supplies = three_forays(toy_kit.SCENARIO, 300, 7)["supplies"]
    shown = json.loads(rp(tmp_path / "x.sqlite3", "simulate", "scene", "ford", "--runs", "300",
                          "--seed", "7", "--json"))
    assert shown == {"ruleset": "toy", "scenario": "ford", "runs": 300, "seed": 7,
                     "metrics": {"supplies": {"mean": mean(supplies), "least": min(supplies),
                                              "greatest": max(supplies)}}}
    out = rp(tmp_path / "x.sqlite3", "simulate", "scene", str(toy_kit.SCENARIO), "--runs", "300",
             "--seed", "7")
    assert out.splitlines()[0] == "ford (toy): 300 runs, seed 7"
    assert out.splitlines()[3].split() == [
        "supplies", f"{mean(supplies):.3f}".rstrip("0").rstrip("."), "0", "5"]


def test_simulate_scene_refuses_a_ruleset_without_a_lab_part_or_declared_rolls(
        tmp_path: Path) -> None:
    out = rp(tmp_path / "x.sqlite3", "simulate", "scene", "farm_below_the_ridge", code=2)
    assert " ".join(out.split()) == (
        "error (unknown-id): the squares ruleset has no lab part to simulate and declares no "
        "roll open at the start of 'farm_below_the_ridge'. `rallypoint simulate --help` lists "
        "what the lab runs.")


@pytest.fixture
def toy_without_lab() -> Iterator[None]:
    # The toy as a plugin that names its rules only: registered ahead of the installed one.
    register(RulesetPlugin(name="toy", rules="rallypoint_toy.rules:RULESET"))
    try:
        yield
    finally:
        unregister("toy")


def _scene(db: Path, runs: int, seed: int) -> dict[str, Any]:
    shown: dict[str, Any] = json.loads(rp(db, "simulate", "scene", str(toy_kit.SCENARIO),
                                          "--runs", str(runs), "--seed", str(seed), "--json"))
    return shown


@pytest.mark.usefixtures("toy_without_lab")
def test_simulate_scene_without_a_lab_part_samples_the_declared_rolls(tmp_path: Path) -> None:
    runs = 6000
    shown = _scene(tmp_path / "x.sqlite3", runs, 7)
    assert [(r["title"], r["dice"]) for r in shown["rolls"]] == [
        ("north forages", "1d6"), ("south forages", "1d6")]
    # The toy's reading by hand: 1 ambushed, 2-4 nothing, 5-6 found.
    law = {"ambushed": Fraction(1, 6), "nothing": Fraction(1, 2), "found": Fraction(1, 3)}
    for rolled in shown["rolls"]:
        seen = {o["outcome"]: o["seen"] for o in rolled["outcomes"]}
        assert [(o["outcome"], Fraction(o["exact"])) for o in rolled["outcomes"]] == list(
            law.items())
        assert sum(seen.values()) == runs
        for outcome, p in law.items():  # each count within 5 standard deviations of its law
            assert abs(seen[outcome] - runs * p) < 5 * math.sqrt(runs * p * (1 - p)), outcome
    assert shown["rolls"][0]["outcomes"] != shown["rolls"][1]["outcomes"]  # a seed per roll
    assert _scene(tmp_path / "x.sqlite3", runs, 7) == shown
    assert _scene(tmp_path / "x.sqlite3", runs, 8) != shown


@pytest.mark.usefixtures("toy_without_lab")
def test_simulate_scene_without_a_lab_part_prints_a_table_per_roll(tmp_path: Path) -> None:
    counts = [[o["seen"] for o in r["outcomes"]] for r in _scene(tmp_path / "x.sqlite3", 60, 3)[
        "rolls"]]
    lines = rp(tmp_path / "x.sqlite3", "simulate", "scene", "ford", "--runs", "60", "--seed",
               "3").splitlines()
    assert lines[0] == "ford (toy): 60 runs, seed 3, of each roll open at the start (no lab part)"
    assert lines[1] == "north forages (1d6)"
    assert lines[2].split() == ["outcome", "exact", "seen", "share"]
    assert lines[4].split() == ["ambushed", "1/6", "(16.7%)", str(counts[0][0]),
                                f"{counts[0][0] / 60:.1%}"]
    assert lines[7] == "south forages (1d6)"
