"""dice-v1: the documented derivation, its test vectors, hash chains, and the χ² over 10^6 rolls.

The vectors are computed by an independent reimplementation (hashlib and hmac only, written from
docs/dice.md) and pinned as literals, so a change to the scheme fails here before it changes any
campaign's dice.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from rallypoint.core.errors import IntegrityError, MalformedInputError
from rallypoint.dice import D6, D66, TWO_D6, ChanceNode, SeededRoller, v1

SECRET = bytes(range(32))
COMMAND = {"kind": "check", "sheet": "1/ErP", "columns": {}, "expected_version": 12}
DIGEST = "dc48995a21e7bdd5de9f64a27113b1ea3d576e09c27b952ec0e076d066d136cd"
SEED_A = hashlib.sha256(b"seat seed: axis").digest()
SEED_B = hashlib.sha256(b"seat seed: soviet").digest()

# --- an independent reimplementation of docs/dice.md ------------------------------------------


def ref_faces(key: bytes, stream: str, sides: int, n: int) -> list[int]:
    limit = 256 - 256 % sides
    out: list[int] = []
    block = 0
    while len(out) < n:
        mac = hmac.new(key, f"{stream}:{block}".encode(), hashlib.sha256).digest()
        out += [b % sides + 1 for b in mac if b < limit]
        block += 1
    return out[:n]


def ref_link(seed: bytes, index: int, length: int) -> bytes:
    value = seed
    for _ in range(length - index):
        value = hashlib.sha256(b"rallypoint dice-v1 link\x00" + value).digest()
    return value


# --- the vectors of docs/dice.md ----------------------------------------------------------------


def test_commitment_vector() -> None:
    assert v1.commitment(SECRET) == (
        "29a46745073bfa223102bdf19427b672934210e5b2b6805d71c8fc20856bb37c")
    assert v1.commitment(SECRET) == hashlib.sha256(
        b"rallypoint dice-v1 commit\x00" + SECRET).hexdigest()


def test_command_digest_ignores_the_version_and_key_order() -> None:
    assert v1.command_digest(COMMAND) == DIGEST
    text = json.dumps({"columns": {}, "kind": "check", "sheet": "1/ErP"}, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == DIGEST
    reordered = {"sheet": "1/ErP", "expected_version": 99, "columns": {}, "kind": "check"}
    assert v1.command_digest(reordered) == DIGEST
    assert v1.command_digest({**COMMAND, "sheet": "2/ErP"}) != DIGEST


def test_server_vector() -> None:
    stream = v1.stream(7, DIGEST)
    assert stream == f"dice-v1/7/{DIGEST}"
    block0 = hmac.new(SECRET, f"{stream}:0".encode(), hashlib.sha256).hexdigest()
    assert block0 == "ab4daadf81c89aa726cb2e395ac56c5a006889ca62e0168ab28eb7feb668c824"
    expected = [4, 6, 3, 2, 4, 3, 5, 6, 3, 6, 5, 4, 1, 6, 1, 1, 1, 3, 6, 5]
    assert ref_faces(SECRET, stream, 6, 20) == expected
    assert v1.regenerate(SECRET, 7, DIGEST, [6] * 20) == expected


def test_pair_vector() -> None:
    length = 16
    assert v1.chain_anchor(SEED_A, length) == (
        "847304793edaf04397a0ab8f6d495d51d342ca3a1b94d1b822fb7d5dd2a7956f")
    assert v1.chain_anchor(SEED_B, length) == (
        "55cf0f6e47ca494d6fb8b406aabec20a57b4ed197ba8d37ea0ac3dcb415acf21")
    link_a, link_b = v1.chain_link(SEED_A, 1, length), v1.chain_link(SEED_B, 1, length)
    assert link_a.hex() == "6c6c9fe557260d238d29b6de336b7426c3f4c7ca6b2609489de355bee622280d"
    assert link_b.hex() == "7f8ab138d68a994055f7d311207d528a58d41ba45489b798efb81e15607c42ca"
    assert (link_a, link_b) == (ref_link(SEED_A, 1, length), ref_link(SEED_B, 1, length))
    key = v1.pair_key({"soviet": link_b, "axis": link_a})  # seat-name order, not dict order
    assert key.hex() == "18f451ce4682bf1c863ce1371508298609c34e2b562151427ba5f49589f29dcd"
    assert v1.regenerate(key, 7, DIGEST, [6] * 10) == [3, 3, 2, 2, 1, 1, 3, 4, 5, 5]


# --- properties -------------------------------------------------------------------------------


def test_position_and_command_each_change_the_dice() -> None:
    base = v1.regenerate(SECRET, 7, DIGEST, [6] * 30)
    assert v1.regenerate(SECRET, 7, DIGEST, [6] * 30) == base  # a retry sees the same dice
    assert v1.regenerate(SECRET, 8, DIGEST, [6] * 30) != base
    other = v1.command_digest({**COMMAND, "sheet": "2/ErP"})
    assert v1.regenerate(SECRET, 7, other, [6] * 30) != base


def test_tape_roller_records_every_die_in_order() -> None:
    tape = v1.TapeRoller(SeededRoller(SECRET, v1.stream(3, DIGEST)))
    nodes = [ChanceNode("a", D6), ChanceNode("b", TWO_D6), ChanceNode("c", D66)]
    faces = [f for node in nodes for f in tape.faces(node)]
    assert [f for _, f in tape.tape] == faces == v1.regenerate(SECRET, 3, DIGEST, [6] * 5)
    assert [s for s, _ in tape.tape] == [6] * 5


def test_chain_links_hash_down_to_the_anchor() -> None:
    length = 50
    anchor = v1.chain_anchor(SEED_A, length)
    tracker = v1.ChainTracker({"axis": anchor}, length)
    for index in (1, 2, 5, 5, 3, 9):  # forward, repeat (a retry), back (already implied)
        tracker.accept("axis", index, v1.chain_link(SEED_A, index, length).hex())
    with pytest.raises(IntegrityError, match="not on the chain"):
        tracker.accept("axis", 10, v1.chain_link(SEED_B, 10, length).hex())
    with pytest.raises(IntegrityError, match="not on the chain"):
        tracker.accept("axis", 10, v1.chain_link(SEED_A, 11, length).hex())
    with pytest.raises(IntegrityError, match="published no anchor"):
        tracker.accept("soviet", 10, v1.chain_link(SEED_B, 10, length).hex())
    with pytest.raises(IntegrityError, match="outside"):
        tracker.accept("axis", length + 1, "00" * 32)


def test_reveal_must_open_the_commitment() -> None:
    assert v1.check_reveal(v1.commitment(SECRET), SECRET.hex()) == SECRET
    with pytest.raises(IntegrityError, match="does not match the commitment"):
        v1.check_reveal(v1.commitment(SECRET), bytes(32).hex())
    with pytest.raises(MalformedInputError, match="hex"):
        v1.check_reveal(v1.commitment(SECRET), "xyz")


def test_pair_key_needs_every_seat() -> None:
    with pytest.raises(MalformedInputError, match="every seat"):
        v1.pair_key({"axis": SEED_A})


# --- χ² over 10^6 dice-v1 rolls per die type --------------------------------------------------


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df ≥ x) from the series of the lower incomplete gamma function."""
    a, z = df / 2, x / 2
    term = total = 1 / a
    n = 0
    while term > 1e-17 * total:
        n += 1
        term *= z / (a + n)
        total += term
    return 1 - total * math.exp(-z + a * math.log(z) - math.lgamma(a))


def test_chi2_survival_matches_the_tables() -> None:
    # 0.1% critical values from standard χ² tables.
    for df, critical in ((5, 20.515), (9, 27.877), (10, 29.588), (19, 43.820), (35, 66.619)):
        assert chi2_sf(critical, df) == pytest.approx(0.001, rel=1e-3)


def dice_v1_faces(sides: int, n: int, key: bytes = SECRET) -> np.ndarray:
    """``n`` faces as campaigns draw them: many streams (positions), a few dozen dice each."""
    per_stream = 50
    faces: list[int] = []
    for position in range(1, n // per_stream + 1):
        faces += v1.regenerate(key, position, DIGEST, [sides] * per_stream)
    return np.array(faces[:n])


def chi2(observed: np.ndarray, expected: np.ndarray) -> float:
    return float(((observed - expected) ** 2 / expected).sum())


N = 1_000_000


@pytest.mark.parametrize("sides", [6, 10, 20])
def test_chi2_single_die(sides: int) -> None:
    faces = dice_v1_faces(sides, N)
    observed = np.bincount(faces, minlength=sides + 1)[1:]
    assert observed.sum() == N
    p = chi2_sf(chi2(observed, np.full(sides, N / sides)), sides - 1)
    assert p > 0.001, f"d{sides}: χ² p = {p}"


def test_chi2_2d6_and_d66() -> None:
    faces = dice_v1_faces(6, 2 * N).reshape(N, 2)
    sums = np.bincount(faces.sum(axis=1), minlength=13)[2:]
    law = np.array([min(t - 1, 13 - t) for t in range(2, 13)]) / 36
    assert chi2_sf(chi2(sums, law * N), 10) > 0.001
    d66 = np.bincount((faces[:, 0] - 1) * 6 + faces[:, 1] - 1, minlength=36)
    assert chi2_sf(chi2(d66, np.full(36, N / 36)), 35) > 0.001


def test_chi2_catches_a_modulo_bias() -> None:
    # The same bytes without rejection (b % 6 + 1) favour 1–4 by 43:42: the test must see it.
    counts: Counter[int] = Counter()
    for position in range(1, N // 32 + 1):
        mac = hmac.new(SECRET, f"{v1.stream(position, DIGEST)}:0".encode(), hashlib.sha256)
        counts.update(b % 6 + 1 for b in mac.digest())
    observed = np.array([counts[f] for f in range(1, 7)])
    assert chi2_sf(chi2(observed, np.full(6, observed.sum() / 6)), 5) < 1e-6


def _snippets(text: str) -> list[str]:
    """The ```python blocks of the "by hand" sections of docs/dice.md."""
    import re

    return re.findall(r"### Verify a (?:pair-mode )?roll by hand.*?```python\n(.*?)```", text,
                      flags=re.S)


def test_the_by_hand_checks_in_docs_dice_md_give_what_they_say() -> None:
    # Every `# -> value` line is the value of the statement before it (an expression, or the
    # name an assignment binds), run with nothing but the standard library.
    import ast

    snippets = _snippets((Path(__file__).parent.parent / "docs" / "dice.md")
                         .read_text(encoding="utf-8"))
    assert len(snippets) == 2
    checked = 0
    for code in snippets:
        scope: dict[str, object] = {}
        block: list[str] = []
        for line in code.splitlines():
            if not line.startswith("# -> "):
                block.append(line)
                continue
            tree = ast.parse("\n".join(block))
            *body, last = tree.body
            exec(compile(ast.Module(body=body, type_ignores=[]), "dice.md", "exec"), scope)
            if isinstance(last, ast.Expr):
                value = eval(compile(ast.Expression(last.value), "dice.md", "eval"), scope)
            else:
                exec(compile(ast.Module(body=[last], type_ignores=[]), "dice.md", "exec"), scope)
                assert isinstance(last, ast.Assign) and isinstance(last.targets[0], ast.Name)
                value = scope[last.targets[0].id]
            assert value == line.removeprefix("# -> "), (block[-1], value)
            block, checked = [], checked + 1
    assert checked == 7
