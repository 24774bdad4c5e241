"""Sealed pair rounds at the dice level: the vectors of docs/dice.md ("Sealed pair rounds")
re-derived with nothing but hashlib and hmac, the proof a sealed round writes, the audit of a
whole sealed proof (and of every way to cheat it), and readers of partly withheld proofs."""

from __future__ import annotations

import ast
import hashlib
import hmac
import re
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.errors import IntegrityError
from rallypoint.dice.audit import audit
from rallypoint.dice.nodes import D6, ChanceNode, Roll
from rallypoint.dice.report import Verdict
from rallypoint.dice.sealed import (
    PairAnswer,
    SealedRequest,
    parse_request,
    seal,
    sealed_digest,
    sealed_roller,
)
from rallypoint.dice.v1 import (
    PairRequest,
    chain_anchor,
    chain_link,
    command_digest,
    proof_head,
)
from rallypoint.session.pair import acting_seat, check_request, last_round, pair_proofs

N = 16
AXIS_SEED = hashlib.sha256(b"seat seed: axis").digest()
SOVIET_SEED = hashlib.sha256(b"seat seed: soviet").digest()
COMMAND = {"kind": "check", "sheet": "1/ErP", "columns": {}}
NONCE = bytes(range(16))
DIGEST = "dc48995a21e7bdd5de9f64a27113b1ea3d576e09c27b952ec0e076d066d136cd"
COMMITMENT = "56984d0c3896b9b16a8001e1fdbfdf07bd90472f8941de5587de3c5c0ae38bba"
SEALED = "c980b8174eac9de9921b8d09ba5007862341a38295eab827ad200eab8a75ef28"
FACES = [2, 1, 6, 3, 1, 2, 6, 4, 5, 2]
"""The sealed d6 at position 7, round 1 (the open round's are 3 3 2 2 1 1 3 4 5 5)."""


# --- an independent reimplementation ---------------------------------------------------------


def _step(x: bytes) -> bytes:
    return hashlib.sha256(b"rallypoint dice-v1 link\x00" + x).digest()


def _link(seed: bytes, index: int) -> bytes:
    for _ in range(N - index):
        seed = _step(seed)
    return seed


def _faces(links: dict[str, bytes], position: int, label: str, count: int) -> list[int]:
    key = hashlib.sha256(b"rallypoint dice-v1 pair\x00"
                         + b"".join(links[s] for s in sorted(links))).digest()
    out: list[int] = []
    block = 0
    while len(out) < count:
        mac = hmac.new(key, f"dice-v1/{position}/{label}:{block}".encode(), hashlib.sha256)
        out += [b % 6 + 1 for b in mac.digest() if b < 252]
        block += 1
    return out[:count]


def test_the_sealed_vectors() -> None:
    assert command_digest(COMMAND) == DIGEST
    digest = bytes.fromhex(DIGEST)
    assert hashlib.sha256(b"rallypoint dice-v1 seal\x00" + digest + NONCE).hexdigest() \
        == COMMITMENT == seal(DIGEST, NONCE)
    assert hashlib.sha256(b"rallypoint dice-v1 sealed dice\x00" + digest + NONCE).hexdigest() \
        == SEALED == sealed_digest(DIGEST, NONCE)
    # The commitment the answerer holds is not the stream's label (domain-separated tags).
    assert COMMITMENT != SEALED
    links = {"axis": _link(AXIS_SEED, 1), "soviet": _link(SOVIET_SEED, 1)}
    assert _faces(links, 7, SEALED, 10) == FACES
    assert _faces(links, 7, DIGEST, 10) == [3, 3, 2, 2, 1, 1, 3, 4, 5, 5]


def _snippets() -> list[str]:
    text = (Path(__file__).parent.parent / "docs" / "dice.md").read_text(encoding="utf-8")
    return re.findall(r"### Verify a sealed roll by hand.*?```python\n(.*?)```", text,
                      flags=re.S)


def test_the_by_hand_check_in_docs_dice_md_gives_what_it_says() -> None:
    (code,) = _snippets()
    scope: dict[str, object] = {}
    block: list[str] = []
    checked = 0
    for line in code.splitlines():
        if not line.startswith("# -> "):
            block.append(line)
            continue
        *body, last = ast.parse("\n".join(block)).body
        exec(compile(ast.Module(body=body, type_ignores=[]), "dice.md", "exec"), scope)
        assert isinstance(last, ast.Expr)
        value = eval(compile(ast.Expression(last.value), "dice.md", "eval"), scope)
        assert value == line.removeprefix("# -> "), (block[-1], value)
        block, checked = [], checked + 1
    assert checked == 4


# --- the proof of a sealed round ---------------------------------------------------------------


def _links(round_: int) -> dict[str, str]:
    return {"axis": chain_link(AXIS_SEED, round_, N).hex(),
            "soviet": chain_link(SOVIET_SEED, round_, N).hex()}


def _proof(position: int = 7, round_: int = 1, command: dict[str, Any] = COMMAND,
           nonce: bytes = NONCE, dice: int = 3) -> dict[str, Any]:
    roller = sealed_roller(_links(round_), round_, position, command, nonce, seat="axis")
    for _ in range(dice):
        roller.faces(ChanceNode("check", D6))
    proof = roller.proof()
    assert proof is not None
    return proof.model_dump(mode="json")


def test_a_sealed_proof_carries_commitment_and_nonce_and_rolls_the_sealed_stream() -> None:
    proof = _proof(dice=10)
    assert (proof["commitment"], proof["nonce"]) == (COMMITMENT, NONCE.hex())
    assert [f for _, f in proof["tape"]] == FACES
    assert (proof["mode"], proof["round"], proof["seat"], proof["position"]) == (
        "pair", 1, "axis", 7)


class _Event:
    def __init__(self, seq: int, type_: str, payload: dict[str, Any]) -> None:
        self.seq, self.type, self.payload = seq, type_, payload


def _log(*proofs: dict[str, Any]) -> list[_Event]:
    created = _Event(1, "created", {"dice": {"scheme": "dice-v1", "mode": "pair",
                                             "anchors": {"axis": chain_anchor(AXIS_SEED, N),
                                                         "soviet": chain_anchor(SOVIET_SEED, N)},
                                             "chain_length": N}})
    events = [created]
    for proof in proofs:
        events.append(_Event(len(events) + 1, "checked", {"dice_proof": proof}))
    return events


def _rolls(event: Any) -> list[Roll]:
    tape = event.payload["dice_proof"]["tape"]
    return [Roll(purpose="check", dice=f"{len(tape)}d6", faces=tuple(f for _, f in tape),
                 natural=0, total=0, outcome="", odds="")] if tape else []


def test_the_audit_verifies_a_whole_sealed_round() -> None:
    report = audit(_log(_proof(position=1), _proof(position=2, round_=2)), _rolls)
    assert [e.verdict for e in report.events] == [Verdict.VERIFIED, Verdict.VERIFIED]


@pytest.mark.parametrize(("change", "reason"), [
    (lambda p: p.update(nonce="ff" * 16), "do not open the commitment"),
    (lambda p: p.update(command={**COMMAND, "sheet": "2/ErP"}), "do not open the commitment"),
    (lambda p: p.update(commitment="00" * 32), "do not open the commitment"),
    (lambda p: p.pop("nonce"), "needs both its commitment and its nonce"),
    (lambda p: p["links"].update(soviet=chain_link(SOVIET_SEED, 2, N).hex()), "not on the chain"),
    (lambda p: p["tape"][0].__setitem__(1, p["tape"][0][1] % 6 + 1), "dice-v1 gives"),
])
def test_the_audit_catches_a_forged_sealed_proof(change: Any, reason: str) -> None:
    proof = _proof(position=1)
    change(proof)
    (found,) = audit(_log(proof), _rolls).events
    assert found.verdict is Verdict.FAILED and reason in found.reason


def test_a_command_changed_with_a_fresh_commitment_still_rolls_other_dice() -> None:
    # A requester who re-commits after seeing the answer must change the commitment, which the
    # answerer holds (tests/test_dice_sealed_pbem.py); the faces would differ anyway.
    other = {**COMMAND, "sheet": "2/ErP"}
    assert _proof(command=other, dice=10)["commitment"] != COMMITMENT


# --- partly withheld proofs ------------------------------------------------------------------


def _withheld(proof: dict[str, Any], side: str = "axis") -> dict[str, Any]:
    """A proof as TCS withholds it from the other side: mode/position/round/seat/scheme shown."""
    hidden = {k: {"$withheld": side} for k in ("command", "tape", "links", "nonce")}
    return {**proof, **hidden}


def test_readers_take_round_and_seat_from_a_withheld_proof() -> None:
    log = _log(_withheld(_proof(position=1)), _proof(position=2, round_=2))
    log[1].payload["$redacted"] = ["dice_proof.command"]
    head = proof_head(log[1].payload["dice_proof"])
    assert head is not None and (head.round, head.seat, head.whole) == (1, "axis", False)
    assert last_round(log) == 2 and last_round(log[:2]) == 1
    assert [seq for seq, _ in pair_proofs(log)] == [3]  # whole proofs only
    assert acting_seat(log, 2) == "axis"
    report = audit(log, lambda e: _rolls(e) if e.seq != 2 else [])
    assert [e.verdict for e in report.events] == [Verdict.WITHHELD, Verdict.VERIFIED]
    assert "1 event(s) withheld from you" in report.summary()


def test_a_withheld_proof_out_of_order_or_out_of_place_fails() -> None:
    for proof, reason in ((_withheld(_proof(position=1, round_=3)), "out of order"),
                          (_withheld(_proof(position=5)), "decided at position 5")):
        log = _log(proof)
        log[1].payload["$redacted"] = ["dice_proof.command"]
        (found,) = audit(log, lambda e: []).events
        assert found.verdict is Verdict.FAILED and reason in found.reason


# --- requests and answers ----------------------------------------------------------------------


def test_a_sealed_request_goes_out_without_command_nonce_or_link() -> None:
    kept = SealedRequest.make("axis", 7, 1, COMMAND, NONCE, _links(1)["axis"])
    assert kept.whole and kept.opens() and kept.commitment == COMMITMENT
    wire = kept.public()
    assert set(wire) == {"scheme", "seat", "position", "round", "commitment"}
    theirs = parse_request(wire)
    assert isinstance(theirs, SealedRequest) and not theirs.whole and theirs.digest is None
    assert isinstance(parse_request(kept.model_dump_json()), SealedRequest)
    tampered = kept.model_copy(update={"command": {**COMMAND, "sheet": "2/ErP"}})
    assert not tampered.opens()
    PairAnswer(seat="soviet", round=1, position=7, commitment=COMMITMENT,
               link=_links(1)["soviet"])


def test_check_request_wants_sealed_requests_exactly_in_sealed_campaigns() -> None:
    from rallypoint.store.signing import SeatCard

    cards = {s: SeatCard(seat=s, key="0" * 64, anchor=chain_anchor(seed, N))
             for s, seed in (("axis", AXIS_SEED), ("soviet", SOVIET_SEED))}
    log = _log()
    kept = SealedRequest.make("axis", 1, 1, COMMAND, NONCE, _links(1)["axis"])
    public = SealedRequest.model_validate(kept.public())
    check_request(public, "axis", log, cards, N, 1, sealed=True)
    opened = PairRequest(seat="axis", position=1, round=1, command=COMMAND,
                         link=_links(1)["axis"])
    check_request(opened, "axis", log, cards, N, 1, sealed=False)
    for request, sealed, match in ((opened, True, "must be sealed"),
                                   (public, False, "is sealed, but"),
                                   (kept, True, "must be sealed")):
        with pytest.raises(IntegrityError, match=match):
            check_request(request, "axis", log, cards, N, 1, sealed=sealed)


def test_a_withheld_event_without_a_proof_lets_no_round_be_skipped() -> None:
    # A redacted event with no dice proof rolled nothing: the next round must follow on.
    log = _log(_proof(position=1), _proof(position=3, round_=3))
    log.insert(2, _Event(3, "sheet_written", {"$redacted": [{"path": ["sheet"], "owner": "x"}],
                                              "sheet": {"$withheld": "x"}}))
    log[3].seq = 4
    log[3].payload["dice_proof"]["position"] = 3
    verdicts = [(e.verdict, e.reason) for e in audit(log, _rolls).events]
    assert verdicts[1][0] is Verdict.WITHHELD
    assert verdicts[2][0] is Verdict.FAILED and "out of order" in verdicts[2][1]
    # A proof withheld whole may have used rounds: then a later round is not out of order.
    log[2].payload["dice_proof"] = {"$withheld": "x"}
    assert audit(log, _rolls).events[2].verdict is Verdict.VERIFIED
