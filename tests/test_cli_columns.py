"""The command line at 80 columns, piped, as a player on a small terminal sees it: the squares
board and the shipped-scenario list fit, each read back exactly (the expected text was read at
80 columns and checked by eye), through the installed console script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

RALLYPOINT = str(Path(sys.executable).parent / "rallypoint")


def run(db: Path, *args: str, columns: int = 80) -> str:
    env = {**os.environ, "RALLYPOINT_DB": str(db), "COLUMNS": str(columns), "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run([RALLYPOINT, *args], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


BOARD_80 = """\
┌─┬─┬────────────┬────────────┬─────────────┬──────────┬──────┬────────────┬─┐
│ │A│B           │C           │D            │E         │F     │G           │H│
├─┼─┼────────────┼────────────┼─────────────┼──────────┼──────┼────────────┼─┤
│6│ │            │*F:quiot    │F:55e 4/6    │*F:derlon │      │*F:bourgeois│ │
├─┼─┼────────────┼────────────┼─────────────┼──────────┼──────┼────────────┼─┤
│5│ │            │F:54e 6/6   │             │          │town  │            │ │
│ │ │            │            │             │          │F:28e │            │ │
│ │ │            │            │             │          │6/6   │            │ │
├─┼─┼────────────┼────────────┼─────────────┼──────────┼──────┼────────────┼─┤
│4│ │woods       │woods       │woods        │woods     │      │F:105e 4/5  │ │
├─┼─┼────────────┼────────────┼─────────────┼──────────┼──────┼────────────┼─┤
│3│ │            │A:95th 3/4  │             │hill      │A:44th│            │ │
│ │ │            │            │             │          │2/5 D │            │ │
├─┼─┼────────────┼────────────┼─────────────┼──────────┼──────┼────────────┼─┤
│2│ │A:32nd 1/6 S│walled farm │A:79th 5/6 D │A:42nd 3/5│A:92nd│            │ │
│ │ │            │A:28th 3/6 D│             │          │5/5   │            │ │
├─┼─┼────────────┼────────────┼─────────────┼──────────┼──────┼────────────┼─┤
│1│ │*A:kempt    │            │*A:wellington│*A:pack   │      │            │ │
└─┴─┴────────────┴────────────┴─────────────┴──────────┴──────┴────────────┴─┘
A: allied, F: french · *leader (+ attached)
D disordered, S shaken, ! under fire this turn
terrain: walled_farm C2 (allied's fortification, blocks sight); woods B4 C4 D4
  E4 (blocks sight); hill E3 (blocks sight); town F5 (blocks sight)
turn 1
"""


@pytest.fixture
def ridge(tmp_path: Path) -> Path:
    db = tmp_path / "ridge.sqlite3"
    run(db, "new", "farm", "--name", "ridge")
    run(db, "squares", "lose", "95th")
    return db


def test_the_squares_board_fits_80_columns_exactly_as_read(ridge: Path) -> None:
    assert run(ridge, "squares", "board") == BOARD_80


@pytest.mark.parametrize("columns", [60, 72, 100, 140])
def test_the_board_fits_any_width_and_keeps_every_id_findable(ridge: Path, columns: int) -> None:
    out = run(ridge, "squares", "board", columns=columns)
    assert max(len(line) for line in out.splitlines()) <= columns
    flat = " ".join(out.split())
    for ident in ("A:95th", "F:105e", "*A:wellington", "*F:bourgeois", "*A:kempt", "F:28e"):
        assert ident in flat, f"{ident} is on the board or, cut short, in the key under it"


def test_a_narrow_board_cuts_ids_only_with_a_key_that_gives_them_whole(ridge: Path) -> None:
    out = run(ridge, "squares", "board", columns=50)
    assert max(len(line) for line in out.splitlines()) <= 50
    assert "│*A:we…│" in out.replace(" ", "")
    assert "*A:we… is *A:wellington" in " ".join(out.split())


def test_at_a_wide_terminal_the_board_keeps_its_roomy_cells(ridge: Path) -> None:
    out = run(ridge, "squares", "board", columns=120)
    assert "│ 1 │   │ *A:kempt     │              │ *A:wellington │ *A:pack    │" in out


SCENARIOS_80 = """\
name                   ruleset  title
italy_1944             platoon  3rd Platoon, B Company: US Sherman platoon,
                                Italy 1944
normandy_1944          platoon  2nd Platoon, C Company: US Sherman platoon,
                                Normandy 1944
farm_below_the_ridge   squares  The farm below the ridge
village_on_the_stream  squares  The village on the stream
example1_tolvajarvi    tcs      Tolvajärvi: the ErP 112th pulled back for rest
example2_lechanowka    tcs      Lechanowka: the 4th Tank Brigade takes a break
tolvajarvi_two_sides   tcs      Tolvajärvi, both sides: the ErP 112th against
                                a Soviet rifle battalion
Start one with `rallypoint new NAME` (or the start of NAME).
"""


def test_scenarios_lists_short_names_and_titles_at_80_columns(tmp_path: Path) -> None:
    out = run(tmp_path / "s.sqlite3", "scenarios")
    assert "\n".join(line.rstrip() for line in out.splitlines()) + "\n" == SCENARIOS_80
    assert "/" not in out, "no paths"


def test_every_listed_scenario_name_starts_a_campaign(tmp_path: Path) -> None:
    import json

    db = tmp_path / "s.sqlite3"
    listed = json.loads(run(db, "scenarios", "--json"))
    assert {s["ruleset"] for s in listed} == {"tcs", "platoon", "squares"}
    for s in listed:
        assert Path(s["path"]).stem == s["name"]
        out = run(db, "new", s["name"], "--name", f"c-{s['name']}")
        assert out.startswith(f"created campaign c-{s['name']} ({s['ruleset']}, id ")


LAB_80 = """\
metric                    n      mean    se        sd       p10   median   p90
──────────────────────────────────────────────────────────────────────────────
steps_inf                 1000   4.346   0.01505   0.4759   4     4        5
steps_hwy                 1000   1.334   0.01492   0.4719   1     1        2
steps_to                  1000   1       0         0        1     1        1
steps_tank                1000   1.348   0.01507   0.4766   1     1        2
turns_to_implementation   1000   6.349   0.1074    3.396    2     6        11
note: a fast array version of the recovery rolls, over the data file's recovery
table
"""

COMPARE_80 = """\
variant comparison, A: number=11 · B: number=12 (paired run by run: same seed
and chunks)
metric            A       B       B − A   se      95 % interval
───────────────────────────────────────────────────────────────
hours_to_return   12.42   36.03   23.61   1.099   21.46 … 25.77
"""


def _tidy(out: str) -> str:
    return "\n".join(line.rstrip() for line in out.splitlines()) + "\n"


def test_a_lab_table_fits_80_columns_in_plain_words(tmp_path: Path) -> None:
    out = _tidy(run(tmp_path / "lab.sqlite3", "simulate", "tcs-recovery", "--modifier", "1",
                    "--row", "3", "--runs", "1000", "--seed", "1", "--workers", "1"))
    assert out.startswith("simulate tcs-recovery: 1000 runs in ")
    assert "· seed 1, 32 chunks (--seed repeats it) metric " in " ".join(out.split())
    assert "(--seed repeats it)\n" + LAB_80 in out
    assert max(len(line) for line in out.splitlines()) <= 80
    for internal in ("NumpyRoller", "PCG64", "numpy", "kernel", "vectorised"):
        assert internal not in out


def test_a_lab_comparison_names_its_variants_above_an_80_column_table(tmp_path: Path) -> None:
    out = _tidy(run(tmp_path / "lab.sqlite3", "simulate", "tcs-fo", "--number", "11",
                    "--compare-number", "12", "--runs", "1000", "--seed", "1", "--workers", "1"))
    assert out.endswith(COMPARE_80)
    assert max(len(line) for line in out.splitlines()) <= 80


def test_a_sweep_of_long_labels_keeps_every_label_whole_at_80_columns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import numpy as np
    from rich.console import Console

    from rallypoint.cli import lab_output
    from rallypoint.lab.results import SimResult, sweep

    out = io.StringIO()
    monkeypatch.setattr(lab_output, "console", Console(file=out, width=80, no_color=True))
    rng = np.random.default_rng(1)
    results = [SimResult(simulation="x", parameters={}, entropy=1, chunks=2, metrics={
        "turns_to_implementation": rng.normal(7, 1, 50) + n, "steps_back": rng.normal(16, 1, 50)})
        for n in range(4)]
    labels = [f"recovery_table.tank={t}, odd_pile_limit={o}"
              for t in ("2,1,0,0,0", "3,2,1,0,0") for o in ("floor", "ceil")]
    lab_output.print_sweep(sweep(results, labels))
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert [line.split("   ")[0].strip() for line in lines if line.startswith("  ")] == [
        "2,1,0,0,0 · floor", "2,1,0,0,0 · ceil", "3,2,1,0,0 · floor", "3,2,1,0,0 · ceil"] * 2
    assert "turns_to_implementation" in [line.strip() for line in lines]
