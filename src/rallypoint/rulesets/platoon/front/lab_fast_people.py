"""The fast platoon kernel's men and tanks coming and going: arrivals (14.6), the lieutenant's
decisions answered by policy (14.6, 14.8), and the year (14.9).

Each function is the array form of the engine function it names, over every campaign at once;
where the engine sorts candidates, the kernel takes the minimum of the same sort key.
"""

from __future__ import annotations

import numpy as np

from rallypoint.rulesets.platoon.front.lab_fast_state import (
    BIG,
    COMMANDER,
    GUNNER,
    SERIAL,
    BoolArray,
    IntArray,
    Platoons,
    S,
    Tables,
    as_ints,
    draw_attributes,
)

WAITING_POLICIES = {"by_trade": False, "wait_for_depot": True}
"""The engine's policies, by whether an empty commander seat always waits (14.8's third answer)
rather than taking the crew's own best man (its first)."""


def land_men(p: Platoons, t: Tables, gen: np.random.Generator, day: int,
             every: bool = False) -> None:
    """``people.land_arrivals``: the men due this morning (or every one pending, at the year's
    end) land in filing order; 1d6 decides a transfer, drawn at campaign progress (14.6)."""
    window = p.req.shape[1]
    filed = [(f % window) for f in range(day - window + 1, day + 1)]
    pending = p.req[:, filed, :].reshape(p.runs, -1)
    due = pending > 0 if every else pending == day
    rows, cols = np.nonzero(due)
    if not len(rows):
        return
    first = np.searchsorted(rows, rows)
    rank = np.arange(len(rows)) - first
    on = t.n["replacements.transfer_on"]
    green = len(t.skill) - 1
    for k in range(int(rank.max()) + 1):
        pick = rank == k
        rr, cc = rows[pick], cols[pick]
        transfer = gen.integers(1, 7, size=len(rr)) >= on
        row = np.where(transfer, np.minimum(p.fought[rr], t.total_actions), green)
        skill, stead = draw_attributes(t, gen, row)
        p.pool_add(rr, cc % S, skill, stead)
    slots = np.array(filed)
    landed = due.reshape(p.runs, len(filed), -1)
    view = p.req[:, slots, :]
    view[landed] = 0
    p.req[:, slots, :] = view


def decide_all(p: Platoons, t: Tables, waits: bool) -> None:
    """``_decide_all`` with a policy: while a campaign has a decision pending, answer its first —
    a man to place, then a commander seat, then a park tank (``policies.pending``'s order)."""
    loss = t.n["cohesion.stranger_loss"]
    while True:
        empty = ~p.occ
        place = p.pocc.any(axis=1) & empty.any(axis=(1, 2))
        open_seat = empty[:, :, COMMANDER] & ~p.deferred
        command = ~place & open_seat.any(axis=1)
        tank = ~place & ~command & (p.park > 0) & (~p.has_tank).any(axis=1)
        if not (place.any() or command.any() or tank.any()):
            return
        if place.any():
            _place(p, np.flatnonzero(place), loss)
        if command.any():
            _commander(p, np.flatnonzero(command), open_seat, waits)
        if tank.any():
            rows = np.flatnonzero(tank)
            crew = np.argmax(~p.has_tank[rows], axis=1)
            p.has_tank[rows, crew] = True
            p.park[rows] -= 1


def _place(p: Platoons, rows: IntArray, loss: int) -> None:
    """``policies._place``: the first man waiting takes an empty seat of his trade, else any seat
    but a commander's, the commander's last; crews in order."""
    slot = np.argmin(np.where(p.pocc[rows], p.pser[rows], BIG), axis=1)
    trade = p.ptrade[rows, slot]
    crews = p.crews
    seat = np.arange(S)[None, None, :]
    crew = np.arange(crews)[None, :, None]
    key = ((seat != trade[:, None, None]) * 2 * crews * S + (seat == COMMANDER) * crews * S
           + crew * S + seat)
    key = np.where(p.occ[rows], BIG, key).reshape(len(rows), -1)
    best = np.argmin(key, axis=1)
    p.seat_from_pool(rows, slot, best // S, best % S, loss)


def _commander(p: Platoons, rows: IntArray, open_seat: BoolArray, waits: bool) -> None:
    """14.8 by policy: the crew's most skilled man steps up (a gunner first on a tie, then the
    earlier man), keeping everything he has; with none, or under ``wait_for_depot``, it waits."""
    crew = np.argmax(open_seat[rows], axis=1)
    if waits:
        p.deferred[rows, crew] = True
        return
    occ = p.occ[rows, crew, :]
    seat = np.arange(S)[None, :]
    key = ((1000 - p.skill[rows, crew, :]) * 2 * SERIAL + (seat != GUNNER) * SERIAL
           + p.ser[rows, crew, :])
    key = np.where(occ & (seat != COMMANDER), key, BIG)
    best = np.argmin(key, axis=1)
    has = key[np.arange(len(rows)), best] < BIG
    p.deferred[rows[~has], crew[~has]] = True
    if has.any():
        rr, cc = rows[has], crew[has]
        p.move(rr, cc, best[has], cc, np.full(len(rr), COMMANDER))


def year_end(p: Platoons, t: Tables, gen: np.random.Generator, day: int) -> None:
    """14.9, each step in the seed's order (``year.year_end``)."""
    n = t.n
    cap = n["year.skill_cap"]
    for skill, occ in ((p.skill, p.occ), (p.pskill, p.pocc)):
        skill[...] = np.where(occ, np.maximum(skill, np.minimum(cap, skill
                                                                 + n["year.skill_per_year"])),
                              skill)
    p.fat[...] = 0
    p.pfat[...] = 0
    p.coh[...] = np.maximum(p.coh, np.minimum(n["cohesion.cap"], p.coh + n["cohesion.per_year"]))
    p.morale[...] = np.maximum(p.morale, np.minimum(n["morale.cap"],
                                                    p.morale + n["morale.per_year"]))
    land_men(p, t, gen, day, every=True)
    _commanders(p, t, gen)
    _other_seats(p, t, gen)
    # Five new tanks (one per crew); everything else retires, and a tank on its way lands and
    # retires with them.
    p.has_tank[...] = True
    p.park[...] = 0
    p.tank_ring[...] = 0


def _commanders(p: Platoons, t: Tables, gen: np.random.Generator) -> None:
    """``year._commanders``: an empty commander seat takes the best man waiting (only a
    commander by trade under ``year.commanders_by_trade``, else a commander by trade first),
    else the platoon's best gunner, else (``year.naples_commanders``) a green
    commander from Naples."""
    loss = t.n["cohesion.stranger_loss"]
    naples_first = t.n.get("year.naples_commanders", 0) == 1
    by_trade = t.n.get("year.commanders_by_trade", 0) == 1
    green = len(t.skill) - 1
    everyone = np.arange(p.runs)
    for crew in range(p.crews):
        need = ~p.occ[:, crew, COMMANDER]
        # year._waiting_commanders: unassigned commanders only (year.commanders_by_trade), else
        # any unassigned man, commanders first.
        pool = p.pocc & (p.ptrade == COMMANDER) if by_trade else p.pocc
        waiting = need & pool.any(axis=1)
        if waiting.any():
            rr = everyone[waiting]
            key = np.where(pool[rr], ((p.ptrade[rr] != COMMANDER) * 2000
                                        + (1000 - p.pskill[rr])) * SERIAL + p.pser[rr], BIG)
            p.seat_from_pool(rr, np.argmin(key, axis=1), np.full(len(rr), crew),
                             np.full(len(rr), COMMANDER), loss)
        gunners = need & ~waiting & p.occ[:, :, GUNNER].any(axis=1)
        if gunners.any():
            rr = everyone[gunners]
            key = np.where(p.occ[rr, :, GUNNER], (1000 - p.skill[rr, :, GUNNER]) * SERIAL
                           + p.ser[rr, :, GUNNER], BIG)
            src = np.argmin(key, axis=1)
            to = np.full(len(rr), crew)
            p.move(rr, src, np.full(len(rr), GUNNER), to, np.full(len(rr), COMMANDER))
            stranger = rr[src != crew]
            p.coh[stranger, crew] = np.maximum(0, p.coh[stranger, crew] - loss)
        naples = everyone[need & ~waiting & ~gunners] if naples_first else everyone[:0]
        if len(naples):
            skill, stead = draw_attributes(t, gen, as_ints(np.full(len(naples), green)))
            p.pool_add(naples, as_ints(np.full(len(naples), COMMANDER)), skill, stead)
            slot = np.argmax(p.pocc[naples] & (p.pser[naples] == p.serial[naples, None] - 1),
                             axis=1)
            p.seat_from_pool(naples, slot, np.full(len(naples), crew),
                             np.full(len(naples), COMMANDER), loss)


def _other_seats(p: Platoons, t: Tables, gen: np.random.Generator) -> None:
    """``year._other_seats``: every other empty seat takes the best man of that trade waiting,
    else a green replacement from Naples."""
    loss = t.n["cohesion.stranger_loss"]
    everyone = np.arange(p.runs)
    green = len(t.skill) - 1
    for crew in range(p.crews):
        for seat in range(1, S):
            need = ~p.occ[:, crew, seat]
            if not need.any():
                continue
            same = p.pocc & (p.ptrade == seat)
            waiting = need & same.any(axis=1)
            if waiting.any():
                rr = everyone[waiting]
                key = np.where(same[rr], (1000 - p.pskill[rr]) * SERIAL + p.pser[rr], BIG)
                p.seat_from_pool(rr, np.argmin(key, axis=1), np.full(len(rr), crew),
                                 np.full(len(rr), seat), loss)
            naples = everyone[need & ~waiting]
            if len(naples):
                skill, stead = draw_attributes(t, gen, as_ints(np.full(len(naples), green)))
                p.pool_add(naples, as_ints(np.full(len(naples), seat)), skill, stead)
                slot = np.argmax(p.pocc[naples] & (p.pser[naples] == p.serial[naples, None] - 1),
                                 axis=1)
                p.seat_from_pool(naples, slot, np.full(len(naples), crew),
                                 np.full(len(naples), seat), loss)
