"""Bad input at the command line: each a one-line refusal, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.core.registry import get_ruleset

runner = CliRunner()
SCENARIO = {name: str(get_ruleset(name).example_scenarios()[0])
            for name in ("tcs", "squares", "platoon")}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def rp(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def refusal(result: Any, *, limit: int = 400) -> str:
    assert result.exit_code == 2, result.output
    text: str = result.output.strip()
    assert text.startswith("error (") and "\n" not in text, text
    assert len(text) <= limit, f"echoed input must be cut: {len(text)} characters"
    return text


def campaigns() -> list[dict[str, Any]]:
    out = rp("list", "--json")
    return json.loads(out.output) if out.exit_code == 0 else []


# -- TOML edge values ----------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "expected"), [
    ('ruleset = "squares"\nx = nan\n', "not a finite number"),
    ('ruleset = "squares"\nx = inf\n', "not a finite number"),
    ('ruleset = "squares"\nx = ' + "9" * 5000 + "\n", "TOML"),
    ('ruleset = "squares"\nx = 99999999999999999999\n', "64 bits"),
    ('ruleset = "squares"\nx = ' + "[" * 3000 + "]" * 3000 + "\n", "nested"),
    ('ruleset = "squares"\nx = ' + "[" * 80 + "]" * 80 + "\n", "nested more than 64"),
    ('ruleset = "squares\n', "TOML syntax error"),
])
def test_toml_edge_values(db: Path, tmp_path: Path, body: str, expected: str) -> None:
    path = tmp_path / "edge.toml"
    path.write_text(body, encoding="utf-8")
    assert expected in refusal(rp("new", str(path)))
    assert not db.exists()


def test_toml_not_utf8_or_too_big(db: Path, tmp_path: Path) -> None:
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'ruleset = "squares"\nname = "J\xe4rvi"\n')
    assert "not UTF-8" in refusal(rp("new", str(latin)))
    big = tmp_path / "big.toml"
    with big.open("wb") as handle:
        handle.truncate(65 * 2**20)
    assert "limit is 64 MiB" in refusal(rp("new", str(big)))
    assert "folder" in refusal(rp("new", str(tmp_path)))
    assert not db.exists()


# -- verbs of one ruleset on another's campaign --------------------------------------------------


@pytest.mark.parametrize(("verb", "other"), [
    (["squares", "board"], "tcs"), (["platoon", "roster"], "tcs"), (["tcs", "choices"], "platoon"),
    (["tcs", "turn"], "squares"), (["squares", "turn"], "platoon"),
])
def test_ruleset_verbs_refuse_another_rulesets_campaign(
    db: Path, verb: list[str], other: str,
) -> None:
    assert rp("new", SCENARIO[other], "--name", "c").exit_code == 0
    text = refusal(rp(*verb, "-c", "c"))
    assert f"plays {other}, not {verb[0]}" in text
    assert refusal(rp(*verb))  # the default campaign is refused the same way
    assert campaigns()[0]["version"] == 1


# -- numbers bounded by the rules' range ---------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["tcs", "turn", "--count", "0"], ["tcs", "turn", "--count", "-1"],
    ["tcs", "morale", "x", "1" + "0" * 30], ["tcs", "morale", "x", "14"],
    ["tcs", "morale", "x", "-1"], ["tcs", "turn", "--count", "9" * 5000],
])
def test_tcs_numbers_out_of_range(db: Path, args: list[str]) -> None:
    assert rp("new", SCENARIO["tcs"], "--name", "t").exit_code == 0
    refusal(rp(*args))
    assert campaigns()[0]["version"] == 1


@pytest.mark.parametrize("args", [
    ["platoon", "simulate", "--days", "-5"], ["platoon", "simulate", "--intensity", "7"],
    ["odds", "tcs-implementation", "--row", "99", "--weighted-turns", "5"],
    ["odds", "tcs-implementation", "--row", "1", "--weighted-turns", "-5"],
    ["simulate", "platoon", "--days", "0"], ["new", SCENARIO["squares"], "--name", ""],
    ["new", SCENARIO["squares"], "--name", "x" * 5000],
])
def test_other_numbers_and_names_out_of_range(db: Path, args: list[str]) -> None:
    refusal(rp(*args))
    assert campaigns() == []


def test_invalid_column_choices_refused(db: Path) -> None:
    assert rp("new", SCENARIO["tcs"], "--name", "t").exit_code == 0
    for choice in ("X=bogus", "HT=TO=x", "HT="):
        refusal(rp("tcs", "check", "S1", "--column", choice))
    assert campaigns()[0]["version"] == 1


# -- usage errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["nosuch"], ["tcs", "turn", "--count", "abc"], ["tcs", "turn", "--bogus"], ["new"],
    ["export"], ["tcs", "nosuch"],
])
def test_usage_errors_are_one_line(db: Path, args: list[str]) -> None:
    text = refusal(rp(*args))
    assert text.startswith("error (usage)") and "--help" in text


def test_help_stays_rich() -> None:
    result = rp("tcs", "turn", "--help")
    assert result.exit_code == 0 and "╭" in result.output and "--count" in result.output


def test_ruleset_verbs_default_to_that_rulesets_last_campaign(db: Path) -> None:
    assert rp("new", SCENARIO["squares"], "--name", "s").exit_code == 0
    assert rp("new", SCENARIO["tcs"], "--name", "t").exit_code == 0
    assert rp("squares", "board").exit_code == 0  # not refused: 's' is squares' last campaign
    assert rp("tcs", "turn").exit_code == 0
    assert {c["name"]: c["version"] for c in campaigns()} == {"s": 1, "t": 2}


@pytest.mark.parametrize("where", ["folder", "missing-folder", "too-long"])
def test_roster_export_onto_bad_paths(db: Path, tmp_path: Path, where: str) -> None:
    assert rp("new", SCENARIO["platoon"], "--name", "p").exit_code == 0
    target = {"folder": tmp_path, "missing-folder": tmp_path / "no" / "roster.json",
              "too-long": tmp_path / ("x" * 5000)}[where]
    text = refusal(rp("platoon", "roster-export", str(target)))
    assert "cannot" in text
    assert not (tmp_path / "no").exists()
