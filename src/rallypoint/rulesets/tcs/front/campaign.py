"""A campaign's TCS state, typed, for every front part of TCS.

The session hands a front end a campaign whose state it does not know; the TCS verbs, page and
lab need the TCS state (its sheets, counters, clock), and take it from here, checked, rather
than trusting it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rallypoint.rulesets.tcs.state import TcsState
    from rallypoint.session import Campaign


def tcs_state(campaign: Campaign) -> TcsState:
    """The campaign's TCS state.

    Raises:
        TypeError: The campaign is not a TCS campaign (a front end chose the wrong part: a bug).
    """
    # Imported here: the command line loads the rules only for a verb that runs.
    from rallypoint.rulesets.tcs.state import TcsState
    from rallypoint.session import state_of

    return state_of(campaign, TcsState)
