"""The TCS R&R ruleset as the core sees it (see :class:`rallypoint.core.ruleset.Ruleset`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from rallypoint.core.events import NewEvent
from rallypoint.core.ruleset import Command, Decision, PolicyInfo, parse_with
from rallypoint.dice import Roll, Roller
from rallypoint.rulesets.tcs import fold, rules
from rallypoint.rulesets.tcs.commands import (
    AdvanceTurn,
    CheckImplementation,
    TcsCommand,
    WriteSheet,
)
from rallypoint.rulesets.tcs.data import Column, resolve_data
from rallypoint.rulesets.tcs.distribution import POLICIES, options
from rallypoint.rulesets.tcs.scenario import Pile, load_scenario
from rallypoint.rulesets.tcs.state import SheetStatus, TcsState

_COMMANDS: TypeAdapter[Any] = TypeAdapter(TcsCommand)


def _roll_line(data: Mapping[str, Any] | None) -> str:
    return Roll.model_validate(data).explain() if data else ""


class TcsRuleset:
    """TCS R&R: Dead and Very Dead piles, Recovery Op Sheets, recovery table, FOs, morale."""

    name = "tcs"
    title = "TCS R&R (rest and recovery for the Tactical Combat Series)"

    def load_scenario(self, path: Path) -> dict[str, Any]:
        """Validate a scenario file; return its JSON-ready form."""
        return load_scenario(path).model_dump(mode="json")

    def rules_data(self, scenario: Mapping[str, Any]) -> dict[str, Any]:
        """The shipped data with the scenario's ``[parameters]`` applied."""
        return resolve_data(scenario.get("parameters") or {})

    def initial_state(self, scenario: Mapping[str, Any], rules_data: Mapping[str, Any]) -> TcsState:
        """The state when the campaign starts."""
        return fold.initial_state(scenario, rules_data)

    def parse_command(self, data: Mapping[str, Any]) -> Command:
        """A TCS command from JSON (``{"kind": "loss", ...}``)."""
        return parse_with(_COMMANDS, data, "tcs")

    def decide(self, state: TcsState, command: Command, roller: Roller) -> NewEvent:
        """Validate and resolve a command into its event."""
        return rules.decide(state, command, roller)

    def apply(self, state: TcsState, event_type: str, payload: Mapping[str, Any]) -> TcsState:
        """Fold an event (pure)."""
        return fold.apply(state, event_type, payload)

    def pending(self, state: TcsState) -> list[Decision]:
        """Distributions waiting for the player, one per company with recovered steps."""
        decisions = []
        for recovery in state.pending_recoveries():
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

    def policies(self) -> Sequence[PolicyInfo]:
        """``rebuild`` (default; reproduces the worked examples) and ``heal_first``."""
        def wrap(name: str) -> Any:
            def decide(state: TcsState, decision: Decision, version: int) -> Command:
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

    def state_json(self, state: TcsState) -> dict[str, Any]:
        """JSON view of the state."""
        return fold.state_json(state)

    def describe(self, event_type: str, payload: Mapping[str, Any]) -> str:
        """One line (plus roll lines) for the log."""
        p = payload
        if event_type == "loss":
            note = f" — {p['note']}" if p["note"] else ""
            return f"{p['counter']} loses {p['steps']} step(s) ({p['cause']}){note}"
        if event_type == "moved":
            extra = f"; leaves its center: {p['left_center']['very_dead']} Very Dead" \
                if p["left_center"] else ""
            return f"{p['counter']} moves to {p['hex']}{extra}"
        if event_type == "left_center":
            return (f"{p['company']} leaves sheet {p['sheet']} ({p['cause']}); Very Dead: "
                    f"{', '.join(p['very_dead']) or 'none'}")
        if event_type == "sheet_written":
            centers = ", ".join(f"{k} at {v}" for k, v in p["centers"].items())
            return (f"Recovery Op Sheet {p['sheet']} written: {centers}; row {p['row']} "
                    f"(prep {p['command_prep']} + size {p['size']})")
        if event_type == "turn_advanced":
            acc = "; ".join(f"{a['sheet']} +{a['added']} ({a['reason']}) = {a['total']}"
                            for a in p["accruals"])
            return f"turn {p['turn']} ({p['clock'][11:16]}{', night' if p['night'] else ''})" + (
                f": {acc}" if acc else "")
        if event_type == "implementation_checked":
            head = (f"{p['sheet']} implementation check: {p['weighted_turns']} weighted turns, "
                    f"row {p['row']} column {p['column']} needs {p['needed']} — "
                    f"{'IMPLEMENTS' if p['implemented'] else 'misses'}")
            lines = [head, "  " + _roll_line(p["roll"])]
            for r in p["recoveries"]:
                lines.append("  " + (_roll_line(r["roll"]) if r["roll"] else
                                     f"{r['company']}: nothing to recover, no roll"))
            lines += ["  " + _roll_line(m["roll"]) + f" (morale {m['before']}→{m['after']})"
                      for m in p["morale"]]
            return "\n".join(lines)
        if event_type == "distributed":
            parts = [f"heal {p['heal']}" if p["heal"] else "",
                     f"resurrect {p['resurrect']}" if p["resurrect"] else "",
                     f"Very Dead {p['very_dead']}" if p["very_dead"] else "",
                     f"{p['unspent']} unspent" if p["unspent"] else ""]
            lines = [f"{p['company']} distributes {p['steps']} step(s): "
                     + ("; ".join(x for x in parts if x) or "nothing")]
            lines += ["  " + _roll_line(m["roll"]) + f" (morale {m['before']}→{m['after']})"
                      for m in p["morale"]]
            return "\n".join(lines)
        if event_type == "morale_set":
            return f"{p['formation']} battalion morale {p['before']}→{p['value']} {p['reason']}"
        if event_type == "fo_rolled":
            return "\n".join([f"FO recovery (number {p['number']})"] +
                             ["  " + _roll_line(r["roll"]) for r in p["rolls"]])
        return event_type

    def rolls(self, payload: Mapping[str, Any]) -> list[Roll]:
        """Every roll stored in an event's payload, in the order they were rolled."""
        found: list[Any] = [payload.get("roll")]
        found += [r.get("roll") for r in payload.get("recoveries", [])]
        found += [r.get("roll") for r in payload.get("rolls", [])]
        found += [m.get("roll") for m in payload.get("morale", [])]
        return [Roll.model_validate(r) for r in found if r]

    def example_scenarios(self) -> Sequence[Path]:
        """The two worked examples' orders of battle."""
        root = resources.files("rallypoint.rulesets.tcs").joinpath("scenarios")
        return [Path(str(root.joinpath(n))) for n in ("example1_tolvajarvi.toml",
                                                       "example2_lechanowka.toml")]

    def conformance_commands(self, state: TcsState, version: int) -> Command | None:
        """Write one sheet for the first formation, advance turns, check, distribute."""
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
            return WriteSheet(expected_version=version, sheet="conformance", members=(first.id,),
                              centers=centers, size=0, attest=True)
        sheet = state.sheets["conformance"]
        if sheet.status is not SheetStatus.PENDING or state.turn > 40:
            return None
        if sheet.last_check_turn == state.turn or sheet.weighted_turns == 0:
            return AdvanceTurn(expected_version=version)
        return CheckImplementation(expected_version=version, sheet="conformance", columns={
            c: Column.HWY for c in sheet.companies if state.oob.fixed_column(c) is None})







RULESET = TcsRuleset()
