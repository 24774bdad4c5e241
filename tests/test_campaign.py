"""Core campaign behaviour: versions, undo as an appended event, replay."""

from __future__ import annotations

import pytest

from conftest import last_event
from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, IntegrityError, StaleVersionError
from rallypoint.core.events import UNDONE, Undone, verify_chain
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs.commands import AdvanceTurn, RecordLoss
from rallypoint.rulesets.tcs.front.campaign import tcs_state


def test_version_counts_events_and_stale_commands_are_refused(example1: Campaign) -> None:
    assert example1.version == 1
    c = example1.execute(RecordLoss(expected_version=1, counter="1/ErP112-1", steps=1),
                         ScriptedRoller([]))
    assert c.version == 2
    with pytest.raises(StaleVersionError) as info:
        c.decide(AdvanceTurn(expected_version=1), ScriptedRoller([]))
    assert "version 1" in str(info.value) and "version 2" in str(info.value)


def test_undo_appends_and_restores(example1: Campaign) -> None:
    c = example1.execute(RecordLoss(expected_version=1, counter="1/ErP112-1", steps=1),
                         ScriptedRoller([]))
    assert tcs_state(c).counters["1/ErP112-1"].steps == 2
    u = c.undo()
    assert u.version == 3 and u.events[-1].type == UNDONE
    assert last_event(u, Undone).target == 2
    assert tcs_state(u).counters["1/ErP112-1"].steps == 3
    assert len(u.events) == 3, "history is kept"
    assert verify_chain(u.events) is None
    with pytest.raises(IllegalNowError):
        u.undo()


def test_undo_twice_walks_back(example1: Campaign) -> None:
    c = example1
    for _ in range(2):
        c = c.execute(AdvanceTurn(expected_version=c.version), ScriptedRoller([]))
    assert tcs_state(c).turn == 3
    c = c.undo().undo()
    assert tcs_state(c).turn == 1
    c = c.execute(AdvanceTurn(expected_version=c.version), ScriptedRoller([]))
    assert tcs_state(c).turn == 2
    assert tcs_state(Campaign.from_events(c.events)).turn == 2


def test_log_must_start_with_created(example1: Campaign) -> None:
    c = example1.execute(AdvanceTurn(expected_version=1), ScriptedRoller([]))
    with pytest.raises(IntegrityError):
        Campaign.from_events(c.events[1:])
