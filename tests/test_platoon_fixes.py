"""The platoon rules hold no command-line words: a refusal names its fix by kind (issue 21).

The rules raise with a typed :class:`~rallypoint.errors.Fix` (``rulesets/platoon/fixes.py``: its
kind and plain words); the command line words it from the platoon front part's table
(``front/cli_words.py``), byte for byte what it printed when the words lived in the rules. The
oracle for those words is the text the rules held before (copied here, not read from the table).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.cli.session import cli_fix
from rallypoint.core.errors import Fix, IllegalNowError, UnknownIdError
from rallypoint.rulesets.platoon.fixes import PLAIN, FixKind, fix
from rallypoint.rulesets.platoon.front.cli_words import FIXES
from test_tcs_fixes import _cli_words_in

RULES = Path(__file__).resolve().parents[1] / "src" / "rallypoint" / "rulesets" / "platoon"
CLI_WORDS = re.compile(r"`|\brallypoint (?!to |wrote|campaign|database)[a-z]|(?<![\w-])--[a-z]")
"""Command-line words: a backticked command, ``rallypoint VERB``, an ``--option``."""


def test_the_platoon_rules_hold_no_command_line_words() -> None:
    # The pinned v1 rules (v1/) never change; the front part (front/) is where CLI words live.
    found = [(path.name, words) for path in sorted(RULES.glob("*.py"))
             for words in _cli_words_in(path.read_text(encoding="utf-8"))]
    assert found == []


def test_every_fix_has_plain_words_and_command_line_words() -> None:
    assert set(PLAIN) == set(FixKind) == set(FIXES)
    assert [k for k, words in PLAIN.items() if CLI_WORDS.search(words)] == []


def test_a_typed_fix_is_plain_in_the_library_and_worded_by_the_command_line() -> None:
    error = IllegalNowError("day 4 holds no action", fix=fix(FixKind.REST_NO_ACTION),
                            instead="rest")
    assert error.typed_fix == Fix("platoon", "rest_no_action",
                                  "Rest instead: a day out of action.")
    assert str(error) == "day 4 holds no action. Rest instead: a day out of action."
    assert cli_fix(error) == "Use `rallypoint platoon rest` for a day out of action."
    led = UnknownIdError("no man 'Carterz'", fix=fix(FixKind.PICK_NAME_OR_ID).led(
        "Did you mean Carter? "))
    assert led.fix == "Did you mean Carter? Use a name or id the roster shows."
    assert cli_fix(led) == "Did you mean Carter? Use a name or id from `rallypoint platoon roster`."


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def _ok(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _refused(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


def test_the_command_line_says_each_refusal_as_before(db: Path, tmp_path: Path) -> None:
    _ok("platoon", "create", "--seed", "s1", "--dice-seed", "d1")
    assert _refused("platoon", "rest") == (
        "error (illegal-now): day 1 holds an action and the platoon has 5 fit tanks: it fights. "
        "Ingest the battle's report (`platoon report`) or fight a stand-in battle.")
    assert _refused("platoon", "place", "Zed", "1", "gunner") == (
        "error (unknown-id): no man 'Zed' in this platoon. Use a name or id from "
        "`rallypoint platoon roster`.")
    first = json.loads(_ok("platoon", "roster", "--json"))["tanks"][0]["seats"]["commander"]
    assert _refused("platoon", "place", first["name"] + "z", "1", "gunner") == (
        f"error (unknown-id): no man '{first['name']}z' in this platoon. Did you mean "
        f"{first['name']}? Use a name or id from `rallypoint platoon roster`.")
    _ok("platoon", "autoplay", "--days", "3", "--seed", "q")
    assert _refused("platoon", "battle") == (
        "error (illegal-now): no battle today (day 4: no action). Use `rallypoint platoon rest`.")
    report = tmp_path / "day4.json"
    report.write_text(json.dumps({"schema": "rallypoint.platoon.report/1", "day": 4,
                                  "tanks": [], "men": [], "objective": False,
                                  "enemy_withdrawn": False}), encoding="utf-8")
    assert _refused("platoon", "report", str(report)) == (
        "error (illegal-now): day 4 holds no action. Use `rallypoint platoon rest` for a day out "
        "of action.")
