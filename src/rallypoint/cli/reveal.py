"""``rallypoint reveal``: the end of a campaign played by e-mail with hidden parts.

A thin shell over :func:`rallypoint.session.reveal.reveal`; docs/two-player.md walks through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rallypoint.cli.pbem import fields
from rallypoint.cli.session import (
    CampaignOpt,
    JsonOpt,
    campaign_ref,
    console,
    guarded,
    print_json,
    session,
)

if TYPE_CHECKING:
    from rallypoint.dice.report import DiceTally


def reveal(
    file: Annotated[Path, typer.Argument(help="The other seat's `rallypoint export FILE`.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the whole, merged log.")],
    campaign: CampaignOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Merge the other seat's export with your log into one whole log, and check it all.

    Both databases must hold the same log; every withheld event must hash to what was
    committed, every redaction shown must be honest, the whole log must replay, every event
    must be what its command decides, and every roll must re-derive. Nothing is written
    unless all of it holds; then the merged log goes to --out, signed by your seat (check it
    with `rallypoint verify`, keep it with `import --as NAME`).
    """
    from rallypoint.session.reveal import reveal as merge

    with guarded():
        done = merge(session(), file, out, campaign_ref(campaign) if campaign else None)
    if as_json:
        print_json({**fields(done, out=str(out)), "dice": _dice(done.dice)})
        return
    console.print(
        f"revealed: {done.events} events whole in {escape(str(out))} ({done.revealed} of "
        f"{done.other}'s were withheld from you, {done.shown_to_them} of yours from "
        f"{done.other}); every redaction shown was honest; {done.rederived} event(s) "
        f"re-derived from their commands; {done.dice.summary()}",
        highlight=False, soft_wrap=True)


def _dice(report: DiceTally) -> dict[str, Any]:
    """The audit of the merged log for ``--json``: its scheme, its one-line summary and the
    dice counted by verdict (every verdict named, so a script can read ``failed`` as 0)."""
    from rallypoint.dice.report import Verdict

    return {"scheme": report.scheme, "summary": report.summary(),
            **{verdict.value: report.count(verdict) for verdict in Verdict}}


def register(app: typer.Typer) -> None:
    """Add ``reveal`` to the top-level app."""
    app.command()(reveal)
