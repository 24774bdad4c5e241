"""The log's words for each squares event (a rally adds its roll line)."""

from __future__ import annotations

from rallypoint.rulesets.squares.data import RallyKind
from rallypoint.rulesets.squares.events import (
    Activated,
    Disordered,
    FiredUpon,
    Moved,
    Rallied,
    SightSet,
    SpLost,
    SquaresEvent,
    TurnAdvanced,
)
from rallypoint.rulesets.squares.rally import RallyResult

_RESULTS = {RallyResult.PASS: "PASSES", RallyResult.NO_EFFECT: "no effect",
            RallyResult.BREAK: "BREAKS"}


def describe(e: SquaresEvent) -> str:
    """One line for each squares event (a rally adds the roll line)."""
    if isinstance(e, Moved):
        carried = f" (with {', '.join(e.carried)})" if e.carried else ""
        return f"{e.who} moves {e.from_}→{e.to}{carried}"
    if isinstance(e, FiredUpon):
        what = "bombarded" if e.fire == "bombardment" else "targeted by ranged fire"
        return f"{e.unit} {what} on turn {e.turn}"
    if isinstance(e, SpLost):
        tail = "; destroyed: removed from play" if e.destroyed else (
            "; shaken" if e.shaken else "")
        return f"{e.unit} loses {e.sp} SP ({e.before}→{e.after}){tail}"
    if isinstance(e, Disordered):
        return f"{e.unit} is disordered"
    if isinstance(e, Activated):
        return _activation(e)
    if isinstance(e, Rallied):
        return _rally(e)
    if isinstance(e, TurnAdvanced):
        return f"turn {e.turn}"
    assert isinstance(e, SightSet)
    if e.ruling == "auto":
        return f"sight {e.a}–{e.b}: ruling removed, computed again ({e.why})"
    return f"sight {e.a}–{e.b} ruled {e.ruling} by the player (computed: {e.why})"


def _rally(e: Rallied) -> str:
    effect = ""
    if e.result is RallyResult.PASS:
        effect = (" — disorder removed" if e.rally is RallyKind.DISORDER
                  else f" — SP {e.sp_before}→{e.sp_after}")
    elif e.result is RallyResult.BREAK:
        effect = " — removed from play"
    moved = f"{e.from_}→{e.square}" if e.from_ != e.square else e.square
    head = (f"{e.leader} ({moved}) rallies {e.unit} for {e.rally.value}: "
            f"{_RESULTS[e.result]}{effect}")
    return head + "\n  " + e.roll.explain()


def _activation(e: Activated) -> str:
    line = f"{e.who} activates"
    if e.detached:
        line += f" (detaches from {', '.join(e.detached)})" if e.role == "leader" else \
            f" ({', '.join(e.detached)} detach)"
    recovery = e.recovery
    if recovery is None:
        return line
    if e.recovered:
        return line + ": recovers from disorder automatically — may fire but not move this " \
                      "activation"
    why = []
    if not recovery.no_enemy_adjacent:
        why.append(f"enemy adjacent ({', '.join(recovery.adjacent_enemies)})")
    if not recovery.not_under_fire:
        why.append(f"under fire this turn ({', '.join(recovery.under_fire)})")
    if not recovery.enough_sp:
        why.append(f"only {recovery.sp} SP (needs more than {recovery.needs_more_than})")
    return line + ": stays disordered — " + "; ".join(why)
