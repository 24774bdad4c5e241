"""Rollers: seeded test vectors and rejection sampling, scripted dice, and the stored Roll."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections import Counter
from fractions import Fraction

import pytest

from rallypoint.core.errors import MalformedInputError
from rallypoint.dice import (
    D6,
    D66,
    TWO_D6,
    ChanceNode,
    DiceSpec,
    Modifier,
    Roll,
    ScriptedRoller,
    SeededRoller,
    fraction_text,
    percent_text,
    roll,
)
from rallypoint.dice.rollers import replay_faces

SEED = b"rallypoint"
STREAM = "test:1"

# --- an independent reimplementation of the documented derivation ------------------------------


def reference_faces(seed: bytes | str, stream: str, sides: int, n: int) -> list[int]:
    """docs/dice.md, step by step, with nothing but hmac and hashlib."""
    key = seed.encode("utf-8") if isinstance(seed, str) else seed
    limit = 256 - 256 % sides  # largest multiple of `sides` not above 256
    faces: list[int] = []
    block = 0
    while len(faces) < n:
        message = f"{stream}:{block}".encode()  # UTF-8
        digest = hmac.new(key, message, hashlib.sha256).digest()
        faces.extend(b % sides + 1 for b in digest if b < limit)
        block += 1
    return faces[:n]


def seeded(roller: SeededRoller, sides: int, n: int) -> list[int]:
    return [roller.face(sides) for _ in range(n)]


# --- literal test vectors (also tabled in docs/dice.md) -----------------------------------------
# Changing any of these changes every seeded campaign's dice: do it only with a migration.

BLOCK0_HEX = "06e5789dc63bcc0abc44e55bfe0334c937257fb4032091ebdc7933f11887584b"
VECTOR_D6 = [1, 2, 1, 2, 1, 6, 1, 5, 3, 3, 2, 2, 4, 5, 4, 2, 2, 2, 1, 4]
VECTOR_D10 = [7, 10, 1, 8, 9, 10, 5, 1, 9, 9, 10, 2, 4, 3, 2, 6, 8, 8, 1, 4]
VECTOR_D20 = [7, 10, 1, 18, 19, 20, 5, 11, 9, 9, 10, 12, 4, 13, 2, 16, 18, 8, 1, 4]
STR_SEED = "Tolvajärvi"
STR_STREAM = "c0ffee00-1111-2222-3333-444455556666/v3"
VECTOR_STR_D6 = [1, 1, 1, 1, 5, 2, 1, 5, 4, 6, 1, 4, 3, 2, 4, 5, 3, 5, 2, 5]


def test_block_zero_digest() -> None:
    digest = hmac.new(SEED, b"test:1:0", hashlib.sha256).hexdigest()
    assert digest == BLOCK0_HEX


@pytest.mark.parametrize(
    ("sides", "expected"), [(6, VECTOR_D6), (10, VECTOR_D10), (20, VECTOR_D20)]
)
def test_vectors_bytes_seed(sides: int, expected: list[int]) -> None:
    assert seeded(SeededRoller(SEED, STREAM), sides, 20) == expected
    assert reference_faces(SEED, STREAM, sides, 20) == expected


def test_vector_str_seed_is_utf8() -> None:
    assert seeded(SeededRoller(STR_SEED, STR_STREAM), 6, 20) == VECTOR_STR_D6
    assert reference_faces(STR_SEED, STR_STREAM, 6, 20) == VECTOR_STR_D6
    as_bytes = SeededRoller(STR_SEED.encode("utf-8"), STR_STREAM)
    assert seeded(as_bytes, 6, 20) == VECTOR_STR_D6


def test_str_and_bytes_seed_agree() -> None:
    assert seeded(SeededRoller("rallypoint", STREAM), 6, 20) == VECTOR_D6


@pytest.mark.parametrize("sides", [2, 3, 6, 7, 10, 12, 20, 100, 255, 256])
def test_matches_reference_across_blocks(sides: int) -> None:
    # 300 faces run well past the first 32-byte block.
    assert seeded(SeededRoller(SEED, STREAM), sides, 300) == reference_faces(
        SEED, STREAM, sides, 300
    )


def test_faces_for_a_node_take_one_face_per_die_in_order() -> None:
    roller = SeededRoller(SEED, STREAM)
    assert roller.faces(ChanceNode("a", TWO_D6)) == tuple(VECTOR_D6[:2])
    assert roller.faces(ChanceNode("b", D66)) == tuple(VECTOR_D6[2:4])
    assert roller.faces(ChanceNode("c", DiceSpec(3, 6))) == tuple(VECTOR_D6[4:7])
    assert roller.faces(ChanceNode("d", D6)) == (VECTOR_D6[7],)


# --- rejection sampling -------------------------------------------------------------------------


def test_rejection_in_the_real_stream() -> None:
    # Byte 12 of block 0 is 0xfe = 254 >= 252, so the 13th d6 face comes from byte 13.
    block0 = bytes.fromhex(BLOCK0_HEX)
    assert block0[12] == 254
    accepted = [b % 6 + 1 for b in block0 if b < 252]
    assert accepted[:20] == VECTOR_D6
    naive = [b % 6 + 1 for b in block0]
    assert naive[:12] == VECTOR_D6[:12]
    assert VECTOR_D6[12] == block0[13] % 6 + 1
    assert naive[:20] != VECTOR_D6  # a roller without rejection would differ from here on


@pytest.mark.parametrize(("sides", "limit"), [(2, 256), (6, 252), (7, 252), (10, 250), (20, 240)])
def test_bytes_at_or_above_limit_are_rejected(sides: int, limit: int) -> None:
    roller = SeededRoller(SEED, STREAM)
    rejected = list(range(limit, 256))
    roller._buffer = bytes([*rejected, limit - 1, 0])
    roller._pos = 0
    assert roller.face(sides) == sides  # limit - 1 is the last accepted byte, face = sides
    assert roller._pos == len(rejected) + 1
    assert roller.face(sides) == 1  # byte 0


def test_all_d6_rejected_bytes_are_skipped() -> None:
    roller = SeededRoller(SEED, STREAM)
    roller._buffer = bytes([252, 253, 254, 255, 251])
    roller._pos = 0
    assert roller.face(6) == 251 % 6 + 1 == 6
    assert roller._pos == 5


@pytest.mark.parametrize("sides", [0, 1, 257, 1000])
def test_seeded_die_size_limits(sides: int) -> None:
    with pytest.raises(MalformedInputError, match=r"2\.\.256 sides"):
        SeededRoller(SEED, STREAM).face(sides)


# --- determinism and independence ---------------------------------------------------------------


def test_same_seed_and_stream_same_faces() -> None:
    assert seeded(SeededRoller(SEED, STREAM), 6, 100) == seeded(SeededRoller(SEED, STREAM), 6, 100)


def test_different_stream_or_seed_different_faces() -> None:
    base = seeded(SeededRoller(SEED, STREAM), 6, 40)
    assert seeded(SeededRoller(SEED, "test:2"), 6, 40) != base
    assert seeded(SeededRoller(b"rallypoint!", STREAM), 6, 40) != base


def test_independent_of_python_random_state() -> None:
    random.seed(1)
    first = seeded(SeededRoller(SEED, STREAM), 6, 50)
    random.seed(987654321)
    random.random()
    state = random.getstate()
    second = seeded(SeededRoller(SEED, STREAM), 6, 50)
    assert first == second
    assert random.getstate() == state  # and it does not consume Python's generator either


def test_rough_uniformity_over_60000_d6() -> None:
    # A fixed seed and stream: the counts are exact, so this cannot flake.
    counts = Counter(seeded(SeededRoller(SEED, "uniformity"), 6, 60_000))
    assert dict(counts) == {1: 9916, 2: 9973, 3: 10003, 4: 10097, 5: 10062, 6: 9949}
    expected = 60_000 / 6
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 20.52  # 5 degrees of freedom, p = 0.001


# --- ScriptedRoller -----------------------------------------------------------------------------


def test_scripted_consumes_in_order() -> None:
    roller = ScriptedRoller([5, 1, 4])
    assert (roller.used, roller.remaining) == (0, 3)
    assert roller.faces(ChanceNode("first", D6)) == (5,)
    assert (roller.used, roller.remaining) == (1, 2)
    assert roller.faces(ChanceNode("second", TWO_D6)) == (1, 4)
    assert (roller.used, roller.remaining) == (3, 0)


@pytest.mark.parametrize("text", ["5,1,4", "5 1 4", " 5, 1 ,4 ", "5,,1,4", "5\t1\n4"])
def test_scripted_parse(text: str) -> None:
    roller = ScriptedRoller.parse(text)
    assert roller.remaining == 3
    assert roller.faces(ChanceNode("x", DiceSpec(3, 6))) == (5, 1, 4)


def test_scripted_parse_empty() -> None:
    assert ScriptedRoller.parse("").remaining == 0


@pytest.mark.parametrize("text", ["5,x,4", "5.5", "five", "5;1"])
def test_scripted_parse_rejects_non_integers(text: str) -> None:
    with pytest.raises(MalformedInputError, match="not a list of whole numbers") as info:
        ScriptedRoller.parse(text)
    assert repr(text) in str(info.value)


def test_scripted_exhausted_names_the_purpose() -> None:
    roller = ScriptedRoller.parse("5")
    roller.faces(ChanceNode("morale check", D6))
    with pytest.raises(MalformedInputError, match="ran out") as info:
        roller.faces(ChanceNode("1/ErP 112th recovery roll", D6))
    assert "'1/ErP 112th recovery roll'" in str(info.value)
    assert info.value.code == "malformed-input"


def test_scripted_partially_short_consumes_nothing() -> None:
    roller = ScriptedRoller([3])
    with pytest.raises(MalformedInputError, match="needs 2 more, 1 left"):
        roller.faces(ChanceNode("FO recovery", TWO_D6))
    assert (roller.used, roller.remaining) == (0, 1)


@pytest.mark.parametrize(("values", "bad"), [([7], 7), ([0], 0), ([-1], -1), ([3, 9], 9)])
def test_scripted_out_of_range(values: list[int], bad: int) -> None:
    roller = ScriptedRoller(values)
    spec = DiceSpec(len(values), 6)
    with pytest.raises(MalformedInputError, match=f"value {bad} does not fit a d6") as info:
        roller.faces(ChanceNode("implementation check", spec))
    assert "'implementation check'" in str(info.value)
    assert roller.used == 0


def test_scripted_leftover_values_are_visible() -> None:
    # Callers refuse a script with too many values by checking `remaining` after the command.
    roller = ScriptedRoller.parse("5,1,4")
    roller.faces(ChanceNode("only roll", D6))
    assert roller.remaining == 2


def test_replay_faces_reproduces_rolls() -> None:
    first = roll(ChanceNode("a", TWO_D6), SeededRoller(SEED, STREAM))
    second = roll(ChanceNode("b", D6), ScriptedRoller([6]))
    again = replay_faces([first, second])
    assert again.remaining == 3
    assert again.faces(ChanceNode("a", TWO_D6)) == first.faces
    assert again.faces(ChanceNode("b", D6)) == (6,)


# --- roll() and Roll ----------------------------------------------------------------------------


def steps(total: int) -> str:
    if total <= 4:
        return "0 steps"
    if total <= 6:
        return "1 step"
    if total <= 8:
        return "2 steps"
    return "3 steps"


RECOVERY = ChanceNode(
    purpose="1/ErP 112th recovery roll",
    dice=D6,
    modifiers=(Modifier(name="morale", value=1), Modifier(name="bn", value=2)),
)


def test_roll_records_everything() -> None:
    r = roll(RECOVERY, ScriptedRoller([5]), reading=steps)
    assert r.purpose == "1/ErP 112th recovery roll"
    assert r.dice == "1d6"
    assert r.faces == (5,)
    assert r.natural == 5
    assert r.modifiers == RECOVERY.modifiers
    assert r.total == 8
    assert r.outcome == "2 steps"
    assert r.odds == "P(2 steps) = 1/3"


def test_roll_with_custom_odds() -> None:
    node = ChanceNode("implementation check (Prep. Defense line)", D66)

    def odds(n: ChanceNode) -> str:
        p = n.probability(lambda v: v >= 35)
        return f"P(≥35) = {fraction_text(p)} ({percent_text(p)})"

    r = roll(
        node,
        ScriptedRoller([5, 3]),
        reading=lambda v: "implements" if v >= 35 else "fails",
        odds=odds,
    )
    assert r.dice == "d66"
    assert r.faces == (5, 3)
    assert r.natural == r.total == 53
    assert r.outcome == "implements"
    assert r.odds == "P(≥35) = 5/9 (55.6%)"


def test_roll_without_reading() -> None:
    r = roll(ChanceNode("plain", TWO_D6), ScriptedRoller([6, 6]))
    assert (r.natural, r.total, r.outcome, r.odds) == (12, 12, "", "")


def test_explain_one_d6_with_modifiers() -> None:
    r = roll(RECOVERY, ScriptedRoller([5]), reading=steps)
    assert r.explain() == (
        "1/ErP 112th recovery roll: 1d6 5 +1 morale +2 bn = 8 → 2 steps [P(2 steps) = 1/3]"
    )


def test_explain_negative_modifier() -> None:
    node = ChanceNode("rally", D6, (Modifier(name="disrupted", value=-1),))
    assert roll(node, ScriptedRoller([1])).explain() == "rally: 1d6 1 -1 disrupted = 0"


def test_explain_d66() -> None:
    node = ChanceNode("implementation check", D66)
    r = roll(node, ScriptedRoller([3, 5]), reading=lambda v: "implements" if v >= 35 else "fails")
    assert r.explain() == "implementation check: d66 3,5→35 = 35 → implements [P(implements) = 5/9]"


def test_explain_two_d6() -> None:
    r = roll(ChanceNode("FO recovery", TWO_D6), ScriptedRoller([3, 4]))
    assert r.explain() == "FO recovery: 2d6 3+4 = 7"


@pytest.mark.parametrize("node", [RECOVERY, ChanceNode("d66", D66), ChanceNode("2d6", TWO_D6)])
def test_roll_json_round_trip(node: ChanceNode) -> None:
    r = roll(node, SeededRoller(SEED, STREAM), reading=steps)
    data = r.model_dump(mode="json")
    assert isinstance(data["faces"], list)
    assert data["modifiers"] == [{"name": m.name, "value": m.value} for m in node.modifiers]
    back = Roll.model_validate(data)
    assert back == r
    assert back.explain() == r.explain()
    assert Roll.model_validate_json(r.model_dump_json()) == r


def test_roll_is_frozen() -> None:
    r = roll(RECOVERY, ScriptedRoller([5]))
    with pytest.raises(ValueError, match="frozen"):
        r.total = 99


def test_fraction_and_percent_text() -> None:
    assert fraction_text(Fraction(1, 3)) == "1/3"
    assert fraction_text(Fraction(1)) == "1"
    assert fraction_text(Fraction(0)) == "0"
    assert percent_text(Fraction(1, 3)) == "33.3%"
    assert percent_text(Fraction(5, 9)) == "55.6%"
