"""``rallypoint verify FILE``: re-check an export file offline, every roll included.

Nothing is opened but the file: its header and head, its hash chain, a fold of every event through
its rules (as ``import`` does), and then every roll against dice-v1 (docs/dice.md).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from rallypoint.cli.session import console, guarded, print_json


def verify_file(path: Path, as_json: bool) -> None:
    """Print the file's verdict; exit 1 if anything fails to check."""
    from rallypoint.core.campaign import stored_rolls
    from rallypoint.core.ruleset import get_ruleset
    from rallypoint.dice.audit import Verdict, audit
    from rallypoint.store.exchange import _check_importable, check_header, read_export
    from rallypoint.store.foldcheck import check_import

    with guarded():
        exported = read_export(path)
        header = exported.campaign
        _check_importable(header.id, exported.events)
        check_header(exported)
        check_import(header, exported.events)
        report = audit(exported.events, stored_rolls(get_ruleset(header.ruleset)))
    if as_json:
        print_json({"events": len(exported.events), "chain": "ok",
                    "dice": report.model_dump(mode="json"), "ok": report.ok})
    else:
        console.print(f"[green]ok[/]: {len(exported.events)} events, hash chain intact, head at "
                      f"#{exported.events[-1].seq}, every event folds", highlight=False)
        console.print(escape(report.summary()), highlight=False)
        for event in report.events:
            if event.verdict is Verdict.FAILED:
                console.print(f"[red]FAILED[/] #{event.seq}: {escape(event.reason)}",
                              highlight=False)
    if not report.ok:
        raise typer.Exit(1)
