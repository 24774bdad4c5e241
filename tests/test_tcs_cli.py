"""TCS at the table through the command line (issue 10): what a player sees and types.

``show`` names the dead by id and says what is due; ``turn --count`` stops where something is
due; ``reassign`` and ``attacked``; ``--ask-dice`` asks for each die with its purpose; ``resolve``
step by step with a preview; ids in any case with suggestions; no Python reprs anywhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.core.registry import get_ruleset
from test_tcs_rules import coy, ctr, write_scenario

EX1 = str(next(p for p in get_ruleset("tcs").example_scenarios() if p.stem.startswith("example1")))
SHEET = ["tcs", "sheet", "rest", "--member", "ErP112", "--center", "ErP112=8.21",
         "--center", "1/ErP112=23.15", "--center", "2/ErP112=17.21", "--size", "1", "--attest"]


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def flat(text: str) -> str:
    """Words as printed, ignoring where an 80-column terminal wrapped them."""
    return " ".join(text.split())


OUTPUTS: list[str] = []
"""Everything the tests here printed, checked for Python reprs at the end."""


def rp(*args: str, code: int = 0, stdin: str | None = None) -> str:
    result = CliRunner().invoke(app, list(args), input=stdin)
    out = result.output  # stdout and stderr as a terminal shows them
    OUTPUTS.append(out)
    assert result.exit_code == code, out
    return out


def fo_scenario(tmp_path: Path) -> str:
    """A Soviet FO (number 11) and a rifle company, clock 08:00."""
    return str(write_scenario(
        tmp_path, coy("FOs", ctr("FO", type="inf", kind="fo", steps=1, morale=None)),
        coy("A", ctr("A-1", lost=1)), fo_pile=True, nationality="soviet", game="GD '41"))


def test_show_lists_the_dead_and_very_dead_by_id(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    out = rp("show")
    for ident in ("1/ErP112-d-1", "1/ErP112-d-3", "2/ErP112-dead", "2/ErP112-vd",
                  "3/ErP112-d-4"):
        assert ident in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_turn_count_stops_where_a_sheet_may_be_checked(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    rp(*SHEET)
    out = rp("tcs", "turn", "--count", "6")
    assert "#3 turn 2 (08:20): rest +3 (unassigned) = 3" in out
    assert "stopped after 1 of 6 turns" in out
    assert ("due: sheet rest may be checked: 3 weighted turns, needs 64+ on d66 (`rallypoint "
            "tcs check rest`)") in flat(out)
    assert "due: sheet rest may be checked" in rp("show")
    out = rp("tcs", "turn", "--count", "3", "--no-stop")
    assert "turn 5 (09:20): rest +3 (unassigned) = 12" in out and "stopped" not in out
    assert out.count("due: ") == 1  # said once, after the last turn


def test_turn_count_stops_at_the_hour_a_dead_fo_rolls(db: Path, tmp_path: Path) -> None:
    rp("new", fo_scenario(tmp_path), "--name", "fo")
    rp("tcs", "loss", "FO")
    # 08:00 with a dead FO: the turn would lose its roll, and is refused with the way out.
    err = rp("tcs", "turn", code=2)
    assert "the dead FOs' roll of 08:00 is due (FO)" in err and "--skip-fo" in err
    assert "due: the dead FOs roll at 08:00 (FO): 11+ on 2d6 returns each" in rp("show")
    rp("tcs", "fo", "--dice", "1,1")
    out = rp("tcs", "turn", "--count", "5")
    assert "stopped after 3 of 5 turns" in out and "turn 4 (09:00)" in out
    assert "due: the dead FOs roll at 09:00" in out
    # --fo-dice rolls them on the way (09:00 and 10:00; here by hand); the count goes on.
    out = rp("tcs", "turn", "--count", "4", "--fo-dice", "--ask-dice", stdin="1\n1\n2\n1\n")
    assert out.count("FO recovery (number 11)") == 2 and "turn 8 (10:20)" in out
    assert out.count("FO FO recovery: 2d6; die 2 of 2 (1-6):") == 2
    assert "2d6 2+1 = 3 → stays dead" in out and "stopped" not in out
    # --skip-fo lets the hour pass, and the log says so.
    rp("tcs", "turn", "--count", "2")
    out = rp("tcs", "turn", "--skip-fo")
    assert "the due FO roll was skipped: FO stay dead this hour" in out


def test_reassign_and_attacked_from_the_command_line(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    rp(*SHEET)
    out = rp("tcs", "reassign", "1/erp112", "--other-sheet", "--reason", "holds the road")
    assert "1/ErP112 (rest) now also on another Op Sheet — holds the road" in out
    out = rp("tcs", "attacked", "2/ErP112", "--note", "raid")
    assert "2/ErP112 attacked while recovering (rest): treated as No Orders" in out
    assert "due: 2/ErP112 was attacked this turn: treat it as a formation with No Orders" in rp(
        "show")
    assert "rest +1 (attacked: fired upon) = 1" in rp("tcs", "turn")
    out = rp("tcs", "reassign", "ErP112", "--off-other-sheet")
    assert "1/ErP112 (rest) off the other Op Sheet" in out
    assert "rest +3 (unassigned) = 4" in rp("tcs", "turn", "--no-stop")
    err = rp("tcs", "reassign", "1/ErP112", "--off-other-sheet", code=2)
    assert "is not on another Op Sheet" in err


def test_ask_dice_asks_each_die_by_purpose_and_logs_them_typed(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    rp(*SHEET)
    rp("tcs", "turn", "--count", "6", "--no-stop")
    out = rp("tcs", "check", "rest", "--ask-dice", stdin="6\n6\n7\n5\n2\n3\n")
    assert "rest implementation check (Prep. Defense line): d66; tens die (1-6):" in out
    assert "rest implementation check (Prep. Defense line): d66; units die (1-6):" in out
    assert "a d6 shows 1 to 6; roll again and type the face" in out  # the 7
    assert ("1/ErP 112th recovery roll (inf column): 1d6, +1 average raw morale (1,1,1,1), "
            "+4 battalion morale ErP 112th; the die (1-6):") in out
    # A miss would have asked nothing more: three recovery dice, then the check is recorded.
    log = json.loads(rp("log", "--json"))
    check = log[-1]
    assert [r["faces"] for r in check["rolls"]] == [[6, 6], [5], [2], [3]]
    export = Path(db).parent / "e.json"
    rp("export", str(export))
    events = json.loads(export.read_text("utf-8"))["events"]
    assert events[-1]["payload"]["dice_proof"]["mode"] == "typed"


def test_ask_dice_asks_nothing_for_a_refused_command(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    out = rp("tcs", "check", "rest", "--ask-dice", code=2)
    assert "no Recovery Op Sheet 'rest'" in out and "die" not in out
    out = rp("tcs", "check", "rest", "--ask-dice", "--dice", "6,6", code=2)
    assert "give --dice or --ask-dice, not both" in out


def implemented(db: Path) -> None:
    """Example #1 implemented: 1/ErP 3 steps, 2/ErP 3 steps, 3/ErP 3 steps (dice 6,6,5,5,5)."""
    rp("new", EX1, "--name", "t")
    rp(*SHEET)
    rp("tcs", "turn")
    rp("tcs", "check", "rest", "--dice", "6,6,5,5,5")


def test_resolve_step_by_step_previews_then_records(db: Path) -> None:
    implemented(db)
    # by hand; bring back d-1 with 3 steps; d-3 goes Very Dead; placed on the center; no
    # pooling with 1/ErP112-1 in that hex; record.
    out = rp("tcs", "resolve", "1/erp112", "--interactive",
             stdin="1\n1\n3\n2\n\nnone\ny\n")
    assert "may pool steps in one hex: 1/ErP112-1 3/5, 1/ErP112-d-1 3/5" in out
    assert ("bring back [1) 1/ErP112-d-1 (full 5), 2) 1/ErP112-d-2 (full 5), "
            "3) 1/ErP112-d-3 (full 5), or none]") in out
    assert "send to the Very Dead Pile (1 of 1) [1) 1/ErP112-d-2, 2) 1/ErP112-d-3]" in out
    preview = out.index("preview of 1/ErP112's distribution (nothing written yet):")
    recorded = out.index("#5 1/ErP112 distributes 3 step(s)")
    assert preview < recorded
    assert "  1/ErP112-d-1: Dead Pile → 3/5 at 23.15" in out
    assert "  1/ErP112-d-3: Dead Pile → Very Dead Pile" in out
    state = json.loads(rp("show", "--json"))["state"]["companies"]["1/ErP112"]["counters"]
    assert state["1/ErP112-d-1"] == {"steps": 3, "full": 5, "pile": "map", "hex": "23.15"}
    assert state["1/ErP112-d-3"]["pile"] == "very_dead"


def test_resolve_step_by_step_heals_and_a_declined_preview_writes_nothing(db: Path) -> None:
    implemented(db)
    version = json.loads(rp("show", "--json"))["version"]
    # 2/ErP112: bring back nothing; heal a-2 by 2, then a-1 by the 1 left; decline, stop.
    out = rp("tcs", "resolve", "2/ErP112", "-i", stdin="1\nnone\n2\n2\n1\nn\nn\n", code=1)
    assert "heal [1) 2/ErP112-a-1 (up to +3), 2) 2/ErP112-a-2 (up to +3), or none]" in out
    assert "heal [1) 2/ErP112-a-1 (up to +3), 2) 2/ErP112-a-2 (up to +1), or none]" in out
    assert "  2/ErP112-a-2: 2/5 at 17.21 → 4/5 at 17.21" in out
    assert "  2/ErP112-a-1: 2/5 at 17.21 → 3/5 at 17.21" in out
    assert "nothing written" in out
    assert json.loads(rp("show", "--json"))["version"] == version


def test_resolve_a_lone_dead_counter_takes_every_step(db: Path) -> None:
    implemented(db)
    rp("tcs", "resolve", "1/ErP112", "--policy", "rebuild")
    # 2/ErP112's Dead Pile holds one platoon: it comes back with all 3 steps, nothing to heal.
    out = rp("tcs", "resolve", "2/ErP112", "-i", stdin="1\n1\n\nnone\ny\n")
    assert "2/ErP112-dead is the only counter in the Dead Pile: bringing it back takes all 3" in out
    assert "2/ErP112-dead comes back with 3 step(s)" in out
    assert "heal [" not in out
    assert "2/ErP112 distributes 3 step(s): resurrect 2/ErP112-dead at 3" in out


def test_resolve_piped_without_a_choice_says_how(db: Path) -> None:
    implemented(db)
    out = rp("tcs", "resolve", code=2)
    assert "how should 1/ErP112 distribute 3 step(s)?" in out and "--interactive" in out


def test_resolve_places_across_a_seam_with_an_attested_count(db: Path, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, coy("S", ctr("S-1", hex="B1.10"), ctr("S-d", pile="dead"),
                                        ctr("S-e", pile="dead")))
    rp("new", str(path), "--name", "seam")
    out = rp("tcs", "sheet", "s", "--member", "Bn", "--center", "Bn=A10.10", "--size", "0",
             "--attest", "--within-2")
    assert "attested 2 hex(es) across a map seam" in flat(out)
    rp("tcs", "turn")
    rp("tcs", "check", "s", "--dice", "6,6,6")
    args = ["tcs", "resolve", "S", "--resurrect", "S-d=4", "--very-dead", "S-e", "--place",
            "S-d=B1.11"]
    err = rp(*args, code=2)
    assert "different map sections" in err and "--attest-distance 0 or 1" in flat(err)
    out = rp(*args, "--attest-distance", "1")
    assert "attested 1 hex(es) across a map seam" in flat(out)
    assert rp("tcs", "resolve", "S", "--attest-distance", "2", code=2)


def test_an_unknown_id_is_answered_with_the_nearest(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    err = rp("tcs", "loss", "1/ErP112-l", code=2)
    assert "no counter '1/ErP112-l' in this scenario. Did you mean 1/ErP112-1" in err
    assert "#2 1/ErP112-1 loses 1 step(s) (combat)" in rp("tcs", "loss", "1/ERP112-1",
                                                          "--steps", "1")
    err = rp("tcs", "leave-center", "3/ErP11", code=2)
    assert "Did you mean 3/ErP112" in err


REPRS = re.compile(r"\{'|\['|\[\]|\(\)|<[A-Z]\w*[.:]|\b(Column|Pile|SheetStatus|DueKind)\.|"
                   r"\b(RecordLoss|MoveCounter|WriteSheet|AdvanceTurn|Distribute|Reassign|"
                   r"Attack|RollFos|CheckImplementation)\b")


def test_no_python_reprs_in_what_these_commands_printed(db: Path, tmp_path: Path) -> None:
    # A broad session of its own, then everything every test above printed.
    implemented(db)
    for args in (["tcs", "choices"], ["show"], ["log"], ["tcs", "fo", "--place", "X=1.1"],
                 ["tcs", "move", "1/ErP112-1", "40.40"], ["tcs", "loss", "nope"],
                 ["tcs", "check", "nope"], ["tcs", "resolve", "1/ErP112", "--heal", "x=1"],
                 ["tcs", "turn", "--fired", "nope"], ["tcs", "morale", "Bn", "1"]):
        result = CliRunner().invoke(app, args)
        OUTPUTS.append(result.output)
    text = [out for out in OUTPUTS if not out.lstrip().startswith(("[", "{"))]  # not --json
    found: list[Any] = [(m.group(0), out) for out in text if (m := REPRS.search(out))]
    assert not found, found[:3]


def test_dice_ask_asks_in_every_ruleset(db: Path) -> None:
    # The same plumbing serves any command that takes --dice: a squares rally, asked by purpose.
    rp("new", "src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml", "--name",
       "farm")
    out = rp("squares", "rally", "kempt", "28th", "--kind", "disorder", "--dice", "ask",
             stdin="6\n")
    assert "; the die (1-6):" in out and "#2 " in out
    export = Path(db).parent / "farm.json"
    rp("export", str(export))
    events = json.loads(export.read_text("utf-8"))["events"]
    assert events[-1]["payload"]["dice_proof"]["mode"] == "typed"
    assert [r["faces"] for r in json.loads(rp("log", "--json"))[-1]["rolls"]] == [[6]]


def test_resolve_step_by_step_pools_steps_in_one_hex(db: Path, tmp_path: Path) -> None:
    # Seed: "units in the same hex and of the same type and from the same company may
    # redistribute their remaining steps … Units that cease to exist … are placed in the Dead
    # Pile." R-1 and R-2 (2 of 4 each) share 10.10; R-3 stands at 10.11.
    path = write_scenario(tmp_path, coy("R", ctr("R-1", lost=2), ctr("R-2", lost=2),
                                        ctr("R-3", lost=2, hex="10.11")),
                          parameters={"allow_redistribution": True})
    rp("new", str(path), "--name", "pool")
    rp("tcs", "sheet", "s", "--member", "Bn", "--center", "Bn=10.10", "--size", "0", "--attest")
    rp("tcs", "turn")
    rp("tcs", "check", "s", "--dice", "6,6,6")  # 6 + 1 = 7: four steps
    # by hand; heal R-3 by 2; no more healing; pool R-2 → R-1 by 2; stop; record.
    out = rp("tcs", "resolve", "-i", stdin="1\n3\n2\nnone\n2\n2\nnone\ny\n")
    assert "may pool steps in one hex: R-1 2/4, R-2 2/4" in out
    assert "move steps [1) R-1→R-2, 2) R-2→R-1, or none]" in out
    assert "  R-2: 2/4 at 10.10 → Dead Pile" in out and "  R-1: 2/4 at 10.10 → 4/4 at 10.10" in out
    assert "redistribute R-2→R-1 2; emptied into the Dead Pile: R-2; 2 unspent" in flat(out)
