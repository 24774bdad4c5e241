"""The squares rules hold no command-line words: a refusal names its fix by kind (issue 21).

The rules raise with a typed :class:`~rallypoint.errors.Fix` (``rulesets/squares/fixes.py``: its
kind and plain words); the command line words it from the squares front part's table
(``front/cli_words.py``), byte for byte what it printed when the words lived in the rules. The
oracle for those words is the output of the command line before the change (copied here, not
read from the table).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.cli.session import cli_fix
from rallypoint.core.errors import Fix, IllegalNowError, MalformedInputError, RallypointError
from rallypoint.rulesets.squares import RULESET
from rallypoint.rulesets.squares.fixes import PLAIN, FixKind, fix
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.front.cli_words import FIXES
from test_tcs_fixes import CLI_WORDS, _cli_words_in

RULES = Path(__file__).resolve().parents[1] / "src" / "rallypoint" / "rulesets" / "squares"
RIDGE = str(RULESET.example_scenarios()[0])
LEFT_ALONE = [("ruleset.py", "`")]
"""Backticks left in the rules: a stale decision's fix names the library function to call
again (``rally_decisions``), a fix for a program using the library, not a command to type."""


def test_the_squares_rules_hold_no_command_line_words() -> None:
    found = [(path.name, words) for path in sorted(RULES.glob("*.py"))
             for words in _cli_words_in(path.read_text(encoding="utf-8"))]
    assert found == LEFT_ALONE


def test_the_walk_flags_a_squares_fix_in_cli_words() -> None:
    planted = ('raise IllegalNowError("x", fix="Advance the turn (`rallypoint squares turn`).")\n'
               'problems.append(("not disordered", "Rally for SP (--kind sp) instead."))\n')
    assert _cli_words_in(planted) == ["--k", "`"]


def test_every_fix_has_plain_words_and_command_line_words() -> None:
    assert set(PLAIN) == set(FixKind) == set(FIXES)
    assert [k for k, words in PLAIN.items() if CLI_WORDS.search(words)] == []
    # Each wording fills the same values as the plain words (none left as a bare {name}).
    for kind in FixKind:
        values = {name: name.upper() for name in ("who", "what", "lost", "disorder", "sp")}
        assert "{" not in FIXES[kind].format(**values) + PLAIN[kind].format(**values), kind


def test_a_typed_fix_is_plain_in_the_library_and_worded_by_the_command_line() -> None:
    error = IllegalNowError("Kempt is attached to 79th", fix=fix(FixKind.ACTIVATE_FIRST,
                                                                 who="kempt"), instead="activate")
    assert error.typed_fix == Fix("squares", "activate_first",
                                  "Activate the leader ({who}) first.", (("who", "kempt"),))
    assert str(error) == "Kempt is attached to 79th. Activate the leader (kempt) first."
    assert cli_fix(error) == "Activate the leader first (`rallypoint squares activate kempt`)."


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "squares.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    assert CliRunner().invoke(app, ["new", RIDGE, "--name", "ridge", "--seed", "s"]).exit_code == 0
    return path


def _said(*args: str, status: int = 2) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == status, result.output
    return " ".join(result.output.split())


def test_the_command_line_says_each_refusal_as_before(db: Path) -> None:
    assert _said("squares", "activate", "kemp") == (
        "error (unknown-id): no unit or leader 'kemp' in this battle. Did you mean kempt? Use a "
        "unit or leader id from `rallypoint squares board`.")
    assert _said("squares", "fire", "kempt") == (
        "error (unknown-id): no unit 'kempt' in this battle (that is a leader). Use a unit id "
        "from `rallypoint squares board`.")
    assert _said("squares", "rally", "kempt", "28th", "--dice", "3") == (
        "error (malformed-input): Kempt (kempt) may rally 28th Foot (28th) for disorder or for "
        "SP. Choose one: --kind disorder (pass 1/3, no effect 2/3, break 0); --kind sp (pass "
        "1/6, no effect 5/6, break 0).")
    assert _said("squares", "rally", "kempt", "32nd", "--kind", "disorder", "--dice", "3") == (
        "error (illegal-now): Kempt (kempt) cannot rally 32nd Foot (32nd) for disorder: it is "
        "not disordered. Rally for SP (--kind sp) instead, if it has lost 2 or more.")
    assert _said("squares", "rally", "kempt", "79th", "--kind", "sp", "--dice", "3") == (
        "error (illegal-now): Kempt (kempt) cannot rally 79th Highlanders (79th) for sp: it has "
        "lost 1 SP (an SP rally needs 2 or more). Rally for disorder (--kind disorder) if it is "
        "disordered, or wait.")
    assert _said("squares", "sight", "A1", "B1", "--set", "auto") == (
        "error (illegal-now): there is no ruling on sight between A1 and B1 to remove. Give "
        "--set clear or --set blocked to make one.")
    _said("squares", "rally", "kempt", "79th", "--dice", "5", status=0)
    assert _said("squares", "move", "kempt", "C3") == (
        "error (illegal-now): Kempt is attached to 79th Highlanders until either of them "
        "activates. Activate the leader first (`rallypoint squares activate kempt`).")
    assert _said("squares", "rally", "kempt", "32nd", "--kind", "sp", "--dice", "3") == (
        "error (illegal-now): Kempt (kempt) cannot rally 32nd Foot (32nd) for sp: Kempt (kempt) "
        "has already activated this turn. Advance the turn (`rallypoint squares turn`) first.")
    _said("squares", "activate", "28th", status=0)
    assert _said("squares", "activate", "28th") == (
        "error (illegal-now): 28th Foot (28th) has already activated on turn 1. Advance the turn "
        "(`rallypoint squares turn`) first.")


def test_the_library_says_the_same_refusals_in_plain_words(db: Path) -> None:
    from rallypoint.rulesets.squares.commands import Activate, Rally, SetSight
    from rallypoint.rulesets.squares.data import RallyKind
    from rallypoint.session import Session

    session = Session(db)
    c = session.load("ridge")
    refusals = {
        Rally(expected_version=c.version, leader="kempt", unit="32nd", rally=RallyKind.DISORDER):
            "Rally for SP instead, if it has lost 2 or more.",
        Rally(expected_version=c.version, leader="kempt", unit="79th", rally=RallyKind.SP):
            "Rally for disorder if it is disordered, or wait.",
        SetSight(expected_version=c.version, a="A1", b="B1", ruling="auto"):
            "Rule the sight clear or blocked to make one.",
        Activate(expected_version=c.version, who="nobody"):
            "Use a unit or leader id the board shows.",
    }
    for command, words in refusals.items():
        with pytest.raises(RallypointError) as refused:
            session.execute("ridge", command)
        assert refused.value.fix == words
        assert not CLI_WORDS.search(str(refused.value)), str(refused.value)


def test_a_foreign_command_is_refused_with_the_squares_commands(db: Path) -> None:
    from rallypoint.dice import ScriptedRoller
    from rallypoint.rulesets.squares.commands import NextTurn
    from rallypoint.session import Session

    class Stranger(NextTurn):
        """A command model the squares rules do not decide (another ruleset's, say)."""

    state = squares_state(Session(db).load("ridge"))
    with pytest.raises(MalformedInputError) as refused:
        RULESET.decide(state, Stranger(expected_version=1), ScriptedRoller([]))
    assert refused.value.fix == "Send one of the squares commands."
    assert cli_fix(refused.value) == "Use one of the `rallypoint squares` commands."
