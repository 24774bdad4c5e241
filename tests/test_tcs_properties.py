"""Property tests: random command sequences on the example scenarios, with random dice.

Commands are drawn among legal and illegal ones (losses, turns, sheets, checks, distributions by
policy or made up at random, moves, leaving centers, morale, FO rolls, undo). After every step:

* steps stay within 0..full, and a counter has steps exactly when it is on the map;
* a Very Dead counter never leaves the Very Dead Pile (except by undoing the event that put it
  there);
* a refused command changes nothing (same state, same version) and rolls no die;
* replaying the log rebuilds identical state, and undo gives back the state before;
* every distribution a policy produces passes ``distribution.validate``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import tcs_campaign
from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import RallypointError
from rallypoint.core.ruleset import Command
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs.commands import (
    AdvanceTurn,
    Attack,
    CheckImplementation,
    Distribute,
    LeaveCenter,
    MoveCounter,
    Reassign,
    RecordLoss,
    RollFos,
    SetMorale,
    WriteSheet,
)
from rallypoint.rulesets.tcs.data import Column
from rallypoint.rulesets.tcs.distribution import POLICIES, options, validate
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.hexes import Hex
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import TcsState

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "example1": ("example1", {}),
    "example2": ("example2", {}),
    "example1-formation-ceil": ("example1", {"pairing_scope": "formation",
                                             "odd_pile_limit": "ceil",
                                             "half_dead_pile_rounding": "up"}),
    "example2-any-noskip": ("example2", {"complete_battalion": "any_company",
                                         "skip_moot_rolls": False,
                                         "morale_rounding": "up",
                                         "allow_redistribution": False}),
}

KINDS = (
    "loss", "loss", "turn", "turn", "turn", "sheet", "sheet", "check", "check", "check",
    "policy", "policy", "policy", "random_distribution", "random_distribution", "morale", "move",
    "leave", "fo", "undo", "reassign", "attack",
)


class Campaigns(dict[str, Campaign]):
    """Fresh campaigns by variant name (a short repr keeps hypothesis reports readable)."""

    def __repr__(self) -> str:
        return f"Campaigns({sorted(self)})"


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Campaigns]:
    """One fresh campaign per variant (campaigns are immutable, so they can be shared)."""
    folder = tmp_path_factory.mktemp("scenarios")
    built = Campaigns()
    for name, (example, params) in VARIANTS.items():
        base = tcs_campaign(example)
        if not params:
            built[name] = base
            continue
        source = next(p for p in base.ruleset.example_scenarios() if p.name.startswith(example))
        lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in params.items())
        target: Path = folder / f"{name}.toml"
        target.write_text(source.read_text(encoding="utf-8") + "\n[parameters]\n" + lines,
                          encoding="utf-8")
        built[name] = tcs_campaign(target)
    yield built


def view(c: Campaign) -> str:
    """The state as canonical JSON text."""
    return json.dumps(c.ruleset.state_json(c.state), sort_keys=True)


def near(data: st.DataObject, where: str | None) -> str:
    """A hex 0..4 hexes from ``where`` (or anywhere)."""
    base = Hex.parse(where) if where else Hex("", 10, 10)
    dc = data.draw(st.integers(-4, 4))
    dr = data.draw(st.integers(-4, 4))
    return f"{max(1, base.col + dc)}.{max(1, base.row + dr):02d}"


def living_hex(state: TcsState, company: str) -> str | None:
    """The hex of a company's first counter on the map."""
    return next((h for i in state.in_pile(company, Pile.MAP)
                 if (h := state.counters[i].hex) is not None), None)


def draw_command(data: st.DataObject, c: Campaign) -> tuple[str, Command | None]:
    """A random command (legal or not) for the campaign's current state."""
    s: TcsState = tcs_state(c)
    v = c.version
    kind = data.draw(st.sampled_from(KINDS))
    steer: bool = data.draw(st.booleans())
    if steer and s.pending_recoveries():
        kind = data.draw(st.sampled_from(["policy", "random_distribution"]))
    counters = sorted(s.counters)
    companies = sorted(s.oob.companies)
    if kind == "loss":
        on_map = [i for i in counters if s.counters[i].pile is Pile.MAP]
        usual: bool = data.draw(st.integers(0, 3)) > 0
        pool = on_map if usual and on_map else [*counters, "ghost"]
        return kind, RecordLoss(
            expected_version=v, counter=data.draw(st.sampled_from(pool)),
            steps=data.draw(st.none() | st.integers(1, 6)),
            cause=data.draw(st.sampled_from(["combat", "surrender", "doubles", "bogus"])))
    if kind == "turn":
        pending = sorted(k for k, sh in s.sheets.items() if sh.status.value == "pending")
        fired = data.draw(st.lists(st.sampled_from([*pending, *pending, "ghost"]), max_size=1))
        fired = fired if data.draw(st.integers(0, 2)) == 0 else []
        return kind, AdvanceTurn(expected_version=v, fired=tuple(fired))
    if kind == "sheet":
        pool = [*companies, *s.oob.formations]
        members = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
        centers: dict[str, str] = {}
        for m in members:
            for company in s.oob.companies_under(m):
                here = living_hex(s, company)
                centers[company] = near(data, here) if data.draw(st.booleans()) else (
                    here or "10.10")
        return kind, WriteSheet(
            expected_version=v, sheet=data.draw(st.sampled_from(["a", "b", "c"])),
            members=tuple(members), centers=centers or {members[0]: "10.10"},
            size=data.draw(st.integers(0, 2)),
            other_sheet=tuple(data.draw(st.lists(st.sampled_from(members), max_size=1))),
            vehicle=data.draw(st.booleans()),
            attest=data.draw(st.sampled_from([True, True, True, True, False])))
    if kind == "check":
        open_sheets = sorted(k for k, sh in s.sheets.items() if sh.status.value == "pending")
        rare = data.draw(st.integers(0, 5)) == 0
        name = data.draw(st.sampled_from([*sorted(s.sheets), "ghost"] if rare or not open_sheets
                                         else open_sheets))
        sheet = s.sheets.get(name)
        columns: dict[str, Column] = {}
        if sheet is not None:
            for company in sheet.companies:
                if s.oob.fixed_column(company) is None:
                    columns[company] = data.draw(st.sampled_from([Column.HWY, Column.TO]))
        return kind, CheckImplementation(expected_version=v, sheet=name, columns=columns)
    if kind == "policy":
        decisions = c.ruleset.pending(s)
        if not decisions:
            return kind, None
        decision = data.draw(st.sampled_from(decisions))
        policy = data.draw(st.sampled_from(list(c.ruleset.policies())))
        return kind, policy.decide(s, decision, v)
    if kind == "random_distribution":
        recoveries = s.pending_recoveries()
        plausible: bool = data.draw(st.integers(0, 3)) > 0
        if plausible and recoveries:
            # Ids from the options: often legal, sometimes over the limits.
            opt = options(s, data.draw(st.sampled_from(recoveries)))
            company, heal_ids = opt.company, sorted(opt.heal)
            back_ids, vd_ids = sorted(opt.resurrect), list(opt.scope_dead)
        else:
            company = data.draw(st.sampled_from(companies))
            heal_ids = back_ids = vd_ids = list(s.oob.counters_of[company])
        heal = data.draw(st.dictionaries(st.sampled_from(heal_ids), st.integers(1, 3),
                                         max_size=2)) if heal_ids else {}
        resurrect = data.draw(st.dictionaries(st.sampled_from(back_ids), st.integers(1, 4),
                                              max_size=2)) if back_ids else {}
        very_dead = data.draw(st.lists(st.sampled_from(vd_ids), max_size=2, unique=True)) \
            if vd_ids else []
        return kind, Distribute(expected_version=v, company=company, heal=heal,
                                resurrect=resurrect, very_dead=tuple(very_dead))
    if kind == "morale":
        return kind, SetMorale(expected_version=v,
                               formation=data.draw(st.sampled_from([*sorted(s.morale), "4TB"])),
                               value=data.draw(st.integers(0, 5)))
    if kind == "move":
        counter = data.draw(st.sampled_from(counters))
        return kind, MoveCounter(expected_version=v, counter=counter,
                                 hex=near(data, s.counters[counter].hex),
                                 leave_center=data.draw(st.booleans()))
    if kind == "leave":
        return kind, LeaveCenter(expected_version=v, company=data.draw(st.sampled_from(companies)))
    if kind == "fo":
        return kind, RollFos(expected_version=v)
    if kind in ("reassign", "attack"):
        who: tuple[str, ...] = tuple(data.draw(st.lists(
            st.sampled_from(companies), min_size=1, max_size=2, unique=True)))
        if kind == "attack":
            return kind, Attack(expected_version=v, members=who)
        return kind, Reassign(expected_version=v, members=who,
                              other_sheet=data.draw(st.booleans()))
    return kind, None  # undo


def implemented(c: Campaign, dice: list[int]) -> Campaign:
    """A sheet for every top formation, one turn, implemented (d66 6,6) with ``dice``."""
    top = [f.id for f in tcs_state(c).oob.scenario.formations if f.parent is None]
    centers = {co: living_hex(tcs_state(c), co) or "10.10" for co in tcs_state(c).oob.companies}
    c = c.execute(WriteSheet(expected_version=c.version, sheet="all", members=tuple(top),
                             centers=centers, size=0, attest=True), ScriptedRoller(()))
    c = c.execute(AdvanceTurn(expected_version=c.version), ScriptedRoller(()))
    return c.execute(CheckImplementation(expected_version=c.version, sheet="all"),
                     ScriptedRoller([6, 6, *dice]))


def check_invariants(before: Campaign, after: Campaign, kind: str) -> None:
    """Every invariant of a successful step from ``before`` to ``after``."""
    s = tcs_state(after)
    for ident, counter in s.counters.items():
        assert 0 <= counter.steps <= s.full(ident), ident
        assert (counter.steps > 0) == (counter.pile is Pile.MAP), ident
    if kind != "undo":
        for ident, counter in tcs_state(before).counters.items():
            if counter.pile is Pile.VERY_DEAD:
                assert s.counters[ident].pile is Pile.VERY_DEAD, f"{ident} left the Very Dead Pile"
        assert view(after.undo()) == view(before)
    assert view(Campaign.from_events(after.events)) == view(after)
    for recovery in s.pending_recoveries():
        for policy in POLICIES.values():
            validate(s, recovery, policy(s, recovery, after.version))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_random_command_sequences(
    campaigns: Campaigns, variant: str, data: st.DataObject,
) -> None:
    c = campaigns[variant]
    if data.draw(st.booleans(), label="open with an implemented sheet"):
        c = implemented(c, data.draw(st.lists(st.integers(1, 6), min_size=16, max_size=16)))
    for _ in range(data.draw(st.integers(5, 30), label="length")):
        kind, command = draw_command(data, c)
        faces = data.draw(st.lists(st.integers(1, 6), max_size=24), label="dice")
        if kind == "check" and data.draw(st.booleans()):
            faces = [6, 6, *faces]  # implements in any cell that is not '–'
        before, version = view(c), c.version
        roller = ScriptedRoller(faces)
        try:
            if kind == "undo":
                after = c.undo()
            elif command is None:
                continue
            else:
                after = c.execute(command, roller)
        except RallypointError:
            assert view(c) == before and c.version == version
            continue
        check_invariants(c, after, kind)
        c = after


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_policies_reproduce_legal_distributions_after_any_implementation(
    campaigns: Campaigns, data: st.DataObject,
) -> None:
    # Random losses first, then a sheet for everything, implemented with random recovery dice:
    # both policies' answers always validate and leave steps within bounds.
    name = data.draw(st.sampled_from(list(VARIANTS)))
    c = campaigns[name]
    for _ in range(data.draw(st.integers(0, 8))):
        counter = data.draw(st.sampled_from(sorted(tcs_state(c).counters)))
        if tcs_state(c).counters[counter].pile is Pile.MAP:
            c = c.execute(RecordLoss(expected_version=c.version, counter=counter,
                                     steps=data.draw(st.integers(1, tcs_state(c).counters[counter]
                                                                 .steps))), ScriptedRoller(()))
    c = implemented(c, data.draw(st.lists(st.integers(1, 6), min_size=16, max_size=16)))
    policy_name = data.draw(st.sampled_from(sorted(POLICIES)))
    while (state := tcs_state(c)).pending_recoveries():
        recovery = state.pending_recoveries()[0]
        command = POLICIES[policy_name](state, recovery, c.version)
        validate(state, recovery, command)
        # Up to one morale die per battalion on the sheet, in the last distribution.
        c = c.execute(command, ScriptedRoller(data.draw(st.lists(st.integers(1, 6), min_size=3,
                                                                 max_size=3))))
        after = tcs_state(c)
        for ident, placed in after.counters.items():
            assert 0 <= placed.steps <= after.full(ident)
    assert view(Campaign.from_events(c.events)) == view(c)
