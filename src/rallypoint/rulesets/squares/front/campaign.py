"""A campaign's squares state, typed, for every front part of squares.

The session hands a front end a campaign whose state it does not know; the squares verbs, board
and page need the squares state, and take it from here, checked, rather than trusting it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rallypoint.rulesets.squares.state import SquaresState
    from rallypoint.session import Campaign


def squares_state(campaign: Campaign) -> SquaresState:
    """The campaign's squares state.

    Raises:
        TypeError: The campaign is not a squares campaign (a front end chose the wrong part: a
            bug).
    """
    # Imported here: the command line loads the rules only for a verb that runs.
    from rallypoint.rulesets.squares.state import SquaresState
    from rallypoint.session import state_of

    return state_of(campaign, SquaresState)
