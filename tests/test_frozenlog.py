"""FrozenLog: each view is immutable, as the tuple it replaces; growing the newest is in place.

Oracle: plain tuples built by concatenation, for the same random sequence of growth and branches.
"""

from __future__ import annotations

import pickle
import random

from rallypoint.core.frozenlog import FrozenLog, grown


def test_views_never_change_whatever_grows_after_them() -> None:
    rng = random.Random(7)
    views: list[tuple[FrozenLog[int], tuple[int, ...]]] = [(FrozenLog(), ())]
    for step in range(600):
        log, same = rng.choice(views) if rng.random() < 0.3 else views[-1]  # branch or go on
        views.append((log.appended(step), (*same, step)))
        for view, expected in rng.sample(views, min(len(views), 8)):
            assert tuple(view) == expected and view == expected and len(view) == len(expected)
    for view, expected in views:
        assert list(view) == list(expected)
        assert view[1:5] == expected[1:5] and view[::-2] == expected[::-2]
        if expected:
            assert view[-1] == expected[-1] and view[0] == expected[0]


def test_growing_the_newest_view_shares_its_list() -> None:
    log = FrozenLog([1, 2])
    newer = log.appended(3).appended(4)
    assert newer._items is log._items, "the newest view appends in place"
    branch = log.appended(9)
    assert branch._items is not log._items and tuple(branch) == (1, 2, 9)
    assert tuple(newer) == (1, 2, 3, 4) and tuple(log) == (1, 2)


def test_index_errors_hashes_and_pickles_as_a_tuple() -> None:
    log = grown((1, 2, 3), 4)
    shorter = FrozenLog([1, 2])
    assert hash(shorter) == hash((1, 2)) and shorter != [1, 2]
    for bad in (2, -3):
        try:
            shorter[bad]
        except IndexError:
            continue
        raise AssertionError(f"index {bad} read past the view")
    assert pickle.loads(pickle.dumps(shorter)) == (1, 2)
    assert pickle.loads(pickle.dumps(log))._items == [1, 2, 3, 4]
