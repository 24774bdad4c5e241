"""The TCS R&R ruleset as the core sees it (see :class:`rallypoint.core.ruleset.Ruleset`).

Only the fold (state, events, data) is imported with this module: ``show`` and the other read
commands need no more. The rule, command, distribution and describe modules are imported inside
the methods that use them, so a read command does not pay for them (see ``tests/test_instant.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from pydantic import TypeAdapter

from rallypoint.core.differences import Difference
from rallypoint.core.due import Due as CoreDue
from rallypoint.core.json_types import JsonObject
from rallypoint.core.problems import Problem
from rallypoint.core.ruleset import Command, Decision, PolicyInfo, parse_with
from rallypoint.rulesets.tcs import fold
from rallypoint.rulesets.tcs.data import Column, resolve_data
from rallypoint.rulesets.tcs.events import READER, TcsEvent, rolls_of
from rallypoint.rulesets.tcs.scenario import (
    Pile,
    Scenario,
    load_scenario,
    nationality_problems,
    scenario_json,
    scenario_problems,
)
from rallypoint.rulesets.tcs.state import SheetStatus, TcsState
from rallypoint.rulesets.tcs.table import TABLE

if TYPE_CHECKING:
    from rallypoint.dice import Roll, Roller
    from rallypoint.rulesets.tcs.commands import TcsCommand


@cache
def _commands() -> TypeAdapter[TcsCommand]:
    """The command parser, built on first use (it needs every command model)."""
    from rallypoint.rulesets.tcs.commands import TcsCommand

    return TypeAdapter(TcsCommand)


class TcsRuleset:
    """TCS R&R: Dead and Very Dead piles, Recovery Op Sheets, recovery table, FOs, morale."""

    name = "tcs"
    title = "TCS R&R (rest and recovery for the Tactical Combat Series)"
    state_type = TcsState
    event_types: tuple[type[TcsEvent], ...] = get_args(TcsEvent)
    """Every member of :data:`TcsEvent` (what the registry's wrapper checks
    an event against)."""

    scenario_model = Scenario
    """The model of a whole TCS scenario file
    (:class:`rallypoint.core.scenario_check.ScenarioFiles`)."""

    def load_scenario(self, path: Path) -> dict[str, Any]:
        """Validate a scenario file; return its JSON-ready form."""
        return scenario_json(load_scenario(path), str(path))

    def scenario_problems(self, scenario: Scenario) -> list[str | Problem]:
        """Every cross-reference and nationality problem of a scenario whose fields are valid."""
        return [*scenario_problems(scenario), *nationality_problems(scenario)]

    def scenario_json(self, scenario: Scenario) -> dict[str, Any]:
        """The JSON-ready form a campaign stores (nationalities listed, FO piles decided)."""
        return scenario_json(scenario)

    def rules_data(self, scenario: Mapping[str, Any]) -> dict[str, Any]:
        """The shipped data with the scenario's ``[parameters]`` applied."""
        supplied = scenario.get("implementation") or {}
        return resolve_data(scenario.get("parameters") or {},
                            {int(k): v for k, v in (supplied.get("rows") or {}).items()},
                            str(supplied.get("source", "")))

    def initial_state(self, scenario: Mapping[str, Any], rules_data: Mapping[str, Any]) -> TcsState:
        """The state when the campaign starts."""
        return fold.initial_state(scenario, rules_data)

    def parse_command(self, data: Mapping[str, Any]) -> Command:
        """A TCS command from JSON (``{"kind": "loss", ...}``)."""
        return parse_with(_commands(), data, "tcs")

    def decide(self, state: TcsState, command: Command, roller: Roller) -> TcsEvent:
        """Validate and resolve a command into its event."""
        from rallypoint.rulesets.tcs import rules

        return rules.decide(state, command, roller)

    def read_event(self, event_type: str, payload: Mapping[str, Any]) -> TcsEvent:
        """A stored TCS payload of any schema version as its typed event."""
        return READER.read(event_type, payload)

    def apply(self, state: TcsState, event: TcsEvent) -> TcsState:
        """Fold an event (pure)."""
        return fold.apply(state, event)

    def apply_redacted(self, state: TcsState, event_type: str,
                       payload: Mapping[str, Any]) -> TcsState:
        """Fold the public parts of an event redacted for this database's seat (pure).

        A database that holds the opponent's events redacted (play by e-mail with hidden Op
        Sheets) folds them through this: see :func:`rallypoint.rulesets.tcs.partial
        .apply_redacted`.
        """
        from rallypoint.rulesets.tcs.partial import apply_redacted

        return apply_redacted(state, event_type, payload)

    def check_public(self, state: TcsState, event_type: str, payload: Mapping[str, Any],
                     seat: str) -> Difference | None:
        """The first public part of an event redacted for this seat that the rules would not
        give on this table (pure): see :func:`rallypoint.rulesets.tcs.public.check_public`."""
        from rallypoint.rulesets.tcs.public import check_public

        return check_public(state, event_type, payload, seat)

    def owed(self, state: TcsState, version: int) -> Command | None:
        """The ``accrue`` command for turns this database's pending sheets missed, or ``None``.

        Play by e-mail: a turn advanced in the opponent's database accrued only its own sheets.
        On a whole log this is always ``None`` (see :func:`rallypoint.rulesets.tcs.turns.owed`).
        """
        if state.settled_turn >= state.turn and not any(
                s.status is SheetStatus.PENDING and s.accrued_turn < state.turn
                for s in state.sheets.values()):
            return None  # the usual answer, without importing the rules (see test_instant)
        from rallypoint.rulesets.tcs.turns import owed

        return owed(state, version)

    def start_notes(self, state: TcsState) -> list[str]:
        """Said at ``rallypoint new``: which sides' FOs go to their own pile (seed: 'Soviet FOs
        are an exception … put it aside in a pile of its own'), on by default for a Soviet
        side, and how to turn it off."""
        from rallypoint.rulesets.tcs.fo import fo_notes

        return fo_notes(state)

    def due(self, state: TcsState) -> tuple[CoreDue, ...]:
        """What is due this turn: checks, the FO roll, attacked companies (``outlook``)."""
        from rallypoint.rulesets.tcs.outlook import due_now

        return tuple(d.typed() for d in due_now(state))

    def pending(self, state: TcsState) -> list[Decision]:
        """Distributions waiting for the player, one per company with recovered steps."""
        decisions = []
        for recovery in state.pending_recoveries():
            from rallypoint.rulesets.tcs.distribution import options

            opt = options(state, recovery)
            name = state.oob.name(recovery.company)
            decisions.append(Decision(
                key=f"distribute:{recovery.company}", kind="distribute",
                subject=recovery.company,
                prompt=f"{name} recovered {recovery.steps} step(s): distribute them"
                if recovery.steps else
                f"{name} recovered no steps: its counters in one hex may pool their steps",
                options=opt.to_json()))
        return decisions

    def policies(self) -> Sequence[PolicyInfo[TcsState]]:
        """``rebuild`` (default; reproduces the worked examples) and ``heal_first``."""
        def wrap(name: str) -> Any:
            def decide(state: TcsState, decision: Decision, version: int) -> Command:
                from rallypoint.rulesets.tcs.distribution import POLICIES

                recovery = next(r for r in state.pending_recoveries()
                                if r.company == decision.subject)
                return POLICIES[name](state, recovery, version)
            return decide
        return [
            PolicyInfo("rebuild", "bring back as many counters as the pairing rule allows, steps "
                       "spread evenly; heal with the rest", wrap("rebuild")),
            PolicyInfo("heal_first", "heal living counters first; bring back counters with what is "
                       "left", wrap("heal_first")),
        ]

    def state_json(self, state: TcsState) -> JsonObject:
        """JSON view of the state."""
        return fold.state_json(state)

    def describe(self, event: TcsEvent) -> str:
        """One line (plus roll lines) for the log."""
        from rallypoint.rulesets.tcs.describe import describe

        return describe(event)

    def rolls(self, event: TcsEvent) -> list[Roll]:
        """Every roll stored in an event, in the order they were rolled."""
        return rolls_of(event)

    scenario_table = TABLE
    """The table ``rallypoint scenario import-csv tcs`` reads (docs/scenarios.md)."""

    def starter_scenario(self) -> Path:
        """A commented starting scenario that ``rallypoint new`` accepts as written
        (``rallypoint scenario init tcs``)."""
        return Path(str(resources.files("rallypoint.rulesets.tcs").joinpath("starter",
                                                                          "scenario.toml")))

    def example_scenarios(self) -> Sequence[Path]:
        """The two worked examples' orders of battle, and Example #1 against a Soviet side (a
        two-player campaign)."""
        root = resources.files("rallypoint.rulesets.tcs").joinpath("scenarios")
        return [Path(str(root.joinpath(n))) for n in ("example1_tolvajarvi.toml",
                                                       "example2_lechanowka.toml",
                                                       "tolvajarvi_two_sides.toml")]

    def conformance_commands(self, state: TcsState, version: int) -> Command | None:
        """Write one sheet for the first formation, advance turns, check, distribute."""
        from rallypoint.rulesets.tcs.commands import AdvanceTurn, CheckImplementation, WriteSheet

        decisions = self.pending(state)
        if decisions:
            return self.policies()[0].decide(state, decisions[0], version)
        if not state.sheets:
            first = state.oob.scenario.formations[0]
            centers: dict[str, str] = {}
            for company in state.oob.companies_under(first.id):
                hexes = [h for i in state.in_pile(company, Pile.MAP)
                         if (h := state.counters[i].hex)]
                centers[company] = hexes[0] if hexes else "10.10"
            return WriteSheet(expected_version=version, sheet=_conformance_sheet(state),
                              members=(first.id,), centers=centers, size=0, attest=True)
        name = _conformance_sheet(state)
        sheet = state.sheets[name]
        if sheet.status is not SheetStatus.PENDING or state.turn > 40:
            return None
        if sheet.last_check_turn == state.turn or sheet.weighted_turns == 0:
            from rallypoint.rulesets.tcs.commands import RollFos
            from rallypoint.rulesets.tcs.outlook import fo_outlook

            # A side with dead Soviet FOs rolls for them every whole hour before moving on.
            if fo_outlook(state).due:
                return RollFos(expected_version=version)
            return AdvanceTurn(expected_version=version)
        return CheckImplementation(expected_version=version, sheet=name, columns={
            c: Column.HWY for c in sheet.companies if state.oob.fixed_column(c) is None})



def _conformance_sheet(state: TcsState) -> str:
    """The conformance playthrough's sheet name, with the first formation's side's prefix."""
    side = state.oob.scenario.formations[0].side
    prefix = next((s.sheet_prefix for s in state.oob.scenario.sides if s.id == side), None)
    return f"{prefix or ''}conformance"


RULESET = TcsRuleset()
