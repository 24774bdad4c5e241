"""A campaign's export file as one viewer may see it: what the web app's Export gives a seat.

The whole log for a viewer who sees everything (the local player, the referee, anyone after the
reveal); for a side, a turn file for that side as ``rallypoint export --for SIDE`` writes it: the
events redacted by the ruleset's declaration (their hashes kept, so the chain still links), and
the reader and the digest of every withheld payload (``turn.redacted``) in the hashed header. A
server holds no seat key, so that file is unsigned: its digest shows damage in transit, not
forgery, and ``rallypoint verify FILE`` says so.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from rallypoint.core.errors import RallypointError
from rallypoint.core.visibility import EVERYTHING, Viewer, declaration_of, redact_events
from rallypoint.session import campaigns
from rallypoint.session.handle import Handle
from rallypoint.session.pbem import export_turn
from rallypoint.store.exchange import ExportedCampaign, TurnHeader, export_text, read_export
from rallypoint.store.visibility import redacted_digest

__all__ = ["export_for"]


def export_for(session: Handle, ref: str, viewer: Viewer = EVERYTHING) -> str:
    """The JSON text of the campaign's export file as ``viewer`` may see it.

    Carries the dice secret once revealed, so ``verify FILE`` then checks every roll.

    Raises:
        UnknownIdError: No such campaign.
        IntegrityError: The stored log fails verification (a broken log is not passed on).
    """
    campaign_id = campaigns.resolve(session, ref).id
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.json"
        try:
            export_turn(session, campaign_id, path)
        except RallypointError:
            # A play-by-e-mail campaign whose seat this database does not hold.
            campaigns.export(session, campaign_id, path)
        if viewer.sees_all():
            return path.read_text(encoding="utf-8")
        return _redacted(read_export(path), viewer)


def _redacted(whole: ExportedCampaign, viewer: Viewer) -> str:
    """``whole`` as a turn file for ``viewer``: redacted by the ruleset's declaration, with the
    digest of what was withheld in its hashed header (as ``export --for`` signs it), unsigned:
    a signature over the whole log no longer covers this header."""
    shown = redact_events(whole.events, viewer, declaration_of(whole.campaign.ruleset))
    kept = whole.turn or TurnHeader()
    turn = TurnHeader(reader=viewer.side, revealed_secret=kept.revealed_secret,
                      redacted=redacted_digest(shown))
    return export_text(whole.campaign, shown, turn)
