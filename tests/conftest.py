"""Shared fixtures: in-memory TCS campaigns from the shipped example scenarios."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import pytest

import toy_kit
from cheap_hash import cheap_password_hashing  # noqa: F401  (autouse: argon2 at its cheapest)
from click_tree import one_click_tree_per_app  # noqa: F401  (autouse: typer builds an app once)
from rallypoint.core.campaign import Campaign, created_event, start
from rallypoint.core.events import EventModel
from rallypoint.core.registry import get_ruleset
from rallypoint.core.ruleset import Command
from rallypoint.dice import ScriptedRoller
from suite_plan import (  # noqa: F401  (hooks: how the whole suite runs on two cores)
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_configure_node,
    pytest_xdist_auto_num_workers,
)


def tcs_campaign(path: Path | str, seed: str = "test-seed") -> Campaign:
    """A fresh in-memory TCS campaign from a scenario path or a shipped example's file name."""
    ruleset = get_ruleset("tcs")
    if isinstance(path, str) and not Path(path).exists():
        path = next(p for p in ruleset.example_scenarios() if p.name.startswith(path))
    return start(created_event(ruleset, Path(path), "test", seed=seed))


if os.environ.get("RALLYPOINT_TEST_TOY"):
    # The whole run with a fourth ruleset installed (tests/toy_kit.py): nothing may assume the
    # three shipped rulesets are all there are.
    toy_kit.install()

E = TypeVar("E", bound=EventModel)


def last_event(c: Campaign, kind: type[E]) -> E:
    """The typed event the campaign's newest command stored (asserting its type)."""
    event = c.typed[-1]
    assert isinstance(event, kind), f"the last event is {type(event).__name__}, not {kind.__name__}"
    return event


def run(c: Campaign, command: Command, dice: Sequence[int] = ()) -> Campaign:
    """Execute ``command`` with exactly ``dice`` (every scripted face must be used)."""
    roller = ScriptedRoller(dice)
    after = c.execute(command, roller)
    assert roller.remaining == 0, f"{roller.remaining} scripted face(s) unused"
    return after


@pytest.fixture
def example1() -> Campaign:
    """Example #1 (ErP 112th at Tolvajärvi) at its starting position."""
    return tcs_campaign("example1")


@pytest.fixture
def example2() -> Campaign:
    """Example #2 (4th Tank Brigade at Lechanowka) at its starting position."""
    return tcs_campaign("example2")
