"""Dice: chance nodes with exact odds, and rollers that pick outcomes."""

from rallypoint.dice.nodes import (
    D6,
    D66,
    TWO_D6,
    ChanceNode,
    DiceSpec,
    Modifier,
    Read,
    Roll,
    fraction_text,
    outcome_text,
    percent_text,
)
from rallypoint.dice.rollers import Roller, ScriptedRoller, SeededRoller, roll

__all__ = [
    "D6",
    "D66",
    "TWO_D6",
    "ChanceNode",
    "DiceSpec",
    "Modifier",
    "Read",
    "Roll",
    "Roller",
    "ScriptedRoller",
    "SeededRoller",
    "fraction_text",
    "outcome_text",
    "percent_text",
    "roll",
]
