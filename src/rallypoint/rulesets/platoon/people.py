"""Men and tanks coming and going: replacements (14.6), placing men, the commander's seat (14.8),
giving park tanks to crews."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from rallypoint.core.errors import IllegalNowError, MalformedInputError, UnknownIdError
from rallypoint.core.suggest import did_you_mean
from rallypoint.dice import fraction_text
from rallypoint.errors import Hint
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.data import ATTRIBUTES
from rallypoint.rulesets.platoon.fixes import FixKind, fix
from rallypoint.rulesets.platoon.model import (
    Man,
    PlatoonState,
    Request,
    Seat,
    Status,
    Tank,
    TankStatus,
)
from rallypoint.rulesets.platoon.section9 import Hooks


def next_name(state: PlatoonState) -> tuple[PlatoonState, str]:
    """The next surname from the list (numbered after the list runs out) that no man of the
    platoon bears or has borne: a given roster may already use a name of the list, and two men
    answering to one name would make every command naming him ambiguous."""
    names = state.rules.names.surnames
    taken = {_surname(m.name) for m in state.men.values()}
    n = state.names_used
    while True:
        name = names[n % len(names)] + ("" if n < len(names) else f" {n // len(names) + 1}")
        n += 1
        if _surname(name) not in taken:
            return replace(state, names_used=n), name


def _surname(name: str) -> str:
    """A man's name compared as a surname: its last word, in any case (``Sgt. Baker`` is
    Baker); a numbered list name (``Adams 2``) is compared whole."""
    words = name.casefold().split()
    if len(words) > 1 and words[-1].isdigit():
        return " ".join(words[-2:])
    return words[-1] if words else ""


def fresh_id(state: PlatoonState, prefix: str) -> tuple[PlatoonState, str]:
    """A new man or tank id (``m026``, ``t031``) that no man or tank already has."""
    serial = state.serial
    while f"{prefix}{serial:03d}" in state.men or f"{prefix}{serial:03d}" in state.tanks:
        serial += 1
    return replace(state, serial=serial + 1), f"{prefix}{serial:03d}"


def tank_name(state: PlatoonState) -> str:
    """The first name on the list that no tank of the platoon bears or has borne (numbered once
    every name has been used), so two tanks never answer to one name."""
    taken = {t.name for t in state.tanks.values()}
    names = state.rules.names.tanks
    round_ = 1
    while True:
        for name in names:
            candidate = name if round_ == 1 else f"{name} {round_}"
            if candidate not in taken:
                return candidate
        round_ += 1


def new_man(state: PlatoonState, trade: Seat, progress: Fraction, dice: pd.Recorder,
            why: str, transfer: bool = False) -> tuple[PlatoonState, Man]:
    """A man drawn from section 8's columns at ``progress`` (0: a green man from the depot)."""
    state, name = next_name(state)
    values: dict[str, int] = {}
    for attribute in ATTRIBUTES:
        column = state.rules.section8[attribute]
        clamp = attribute != "age"
        law = {str(v): p for v, p in pd.attribute_odds(column, progress, clamp).items()}
        r = dice.roll(pd.attribute_node(f"{why}: {name}'s {attribute}"),
                      reading=lambda t, c=column, k=clamp: str(  # type: ignore[misc]
                          pd.attribute_value(c, progress, t, k)), law=law)
        values[attribute] = int(r.outcome)
    state, man_id = fresh_id(state, "m")
    man = Man(id=man_id, name=name, age=values["age"], trade=trade,
              skill=values["skill"], traits={"nerve": values["nerve"],
                                              "initiative": values["initiative"]},
              steadiness=values["steadiness"], transfer=transfer)
    return state.with_man(man), man


def file_request(state: PlatoonState, kind: str, trade: Seat | None, reason: str,
                 dice: pd.Recorder, lieutenant: bool = False) -> PlatoonState:
    """File a request with the depot for a trade (not a seat) or a tank; roll its delay."""
    rules = state.rules
    who = "man" if kind == "man" else "tank"
    base = rules.n("replacements", f"{who}_days_base")
    sides = rules.n("replacements", f"{who}_days_die")
    what = trade.value if trade else "tank"
    odds = pd.delay_odds(base, sides)
    r = dice.roll(pd.delay_node(f"{what} requested ({reason}): days until he arrives"
                                if kind == "man" else f"replacement tank ({reason}): days", sides),
                  reading=lambda v: f"{base + v} days",
                  odds=lambda _: ", ".join(f"{d}d {fraction_text(p)}" for d, p in odds.items()))
    # The serial, not the number pending: a landed request's id must never be handed out again.
    request = Request(id=f"r{state.filed + 1:03d}", kind=kind, trade=trade,
                      filed_day=state.day, arrival_day=state.day + base + r.natural,
                      reason=reason, lieutenant=lieutenant)
    return replace(state, requests=(*state.requests, request), filed=state.filed + 1)


def land_arrivals(state: PlatoonState, dice: pd.Recorder, every: bool = False) -> PlatoonState:
    """Requests due today (or all of them, at the year's end) land: men wait unassigned, tanks
    wait in the park."""
    due = [r for r in state.requests if every or r.arrival_day <= state.day]
    on = state.rules.n("replacements", "transfer_on")
    chance = fraction_text(pd.transfer_node("").probability(lambda v: v >= on))
    state = replace(state, requests=tuple(r for r in state.requests if r not in due))
    for request in due:
        if request.kind == "tank":
            state, tank_id = fresh_id(state, "t")
            tank = Tank(id=tank_id, name=tank_name(state), status=TankStatus.PARK)
            state = state.with_tank(tank)
            continue
        assert request.trade is not None
        r = dice.roll(pd.transfer_node(f"{request.trade.value} arriving: from another unit?"),
                      reading=lambda v: "transfer" if v >= on else "depot",
                      odds=lambda _: f"P(transfer) = {chance}")
        progress = state.progress if r.outcome == "transfer" else Fraction(0)
        state, man = new_man(state, request.trade, progress, dice,
                             "transfer" if r.outcome == "transfer" else "depot replacement",
                             transfer=r.outcome == "transfer")
        state = state.with_man(replace(man, lieutenant=request.lieutenant))
    return state


def _matches(text: str, entries: list[tuple[str, str]]) -> list[str]:
    """Ids whose id or name is ``text`` (any case), else whose name it begins, uniquely or not."""
    word = " ".join(text.split()).casefold()
    exact = [i for i, name in entries if word in (i.casefold(), name.casefold())]
    if exact:
        return list(dict.fromkeys(exact))
    return list(dict.fromkeys(i for i, name in entries if name.casefold().startswith(word)))


def _pick(state: PlatoonState, text: str, what: str, entries: list[tuple[str, str]],
          label: dict[str, str]) -> str:
    import difflib

    found = _matches(text, entries)
    if len(found) == 1:
        return found[0]
    if found:
        raise MalformedInputError(
            f"{text!r} could be {' or '.join(label[i] for i in found[:6])}",
            fix=f"Give more of the {what}'s name, or its id.")
    words = [name for _, name in entries] + [i for i, _ in entries]
    near = difflib.get_close_matches(text, words, n=3, cutoff=0.6)
    hint = f"Did you mean {' or '.join(near)}? " if near else ""
    raise UnknownIdError(f"no {what} {text!r} in this platoon",
                         fix=fix(FixKind.PICK_NAME_OR_ID).led(hint),
                         instead=Hint.PICK_ID)


def find_man(state: PlatoonState, text: str) -> str:
    """The id of the man ``text`` names: his id or name (any case), or a prefix of the name no
    other man shares; men still with the platoon are preferred to the dead and evacuated.

    Raises:
        UnknownIdError: No such man (with the nearest names).
        MalformedInputError: The prefix fits several men (they are listed).
    """
    here = [m for m in state.men.values() if m.status not in (Status.KILLED, Status.EVACUATED)]
    pool = here if _matches(text, [(m.id, m.name) for m in here]) else list(state.men.values())
    return _pick(state, text, "man", [(m.id, m.name) for m in pool],
                 {m.id: f"{m.name} ({m.id})" for m in pool})


def find_tank(state: PlatoonState, text: str) -> str:
    """The id of the tank ``text`` names: its id or name (any case), or a unique prefix of the
    name; tanks still with the platoon are preferred to retired and written-off ones (a new
    tank may carry its predecessor's name, 14.9).

    Raises:
        UnknownIdError: No such tank.
        MalformedInputError: The prefix fits several tanks.
    """
    gone = (TankStatus.RETIRED, TankStatus.WRITTEN_OFF)
    here = [t for t in state.tanks.values() if t.status not in gone]
    pool = here if _matches(text, [(t.id, t.name) for t in here]) else list(state.tanks.values())
    return _pick(state, text, "tank", [(t.id, t.name) for t in pool],
                 {t.id: f"{t.name} ({t.id})" for t in pool})


SEAT_WORDS: dict[str, Seat] = {
    **{seat.value: seat for seat in Seat},
    **{seat.value.replace("_", " "): seat for seat in Seat},
    **{seat.value.replace("_", "-"): seat for seat in Seat},
    "cmdr": Seat.COMMANDER, "gunr": Seat.GUNNER, "ldr": Seat.LOADER, "drvr": Seat.DRIVER,
    "asst": Seat.ASSISTANT_DRIVER, "co-driver": Seat.ASSISTANT_DRIVER,
    "bow gunner": Seat.ASSISTANT_DRIVER,
}
"""Words a player may use for a seat: its name (``_``, space or ``-``), the roster's short form."""


def find_seat(text: str) -> Seat:
    """The seat ``text`` names, in any case (``Gunner``, ``gunr``, ``assistant driver``).

    Raises:
        UnknownIdError: No such seat (the nearest seat names are suggested).
    """
    word = " ".join(text.split()).casefold()
    if word in SEAT_WORDS:
        return SEAT_WORDS[word]
    raise UnknownIdError(f"no seat {text!r} in a Sherman",
                         fix=f"{did_you_mean(word, [s.value for s in Seat])}Use one of: "
                             f"{', '.join(s.value for s in Seat)}.")


def find_crew(state: PlatoonState, text: str) -> str:
    """The id of the crew ``text`` names: its id (any case), or its tank's name or the start of
    it when no other crew's tank begins the same way (``1``, ``Avenger``, ``av``).

    Raises:
        UnknownIdError: No such crew (the crews are listed, with the nearest).
        MalformedInputError: The tank-name prefix fits several crews.
    """
    found = [i for i in state.crews if i.casefold() == text.strip().casefold()]
    if len(found) == 1:
        return found[0]
    named = [(c.id, state.tanks[c.tank].name) for c in state.crews.values() if c.tank]
    by_tank = _matches(text, named)
    if len(by_tank) == 1:
        return by_tank[0]
    if by_tank:
        raise MalformedInputError(
            f"{text!r} could be crew {' or '.join(by_tank)}",
            fix="Give more of the tank's name, or the crew's id.")
    hint = did_you_mean(text, [*state.crews, *(name for _, name in named)])
    raise UnknownIdError(f"no crew {text!r}",
                         fix=f"{hint}Use one of: {', '.join(state.crews)} (or its tank's name).")


def _man(state: PlatoonState, man_id: str) -> Man:
    if man_id not in state.men:
        raise UnknownIdError(f"no man {man_id!r} in this platoon",
                             fix=fix(FixKind.PICK_MAN),
                             instead=Hint.PICK_ID)
    return state.men[man_id]


def _crew_id(state: PlatoonState, crew_id: str) -> str:
    if crew_id not in state.crews:
        raise UnknownIdError(f"no crew {crew_id!r}",
                             fix=f"Use one of: {', '.join(state.crews)}.")
    return crew_id


def seat_man(state: PlatoonState, man: Man, crew_id: str, seat: Seat, hooks: Hooks,
             stranger: bool) -> PlatoonState:
    """Put ``man`` in a seat; a stranger costs the receiving crew cohesion (9.6, 14.6)."""
    crew = state.crews[crew_id]
    cohesion = hooks.cohesion_after_stranger(crew.cohesion, state.rules) if stranger \
        else crew.cohesion
    state = state.with_crew(replace(crew, seats={**crew.seats, seat: man.id}, cohesion=cohesion))
    moved = man.crew != crew_id
    return state.with_man(replace(man, status=Status.SERVING, crew=crew_id, seat=seat,
                                  years_with_crew=0 if moved else man.years_with_crew,
                                  stayed=man.stayed and not moved))


def vacate(state: PlatoonState, man: Man) -> PlatoonState:
    """Empty the seat a man holds (the crew he leaves keeps its cohesion, 14.8)."""
    if man.crew is None or man.seat is None:
        return state
    crew = state.crews[man.crew]
    return state.with_crew(replace(crew, seats={**crew.seats, man.seat: None}))


def place(state: PlatoonState, man_id: str, crew_id: str, seat: Seat, hooks: Hooks) -> PlatoonState:
    """The lieutenant places an unassigned man in an empty seat (14.6)."""
    man = _man(state, man_id)
    _crew_id(state, crew_id)
    if man.status is not Status.UNASSIGNED:
        raise IllegalNowError(f"{man.name} ({man_id}) is not waiting to be placed",
                              fix="Place a man listed as unassigned.")
    if state.crews[crew_id].seats[seat] is not None:
        raise IllegalNowError(f"crew {crew_id}'s {seat.value} seat is not empty",
                              fix="Choose an empty seat.")
    return seat_man(state, man, crew_id, seat, hooks, stranger=True)


def fill_commander(state: PlatoonState, crew_id: str, man_id: str, hooks: Hooks) -> PlatoonState:
    """14.8: the crew's own man, or another crew's non-commander, takes an empty commander seat.

    The man keeps his skill, steadiness and trust exactly; his old seat empties. A man from another
    crew is a stranger to the receiving crew; the crew he left keeps its cohesion.
    """
    _crew_id(state, crew_id)
    man = _man(state, man_id)
    if state.crews[crew_id].seats[Seat.COMMANDER] is not None:
        raise IllegalNowError(f"crew {crew_id} has a commander",
                              fix="Fill only an empty commander seat.")
    if man.status is not Status.SERVING:
        raise IllegalNowError(f"{man.name} is not serving in a crew",
                              fix=fix(FixKind.PLACE_FIRST), instead="place")
    if man.seat is Seat.COMMANDER:
        raise IllegalNowError(f"{man.name} commands crew {man.crew}: another crew's commander "
                              "cannot be brought over", fix="Choose a man who is not a commander.")
    stranger = man.crew != crew_id
    return seat_man(vacate(state, man), man, crew_id, Seat.COMMANDER, hooks, stranger)


def assign_tank(state: PlatoonState, tank_id: str, crew_id: str) -> PlatoonState:
    """Give a tank waiting in the park to a crew without one (14.6)."""
    _crew_id(state, crew_id)
    tank = state.tanks.get(tank_id)
    if tank is None or tank.status is not TankStatus.PARK:
        raise IllegalNowError(f"{tank_id!r} is not waiting in the park",
                              fix=f"Use one of: {', '.join(t.id for t in state.park()) or 'none'}.")
    if state.crews[crew_id].tank is not None:
        raise IllegalNowError(f"crew {crew_id} already has a tank",
                              fix="Give park tanks to crews without one.")
    state = state.with_tank(replace(tank, status=TankStatus.WITH_CREW, crew=crew_id,
                                    return_day=None, own_crew=crew_id))
    return state.with_crew(replace(state.crews[crew_id], tank=tank_id))
