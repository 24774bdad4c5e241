"""Squares simulation: rally chains — a leader tests a unit again and again until it passes or
breaks.

Vectorised: each attempt is one die plus the modifier, read by the squares data's pass and break
thresholds (the rules' own reading); all chains still going roll together. Exact: a chain ends
on an attempt with probability ``q = P(pass) + P(break)``, so the attempts are geometric with
mean ``1/q`` and the chain ends in a pass with probability ``P(pass)/q``. Scalar check: the same
chain through the real squares rules and campaign (rally, and if nothing happened the next turn
and rally again), with a situation from a battle scenario naming every modifier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.errors import MalformedInputError
from rallypoint.core.registry import get_ruleset
from rallypoint.dice import D6, fraction_text
from rallypoint.lab.kit import (
    Backend,
    Chunk,
    FloatArray,
    NumpyRoller,
    SimResult,
    concat,
    generator,
    make_chunks,
    natural_values,
    run_chunks,
)
from rallypoint.rulesets.squares.data import RallyKind, RulesData, default_data
from rallypoint.rulesets.squares.events import Rallied
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.rally import (
    RallyPlan,
    RallyResult,
    modifier_node,
    plan_rally,
    reading,
)

if TYPE_CHECKING:
    from rallypoint.session import Campaign

PASS, BREAK = 1.0, 0.0
"""How a chain's ``passed`` metric records its end."""


def squares() -> ErasedRuleset:
    """The registered squares ruleset."""
    return get_ruleset("squares")


def attempt_odds(modifier: int, rules: RulesData | None = None) -> dict[RallyResult, Fraction]:
    """Exact chance of each result of one attempt (zero-probability results left out)."""
    rules = rules or default_data()
    return modifier_node(modifier).outcomes(reading(rules.thresholds))


def exact_chain(modifier: int) -> dict[str, Any]:
    """The chain's exact law: chance it ends in a pass, and the mean number of attempts."""
    odds = attempt_odds(modifier)
    p, b = odds.get(RallyResult.PASS, Fraction(0)), odds.get(RallyResult.BREAK, Fraction(0))
    ends = p + b
    return {"attempt": {r.value: fraction_text(x) for r, x in odds.items()},
            "passes": fraction_text(p / ends) if ends else None,
            "mean_attempts": float(1 / ends) if ends else None}


def check_modifier(modifier: int) -> None:
    """Refuse a modifier with which a chain never ends (every attempt 'no effect')."""
    odds = attempt_odds(modifier)
    if odds.get(RallyResult.NO_EFFECT) == 1:
        raise MalformedInputError(f"with modifier {modifier:+d} every rally has no effect: the "
                                  "chain would never end", fix="Give another modifier.")


def rally_chains(gen: np.random.Generator, modifier: int, count: int,
                 rules: RulesData | None = None, block: int = 16) -> dict[str, FloatArray]:
    """``count`` chains at once: attempts until each passes or breaks.

    Returns:
        ``attempts`` per chain and ``passed`` (1 pass, 0 break).
    """
    check_modifier(modifier)
    limits = (rules or default_data()).thresholds
    attempts = np.zeros(count, dtype=np.float64)
    passed = np.zeros(count, dtype=np.float64)
    going = np.arange(count)
    done = 0
    while len(going):
        totals = natural_values(gen, D6, (len(going), block)) + modifier
        ends = (totals >= limits.pass_at) | (totals <= limits.break_at)
        over = ends.any(axis=1)
        first = np.argmax(ends[over], axis=1)
        ended = going[over]
        attempts[ended] = done + first + 1
        passed[ended] = totals[over, first] >= limits.pass_at
        going = going[~over]
        done += block
    return {"attempts": attempts, "passed": passed}


@dataclass(frozen=True)
class ChainSpec:
    """A rally-chain simulation (picklable).

    Attributes:
        modifier: Total modifier of every attempt (vectorised engine).
        scenario: With ``leader`` and ``unit``, the battle the scalar engine plays.
        leader: Rallying leader (scalar engine).
        unit: Testing unit (scalar engine).
        kind: ``disorder`` or ``sp``.
        scalar: Run chains through the real rules and campaign instead of the kernel.
    """

    modifier: int = 0
    scenario: str | None = None
    leader: str | None = None
    unit: str | None = None
    kind: str = "disorder"
    scalar: bool = False


def scenario_path(name: str | None) -> Path:
    """A squares scenario: a path, else a shipped one by name (default: the first)."""
    shipped = list(squares().example_scenarios())
    if not name:
        return Path(shipped[0])
    path = Path(name)
    if path.is_file():
        return path
    for p in shipped:
        if p.stem.startswith(name):
            return Path(p)
    raise MalformedInputError(f"no scenario file {name!r}",
                              fix="Give a squares scenario path, or leave it out.")


def _kind(text: str) -> RallyKind:
    try:
        return RallyKind(text)
    except ValueError:
        raise MalformedInputError(f"no rally kind {text!r}",
                                  fix="Use --kind disorder or --kind sp.") from None


def situation(spec: ChainSpec) -> tuple[Campaign, RallyPlan]:
    """The campaign at the scenario's start and the rally plan for (leader, unit, kind).

    Raises:
        IllegalNowError: The rally is not allowed in that battle state (every reason listed).
    """
    from rallypoint.session import created_event, start

    if spec.leader is None or spec.unit is None:
        raise MalformedInputError("a situation needs both --leader and --unit",
                                  fix="e.g. --leader kempt --unit 28th.")
    c = start(created_event(squares(), scenario_path(spec.scenario), "simulation", seed="lab"))
    return c, plan_rally(squares_state(c), spec.leader, spec.unit, _kind(spec.kind))


def scalar_chain(start_: Campaign, spec: ChainSpec, roller: NumpyRoller, limit: int = 1000
                 ) -> tuple[float, float]:
    """One chain through the real rules: rally; on no effect, next turn and rally again."""
    from rallypoint.rulesets.squares.commands import NextTurn, Rally

    if spec.leader is None or spec.unit is None:
        raise MalformedInputError("a chain through the rules needs --leader and --unit",
                                  fix="e.g. --leader kempt --unit 28th.")
    c = start_
    for attempt in range(1, limit + 1):
        c = c.execute(Rally(expected_version=c.version, leader=spec.leader, unit=spec.unit,
                            rally=_kind(spec.kind)), roller)
        rallied = c.typed[-1]
        assert isinstance(rallied, Rallied)
        if rallied.result is not RallyResult.NO_EFFECT:
            return float(attempt), PASS if rallied.result is RallyResult.PASS else BREAK
        c = c.execute(NextTurn(expected_version=c.version), roller)
    return float("nan"), float("nan")


def chain_chunk(chunk: Chunk) -> dict[str, FloatArray]:
    """Worker: ``chunk.runs`` chains, vectorised or through the scalar engine."""
    spec: ChainSpec = chunk.spec
    gen = generator(chunk.seed)
    if not spec.scalar:
        return rally_chains(gen, spec.modifier, chunk.runs)
    start_, _ = situation(spec)
    roller = NumpyRoller(gen)
    rows = [scalar_chain(start_, spec, roller) for _ in range(chunk.runs)]
    return {"attempts": np.array([r[0] for r in rows]), "passed": np.array([r[1] for r in rows])}


def resolve(spec: ChainSpec) -> tuple[ChainSpec, list[dict[str, Any]]]:
    """The spec with its modifier taken from the situation when one is named, and the named
    modifiers (empty for a bare ``--modifier``)."""
    if spec.leader is None and spec.unit is None:
        if spec.scalar:
            raise MalformedInputError("the scalar engine needs a situation",
                                      fix="Give --leader and --unit (and --scenario).")
        return spec, []
    _, plan = situation(spec)
    named = [m.model_dump() for m in plan.node.modifiers]
    return ChainSpec(plan.node.modifier_total, spec.scenario, spec.leader, spec.unit, spec.kind,
                     spec.scalar), named


def simulate_chains(spec: ChainSpec, runs: int, entropy: int, chunks: int, backend: Backend,
                    progress: Callable[[int], None] | None = None) -> SimResult:
    """Many rally chains, beside the exact law of a chain."""
    spec, named = resolve(spec)
    check_modifier(spec.modifier)
    parts = run_chunks(chain_chunk, make_chunks(spec, runs, entropy, chunks), backend, progress)
    params: dict[str, Any] = {"modifier": spec.modifier,
                              "engine": "scalar" if spec.scalar else "vectorised"}
    if named:
        params.update(scenario=scenario_path(spec.scenario).name, leader=spec.leader,
                      unit=spec.unit, kind=spec.kind, modifiers=named)
    return SimResult(simulation="squares", parameters=params, entropy=entropy, chunks=chunks,
                     metrics=concat(parts), exact=exact_chain(spec.modifier),
                     notes=["a chain: rally tests on one unit until it passes or breaks"])
