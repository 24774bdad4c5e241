"""``rallypoint platoon …`` end to end through the command line, in a throwaway database.

Flows: create (generated, and from a roster file), the roster table and ``--json`` roster,
roster export, battle / rest / report (JSON and TOML), decisions, place, commander, tank, resolve,
year end, autoplay, undo. A contradicting report exits 2 with one line and writes nothing.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.rulesets.platoon.front.campaign import platoon_state

runner = CliRunner()

ROSTER_TOML = """\
ruleset = "platoon"

[platoon]
name = "2nd Platoon"
action_days = [1, 2]
days = 6

[[men]]
id = "lt"
name = "Hale"
age = 24
trade = "commander"
skill = 70
crew = "1"
seat = "commander"
lieutenant = true

[[men]]
id = "g1"
name = "Ames"
age = 21
trade = "gunner"
skill = 55
crew = "1"
seat = "gunner"

[[men]]
id = "d1"
name = "Bray"
age = 20
trade = "driver"
skill = 50
crew = "1"
seat = "driver"

[[men]]
id = "c2"
name = "Cobb"
age = 26
trade = "commander"
skill = 60
crew = "2"
seat = "commander"

[[men]]
id = "d2"
name = "Diaz"
age = 19
trade = "driver"
skill = 45
crew = "2"
seat = "driver"

[[men]]
id = "l2"
name = "Moss"
age = 22
trade = "loader"
skill = 50
crew = "2"
seat = "loader"

[[men]]
id = "u1"
name = "Eames"
age = 19
trade = "loader"
skill = 40

[[tanks]]
id = "t1"
name = "Able"
crew = "1"

[[tanks]]
id = "t2"
name = "Baker"
crew = "2"
"""

DAY1_JSON = {
    "schema": "rallypoint.platoon.report/1", "day": 1,
    "tanks": [{"crew": "1", "result": "hit", "cohesion": 55}, {"crew": "2", "cohesion": 58}],
    "men": [{"man": "c2", "result": "killed"}, {"man": "g1", "result": "light"}],
    "objective": True,
}

DAY2_TOML = """\
schema = "rallypoint.platoon.report/1"
day = 2
enemy_withdrawn = true

[[tanks]]
crew = "1"
cohesion = 50

[[tanks]]
crew = "2"
result = "knocked_out"
ordnance_days = 2
bailed_out = true
cohesion = 40
"""


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "platoon.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def rp(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def ok(*args: str) -> str:
    result = rp(*args)
    assert result.exit_code == 0, result.output + result.stderr
    return str(result.output)


def refused(db: Path, *args: str, needle: str) -> None:
    """The command exits 2 with one line naming ``needle`` and writes nothing."""
    before = _events(db)
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert needle in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert _events(db) == before


def _events(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])


def state(*campaign: str) -> dict[str, Any]:
    shown: dict[str, Any] = json.loads(ok("show", "--json", *campaign))
    return shown


def roster_file(tmp_path: Path) -> Path:
    path = tmp_path / "roster.toml"
    path.write_text(ROSTER_TOML, encoding="utf-8")
    return path


def test_create_generated_roster_table_json_and_export(db: Path, tmp_path: Path) -> None:
    out = ok("platoon", "create", "--name", "p", "--seed", "italy-1944", "--days", "14")
    assert "created platoon campaign p" in out
    table = ok("platoon", "roster")
    assert "morale 60" in table and "actions 0/6" in table and "fit tanks 5" in table
    assert "Adams" in table and "gunr" in table
    roster = json.loads(ok("platoon", "roster", "--json"))
    assert roster["schema"] == "rallypoint.platoon.roster/1"
    assert (roster["day"], roster["action"], roster["withdrawn"], roster["morale"],
            roster["shaken_stress"]) == (1, True, False, 60, 35)
    assert [t["crew"] for t in roster["tanks"]] == ["1", "2", "3", "4", "5"]
    first = roster["tanks"][0]
    assert set(first) == {"crew", "tank", "fights", "cohesion", "seats", "empty_seats"}
    assert list(first["seats"]) == ["commander", "gunner", "loader", "driver",
                                    "assistant_driver"]
    assert set(first["seats"]["commander"]) == {
        "man", "name", "starting_stress", "stress_gain_multiplier", "threshold_shift", "skill",
        "traits"}
    assert first["seats"]["commander"]["threshold_shift"] == "1"
    export = tmp_path / "roster.json"
    assert "wrote the day 1 roster" in ok("platoon", "roster-export", str(export))
    assert json.loads(export.read_text(encoding="utf-8")) == roster
    # The generated roster is stored in the created event: the same seed, the same men.
    ok("platoon", "create", "--name", "q", "--seed", "italy-1944", "--days", "14")
    assert state("-c", "q")["state"]["men"] == state("-c", "p")["state"]["men"]


def test_report_flow_json_toml_decisions_year_end_and_undo(db: Path, tmp_path: Path) -> None:
    assert "created platoon campaign r" in ok("platoon", "create", "--roster",
                                              str(roster_file(tmp_path)), "--name", "r")
    s = state()["state"]
    assert (s["name"], s["unassigned"], s["fit_tanks"]) == ("2nd Platoon", ["u1"], ["1", "2"])
    assert "place Eames (loader, skill 40)" in ok("platoon", "decisions")
    assert "Eames takes crew 1's loader seat" in ok("platoon", "place", "u1", "1", "loader")

    day1 = tmp_path / "day1.json"
    day1.write_text(json.dumps(DAY1_JSON), encoding="utf-8")
    out = ok("platoon", "report", str(day1), "--dice", "2,3")
    assert "Ames lightly wounded, fit on day 5" in out and "Cobb killed" in out
    assert "request: commander (Cobb killed), due day 6" in out
    assert "morale 60 → 66" in out
    # The same report again, or one with a dead man fighting, is refused and writes nothing.
    refused(db, "platoon", "report", str(day1), needle="the report is for day 1")
    dead = tmp_path / "dead.json"
    dead.write_text(json.dumps({"day": 2, "tanks": [{"crew": "1", "cohesion": 50},
                                                    {"crew": "2", "cohesion": 50}],
                                "men": [{"man": "c2", "result": "unhurt"}]}), encoding="utf-8")
    refused(db, "platoon", "report", str(dead), needle="Cobb (c2) is killed")
    bad = tmp_path / "bad.json"
    bad.write_text('{"day": 2,\n "tanks": [}', encoding="utf-8")
    refused(db, "platoon", "report", str(bad), needle=f"{bad}:2")

    day2 = tmp_path / "day2.toml"
    day2.write_text(DAY2_TOML, encoding="utf-8")
    out = ok("platoon", "report", str(day2))
    assert "tank Baker at ordnance until day 4" in out and "morale 66 → 61" in out

    # Crew 2 has lost its commander: the three answers of 14.8.
    refused(db, "platoon", "commander", "2", "--man", "c2", needle="not serving")
    refused(db, "platoon", "commander", "2", "--man", "lt", needle="another crew's commander")
    refused(db, "platoon", "commander", "2", needle="exactly one of --man or --wait")
    ok("platoon", "commander", "2", "--wait")
    assert "no decisions pending" in ok("platoon", "decisions")
    refused(db, "platoon", "battle", needle="no battle today")
    assert "day 3 → 4" in ok("platoon", "rest")
    pending = json.loads(ok("platoon", "decisions", "--json"))
    assert [d["key"] for d in pending] == ["commander:2", "tank:t2"]
    assert "tank Baker with crew (crew 2)" in ok("platoon", "tank", "t2", "2")
    assert "Moss takes crew 2's commander seat" in ok("platoon", "resolve", "--policy",
                                                      "by_trade")
    ok("platoon", "rest")
    out = ok("platoon", "rest", "--dice", "1," + ",".join(["3,4"] * 5))
    assert "(commander, skill 40) arrives from the depot" in out
    assert "takes crew" in ok("platoon", "resolve", "--all")

    version = state()["version"]
    out = ok("platoon", "year-end")
    assert "year 1 → 2" in out
    after = state()
    assert after["state"]["year"] == 2 and after["state"]["morale"] == 67 + 10
    assert all(None not in crew["seats"].values() for crew in after["state"]["crews"].values())
    assert "undone" in ok("undo")
    assert state()["state"]["year"] == 1 and state()["version"] == version + 2


def test_battle_rest_and_autoplay(db: Path) -> None:
    ok("platoon", "create", "--name", "p", "--seed", "italy-1944")
    refused(db, "platoon", "rest", needle="holds an action")
    out = ok("platoon", "battle", "--intensity", "1")
    assert "p #2 stand-in battle, intensity 1" in out and "day 1 → 2" in out
    out = ok("platoon", "autoplay", "--days", "7", "--seed", "s")
    assert "day 9" in out and "3rd Platoon" not in out
    s = state()["state"]
    assert s["day"] == 9 and s["actions"]["fought"] == 4  # days 1, 2, 3 and 8
    log = json.loads(ok("log", "--json"))
    assert len(log) >= 9
    refused(db, "platoon", "autoplay", "--days", "1", "--policy", "nope",
            needle="no policy 'nope'. Use one of: by_trade, wait_for_depot.")
    refused(db, "platoon", "autoplay", "--days", "1", "--policy", "by_trad",
            needle="no policy 'by_trad'. Did you mean by_trade? Use one of:")
    assert "decisions by policy by_trade" in ok("platoon", "autoplay", "--days", "1",
                                                 "--policy", "BY_TRADE")


def test_autoplay_says_what_happened_each_day(db: Path) -> None:
    ok("platoon", "create", "--name", "p", "--seed", "italy-1944")
    out = ok("platoon", "autoplay", "--days", "4", "--seed", "s")
    lines = out.splitlines()
    assert lines[0] == ("p: playing days 1–4 (decisions by policy by_trade, STAND-IN battles "
                        "at intensity 1)")
    headings = [line for line in lines if line.startswith("day ")]
    assert headings == ["day 1 (action)", "day 2 (action)", "day 3 (action)",
                        "day 4 (out of action)"]
    log = json.loads(ok("log", "--json"))[1:]
    # Every event written is shown, under its day, as the log says it.
    for entry in log:
        assert f"  #{entry['seq']} {entry['summary'].splitlines()[0]}" in lines
    assert f"p: {len(log)} events written (#2–#{len(log) + 1})" in out


def test_platoon_simulate_is_a_hidden_deprecated_name_for_autoplay(db: Path) -> None:
    ok("platoon", "create", "--name", "p", "--seed", "italy-1944")
    assert "simulate" not in ok("platoon", "--help")
    result = runner.invoke(app, ["platoon", "simulate", "--days", "1", "--seed", "s"])
    assert result.exit_code == 0, result.output
    assert "`platoon simulate` is now `platoon autoplay`" in " ".join(result.stderr.split())
    assert "p: playing day 1" in result.output and state()["state"]["day"] == 2


def test_autoplay_with_a_seed_is_reproducible(tmp_path: Path) -> None:
    shown = []
    for name in ("a", "b"):
        path = str(tmp_path / f"{name}.sqlite3")
        assert rp("--db", path, "platoon", "create", "--seed", "italy-1944").exit_code == 0
        assert rp("--db", path, "platoon", "autoplay", "--days", "7", "--seed", "s",
                  "--intensity", "3").exit_code == 0
        shown.append(json.loads(rp("--db", path, "show", "--json").output)["state"])
    assert shown[0] == shown[1]
    assert shown[0]["day"] == 8


def test_create_from_a_missing_or_broken_roster_file(db: Path, tmp_path: Path) -> None:
    missing = runner.invoke(app, ["platoon", "create", "--roster", str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2 and len(missing.stderr.strip().splitlines()) == 1
    broken = tmp_path / "broken.toml"
    broken.write_text(ROSTER_TOML.replace('seat = "driver"\n\n[[men]]\nid = "c2"',
                                          'seat = "gunner"\n\n[[men]]\nid = "c2"'),
                      encoding="utf-8")
    result = runner.invoke(app, ["platoon", "create", "--roster", str(broken)])
    assert result.exit_code == 2, result.output
    assert "two men in crew 1's gunner seat" in result.stderr
    assert not db.exists() or _events(db) == 0


def _prompted(answers: list[str]) -> Any:
    return runner.invoke(app, ["platoon", "report", "--dice", "2"],
                         input="\n".join(answers) + "\n")


def test_report_at_the_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALLYPOINT_DB", str(tmp_path / "prompt.sqlite3"))
    assert runner.invoke(app, ["platoon", "create", "--name", "p"]).exit_code == 0
    saved = tmp_path / "day1.json"
    # Crew 1 is hit and bails out, its gunner lightly wounded ("n", "no": unhurt); crews 2–5
    # are not hit, so each is asked its result, its cohesion and whether anyone was hurt, and
    # never about its five men one by one.
    answers = ["H", "y", "55", "", "l", "n", "no", ""]
    for _ in range(4):
        answers += ["", "", ""]
    answers += ["y", "n", str(saved), ""]
    result = _prompted(answers)
    assert result.exit_code == 0, result.output
    assert result.output.count("unhurt/light/serious/killed") == 5, "only crew 1's men asked"
    text = " ".join(result.output.split())
    assert ("battle report for day 1: crew 1 (Avenger): hit, bailed out, cohesion 55 "
            "Baker (m002): light crew 2 (Boomer): unhit, cohesion 60") in text
    assert "objective taken or held: yes; enemy withdrawn: no" in text
    assert "write this report to campaign 'p'?" in text
    assert "p #2 battle report for day 1" in text
    assert "Baker lightly wounded, fit on day 5" in result.output
    state = json.loads(runner.invoke(app, ["show", "--json"]).output)["state"]
    assert state["crews"]["1"]["cohesion"] == 57  # 55 from the report, +2 for the evening
    assert state["morale"] == 70
    # The saved answers are a report file that `platoon report FILE` takes back as it is.
    report = json.loads(saved.read_text(encoding="utf-8"))
    assert report["schema"] == "rallypoint.platoon.report/1" and report["day"] == 1
    assert report["men"] == [{"man": "m002", "result": "light"}]
    assert runner.invoke(app, ["undo"]).exit_code == 0
    again = runner.invoke(app, ["platoon", "report", str(saved), "--dice", "2"])
    assert again.exit_code == 0, again.output
    assert json.loads(runner.invoke(app, ["show", "--json"]).output)["state"] == state


def test_a_report_at_the_prompts_is_confirmed_before_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "prompt.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(db))
    assert runner.invoke(app, ["platoon", "create", "--name", "p"]).exit_code == 0
    # An unhit tank whose crew was hurt after all: then its men are asked, one by one.
    answers = ["", "", "y", "", "killed", "", "", ""]
    for _ in range(4):
        answers += ["nope", "unhit", "", ""]       # a word that names no result is asked again
    answers += ["", "", "n", "n"]                  # no file, and do not write
    result = _prompted(answers)
    assert result.exit_code == 1, result.output
    assert "one of: unhit, hit, knocked_out, written_off" in result.output
    assert "Baker (m002): killed" in result.output and "nothing written" in result.output
    assert _events(db) == 1
    assert not list(tmp_path.glob("n*")), "'n' is no, not a file name"


def test_a_bad_answer_is_refused_by_the_typed_report_before_it_is_shown_or_saved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "prompt.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(db))
    assert runner.invoke(app, ["platoon", "create", "--name", "p"]).exit_code == 0
    saved = tmp_path / "bad.json"
    # Crew 1 knocked out with 0 days at ordnance (the rules take 1 to 60), its 5 men unhurt.
    answers = ["k", "0", "", ""] + [""] * 5
    for _ in range(4):
        answers += ["", "", ""]
    answers += ["", "", str(saved), "y"]
    result = _prompted(answers)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert "bad platoon command" in result.stderr
    assert "at report.tanks.0.ordnance_days" in result.stderr
    assert "battle report for day 1" not in result.output, "the summary read untyped answers"
    assert not saved.exists() and _events(db) == 1


def test_men_and_tanks_by_name_and_decisions_by_name(db: Path, tmp_path: Path) -> None:
    ok("platoon", "create", "--roster", str(roster_file(tmp_path)), "--name", "r")
    listing = ok("platoon", "decisions")
    assert "  empty seats: crew 1 loader" in listing and "{" not in listing
    # A name, any case, or a unique prefix of it, is as good as the id.
    assert "Eames takes crew 1's loader seat" in ok("platoon", "place", "eam", "1", "loader")
    ok("undo")
    assert "Eames takes crew 1's loader seat" in ok("platoon", "place", "EAMES", "1", "loader")
    ok("undo")
    refused(db, "platoon", "place", "Eamz", "1", "loader",
            needle="no man 'Eamz' in this platoon. Did you mean Eames?")


def test_a_prefix_shared_by_two_men_is_refused_with_both() -> None:
    from platoon_kit import campaign, man
    from rallypoint.core.errors import MalformedInputError, UnknownIdError
    from rallypoint.rulesets.platoon.people import find_man, find_tank

    c = campaign(action_days=(), extra=[man("U1", "loader", name="Baker"),
                                        man("U2", "loader", name="Baxter")])
    s = platoon_state(c)
    assert find_man(s, "bake") == "U1" and find_man(s, "u2") == "U2"
    assert find_man(s, "gunner 2") == "2G"
    with pytest.raises(MalformedInputError,
                       match="'ba' could be Baker \\(U1\\) or Baxter \\(U2\\)"):
        find_man(s, "ba")
    assert find_tank(s, "able") == "t1" and find_tank(s, "Ch") == "t3"
    with pytest.raises(UnknownIdError, match="no tank 'Zed'"):
        find_tank(s, "Zed")


def test_the_roster_shows_every_field_at_80_columns(db: Path, monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    ok("platoon", "create", "--roster", str(roster_file(tmp_path)), "--name", "r")
    day1 = tmp_path / "day1.json"
    day1.write_text(json.dumps(DAY1_JSON), encoding="utf-8")
    ok("platoon", "report", str(day1), "--dice", "2,3")
    table = ok("platoon", "roster")
    assert max(len(line) for line in table.splitlines()) <= 80
    assert "…" not in table
    men = state()["state"]["men"]
    wounded = next(m for m in men.values() if m["wound"] == "light")
    row = next(line for line in table.splitlines() if f"{wounded['name']} {wounded['id']}" in line)
    assert f"light d{wounded['fit_day']}" in row
    assert f"{wounded['fatigue']:>3}" in row and str(wounded["steadiness"]) in row
