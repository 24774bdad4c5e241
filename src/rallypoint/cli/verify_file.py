"""``rallypoint verify FILE``: re-check an export file offline, every roll included.

Nothing is opened but the file: its header and head, its hash chain, a fold of every event through
its rules (as ``import`` does), every event decided again from the command it records
(docs/two-player.md), and then every roll against dice-v1 (docs/dice.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from rallypoint.cli.session import console, guarded, print_json

if TYPE_CHECKING:
    from rallypoint.session.pbem import Verified


def _withheld_checks(checked: Verified) -> str:
    """How a file's withheld events were checked: a signed file's digest is the sender's word;
    an unsigned one's (the web's export for a side) shows damage, not forgery."""
    if checked.signer is not None:
        return "linked and signed"
    if checked.redacted is not None:
        return "linked, digest checked, unsigned"
    return "linked; unsigned, no digest"


def _rederived(checked: Verified) -> str:
    """The re-derivation line: events decided again from their commands, and those recorded
    before commands were (folded as stored)."""
    line = f"commands: {checked.rederived} event(s) re-derived, each identical"
    if checked.not_rederivable:
        line += (f"; {checked.not_rederivable} not re-derivable (recorded before events "
                 "carried their command)")
    if checked.withheld:
        line += f"; {checked.withheld} withheld, re-derived at the reveal"
    return line


def verify_file(path: Path, as_json: bool) -> None:
    """Print the file's verdict; exit 1 if anything fails to check."""
    from rallypoint.cli.stdio import input_path
    from rallypoint.dice.report import Verdict
    from rallypoint.session.pbem import verify_file as check

    with guarded(), input_path(path) as source:
        checked = check(source)
    count, report = checked.events, checked.dice
    if as_json:
        print_json({"events": count, "chain": "ok", "withheld": checked.withheld,
                    "redacted": checked.redacted, "signed_by": checked.signer,
                    "key": checked.fingerprint, "rederived": checked.rederived,
                    "not_rederivable": checked.not_rederivable,
                    "dice": report.model_dump(mode="json"), "ok": report.ok})
    else:
        signed = (f", signed by {checked.signer} (key {checked.fingerprint})"
                  if checked.signer else "")
        folds = ("every event folds" if not checked.withheld else
                 f"{checked.withheld} withheld from you ({_withheld_checks(checked)}; not folded)")
        console.print(f"[green]ok[/]: {count} events, hash chain intact, head at #{count}, "
                      f"{folds}{signed}", highlight=False, soft_wrap=True)
        console.print(_rederived(checked), highlight=False, soft_wrap=True)
        console.print(escape(report.summary()), highlight=False)
        for event in report.events:
            if event.verdict is Verdict.FAILED:
                console.print(f"[red]FAILED[/] #{event.seq}: {escape(event.reason)}",
                              highlight=False)
    if not report.ok:
        raise typer.Exit(1)
