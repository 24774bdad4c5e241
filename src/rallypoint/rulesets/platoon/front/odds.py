"""Exact odds of the platoon's rolls at the shipped defaults, from the rules' own nodes.

``rallypoint odds platoon`` prints them; the lab page shows them as tables (the plugin's ``odds``
part, :data:`ODDS`). Probabilities print as fraction strings (``"1/3"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from rallypoint.core.parts import Odds, OddsTable
from rallypoint.dice import fraction_text, outcome_text
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.data import ATTRIBUTES, default_data


def platoon() -> dict[str, Any]:
    """The platoon's rolls at the shipped defaults: delays, transfers, section 8 draws."""
    rules = default_data()
    n = rules.n
    on = n("replacements", "transfer_on")
    draws = {
        a: {p: outcome_text(pd.attribute_odds(rules.section8[a], Fraction(p), a != "age"))
            for p in ("0", "1/2", "1")}
        for a in ATTRIBUTES
    }
    return {
        "man_arrival_days": outcome_text(pd.delay_odds(n("replacements", "man_days_base"),
                                                n("replacements", "man_days_die"))),
        "tank_arrival_days": outcome_text(pd.delay_odds(n("replacements", "tank_days_base"),
                                                 n("replacements", "tank_days_die"))),
        "light_wound_days": outcome_text(pd.delay_odds(n("wounds", "light_days_base"),
                                                n("wounds", "light_days_die"))),
        "transfer": fraction_text(pd.transfer_node("").probability(lambda v: v >= on)),
        "section8_by_progress": draws,
    }


def tables(state: object) -> Sequence[OddsTable]:
    """The lab page's tables: the delays and transfers at the shipped defaults (the same in
    every state: the page shows what the rules roll, not where this campaign stands)."""
    odds = platoon()
    found = [OddsTable(f"{title} (days: chance)",
                       tuple((days, Fraction(p)) for days, p in odds[key].items()))
             for key, title in (("man_arrival_days", "A replacement man arrives after"),
                                ("tank_arrival_days", "A replacement tank arrives after"),
                                ("light_wound_days", "A light wound heals after"))]
    found.append(OddsTable("Transfers",
                           (("a man asks to transfer", Fraction(odds["transfer"])),)))
    return found


ODDS = Odds(tables=tables)
"""The platoon's odds part (its plugin's ``odds``)."""
