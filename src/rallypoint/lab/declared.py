"""The lab's generic run: the rolls a ruleset declares open, sampled beside their exact odds.

A ruleset whose plugin names no ``lab`` part still has a lab run if its rules declare their
chance nodes (:class:`rallypoint.core.ruleset.ChanceNodes`): each roll open at the start of a
scenario is rolled ``runs`` times with the lab's seeded numpy dice and read by the rules' own
``reading``, and each outcome's count is shown beside its exact chance. The same node gives the
odds and the sample, so a designer sees the law and a draw of it side by side (and a reading
that disagrees with its node would show at once).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from rallypoint.core.erased import chance_nodes
from rallypoint.core.registry import get_ruleset
from rallypoint.core.ruleset import DeclaredNode
from rallypoint.lab.rollers import NumpyRoller, chunk_sequences, generator


@dataclass(frozen=True)
class OutcomeSample:
    """One outcome of a declared roll: its exact chance and how often the runs gave it.

    Attributes:
        outcome: The rules' outcome (``"found"``).
        exact: Its exact chance under the node's dice.
        seen: How many of the runs gave it.
    """

    outcome: str
    exact: Fraction
    seen: int


@dataclass(frozen=True)
class RollSample:
    """One declared roll, sampled.

    Attributes:
        title: What the roll is for (``"north forages"``).
        dice: The dice rolled (``"1d6"``).
        runs: How many times it was rolled.
        outcomes: Each outcome in the order of its lowest total.
    """

    title: str
    dice: str
    runs: int
    outcomes: tuple[OutcomeSample, ...]


def declared_at_start(ruleset: str, scenario: Path) -> tuple[DeclaredNode, ...]:
    """The rolls the rules declare open in the state a campaign of ``scenario`` starts in.

    Raises:
        DataFileError: The scenario is not one of this ruleset's (its own loader's refusal).
    """
    rules = get_ruleset(ruleset)
    data = rules.load_scenario(scenario)
    return tuple(chance_nodes(rules, rules.initial_state(data, rules.rules_data(data))))


def sample_declared(nodes: tuple[DeclaredNode, ...], runs: int, entropy: int) -> tuple[
        RollSample, ...]:
    """Roll each declared node ``runs`` times and count its outcomes.

    Each node rolls from its own child of the seed (``SeedSequence(entropy).spawn``, in node
    order), so the same seed gives the same counts and one node's draws never shift another's.
    """
    children = chunk_sequences(entropy, len(nodes))
    return tuple(_sampled(node, runs, NumpyRoller(generator(child)))
                 for node, child in zip(nodes, children, strict=True))


def _sampled(declared: DeclaredNode, runs: int, roller: NumpyRoller) -> RollSample:
    node = declared.node
    # The rules' path for a roll (faces → modified total → reading), without building a
    # stored Roll for each of many thousand draws.
    seen = Counter(declared.reading(node.total(roller.faces(node))) for _ in range(runs))
    exact = declared.odds()
    return RollSample(declared.title, node.dice.label, runs, tuple(
        OutcomeSample(outcome, chance, seen[outcome]) for outcome, chance in exact.items()))
