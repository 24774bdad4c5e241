"""The squares ruleset as the core sees it (see :class:`rallypoint.core.ruleset.Ruleset`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from rallypoint.core.errors import IllegalNowError
from rallypoint.core.events import NewEvent
from rallypoint.core.ruleset import Command, Decision, PolicyInfo, parse_with
from rallypoint.dice import Roll, Roller, fraction_text
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
from rallypoint.rulesets.squares.rally import RallyResult, opportunities
from rallypoint.rulesets.squares.scenario import load_scenario
from rallypoint.rulesets.squares.state import SquaresState

_COMMANDS: TypeAdapter[Any] = TypeAdapter(SquaresCommand)


def rally_decisions(state: SquaresState) -> list[Decision]:
    """Every unit that may take a rally test now, with each legal (leader, kind) and its odds.

    These are *offered*, not pending: the rules never wait for a rally. Automatic play answers
    them with a policy.
    """
    by_unit: dict[str, list[dict[str, Any]]] = {}
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
                                  fix="Ask `rally_decisions` again for the current state.")

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

    def load_scenario(self, path: Path) -> dict[str, Any]:
        """Validate a scenario file; return its JSON-ready form."""
        return load_scenario(path).model_dump(mode="json")

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

    def decide(self, state: SquaresState, command: Command, roller: Roller) -> NewEvent:
        """Validate and resolve a command into its event."""
        return rules.decide(state, command, roller)

    def apply(self, state: SquaresState, event_type: str,
              payload: Mapping[str, Any]) -> SquaresState:
        """Fold an event (pure)."""
        return fold.apply(state, event_type, payload)

    def pending(self, state: SquaresState) -> list[Decision]:
        """Nothing is ever pending: every command resolves at once (rallies are offered, see
        :func:`rally_decisions`)."""
        return []

    def policies(self) -> Sequence[PolicyInfo]:
        """``best_odds`` (default) and ``safest``, answering :func:`rally_decisions`."""
        return [
            PolicyInfo("best_odds", "rally with the leader and kind most likely to pass (ties: "
                       "least likely to break)", _policy("best_odds")),
            PolicyInfo("safest", "rally with the leader and kind least likely to break (ties: "
                       "most likely to pass)", _policy("safest")),
        ]

    def state_json(self, state: SquaresState) -> dict[str, Any]:
        """JSON view of the state."""
        return fold.state_json(state)

    def describe(self, event_type: str, payload: Mapping[str, Any]) -> str:
        """One line (plus a roll line for a rally) for the log."""
        return describe(event_type, payload)

    def rolls(self, payload: Mapping[str, Any]) -> list[Roll]:
        """The rally roll stored in an event's payload, if any."""
        found = payload.get("roll")
        return [Roll.model_validate(found)] if found else []

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


def describe(event_type: str, p: Mapping[str, Any]) -> str:
    """One line for each squares event (a rally adds the roll line)."""
    if event_type == "moved":
        carried = f" (with {', '.join(p['carried'])})" if p["carried"] else ""
        return f"{p['who']} moves {p['from']}→{p['to']}{carried}"
    if event_type == "fired_upon":
        what = "bombarded" if p["fire"] == "bombardment" else "targeted by ranged fire"
        return f"{p['unit']} {what} on turn {p['turn']}"
    if event_type == "sp_lost":
        tail = "; destroyed: removed from play" if p["destroyed"] else (
            "; shaken" if p["shaken"] else "")
        return f"{p['unit']} loses {p['sp']} SP ({p['before']}→{p['after']}){tail}"
    if event_type == "disordered":
        return f"{p['unit']} is disordered"
    if event_type == "activated":
        return _describe_activation(p)
    if event_type == "rallied":
        results = {"pass": "PASSES", "no_effect": "no effect", "break": "BREAKS"}
        effect = ""
        if p["result"] == "pass":
            effect = (" — disorder removed" if p["rally"] == "disorder"
                      else f" — SP {p['sp_before']}→{p['sp_after']}")
        elif p["result"] == "break":
            effect = " — removed from play"
        moved = f"{p['from']}→{p['square']}" if p["from"] != p["square"] else p["square"]
        head = (f"{p['leader']} ({moved}) rallies {p['unit']} for {p['rally']}: "
                f"{results[p['result']]}{effect}")
        return head + "\n  " + Roll.model_validate(p["roll"]).explain()
    if event_type == "turn_advanced":
        return f"turn {p['turn']}"
    if event_type == "sight_set":
        if p["ruling"] == "auto":
            return f"sight {p['a']}–{p['b']}: ruling removed, computed again ({p['why']})"
        return f"sight {p['a']}–{p['b']} ruled {p['ruling']} by the player (computed: {p['why']})"
    return event_type


def _describe_activation(p: Mapping[str, Any]) -> str:
    line = f"{p['who']} activates"
    if p["detached"]:
        line += f" (detaches from {', '.join(p['detached'])})" if p["role"] == "leader" else \
            f" ({', '.join(p['detached'])} detach)"
    recovery = p["recovery"]
    if recovery is None:
        return line
    if p["recovered"]:
        return line + ": recovers from disorder automatically — may fire but not move this " \
                      "activation"
    why = []
    if not recovery["no_enemy_adjacent"]:
        why.append(f"enemy adjacent ({', '.join(recovery['adjacent_enemies'])})")
    if not recovery["not_under_fire"]:
        why.append(f"under fire this turn ({', '.join(recovery['under_fire'])})")
    if not recovery["enough_sp"]:
        why.append(f"only {recovery['sp']} SP (needs more than {recovery['needs_more_than']})")
    return line + ": stays disordered — " + "; ".join(why)


RULESET = SquaresRuleset()
