"""How the golden logs in this folder were made (provenance only: NEVER rerun to refresh them).

The committed ``<ruleset>.json`` (a ``rallypoint export``) and ``<ruleset>.state.json`` (that
campaign's ``rallypoint show --json``) are the oracle for ``tests/test_golden_logs.py``: they were
written by the code of 2026-12-01 (commit 1ee3b67, before typed events), in the oldest event
format (v1). Every later version must import them and reproduce the state exactly; regenerating
them after a format change would turn the test into a tautology.

Run (from the repository root, into a scratch folder)::

    uv run python tests/golden/logs/make_logs.py /tmp/golden

Each campaign is played through the CLI exactly as a player would, with seeded dice (``--seed``)
and scripted dice (``--dice``) where an outcome matters, covering:

- tcs: a loss and its undo, a Soviet FO killed and rolled back (FO Recovery Number 9), a rest Op
  Sheet, turns, a battalion morale change, an implementation check with recovery rolls, an
  explicit distribution, policy distributions with the battalion morale recovery roll, a move.
- platoon: an ingested battle report (deaths, a write-off, ordnance), every decision kind
  (commander filled by the crew's own man, commander wait, place, park tank), an undo, stand-in
  battles, rest days with arrivals, a policy resolve, the year end (14.9).
- squares: automatic disorder recovery, fire, a passed rally, a break, a no-effect rally, a sight
  ruling, losses, a move, an undo and a new turn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
RALLYPOINT = str(Path(sys.executable).parent / "rallypoint")

TCS = [
    ["new", str(HERE / "tcs_scenario.toml"), "--name", "golden-tcs", "--seed", "golden-tcs"],
    ["tcs", "loss", "1/ErP112-1", "--steps", "1"],
    ["undo"],
    ["tcs", "loss", "FO/139R"],
    ["tcs", "sheet", "rest", "--member", "ErP112", "--center", "ErP112=8.21",
     "--center", "1/ErP112=23.15", "--center", "2/ErP112=17.21", "--size", "1", "--attest"],
    ["tcs", "turn", "--count", "6"],
    ["tcs", "morale", "ErP112", "2", "--reason", "hourly reduction rolls"],
    ["tcs", "fo", "--dice", "6,5", "--place", "FO/139R=30.10"],
    ["tcs", "check", "rest", "--dice", "6,6,5,1,4"],
    ["tcs", "resolve", "1/ErP112", "--resurrect", "1/ErP112-d-1=3", "--very-dead",
     "1/ErP112-d-2"],
    ["tcs", "resolve", "2/ErP112", "--policy", "rebuild"],
    ["tcs", "resolve", "3/ErP112", "--policy", "rebuild", "--dice", "3"],
    ["tcs", "move", "MG/ErP112-1", "9.21"],
    ["tcs", "turn"],
]

DAY1 = {
    "day": 1,
    "tanks": [{"crew": "1", "cohesion": 62}, {"crew": "2", "result": "hit", "cohesion": 58},
              {"crew": "3", "result": "written_off", "cohesion": 45},
              {"crew": "4", "result": "knocked_out", "ordnance_days": 2, "bailed_out": True,
               "cohesion": 60},
              {"crew": "5", "cohesion": 60}],
    "men": [{"man": "m006", "result": "killed"}, {"man": "m016", "result": "killed"},
            {"man": "m013", "result": "serious"}, {"man": "m014", "result": "light"}],
    "objective": True,
}

PLATOON = [
    ["platoon", "create", "--name", "golden-platoon", "--seed", "golden-platoon"],
    ["platoon", "report", "{day1}"],
    ["platoon", "commander", "2", "--man", "m007"],
    ["platoon", "commander", "4", "--wait"],
    ["platoon", "battle", "--intensity", "1"],
    ["platoon", "tank", "t004", "3"],
    ["undo"],
    ["platoon", "tank", "t004", "4"],
    ["platoon", "battle", "--intensity", "1"],
    ["platoon", "rest"],
    ["platoon", "rest"],
    ["platoon", "place", "m031", "4", "commander"],
    ["platoon", "place", "m032", "3", "loader"],
    ["platoon", "place", "m033", "2", "gunner"],
    ["platoon", "rest"],
    ["platoon", "rest"],
    ["platoon", "tank", "t035", "3"],
    ["platoon", "battle", "--intensity", "2"],
    ["platoon", "resolve", "--all", "--policy", "by_trade"],
    ["platoon", "battle", "--intensity", "2"],
    ["platoon", "year-end"],
    ["platoon", "battle", "--intensity", "1"],
]

SQUARES = [
    ["new", str(ROOT / "src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml"),
     "--name", "golden-squares", "--seed", "golden-squares"],
    ["squares", "activate", "79th"],
    ["squares", "fire", "28th"],
    ["squares", "activate", "28th"],
    ["squares", "rally", "kempt", "28th", "--kind", "disorder", "--dice", "5"],
    ["squares", "sight", "C2", "G4", "--set", "clear"],
    ["squares", "lose", "92nd", "1"],
    ["undo"],
    ["squares", "lose", "92nd", "2"],
    ["squares", "disorder", "42nd"],
    ["squares", "rally", "wellington", "32nd", "--kind", "sp", "--dice", "1"],
    ["squares", "turn"],
    ["squares", "move", "pack", "E2"],
    ["squares", "rally", "pack", "42nd", "--kind", "disorder", "--dice", "2"],
    ["squares", "turn"],
]


def run(db: Path, args: list[str]) -> str:
    """One CLI command as a player types it; stop at the first failure."""
    done = subprocess.run([RALLYPOINT, "--db", str(db), *args], capture_output=True, text=True,
                          check=False, env=None)
    print("$ rallypoint", " ".join(args))
    print(done.stdout + done.stderr, end="")
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(args)}")
    return done.stdout


def main(out: Path) -> None:
    """Play each campaign into its own database; export it and its ``show --json``."""
    out.mkdir(parents=True, exist_ok=True)
    day1 = out / "day1.json"
    day1.write_text(json.dumps(DAY1), encoding="utf-8")
    for name, script in (("tcs", TCS), ("platoon", PLATOON), ("squares", SQUARES)):
        db = out / f"{name}.db"
        db.unlink(missing_ok=True)
        for args in script:
            run(db, [a.replace("{day1}", str(day1)) for a in args])
        campaign = f"golden-{name}"
        run(db, ["export", str(out / f"{name}.json"), "--campaign", campaign])
        state = run(db, ["show", "--json", "--campaign", campaign])
        (out / f"{name}.state.json").write_text(state, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
