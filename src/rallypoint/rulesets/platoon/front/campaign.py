"""A campaign's platoon rules and state, typed, for every front part of the platoon.

The session hands a front end a campaign whose ruleset and state it does not know; the platoon's
own verbs and page need the platoon's (its section 9 hooks, its roster), and take them from here
rather than trusting an attribute blindly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rallypoint.core.erased import rules_of

if TYPE_CHECKING:
    from rallypoint.rulesets.platoon.model import PlatoonState
    from rallypoint.rulesets.platoon.ruleset import PlatoonRuleset
    from rallypoint.session import Campaign


def platoon_of(campaign: Campaign) -> tuple[PlatoonRuleset, PlatoonState]:
    """The campaign's platoon rules and state.

    Raises:
        TypeError: The campaign is not a platoon's (a front end chose the wrong part: a bug).
    """
    # Imported here, as in platoon_state: the command line loads the rules only for a verb.
    from rallypoint.rulesets.platoon.ruleset import PlatoonRuleset

    ruleset = rules_of(campaign.ruleset)
    if not isinstance(ruleset, PlatoonRuleset):
        raise TypeError(f"campaign {campaign.name!r} is not a platoon campaign")
    return ruleset, platoon_state(campaign)


def platoon_state(campaign: Campaign) -> PlatoonState:
    """The campaign's platoon state (its ruleset left as the session gives it).

    Raises:
        TypeError: The campaign is not a platoon campaign (a front end chose the wrong part: a
            bug).
    """
    from rallypoint.rulesets.platoon.model import PlatoonState
    from rallypoint.session import state_of

    return state_of(campaign, PlatoonState)
