"""The offline audit: every ruleset's playthrough rolled with dice-v1 re-checks die by die, and
every way of cheating that the scheme is meant to expose is reported."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.campaign import Campaign, created_event, read_event, start, stored_rolls
from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.events import Created, EventRecord, NewEvent
from rallypoint.core.registry import registered
from rallypoint.dice import ScriptedRoller, SeededRoller, v1
from rallypoint.dice.audit import Auditor, audit, logical_position, sides_of
from rallypoint.dice.play import roller_for, with_proof
from rallypoint.dice.report import DiceReport, Verdict
from rallypoint.rulesets.squares.events import Rallied

SECRET = hashlib.sha256(b"audit test secret").digest()
CASES = [(name, path) for name, ruleset in registered().items()
         for path in ruleset.example_scenarios()]


SQUARES_ROLLS = stored_rolls(registered()["squares"])


def server_created(ruleset: ErasedRuleset, scenario: Path) -> NewEvent:
    created = created_event(ruleset, scenario, "audit", seed="unused").event
    assert isinstance(created, Created)
    dice = v1.ServerCommitment(commitment=v1.commitment(SECRET)).model_dump()
    return NewEvent.of(created.model_copy(update={"seed": None, "dice": dice}))


def decide(c: Campaign, command: Any, script: list[int] | None = None) -> NewEvent:
    roller = roller_for(c.events, command.model_dump(mode="json"), secret=SECRET,
                        script=ScriptedRoller(script) if script is not None else None)
    return with_proof(c.decide(command, roller), roller)


def playthrough(name: str, scenario: Path) -> Campaign:
    ruleset: ErasedRuleset = registered()[name]
    c = start(server_created(ruleset, scenario))
    while (command := ruleset.conformance_commands(c.state, c.version)) is not None:
        c = c.record(decide(c, command))
    return c


def check(c: Campaign, secret: bytes | None = SECRET) -> DiceReport:
    return audit(c.events, lambda e: c.rolls(e.seq), None if secret is None else secret.hex())


@pytest.mark.parametrize(("name", "scenario"), CASES, ids=[f"{n}:{p.stem}" for n, p in CASES])
def test_every_roll_of_a_playthrough_verifies(name: str, scenario: Path) -> None:
    c = playthrough(name, scenario)
    report = check(c)
    assert report.ok, report.events
    assert report.count(Verdict.VERIFIED) > 0
    assert report.count(Verdict.VERIFIED) == sum(
        len(r.faces) for e in c.events for r in c.rolls(e.seq))
    # Without the secret the rolls are committed, not yet checkable — never "verified".
    hidden = check(c, None)
    assert hidden.ok and hidden.count(Verdict.VERIFIED) == 0
    assert hidden.count(Verdict.COMMITTED) == report.count(Verdict.VERIFIED)


def rolling_campaign() -> tuple[Campaign, int]:
    c = playthrough("squares", registered()["squares"].example_scenarios()[0])
    seq = next(e.seq for e in c.events if c.rolls(e.seq))
    return c, seq


def edited(c: Campaign, seq: int, change: Callable[[Rallied], Rallied]) -> list[EventRecord]:
    """The log with event ``seq`` (a rally) changed and the chain re-hashed after it (what a
    re-hashing opponent does: the chain alone then looks intact)."""
    records = list(c.events)
    out = records[:seq - 1]
    for record in records[seq - 1:]:
        payload = _changed(c, seq, change) if record.seq == seq else record.payload
        out.append(EventRecord.seal(record.campaign_id, record.seq,
                                    NewEvent(type=record.type, payload=payload),
                                    out[-1].hash, record.recorded_at))
    return out


def _changed(c: Campaign, seq: int, change: Callable[[Rallied], Rallied]) -> dict[str, Any]:
    # As stored (the proof is joined to the payload after the rules decided the event).
    event = read_event(c.ruleset, c.events[seq - 1])
    assert isinstance(event, Rallied)
    return change(event).payload()


def test_an_edited_face_is_caught_even_when_the_chain_is_rehashed() -> None:
    c, seq = rolling_campaign()

    def better_roll(event: Rallied) -> Rallied:
        faces = tuple(6 if f != 6 else 5 for f in event.roll.faces)
        proof = dict(event.dice_proof or {})
        proof["tape"] = [[s, 6 if f != 6 else 5] for s, f in proof["tape"]]
        return event.model_copy(update={"roll": event.roll.model_copy(update={"faces": faces}),
                                        "dice_proof": proof})

    report = audit(edited(c, seq, better_roll), stored_rolls(c.ruleset), SECRET.hex())
    assert not report.ok
    failed = [e for e in report.events if e.verdict is Verdict.FAILED]
    assert failed[0].seq == seq and "dice-v1 gives" in failed[0].reason


def test_faces_that_differ_from_the_tape_are_caught() -> None:
    c, seq = rolling_campaign()

    def roll_only(event: Rallied) -> Rallied:
        faces = tuple(7 - f for f in event.roll.faces)
        return event.model_copy(update={"roll": event.roll.model_copy(update={"faces": faces})})

    report = audit(edited(c, seq, roll_only), stored_rolls(c.ruleset), SECRET.hex())
    assert [e.reason for e in report.events if e.verdict is Verdict.FAILED] == [
        "the faces stored in the event are not the faces on the proof's tape"]


@pytest.mark.parametrize("label", ["2d", "1d6x", "d6", "d65", "1d0", "0d6", ""])
def test_a_dice_label_edited_into_no_dice_fails_its_event(label: str) -> None:
    """A stored roll's label that reads as no dice fails the event it is in, one reason, and
    does not stop the audit (found by the red-team fuzz: ``2d6`` cut to ``2d`` raised a
    ValueError out of ``import``)."""
    c, seq = rolling_campaign()

    def relabel(event: Rallied) -> Rallied:
        return event.model_copy(update={"roll": event.roll.model_copy(update={"dice": label})})

    report = audit(edited(c, seq, relabel), stored_rolls(c.ruleset), SECRET.hex())
    assert [(e.seq, e.reason) for e in report.events if e.verdict is Verdict.FAILED] == [
        (seq, "a stored roll's dice label reads as no dice (edited?)")]


@pytest.mark.parametrize(("label", "sides"), [("1d6", 6), ("2d6", 6), ("3d10", 10), ("d66", 6)])
def test_a_dice_label_names_its_sides(label: str, sides: int) -> None:
    c, seq = rolling_campaign()
    roll = next(iter(c.rolls(seq))).model_copy(update={"dice": label})
    assert sides_of(roll) == sides


def test_a_stripped_proof_and_a_moved_proof_are_caught() -> None:
    c, seq = rolling_campaign()
    stripped = audit(edited(c, seq, lambda e: e.model_copy(update={"dice_proof": None})),
                     stored_rolls(c.ruleset), SECRET.hex())
    assert "without a dice-v1 proof" in stripped.events[0].reason
    moved = audit(edited(c, seq, lambda e: e.model_copy(
        update={"dice_proof": {**(e.dice_proof or {}), "position": 99}})),
                  stored_rolls(c.ruleset), SECRET.hex())
    assert not moved.ok and "position 99" in moved.events[0].reason


def test_a_wrong_secret_is_refused_before_any_roll() -> None:
    c, _ = rolling_campaign()
    with pytest.raises(Exception, match="does not match the commitment"):
        audit(c.events, stored_rolls(c.ruleset), bytes(32).hex())


def test_undo_then_retry_sees_the_same_dice() -> None:
    ruleset = registered()["squares"]
    c = start(server_created(ruleset, ruleset.example_scenarios()[0]))
    rolled: list[Any] = []
    while not rolled:
        next_command = ruleset.conformance_commands(c.state, c.version)
        assert next_command is not None
        command, before = next_command, c
        c = c.record(decide(c, command))
        rolled = list(c.rolls(c.version))
    position = logical_position(before.events)
    c = c.undo()
    assert logical_position(c.events) == position  # back where the command was decided
    retry = command.model_copy(update={"expected_version": c.version})
    c = c.record(decide(c, retry))
    assert list(c.rolls(c.version)) == rolled
    assert check(c).ok


def test_typed_dice_are_marked_and_not_rederived() -> None:
    ruleset = registered()["squares"]
    c = start(server_created(ruleset, ruleset.example_scenarios()[0]))
    while True:
        command = ruleset.conformance_commands(c.state, c.version)
        assert command is not None
        trial = c.decide(command, SeededRoller("probe", "probe"))
        if ruleset.rolls(trial.event):
            count = sum(len(r.faces) for r in ruleset.rolls(trial.event))
            c = c.record(decide(c, command, [3] * count))
            break
        c = c.record(decide(c, command))
    report = check(c)
    assert report.ok and report.count(Verdict.TYPED) == count
    proof = read_event(c.ruleset, c.events[-1]).dice_proof
    assert proof is not None and proof["mode"] == "typed"


# --- pair mode ------------------------------------------------------------------------------

LENGTH = 20
SEEDS = {"axis": hashlib.sha256(b"axis").digest(), "soviet": hashlib.sha256(b"soviet").digest()}


def pair_campaign() -> Campaign:
    ruleset = registered()["squares"]
    event = server_created(ruleset, ruleset.example_scenarios()[0])
    anchors = {seat: v1.chain_anchor(seed, LENGTH) for seat, seed in SEEDS.items()}
    payload = {**event.payload, "dice": v1.PairAnchors(anchors=anchors,
                                                        chain_length=LENGTH).model_dump()}
    return start(NewEvent(type=event.type, payload=payload))


def play_pair(c: Campaign, rounds: list[int], seeds: dict[str, bytes] = SEEDS) -> Campaign:
    """Play until every round in ``rounds`` was used by a command that rolls."""
    ruleset = c.ruleset
    todo = list(rounds)
    while todo:
        command = ruleset.conformance_commands(c.state, c.version)
        assert command is not None
        if not ruleset.rolls(c.decide(command, SeededRoller("probe", "probe")).event):
            c = c.record(c.decide(command, ScriptedRoller([])))  # no dice, no round
            continue
        index = todo.pop(0)
        links = {seat: v1.chain_link(seed, index, LENGTH).hex() for seat, seed in seeds.items()}
        roller = v1.pair_roller(links, index, logical_position(c.events),
                                command.model_dump(mode="json"))
        c = c.record(with_proof(c.decide(command, roller), roller))
    return c


def test_pair_rounds_verify_from_the_revealed_links() -> None:
    c = play_pair(pair_campaign(), [1, 2])
    report = audit(c.events, stored_rolls(c.ruleset))
    assert report.ok and report.count(Verdict.VERIFIED) > 0


def test_a_link_off_the_chain_or_a_reused_round_is_caught() -> None:
    forged = {**SEEDS, "soviet": hashlib.sha256(b"not soviet's seed").digest()}
    c = play_pair(pair_campaign(), [1, 2], forged)
    report = audit(c.events, stored_rolls(c.ruleset))
    assert not report.ok and "not on the chain" in report.events[0].reason
    # Reusing round 1 at a new position would let a seat that saw the links choose its command.
    report = audit(play_pair(pair_campaign(), [1, 1]).events, SQUARES_ROLLS)
    assert not report.ok and "out of order" in report.events[-1].reason
    skipped = audit(play_pair(pair_campaign(), [1, 3]).events, SQUARES_ROLLS)
    assert not skipped.ok and "out of order" in skipped.events[-1].reason


def _walked(events: list[EventRecord], c: Campaign, secret: bytes | None) -> Auditor:
    """An auditor that keeps only failures, given ``events`` one at a time."""
    walk = Auditor(events[0], stored_rolls(c.ruleset), None if secret is None else secret.hex(),
                   failures_only=True)
    for event in events[1:]:
        walk.add(event)
    return walk


@pytest.mark.parametrize("secret", [SECRET, None], ids=["revealed", "committed"])
def test_an_auditor_keeping_only_failures_tallies_every_verdict(secret: bytes | None) -> None:
    # The streamed reveal keeps the counts, not every rolling event's verdict: the tally of an
    # auditor that keeps only failures is the tally of the whole report, counted here by hand.
    c, _ = rolling_campaign()
    report = check(c, secret)
    walk = _walked(list(c.events), c, secret)
    assert walk.report().events == () and walk.tally() == report.tally()
    verdict = Verdict.VERIFIED if secret else Verdict.COMMITTED
    rolled = [e.seq for e in c.events if c.rolls(e.seq)]
    assert walk.tally().dice == {verdict: sum(len(r.faces) for s in rolled for r in c.rolls(s))}
    assert walk.tally().events == {verdict: len(rolled)} and walk.tally().ok
    assert walk.tally().summary() == report.summary()


def test_a_tally_counts_a_failed_roll_and_is_not_ok() -> None:
    c, seq = rolling_campaign()

    def other_faces(event: Rallied) -> Rallied:
        return event.model_copy(update={"roll": event.roll.model_copy(update={
            "faces": tuple(6 if f != 6 else 5 for f in event.roll.faces)})})
    walk = _walked(edited(c, seq, other_faces), c, SECRET)
    assert [e.seq for e in walk.report().events] == [seq]
    assert not walk.tally().ok and walk.tally().events[Verdict.FAILED] == 1
    assert walk.tally().summary().endswith(f"{walk.tally().count(Verdict.FAILED)} failed (dice)")
