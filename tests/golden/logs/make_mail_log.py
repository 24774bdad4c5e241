"""How ``tcs_mail.json`` was made (provenance only: NEVER rerun to refresh it).

``tcs_mail.json`` is the whole log ``rallypoint reveal`` wrote at the end of a two-seat TCS
campaign played by e-mail with hidden Op Sheets, by the code of 2026-12-04 (issue 18): the first
golden log whose events record the command that made them (``made_by``). ``tcs_mail.state.json``
is its ``show --json`` from the same code. ``tests/test_golden_logs.py`` must load it to that state
and ``verify FILE`` must re-derive every event from its command, in every later version.

Run (from the repository root, into a scratch folder)::

    uv run python tests/golden/logs/make_mail_log.py /tmp/golden-mail

The game (``tests/data/tcs_two_sides.toml``, copied here as ``tcs_mail_scenario.toml``): each
side writes a hidden Recovery Op Sheet, Finland records a loss and a morale change, Finland
advances three turns (the Soviet database then owes its sheet's accrual), the Soviets move a
counter and check their sheet in a sealed dice round Finland answers, the turn advances once
more (Finland's database owes its accrual), and the Soviets reveal with Finland's plain export.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(out: Path) -> None:
    """Play the game into ``out`` and write ``tcs_mail.json`` and ``tcs_mail.state.json``."""
    sys.path.insert(0, str(HERE.parents[1]))
    from rallypoint.session import Session
    from rallypoint.session.importing import import_campaign
    from rallypoint.session.pair import AwaitingDice
    from rallypoint.session.pbem import answer
    from rallypoint.session.reveal import reveal
    from rallypoint.store import EventStore, read_export
    from redteam_kit import seated
    from seats_kit import SHEETS

    out.mkdir(parents=True, exist_ok=True)
    game = seated(out, HERE / "tcs_mail_scenario.toml", ("finland", "soviet"), "golden-mail")
    game.command("finland", SHEETS[0])
    game.send("finland")
    game.command("soviet", SHEETS[1])
    game.send("soviet")
    game.command("finland", {"kind": "loss", "counter": "1/ErP112-1", "steps": 1})
    game.command("finland", {"kind": "morale", "formation": "ErP112", "value": 2})
    for _ in range(3):
        game.command("finland", {"kind": "turn", "skip_fo": True})
    game.send("finland")
    game.command("soviet", {"kind": "move", "counter": "1/609-1", "hex": "30.10"})
    with contextlib.suppress(AwaitingDice):  # a sealed round: Finland answers it
        game.command("soviet", {"kind": "check", "sheet": "S-lair"})
    game.send("soviet")
    answer(game.dbs["finland"], game.campaign)
    game.send("finland")  # carries the answer: the Soviet check is decided on import
    game.command("soviet", {"kind": "turn", "skip_fo": True})
    game.send("soviet")  # Finland's database then owes its sheet's accrual for that turn
    game.send("finland")
    theirs = game.export("finland", whole=True)
    reveal(game.dbs["soviet"], theirs, HERE / "tcs_mail.json")
    with EventStore(out / "fresh.sqlite3") as store:
        info = import_campaign(store, read_export(HERE / "tcs_mail.json"))
    view = Session(out / "fresh.sqlite3").view(info.id)
    (HERE / "tcs_mail.state.json").write_text(json.dumps(view, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
