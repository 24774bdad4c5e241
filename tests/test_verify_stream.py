"""``rallypoint verify FILE`` of a hidden game's files in one streaming pass
(session/verify_stream.py): a turn file filtered for its reader, a side's own export, the whole
log ``reveal`` wrote.

Oracles: the whole-file check (the streaming pass turned off), whose answer the stream must
give and whose refusal stands when the stream leaves a file to it; its retained memory grows
with the log, the contrast the streamed one must not show.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import test_pbem_hidden
from memory_kit import working_growth
from rallypoint.core import jsonstream
from rallypoint.core.errors import IntegrityError
from rallypoint.session import pbem
from rallypoint.session.reveal import reveal
from rallypoint.session.verify_stream import Verified, verify_streamed
from test_fork_stream import revealed_without_blinds
from test_turn_stream import SIZES, _edited_last, hidden_files


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Finland's turn files for the Soviets, ``SIZES`` events long, every turn redacted for
    the reader (test_turn_stream's ``hidden_files``)."""
    return hidden_files(tmp_path_factory.mktemp("verify_hidden"))


def _whole(path: Path) -> Verified:
    """``verify_file`` with the streaming pass turned off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pbem, "verify_streamed", lambda path: (None, None))
        return pbem.verify_file(path)


def test_a_long_hidden_turn_file_verifies_in_one_pass_with_memory_that_does_not_grow(
        hidden: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # The answer lists a verdict for every withheld event (``verify --json``'s ``dice``), so
    # it grows with the log, alike both ways; what is measured is the memory each way works in
    # beyond its answer (tracemalloc's peak less what it left held).
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)  # a fixed cost both files fill
    working: dict[str, list[int]] = {"streamed": [], "whole": []}
    for size in SIZES:
        path = hidden[str(size)]
        done: list[Any] = []
        working["streamed"].append(working_growth(
            lambda: done.append(verify_streamed(path))))  # noqa: B023
        working["whole"].append(working_growth(lambda: done.append(_whole(path))))  # noqa: B023
        (read, streamed), whole = done
        assert read is None and streamed == whole
        # Finland's sheet and every turn withheld from the Soviets: checked by link and digest.
        assert streamed.signer == "finland" and streamed.withheld == size - 1
        assert streamed.redacted is not None and streamed.dice.ok
    grown = {way: p[1] - p[0] for way, p in working.items()}
    # 1,500 more events: the whole check holds every record; the stream its running state.
    # Stated slack: 512 KiB.
    assert grown["whole"] > 2 * 2**20, grown
    assert grown["streamed"] < 2**19, grown


def test_every_file_of_a_hidden_game_verifies_in_one_pass_as_it_does_whole(
        tmp_path: Path) -> None:
    # test_pbem_hidden's game: sheets both ways, owed accruals, sealed rounds; then each side's
    # own export (the other side's events redacted), and the whole log the reveal wrote, whose
    # events each seat decided against its own view of the log.
    (tmp_path / "game").mkdir()
    game = test_pbem_hidden.play(tmp_path / "game")
    theirs = game.export("finland", for_other=False)
    game.export("soviet", for_other=False)
    out = tmp_path / "whole.json"
    reveal(game.dbs["soviet"], theirs, out)
    files = [*sorted(game.mail.glob("*.json")), out]
    assert len(files) == game.count + 1
    answers = []
    for path in files:
        read, streamed = verify_streamed(path)
        assert read is None and streamed is not None, path.name
        assert streamed == _whole(path), path.name
        answers.append(streamed)
    assert (answers[-1].withheld, answers[-1].signer) == (0, "soviet")  # the revealed log


def test_a_withheld_event_changed_after_signing_is_left_to_the_whole_check(
        hidden: dict[str, Path], tmp_path: Path) -> None:
    # The last redacted turn now withholds Finland's part only: an honest kind of redaction,
    # but not what the signed withheld digest names.
    path = _edited_last(hidden, tmp_path, lambda p: p.update({"$withheld": {"finland": None}}),
                        resign=False)
    assert verify_streamed(path) == (None, None)
    with pytest.raises(IntegrityError, match=re.escape(
            "the file's withheld events are not the ones its signed header names")):
        pbem.verify_file(path)


def test_a_dishonest_redaction_signed_with_its_digest_is_left_to_the_whole_check(
        hidden: dict[str, Path], tmp_path: Path) -> None:
    # Finland's last turn withholds a part of a party the campaign does not have, and Finland
    # signs it with a digest made anew: the digest holds, the redaction is no honest one.
    path = _edited_last(hidden, tmp_path, lambda p: p.update({"$withheld": {"nobody": None}}),
                        resign=True)
    assert verify_streamed(path) == (None, None)
    with pytest.raises(IntegrityError, match=re.escape(
            f"event #{SIZES[1]} arrives redacted, but its withheld part is not one opaque part "
            "per side of the campaign")):
        pbem.verify_file(path)


def test_a_revealed_log_with_its_blinds_cut_is_left_to_the_whole_check(tmp_path: Path) -> None:
    # Without its blinds the log hides nothing, so an event its seat decided without the other
    # side's secrets is not what its command decides: no view may vouch for it.
    _, out, path = revealed_without_blinds(tmp_path)
    assert verify_streamed(out)[1] is not None  # the log as the reveal wrote it: streamed
    assert verify_streamed(path) == (None, None)
    with pytest.raises(IntegrityError, match="is not what its command decides"):
        pbem.verify_file(path)
