"""The clauses of "Between battles" (seed 002) that the text leaves open, and the reading taken.

Each reading names its switch: a parameter of ``data.toml`` (with its clause there), set in a
scenario's ``[parameters]``. docs/rules/platoon.md lists the same readings under "Readings".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.readings import Reading
from rallypoint.rulesets.platoon.data import SWITCHED_READINGS, default_data

_READINGS: tuple[tuple[str, str, str, str, str], ...] = (
    ("14.1 \"A platoon on its third day running starts the day already shaken; rested men "
     "start fresh.\"",
     "The part of his fatigue a day out of action gives back rounds up, so rest brings every "
     "man to 0.",
     "\"Rested men start fresh\": rounding down would leave a man at 1 to 3 tired for ever.",
     "fatigue.rest_rounds_up", "0: rounds down"),
    ("14.1 \"A day out of action gives most of it back\" (the night after an action, for a "
     "man whose tank sat it out)",
     "Read per man: a man who fought gets the night's little back; a man whose tank sat the "
     "action out, and every unassigned man, had a day out of action and gets most of it back.",
     "The clause is about a day out of action, and his was one.",
     "fatigue.night_per_man", "0: after an action day every man gets the night's share"),
    ("14.3 \"fit again a few days later\" (a second light wound on a man already wounded)",
     "The later of the two fit days holds.",
     "A man is not fit while either wound is open.",
     "wounds.later_fit_day", "0: the new wound's own fit day"),
    ("14.4 \"gains a little for each day it stays together\" (the battle day)",
     "A battle day's evening is a day together: the crew holds the report's cohesion plus a "
     "day's gain.",
     "The crew spent the day together, in battle.",
     "cohesion.battle_evening", "0: the report's cohesion is the day's"),
    ("14.5 \"Each tank lost lowers it a good deal … an objective taken or held raises it a "
     "good deal\" (one battle that does both, near 0 or the cap)",
     "A battle's morale changes are added up first, then the sum is bounded to 0..cap once: a "
     "tank lost and an objective taken cancel even at morale 5.",
     "14.5 names what a battle does to morale, not an order within it; the battle is one "
     "event and its net effect is what the platoon feels that evening.",
     "morale.bound_each_step",
     "1: each change is bounded in the seed's order (tanks lost, men killed, objective, "
     "enemy withdrawn), so a loss below 0 is not made up"),
    ("14.5 \"Each tank lost lowers it a good deal\" (what is lost)",
     "A tank knocked out or written off is lost; a tank merely hit is not.",
     "The platoon loses the tank for the coming days either way.",
     "morale.knocked_out_is_lost", "0: only a written-off tank"),
    ("14.6 \"the actions already fought in this campaign over the actions this campaign "
     "holds\" (an action the platoon was withdrawn from, 14.7)",
     "It counts toward campaign progress.",
     "\"The action is fought without it\": it was fought, and progress measures the "
     "campaign, not the platoon's share of it.",
     "replacements.withdrawn_action_counts", "0: only actions the platoon fought"),
    ("14.6 \"files a request for a trade, not for a seat\" (a man serving out of his trade)",
     "The request is for the trade of the seat he held: a gunner commanding the tank is "
     "replaced by a commander.",
     "The seat is what is empty.",
     "replacements.request_seat_trade", "0: his own trade"),
    ("14.7 \"Fewer than two fit tanks on the morning of an action\" (what a fit tank is)",
     "A fit tank has its own tank with it (not at ordnance, written off or in the park), at "
     "least this many men aboard, and someone in a driver's seat; no commander is needed.",
     "14.8 lets a tank fight uncommanded; a tank needs a driver and a crew to move.",
     "fit.min_crew", "any number of men"),
    ("14.9 \"The year.\" (when it may end)",
     "The year ends once, after its calendar's last action.",
     "A year end in mid-calendar, or twice in one day, is a slip at the table.",
     "year.once_after_calendar", "0: no check"),
    ("14.9 \"The year.\" (the next year's calendar)",
     "The year's end lays out the next year's calendar: the same action days, counted from "
     "the new year's first day.",
     "A campaign of several years would otherwise have no actions after the first.",
     "year.renew_calendar", "0: not renewed"),
    ("14.9 \"empty commander seats are filled from the unassigned and then by promoting the "
     "platoon's best gunner; every other empty seat is filled from the unassigned men of that "
     "seat\" (who the unassigned are for a commander's seat)",
     "The unassigned commanders, best first; with none, the best gunner is promoted before an "
     "unassigned loader, driver or gunner would take command, and those wait for a seat of "
     "their own trade.",
     "The next clause fills every other seat from \"the unassigned men of that seat\": read "
     "alike, a seat takes men of its own trade, and the text names its one exception, the "
     "gunner.",
     "year.commanders_by_trade",
     "0: any unassigned man, commanders first, then the most skilled"),
    ("14.9 \"empty commander seats are filled from the unassigned and then by promoting the "
     "platoon's best gunner; every other empty seat … else by a green replacement from "
     "Naples\"",
     "A commander seat that neither the unassigned nor a gunner can fill takes a green "
     "commander from Naples, before any other seat draws from Naples.",
     "The text fills commander seats first; the year must not leave one empty while green "
     "gunners sit down.",
     "year.naples_commanders", "0: the seat stays empty"),
    ("14.9 \"five new tanks, the old name kept where the old tank was fit\" (a crew's tank "
     "back from ordnance, repaired and waiting in the park)",
     "It was fit: the crew's new tank keeps its name. A tank still at ordnance was not.",
     "Repaired, it fights as soon as it is given back; waiting in the park is only the "
     "lieutenant not having got round to it (14.6).",
     "year.repaired_tank_keeps_name", "0: only a tank with its crew counts"),
)
"""(clause, reading, why, switch, what the other values do), in seed order."""


def readings(rules_data: Mapping[str, Any] | None = None) -> tuple[Reading, ...]:
    """Every platoon reading with its switch's shipped value (and a campaign's, if given).

    Args:
        rules_data: A campaign's stored rules data; a switch it lacks (a campaign created before
            the switch existed) reads as the reading the campaign was played with.
    """
    shipped = default_data()
    found = []
    for clause, reading, why, switch, other in _READINGS:
        section, _, key = switch.partition(".")
        default = f"{shipped.n(section, key)} ({other})"
        value = None if rules_data is None else _value(rules_data, section, key)
        found.append(Reading(clause=clause, reading=reading, why=why, switch=switch,
                             default=default, value=value))
    return tuple(found)


def _value(rules_data: Mapping[str, Any], section: str, key: str) -> str:
    """A switch's value in stored rules data; when the data predates it, the reading the
    campaign was played with (0 for a reading added later, 1 for one the rules always took)."""
    entry = rules_data.get("sections", {}).get(section, {}).get(key)
    if entry is None:
        before = 1 if (section, key) in SWITCHED_READINGS else 0
        return f"{before} (created before this switch: the reading it was played with)"
    return str(entry["value"])
