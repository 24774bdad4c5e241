"""The TCS rules hold no command-line words: a refusal names its fix by kind (issue 21).

The rules raise with a typed :class:`~rallypoint.errors.Fix` (``rulesets/tcs/fixes.py``: its
kind and plain words); the command line words it from the tcs front part's table
(``front/cli_words.py``), byte for byte what it printed when the words lived in the rules. The
oracle for those words is the text the rules held before (copied here, not read from the table).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.cli.session import cli_fix
from rallypoint.core.errors import Fix, IllegalNowError, UnknownIdError
from rallypoint.core.registry import get_ruleset
from rallypoint.rulesets.tcs.fixes import PLAIN, FixKind, fix
from rallypoint.rulesets.tcs.front.cli_words import FIXES
from test_tcs_rules import coy, ctr, write_scenario

RULES = Path(__file__).resolve().parents[1] / "src" / "rallypoint" / "rulesets" / "tcs"
EX1 = str(next(p for p in get_ruleset("tcs").example_scenarios() if p.stem.startswith("example1")))
CLI_WORDS = re.compile(r"`|\brallypoint (?!to |wrote|campaign|database|withholds)[a-z]"
                       r"|(?<![\w-])--[a-z]")
"""Command-line words: a backticked command, ``rallypoint VERB``, an ``--option``."""
LEFT_ALONE = [("table.py", "--i")]
"""CLI words still in the rules: the counters table's problem names ``scenario import-csv``'s
``--into`` (a problem of a file the command line alone imports)."""


def _cli_words_in(source: str) -> list[str]:
    """The string constants (docstrings aside) of ``source`` that hold command-line words."""
    tree = ast.parse(source)
    docs = {id(body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and (body := node.body) and isinstance(body[0], ast.Expr)}
    docs |= {id(after.value) for node in ast.walk(tree)
             if isinstance(node, ast.Module | ast.ClassDef)
             for after in node.body[1:] if isinstance(after, ast.Expr)}
    return sorted(m.group() for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docs for m in [CLI_WORDS.search(node.value)] if m)


def test_the_tcs_rules_hold_no_command_line_words() -> None:
    found = [(path.name, words) for path in sorted(RULES.glob("*.py"))
             for words in _cli_words_in(path.read_text(encoding="utf-8"))]
    assert found == LEFT_ALONE


def test_the_walk_flags_a_fix_in_cli_words() -> None:
    planted = ('"""`rallypoint show` in a docstring is prose."""\n'
               'raise IllegalNowError("x", fix="Use a company id from `rallypoint show`.")\n'
               'y = f"Give --center {c}=23.15."\n')
    assert _cli_words_in(planted) == ["--c", "`"]


def test_every_fix_has_plain_words_and_command_line_words() -> None:
    assert set(PLAIN) == set(FixKind) == set(FIXES)
    assert [k for k, words in PLAIN.items() if CLI_WORDS.search(words)] == []


def test_a_typed_fix_is_plain_in_the_library_and_worded_by_the_command_line() -> None:
    error = IllegalNowError("1-A has no center", where="centers.1-A",
                            fix=fix(FixKind.GIVE_CENTER, company="1-A"))
    assert error.typed_fix == Fix("tcs", "give_center", "Give a center for {company}, e.g. 23.15.",
                                  (("company", "1-A"),))
    assert str(error) == "1-A has no center (at centers.1-A). Give a center for 1-A, e.g. 23.15."
    assert cli_fix(error) == "Give a center for it, e.g. --center 1-A=23.15."
    led = UnknownIdError("no company 'B'", fix=fix(FixKind.PICK_COMPANY).led("Did you mean A? "))
    assert led.fix == "Did you mean A? Use a company id the campaign shows."
    assert cli_fix(led) == "Did you mean A? Use a company id from `rallypoint show`."
    # An error with a plain string fix is printed as it was.
    assert cli_fix(IllegalNowError("x", fix="Write one sheet per side.")) == \
        "Write one sheet per side."


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def _refused(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


def test_the_command_line_says_each_refusal_as_before(db: Path, tmp_path: Path) -> None:
    assert CliRunner().invoke(app, ["new", EX1, "--name", "t"]).exit_code == 0
    assert _refused("tcs", "loss", "1/ErP112-l") == (
        "error (unknown-id): no counter '1/ErP112-l' in this scenario. Did you mean "
        "1/ErP112-1 or 1/ErP112-d-3 or 1/ErP112-d-2? Use a counter id from `rallypoint show`.")
    assert _refused("tcs", "sheet", "rest", "--member", "ErP112", "--center", "1/ErP112=23.15",
                    "--size", "1") == (
        "error (illegal-now): 2/ErP112 has no center (at centers.2/ErP112). Give a center for "
        "it, e.g. --center 2/ErP112=23.15.")
    assert _refused("tcs", "sheet", "rest", "--member", "ErP112", "--center", "ErP112=8.21",
                    "--center", "1/ErP112=23.15", "--center", "2/ErP112=17.21",
                    "--size", "1").endswith(
        "(at attest). Check the centers on the map, then attest (--attest).")
    fo = write_scenario(tmp_path, coy("FOs", ctr("FO", type="inf", kind="fo", steps=1,
                                                 morale=None)),
                        coy("A", ctr("A-1", lost=1)), fo_pile=True, nationality="soviet",
                        game="GD '41")
    assert CliRunner().invoke(app, ["new", str(fo), "--name", "fo"]).exit_code == 0
    assert CliRunner().invoke(app, ["tcs", "loss", "FO"]).exit_code == 0
    assert _refused("tcs", "turn") == (
        "error (illegal-now): the dead FOs' roll of 08:00 is due (FO): leaving the hour would "
        "lose it. Roll it first (`rallypoint tcs fo`), or add --skip-fo to let it pass.")
