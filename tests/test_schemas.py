"""The published JSON Schemas: in sync with the models, and judged by an independent validator
(``jsonschema``, not pydantic) on every shipped scenario, the test scenarios, the test battle
reports and the golden exports; a deliberately broken file of each kind fails them."""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from rallypoint.core.registry import registered
from rallypoint.core.scenario_check import scenario_files
from rallypoint.session.scenarios import starter_text
from rallypoint.session.schemas import schema_names, schema_text
from test_platoon_cli import DAY1_JSON, DAY2_TOML, ROSTER_TOML
from test_squares_scenario import BASE as SQUARES_BASE

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schemas"
SHIPPED = sorted(p for r in registered().values() if scenario_files(r) is not None
                 for p in r.example_scenarios())


def as_json(value: Any) -> Any:
    """TOML data as a TOML editor hands it to a JSON Schema: dates and times as their text."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return value


def validator(name: str) -> Draft202012Validator:
    """The validator of the schema *file* (what an editor reads), not of the code's output."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def errors(name: str, data: Any) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(name).iter_errors(as_json(data))]


def test_the_schema_files_are_the_models_schemas() -> None:
    """Regenerate and compare: a model changed without `docs/schemas/` fails here."""
    names = schema_names()
    assert names == ["campaign-export", "platoon-report", "platoon-scenario", "squares-scenario",
                     "tcs-scenario"]
    assert sorted(p.name for p in SCHEMAS.iterdir()) == [f"{n}.schema.json" for n in names]
    for name in names:
        assert (SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8") == \
            schema_text(name), f"run: rallypoint schema {name} > docs/schemas/{name}.schema.json"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_scenario_validates_and_names_its_schema(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    name = f"{data['ruleset']}-scenario"
    assert errors(name, data) == []
    # taplo's directive, first line, a path relative to the file that reaches the schema.
    first = text.splitlines()[0]
    match = re.fullmatch(r"#:schema (\S+)", first)
    assert match, first
    assert (path.parent / match.group(1)).resolve() == SCHEMAS / f"{name}.schema.json"


TEST_SCENARIOS = {
    "squares-base": SQUARES_BASE,
    "platoon-roster": ROSTER_TOML,
    "tcs-two-sides": (ROOT / "tests" / "data" / "tcs_two_sides.toml").read_text(encoding="utf-8"),
    **{f"starter-{r}": starter_text(r) for r in ("tcs", "squares", "platoon")},
}


@pytest.mark.parametrize("name", sorted(TEST_SCENARIOS))
def test_the_test_and_starting_scenarios_validate(name: str) -> None:
    data = tomllib.loads(TEST_SCENARIOS[name])
    assert errors(f"{data['ruleset']}-scenario", data) == []


def test_what_new_accepts_beyond_the_examples_validates() -> None:
    """Every optional field `new` takes, written out: counts, piles, hexes, supplied rows."""
    data = tomllib.loads(TEST_SCENARIOS["tcs-two-sides"])
    data["implementation"] = {"source": "my copy", "rows": {"9": [0] * 4 + [65] * 7}}
    data["parameters"] = {"pairing_scope": "formation"}
    data["sides"][0] |= {"fo_pile": False, "sheet_prefix": "F-"}
    data["dead_pile_exceptions"] = [{"cause": "shipwreck", "description": "d", "every": 3}]
    data["formations"][0]["modifiers"] = [{"name": "lousy rear services", "value": 1}]
    assert errors("tcs-scenario", data) == []


@pytest.mark.parametrize(("name", "report"), [
    ("day1-json", DAY1_JSON), ("day2-toml", tomllib.loads(DAY2_TOML))])
def test_the_test_battle_reports_validate(name: str, report: dict[str, Any]) -> None:
    assert errors("platoon-report", report) == []


EXPORTS = sorted(p for p in (ROOT / "tests" / "golden" / "logs").glob("*.json")
                 if not p.name.endswith(".state.json"))


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.stem)
def test_the_golden_exports_validate(path: Path) -> None:
    assert errors("campaign-export", json.loads(path.read_text(encoding="utf-8"))) == []


def broken_scenarios() -> list[tuple[str, str, dict[str, Any], str]]:
    farm = tomllib.loads(next(p for p in SHIPPED if p.stem.startswith("farm")).read_text("utf-8"))
    tcs = tomllib.loads(next(p for p in SHIPPED if p.stem.startswith("example1")).read_text(
        "utf-8"))
    cases = []

    def broken(label: str, data: dict[str, Any], change: Any, needle: str) -> None:
        name = f"{data['ruleset']}-scenario"
        data = copy.deepcopy(data)
        change(data)
        cases.append((label, name, data, needle))

    broken("stamina 0", farm, lambda d: d["units"][0].update(stamina=0),
           "units.0.stamina: 0 is less than the minimum of 1")
    broken("a typo", farm, lambda d: d["units"][0].update(stamnia=5),
           "units.0: Additional properties are not allowed ('stamnia' was unexpected)")
    broken("no ruleset", farm, lambda d: d.pop("ruleset"), ": 'ruleset' is a required property")
    broken("another ruleset", farm, lambda d: d.update(ruleset="tcs"),
           "ruleset: 'squares' was expected")
    broken("a parameter value", farm, lambda d: d.update(parameters={"adjacency": "six"}),
           "parameters.adjacency: 'six' is not one of ['eight', 'four']")
    broken("an unknown parameter", tcs, lambda d: d.update(parameters={"morale": 1}),
           "parameters: Additional properties are not allowed ('morale' was unexpected)")
    broken("a counter's type", tcs,
           lambda d: d["formations"][0]["companies"][0]["counters"][0].update(type="cav"),
           "formations.0.companies.0.counters.0.type: 'cav' is not one of")
    broken("count 0", tcs,
           lambda d: d["formations"][0]["companies"][0]["counters"][1].update(count=0),
           "formations.0.companies.0.counters.1.count: 0 is less than the minimum of 1")
    return cases


@pytest.mark.parametrize(("label", "name", "data", "needle"), broken_scenarios(),
                         ids=lambda v: v if isinstance(v, str) and " " in v else "")
def test_a_broken_scenario_fails_its_schema(label: str, name: str, data: dict[str, Any],
                                            needle: str) -> None:
    found = errors(name, data)
    assert any(e.startswith(needle) for e in found), found


@pytest.mark.parametrize(("change", "needle"), [
    (lambda r: r.pop("tanks"), ": 'tanks' is a required property"),
    (lambda r: r["tanks"][0].update(cohesion=101), "tanks.0.cohesion: 101 is greater than"),
    (lambda r: r["men"][0].update(result="dead"), "men.0.result: 'dead' is not one of"),
    (lambda r: r.update(days=1), ": Additional properties are not allowed ('days'"),
])
def test_a_broken_report_fails_its_schema(change: Any, needle: str) -> None:
    report = copy.deepcopy(DAY1_JSON)
    change(report)
    found = errors("platoon-report", report)
    assert any(e.startswith(needle) for e in found), found


def test_a_broken_export_fails_its_schema() -> None:
    data = json.loads((ROOT / "tests" / "golden" / "logs" / "squares.json").read_text("utf-8"))
    data["format"] = "another-format"
    del data["events"][0]["hash"]
    assert sorted(errors("campaign-export", data)) == [
        "events.0: 'hash' is a required property",
        "format: 'rallypoint-campaign' was expected"]


def test_an_export_written_now_validates(tmp_path: Path) -> None:
    """The current format (version 3, with its hashed header), not only the golden version 1."""
    from rallypoint.session import Session

    session = Session(tmp_path / "db.sqlite")
    info = session.create(next(p for p in SHIPPED if p.stem.startswith("farm")), seed="s")
    session.export(info.name, tmp_path / "farm.json")
    data = json.loads((tmp_path / "farm.json").read_text(encoding="utf-8"))
    assert (data["format_version"], errors("campaign-export", data)) == (3, [])


def test_a_platoon_parameter_is_a_whole_number_the_data_has() -> None:
    base = {"ruleset": "platoon", "parameters": {"fatigue.fight": 25}}
    assert errors("platoon-scenario", base) == []
    assert errors("platoon-scenario", {**base, "parameters": {"fatigue.fight": True}}) == [
        "parameters.fatigue.fight: True is not of type 'integer'"]
    assert errors("platoon-scenario", {**base, "parameters": {"fatigue.fihgt": 2}}) == [
        "parameters: Additional properties are not allowed ('fatigue.fihgt' was unexpected)"]
