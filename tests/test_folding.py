"""The linear whole-log fold (core/folding.py) against the campaign's own fold.

Oracle: ``Campaign`` folds a log the simple way (``from_events``; an ``undone`` folds every
effective event again from ``created``). ``LogFold`` keeps a state every few events and folds
again only from the last one before an undone event; both must reach the same state after every
event of logs mixing turns, losses and undos of the latest and of older events.
"""

from __future__ import annotations

import random

import pytest

from conftest import tcs_campaign
from rallypoint.core import folding
from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, IntegrityError
from rallypoint.core.events import EventRecord, NewEvent, Undone
from rallypoint.core.folding import LogFold
from rallypoint.core.playcheck import fold_all
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs.commands import AdvanceTurn, RecordLoss
from rallypoint.rulesets.tcs.front.campaign import tcs_state


def _played(seed: int, steps: int) -> list[Campaign]:
    """A TCS campaign after each of ``steps`` random moves: a turn, a loss, an undo of the
    latest event, or (as an edited file may) an undo of an older event still in effect."""
    rng = random.Random(seed)
    c = tcs_campaign("example1")
    counters = sorted(tcs_state(c).counters)
    history = [c]
    while len(history) <= steps:
        pick = rng.random()
        try:
            if pick < 0.4:
                c = c.execute(AdvanceTurn(expected_version=c.version), ScriptedRoller([]))
            elif pick < 0.7:
                c = c.execute(RecordLoss(expected_version=c.version,
                                         counter=rng.choice(counters), steps=1),
                              ScriptedRoller([]))
            elif pick < 0.85:
                c = c.undo()
            else:
                target = rng.choice([e.seq for e in c.effective()])
                c = c.record(NewEvent.of(Undone(target=target, summary="older")))
        except (IllegalNowError, IndexError):
            continue  # nothing to undo, or a counter already gone: another move
        history.append(c)
    return history


@pytest.mark.parametrize("seed", range(6))
def test_every_state_on_the_way_is_the_campaigns(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folding, "CHECKPOINT_EVERY", 3)  # many states kept, many dropped
    history = _played(seed, 160)
    final = history[-1]
    undos = [e for e in final.typed if isinstance(e, Undone)]
    older = [u for u in undos if u.summary == "older"]
    assert len(undos) >= 15 and len(older) >= 5, "the log exercises both kinds of undo"
    fold = LogFold(final.events[0])
    for record, expected in zip(final.events[1:], history[1:], strict=True):
        fold.add(record)
        assert fold.state == expected.state, f"after seq {record.seq}"
        assert list(fold.effective) == [e.seq for e in expected.effective()]
    assert fold.state == Campaign.from_events(final.events).state


def test_an_undo_of_nothing_in_effect_is_refused_in_one_line() -> None:
    c = tcs_campaign("example1").execute(AdvanceTurn(expected_version=1), ScriptedRoller([]))
    twice = c.undo().record(NewEvent.of(Undone(target=2, summary="again")))  # 2 is undone
    with pytest.raises(IntegrityError, match=r"event 4 .* undoes 2, which is not an earlier "
                                             "event still in effect") as info:
        fold_all(twice.events, "import a good export")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("seed", range(3))
def test_the_folds_campaign_decides_as_the_whole_campaign(seed: int) -> None:
    # What the re-derivation asks of it (verify, the reveal): the state, the version, the
    # created event and the undone seqs, with only two events held, whatever the log's length.
    history = _played(seed, 80)
    log = history[-1].events
    fold = LogFold(log[0])
    for whole in history[1:]:
        fold.add(log[whole.version - 1])
        held = fold.campaign()
        assert (held.state, held.version, held.created, held.undone) == \
            (whole.state, whole.version, whole.created, whole.undone)
        assert len(held.events) == len(held.typed) == 2
        turn = AdvanceTurn(expected_version=whole.version)
        assert held.decide(turn, ScriptedRoller([])) == whole.decide(turn, ScriptedRoller([]))


@pytest.mark.parametrize("seed", range(6))
def test_a_fold_that_keeps_no_record_reads_older_ones_from_its_source(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # An import's fold (its records go to the database) and verify FILE's keep no record and
    # thin their older states: the states on the way are still the campaign's, and the deep
    # undos (older events, long runs) read their records again from the source.
    monkeypatch.setattr(folding, "CHECKPOINT_EVERY", 3)
    monkeypatch.setattr(folding, "DENSE_CHECKPOINTS", 2)
    history = _played(seed, 400)
    final = history[-1]
    log = list(final.events)
    asked: list[tuple[int, int]] = []

    def source(first: int, stop: int) -> list[EventRecord]:
        asked.append((first, stop))
        return [r for r in log if first <= r.seq < stop]

    fold = LogFold(log[0], source)
    most = 0
    for record, expected in zip(log[1:], history[1:], strict=True):
        fold.add(record)
        assert fold.state == expected.state, f"after seq {record.seq}"
        assert list(fold.effective) == [e.seq for e in expected.effective()]
        most = max(most, fold.kept)
    assert asked, "some undo reached past the typed events kept"
    # At most the dense states, ``created``'s, one per doubling of the distance back, and the
    # typed events of two windows (3 each) plus the refolded ones pending: never the log.
    effective = len(final.effective())
    assert most <= 2 + 1 + effective.bit_length() + 2 * 3 + 1, most


def test_the_thinned_states_are_logarithmic_in_the_log() -> None:
    # 100,000 effective turns would keep 390 states unthinned; thinned, a few per doubling of
    # the distance back, and an undo of any depth finds one not far below its target.
    c = tcs_campaign("example1")
    fold = LogFold(c.events[0], lambda first, stop: [])
    for count in range(1, 100_001):
        if count % folding.CHECKPOINT_EVERY == 0:
            fold._checkpoints.append((count, None))
            fold._thin(count)
    counts = [point[0] for point in fold._checkpoints]
    assert counts[0] == 0  # 390 windows of 256 end at 99,840
    assert counts[-4:] == [99_072, 99_328, 99_584, 99_840]
    assert len(counts) <= 4 * 2 * 9, counts  # 390 windows: 9 doublings back at most
    for depth in range(1, 99_840, 97):
        target = 99_840 - depth
        below = max(k for k in counts if k <= target)
        assert target - below <= 256 + depth // 4, (depth, below)  # a quarter further back
