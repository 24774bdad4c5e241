"""The squares ruleset as the core sees it (see :class:`rallypoint.core.ruleset.Ruleset`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, get_args

from pydantic import TypeAdapter

from rallypoint.core.due import Due
from rallypoint.core.errors import IllegalNowError
from rallypoint.core.json_types import JsonObject, JsonValue
from rallypoint.core.ruleset import Command, Decision, PolicyInfo, parse_with
from rallypoint.dice import Roll, Roller, fraction_text
from rallypoint.errors import Hint
from rallypoint.rulesets.squares import fold, rules
from rallypoint.rulesets.squares.commands import (
    Activate,
    Disorder,
    LoseSp,
    MarkFire,
    NextTurn,
    Rally,
    SquaresCommand,
)
from rallypoint.rulesets.squares.data import RallyKind, resolve_data
from rallypoint.rulesets.squares.describe import describe
from rallypoint.rulesets.squares.events import READER, Rallied, SquaresEvent
from rallypoint.rulesets.squares.rally import RallyResult, opportunities
from rallypoint.rulesets.squares.scenario import Scenario, load_scenario, scenario_problems
from rallypoint.rulesets.squares.state import SquaresState
from rallypoint.rulesets.squares.table import TABLE

_COMMANDS: TypeAdapter[SquaresCommand] = TypeAdapter(SquaresCommand)


def rally_decisions(state: SquaresState) -> list[Decision]:
    """Every unit that may take a rally test now, with each legal (leader, kind) and its odds.

    These are *offered*, not pending: the rules never wait for a rally. Automatic play answers
    them with a policy.
    """
    by_unit: dict[str, list[JsonValue]] = {}
    for plan in opportunities(state):
        odds = plan.odds(state)
        by_unit.setdefault(plan.unit, []).append({
            "leader": plan.leader, "rally": plan.kind.value,
            **{r.value: fraction_text(p) for r, p in odds.items()}})
    return [Decision(key=f"rally:{unit}", kind="rally", subject=unit,
                     prompt=f"{state.board.name(unit)} may take a rally test",
                     options={"candidates": candidates})
            for unit, candidates in by_unit.items()]


def _policy(score: str) -> Any:
    def decide(state: SquaresState, decision: Decision, version: int) -> Command:
        plans = [p for p in opportunities(state) if p.unit == decision.subject]
        if not plans:
            raise IllegalNowError(f"{decision.subject} may not take a rally test now",
                                  fix="Ask `rally_decisions` again for the current state.",
                                  instead=Hint.FIX_FIELD)

        def key(plan: Any) -> tuple[Any, ...]:
            odds = plan.odds(state)
            if score == "safest":
                return (-odds[RallyResult.BREAK], odds[RallyResult.PASS])
            return (odds[RallyResult.PASS], -odds[RallyResult.BREAK])
        best = max(plans, key=key)
        return Rally(expected_version=version, leader=best.leader, unit=best.unit, rally=best.kind)
    return decide


class SquaresRuleset:
    """Squares: disorder recovery and leader rally on a square grid (Hail Caesar family)."""

    name = "squares"
    title = "Squares (disorder recovery and leader rally on a square grid)"
    state_type = SquaresState
    event_types: tuple[type[SquaresEvent], ...] = get_args(SquaresEvent)
    """Every member of :data:`SquaresEvent` (what the registry's wrapper checks
    an event against)."""

    scenario_model = Scenario
    """The model of a whole squares scenario file
    (:class:`rallypoint.core.scenario_check.ScenarioFiles`)."""

    def load_scenario(self, path: Path) -> dict[str, Any]:
        """Validate a scenario file; return its JSON-ready form."""
        return self.scenario_json(load_scenario(path))

    def scenario_problems(self, scenario: Scenario) -> list[str]:
        """Every cross-reference problem of a scenario whose fields are valid."""
        return scenario_problems(scenario)

    def scenario_json(self, scenario: Scenario) -> dict[str, Any]:
        """The JSON-ready form a campaign stores."""
        return scenario.model_dump(mode="json")

    def rules_data(self, scenario: Mapping[str, Any]) -> dict[str, Any]:
        """The shipped data with the scenario's ``[parameters]`` and ``[terrain_kinds]``."""
        return resolve_data(scenario.get("parameters") or {}, scenario.get("terrain_kinds") or {})

    def initial_state(self, scenario: Mapping[str, Any],
                      rules_data: Mapping[str, Any]) -> SquaresState:
        """The state when the battle starts."""
        return fold.initial_state(scenario, rules_data)

    def parse_command(self, data: Mapping[str, Any]) -> Command:
        """A squares command from JSON (``{"kind": "rally", ...}``)."""
        return parse_with(_COMMANDS, data, "squares")

    def decide(self, state: SquaresState, command: Command, roller: Roller) -> SquaresEvent:
        """Validate and resolve a command into its event."""
        return rules.decide(state, command, roller)

    def read_event(self, event_type: str, payload: Mapping[str, Any]) -> SquaresEvent:
        """A stored squares payload of any schema version as its typed event."""
        return READER.read(event_type, payload)

    def apply(self, state: SquaresState, event: SquaresEvent) -> SquaresState:
        """Fold an event (pure)."""
        return fold.apply(state, event)

    def pending(self, state: SquaresState) -> list[Decision]:
        """Nothing is ever pending: every command resolves at once (rallies are offered, see
        :func:`rally_decisions`)."""
        return []

    def due(self, state: SquaresState) -> tuple[Due, ...]:
        """Rallies open now, who has yet to activate, and the next turn."""
        from rallypoint.rulesets.squares.due import due

        return due(state)

    def policies(self) -> Sequence[PolicyInfo[SquaresState]]:
        """``best_odds`` (default) and ``safest``, answering :func:`rally_decisions`."""
        return [
            PolicyInfo("best_odds", "rally with the leader and kind most likely to pass (ties: "
                       "least likely to break)", _policy("best_odds")),
            PolicyInfo("safest", "rally with the leader and kind least likely to break (ties: "
                       "most likely to pass)", _policy("safest")),
        ]

    def state_json(self, state: SquaresState) -> JsonObject:
        """JSON view of the state."""
        return fold.state_json(state)

    def describe(self, event: SquaresEvent) -> str:
        """One line (plus a roll line for a rally) for the log."""
        return describe(event)

    def rolls(self, event: SquaresEvent) -> list[Roll]:
        """The rally roll stored in an event, if any."""
        return [event.roll] if isinstance(event, Rallied) else []

    scenario_table = TABLE
    """The table ``rallypoint scenario import-csv squares`` reads (docs/scenarios.md)."""

    def starter_scenario(self) -> Path:
        """A commented starting scenario that ``rallypoint new`` accepts as written
        (``rallypoint scenario init squares``)."""
        return Path(str(resources.files("rallypoint.rulesets.squares").joinpath("starter",
                                                                          "scenario.toml")))

    def example_scenarios(self) -> Sequence[Path]:
        """The shipped example battles."""
        root = resources.files("rallypoint.rulesets.squares").joinpath("scenarios")
        return sorted(Path(str(p)) for p in root.iterdir() if p.name.endswith(".toml"))

    def conformance_commands(self, state: SquaresState, version: int) -> Command | None:
        """A short rally scene: fire on and disorder one unit, cost another 2 SP, activate the
        first (no recovery: it was fired upon), rally it; next turn, activate and rally the
        second for SP. Chosen from the scenario alone, so the script is the same at every step."""
        picks = _conformance_units(state)
        if picks is None:
            return None
        (x, x_leader), (y, y_leader) = picks
        v = version
        script: list[Command] = [
            MarkFire(expected_version=v, unit=x, fire="bombardment"),
            Disorder(expected_version=v, unit=x),
            LoseSp(expected_version=v, unit=y, sp=2),
            Activate(expected_version=v, who=x),
            Rally(expected_version=v, leader=x_leader, unit=x, rally=RallyKind.DISORDER),
            NextTurn(expected_version=v),
            Activate(expected_version=v, who=y),
            Rally(expected_version=v, leader=y_leader, unit=y, rally=RallyKind.SP),
        ]
        step = version - 1
        return script[step] if step < len(script) else None


def _conformance_units(state: SquaresState) -> tuple[tuple[str, str], tuple[str, str]] | None:
    board = state.board
    picks: list[tuple[str, str]] = []
    for spec in board.scenario.units:
        leader = board.brigadier_of(spec.id) or board.commander_of(board.side_of(spec.id))
        quiet = not state.enemies_adjacent(spec.id)
        if leader and quiet and not spec.disordered and spec.start_sp >= 3:
            picks.append((spec.id, leader))
        if len(picks) == 2:
            return picks[0], picks[1]
    return None


RULESET = SquaresRuleset()
