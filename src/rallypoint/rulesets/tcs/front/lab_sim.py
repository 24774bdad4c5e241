"""TCS simulations: a battalion's whole rest through the scalar engine, and the vectorised runs.

The scalar engine plays the real rules: a shipped (or given) scenario becomes an in-memory
:class:`~rallypoint.core.campaign.Campaign`; a Recovery Op Sheet is written for the side's
formations; each turn the campaign advances and, once the Prepared Defense line allows, checks
implementation; when the sheet implements, every distribution is answered by a named policy
(``rebuild`` or ``heal_first``). Every roll goes through the rules' chance nodes with a
:class:`~rallypoint.lab.rollers.NumpyRoller`. Parameter variants go in through the scenario's
``[parameters]`` table, exactly as a player's scenario file would set them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.errors import DataFileError, MalformedInputError
from rallypoint.core.registry import get_ruleset
from rallypoint.dice import ScriptedRoller, fraction_text
from rallypoint.lab.kit import (
    Backend,
    Chunk,
    FloatArray,
    NumpyRoller,
    SimResult,
    as_float,
    concat,
    generator,
    make_chunks,
    run_chunks,
)
from rallypoint.rulesets.tcs.commands import AdvanceTurn, CheckImplementation, WriteSheet
from rallypoint.rulesets.tcs.data import Column, default_data
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.front.lab_interruptions import METRICS as INTERRUPTION_METRICS
from rallypoint.rulesets.tcs.front.lab_interruptions import Interruptions, check, interrupt
from rallypoint.rulesets.tcs.front.lab_kernel import (
    FoSpec,
    RecoveryArrays,
    RecoverySpec,
    exact_fo,
    fo_chance_ok,
    fo_chunk,
    recovery_chunk,
)
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import SheetStatus, TcsState
from rallypoint.session import Campaign, policy_named, start

SHEET = "rest"
FALLBACK_CENTER = "10.10"
"""Center for a company with nothing on the map and no sibling to share a center with."""

METRICS = ("implemented", "turns_to_implementation", "steps_rolled", "steps_back",
           "counters_back", "very_dead", "battalion_morale")
"""Per-run metrics of a battalion's rest (see :func:`rest_once`)."""

Progress = Callable[[int], None] | None


def tcs() -> ErasedRuleset:
    """The registered TCS ruleset."""
    return get_ruleset("tcs")


def scenario_path(name: str) -> Path:
    """A scenario file: a path, or the start of a shipped example's file name (``example1``)."""
    path = Path(name)
    if path.is_file():
        return path
    for shipped in tcs().example_scenarios():
        if shipped.stem.startswith(name):
            return shipped
    names = ", ".join(p.stem for p in tcs().example_scenarios())
    raise MalformedInputError(f"no scenario file {name!r}",
                              fix=f"Give a TCS scenario path or one of: {names}.")


@dataclass(frozen=True)
class RestSpec:
    """One battalion rest, as simulated (picklable: it travels to worker processes).

    Attributes:
        scenario: Path of the TCS scenario file.
        policy: Distribution policy name (``rebuild``, ``heal_first``).
        turns: Turns of rest; the sheet is checked each turn the table allows.
        size: Op Sheet size (row = command prep + size).
        parameters: ``[parameters]`` overrides (``odd_pile_limit = "ceil"``) and data paths
            (``recovery_table.inf = [5, 4, 3, 2, 1]``).
        interruptions: What may happen to the rest each turn (losses, forced off its center,
            FO deaths); nothing by default.
    """

    scenario: str
    policy: str = "rebuild"
    turns: int = 24
    size: int = 1
    parameters: dict[str, Any] = field(default_factory=dict)
    interruptions: Interruptions = field(default_factory=Interruptions)


def created(spec: RestSpec, seed: str = "lab") -> Campaign:
    """The campaign at its start: the spec's parameter overrides in its scenario, its data
    overrides (a table column, a number of the data file) in its rules data."""
    from rallypoint.lab.kit import created_with
    from rallypoint.rulesets.tcs.data import default_data_raw

    ruleset = tcs()
    scenario = ruleset.load_scenario(Path(spec.scenario))
    names = set(default_data_raw()["parameters"])
    return start(created_with(ruleset, scenario, spec.parameters, names, table_column, seed))


def table_column(data: Mapping[str, Any], name: str,
                 value: Any) -> list[tuple[list[str | int], Any]] | None:
    """``recovery_table.inf = [5, 4, 3, 2, 1]``: the steps of that column, one per row."""
    table, _, column = name.partition(".")
    if table != "recovery_table" or column not in data["recovery_table"]["columns"]:
        return None
    rows = data["recovery_table"]["rows"]
    if not isinstance(value, list) or len(value) != len(rows):
        raise DataFileError(f"{name!r} takes {len(rows)} step counts, one per row "
                            f"({', '.join(r['label'] for r in rows)})", where=name,
                            fix=f"Write it like {name}=" + ",".join(
                                str(r["steps"][0]) for r in rows) + ".")
    index = data["recovery_table"]["columns"].index(column)
    return [(["recovery_table", "rows", i, "steps", index], v) for i, v in enumerate(value)]


def sheet_command(state: TcsState, size: int, version: int) -> WriteSheet:
    """A sheet for every top-level formation of the first side, each company centered on its
    first counter on the map (else on a sibling's center, else a fallback hex)."""
    oob = state.oob
    side = oob.scenario.formations[0].side
    members = tuple(f.id for f in oob.scenario.formations if f.side == side and f.parent is None)
    centers: dict[str, str] = {}
    for member in members:
        companies = oob.companies_under(member)
        for company in companies:
            hexes = [h for i in state.in_pile(company, Pile.MAP) if (h := state.counters[i].hex)]
            if hexes:
                centers[company] = hexes[0]
        shared = next(iter(centers.values()), FALLBACK_CENTER)
        for company in companies:
            centers.setdefault(company, shared)
    return WriteSheet(expected_version=version, sheet=sheet_name(state), members=members,
                      centers=centers, size=size, attest=True)


def sheet_name(state: TcsState) -> str:
    """The simulated sheet's name: :data:`SHEET`, after the first side's ``sheet_prefix`` if
    the scenario gives one (a two-sided scenario names each side's sheets so)."""
    side = state.oob.scenario.formations[0].side
    prefix = next((s.sheet_prefix for s in state.oob.scenario.sides if s.id == side), None)
    return f"{prefix or ''}{SHEET}"


def prepared(spec: RestSpec) -> Campaign:
    """The campaign with the sheet written: every run of a chunk starts from here."""
    if spec.policy not in {p.name for p in tcs().policies()}:
        names = ", ".join(p.name for p in tcs().policies())
        raise MalformedInputError(f"no TCS policy {spec.policy!r}", fix=f"Use one of: {names}.")
    if spec.turns < 1:
        raise MalformedInputError(f"--turns {spec.turns}: rest for at least one turn",
                                  fix="Give --turns 1 or more.")
    c = created(spec)
    # Writing a sheet rolls nothing: an empty script would refuse any roll.
    c = c.execute(sheet_command(tcs_state(c), spec.size, c.version), ScriptedRoller([]))
    written = tcs_state(c)
    check(spec.interruptions, written, written.sheets[sheet_name(written)].companies)
    return c


def _checkable(state: TcsState) -> bool:
    sheet = state.sheets[sheet_name(state)]
    table = state.rules.implementation
    column = table.column(sheet.weighted_turns)
    return column is not None and table.needed(sheet.row, column) is not None


def _living_steps(state: TcsState, companies: tuple[str, ...]) -> int:
    return sum(state.counters[i].steps for c in companies for i in state.in_pile(c, Pile.MAP))


def rest_once(start_: Campaign, spec: RestSpec, roller: NumpyRoller) -> dict[str, float]:
    """One battalion rest from ``start_`` (sheet written): turns, checks, distributions.

    Returns:
        ``implemented`` (1/0); ``turns_to_implementation`` (NaN if not within the turns);
        ``steps_rolled`` (recovery table results); ``steps_back`` (living steps gained);
        ``counters_back`` (Dead → map); ``very_dead`` (counters newly Very Dead);
        ``battalion_morale`` (summed over the scenario's battalions, after the rest).
    """
    ruleset = start_.ruleset
    policy = policy_named(ruleset, spec.policy)
    c = start_
    name = sheet_name(tcs_state(c))
    implemented_at = math.nan
    tally = dict.fromkeys(INTERRUPTION_METRICS, 0.0)
    for turn in range(1, spec.turns + 1):
        # The other side's dead Soviet FOs (a two-sided scenario) are no part of this rest:
        # their whole-hour roll is let pass (``skip_fo`` changes nothing when none is due).
        c = c.execute(AdvanceTurn(expected_version=c.version, skip_fo=True), roller)
        if spec.interruptions.active():
            c = interrupt(c, name, spec.interruptions, roller, tally)
            if tcs_state(c).sheets[name].status is not SheetStatus.PENDING:
                break  # every company was forced off: the sheet is cancelled
        state = tcs_state(c)
        if not _checkable(state):
            continue
        columns = {k: Column.HWY for k in state.sheets[name].companies
                   if state.oob.fixed_column(k) is None}
        c = c.execute(CheckImplementation(expected_version=c.version, sheet=name,
                                          columns=columns), roller)
        if tcs_state(c).sheets[name].status is SheetStatus.IMPLEMENTED:
            implemented_at = turn
            break
    while decisions := ruleset.pending(c.state):
        c = c.execute(policy.decide(c.state, decisions[0], c.version), roller)
    before, after = tcs_state(start_), tcs_state(c)
    companies = before.sheets[name].companies
    ids = [i for k in companies for i in before.oob.counters_of[k]]
    extra = tally if spec.interruptions.active() else {}
    return {
        **extra,
        "implemented": float(not math.isnan(implemented_at)),
        "turns_to_implementation": implemented_at,
        "steps_rolled": float(sum(r.steps for r in after.recoveries)),
        "steps_back": float(_living_steps(after, companies) - _living_steps(before, companies)),
        "counters_back": float(sum(before.counters[i].pile is Pile.DEAD
                                   and after.counters[i].pile is Pile.MAP for i in ids)),
        "very_dead": float(sum(before.counters[i].pile is not Pile.VERY_DEAD
                               and after.counters[i].pile is Pile.VERY_DEAD for i in ids)),
        "battalion_morale": float(sum(after.morale.values())),
    }


def rest_chunk(chunk: Chunk) -> dict[str, FloatArray]:
    """Worker: ``chunk.runs`` battalion rests with the chunk's own generator."""
    spec: RestSpec = chunk.spec
    begin = prepared(spec)
    roller = NumpyRoller(generator(chunk.seed))
    rows = [rest_once(begin, spec, roller) for _ in range(chunk.runs)]
    return {m: as_float([r[m] for r in rows]) for m in metrics_of(spec)}


def metrics_of(spec: RestSpec) -> tuple[str, ...]:
    """The rest's metrics, with the interruption counts when any interruption is on."""
    return METRICS + (INTERRUPTION_METRICS if spec.interruptions.active() else ())


def simulate_rest(spec: RestSpec, runs: int, entropy: int, chunks: int, backend: Backend,
                  progress: Progress = None) -> SimResult:
    """Many battalion rests under one parameter set."""
    begin = prepared(spec)  # validate everything here, before any worker starts
    begun = tcs_state(begin)
    row = begun.sheets[sheet_name(begun)].row
    parts = run_chunks(rest_chunk, make_chunks(spec, runs, entropy, chunks), backend, progress)
    return SimResult(
        simulation="tcs",
        parameters={"scenario": Path(spec.scenario).name, "policy": spec.policy,
                    "turns": spec.turns, "size": spec.size, "row": row,
                    "overrides": dict(spec.parameters),
                    "interruptions": {"loss": spec.interruptions.loss,
                                      "forced_off": spec.interruptions.forced_off,
                                      "fo_loss": spec.interruptions.fo_loss}},
        entropy=entropy, chunks=chunks, metrics=concat(parts),
        exact=exact_turns(begin, spec),
        notes=["each run plays the real TCS rules on its own copy of the campaign, the dice drawn "
               "from the seed",
               "battalion_morale is summed over the scenario's battalions"])


def exact_turns(begin: Campaign, spec: RestSpec) -> dict[str, Any]:
    """The exact law of ``turns_to_implementation`` (empty when a company may be forced off,
    which cancels the sheet at random).

    The weighted turns the sheet holds after each advance do not depend on any roll, so the
    campaign is advanced once (its dice do not matter here) and each turn's check is the d66
    chance of the cell the rules would read: the first success comes on turn t with probability
    ``p_t × Π_{s<t} (1 − p_s)``.
    """
    from fractions import Fraction

    from rallypoint.lab.kit import root_sequence
    from rallypoint.rulesets.tcs.recovery import implementation_chance

    if spec.interruptions.forced_off:
        return {}
    c, roller = begin, NumpyRoller(generator(root_sequence(0)))
    waiting, turns = Fraction(1), {}
    for turn in range(1, spec.turns + 1):
        c = c.execute(AdvanceTurn(expected_version=c.version, skip_fo=True), roller)
        state = tcs_state(c)
        if not _checkable(state):
            continue
        sheet = state.sheets[sheet_name(state)]
        table = state.rules.implementation
        column = table.column(sheet.weighted_turns)
        assert column is not None
        p = implementation_chance(table.needed(sheet.row, column))
        if waiting * p:
            turns[str(turn)] = fraction_text(waiting * p)
        waiting *= 1 - p
    return {"turns_to_implementation": turns, "not_within_turns": fraction_text(waiting)}


def simulate_recovery(spec: RecoverySpec, runs: int, entropy: int, chunks: int, backend: Backend,
                      progress: Progress = None) -> SimResult:
    """Vectorised company recovery rolls (and turns to implementation), beside the exact odds."""
    from rallypoint.rulesets.tcs.front import odds

    arrays = RecoveryArrays.from_rules(default_data())
    for column in spec.columns:
        arrays.column_index(column)  # refuse an unknown column before any work
    parts = run_chunks(recovery_chunk, make_chunks(spec, runs, entropy, chunks), backend,
                       progress)
    exact: dict[str, Any] = {"steps": {c: odds.tcs_recovery(spec.modifier)["columns"][c]
                                       for c in spec.columns}}
    if spec.row is not None:
        exact["implementation"] = odds.tcs_implementation(spec.row, 0, spec.per_turn, spec.turns)
    params: dict[str, Any] = {"modifier": spec.modifier, "columns": list(spec.columns)}
    if spec.row is not None:
        params.update(row=spec.row, per_turn=spec.per_turn, turns=spec.turns)
    return SimResult(simulation="tcs-recovery", parameters=params, entropy=entropy,
                     chunks=chunks, metrics=concat(parts), exact=exact,
                     notes=["a fast array version of the recovery rolls, over the data file's "
                            "recovery table"])


def simulate_fo(number: int, runs: int, entropy: int, chunks: int, backend: Backend,
                progress: Progress = None) -> SimResult:
    """Vectorised hours until a dead Soviet FO returns."""
    fo_chance_ok(number)
    parts = run_chunks(fo_chunk, make_chunks(FoSpec(number), runs, entropy, chunks), backend,
                       progress)
    return SimResult(simulation="tcs-fo", parameters={"number": number}, entropy=entropy,
                     chunks=chunks, metrics=concat(parts), exact=exact_fo(number),
                     notes=["a fast array version: 2d6 each whole hour until the FO returns"])


def check_parameters(overrides: Mapping[str, Any]) -> None:
    """Refuse unknown TCS parameters or values before any simulation starts."""
    from rallypoint.rulesets.tcs.data import resolve_data

    resolve_data(overrides)


__all__ = ["METRICS", "Interruptions", "RecoverySpec", "RestSpec", "fo_chance_ok", "rest_once",
           "simulate_fo", "simulate_recovery", "simulate_rest"]
