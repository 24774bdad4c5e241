"""The streamed reader's limits (core/jsonstream.py) are those of the whole-text parser
(core/inputs.py ``loads_json``), value for value, though the reader walks a value only where its
text says a limit might be broken (``_Reader._may_be_refused``).

Oracle: ``loads_json`` of the value's own text, which parses it strictly and always walks it
(``check_value``): the reader must accept what it accepts, as the same value, and refuse what it
refuses with the same line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rallypoint.core import jsonstream
from rallypoint.core.errors import DataFileError
from rallypoint.core.inputs import MAX_DEPTH, MAX_INT, MAX_STRING, loads_json
from rallypoint.core.jsonstream import Limits, read_object


class Raw(str):
    """A number written as it is (``1e400``, ``-0``...), not as Python would write it."""


def dump(value: Any) -> str:
    """JSON text of ``value``, :class:`Raw` numbers as they are; non-ASCII as escapes now and
    then, so that a text may be longer than the string it spells."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dump(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=isinstance(value, str) and len(value) % 2 == 0)


near_limits = st.one_of(
    st.integers(),
    st.sampled_from([MAX_INT, MAX_INT + 1, -MAX_INT, -MAX_INT - 1, 10**18 - 1, 10**18, 10**19,
                     -(10**18), 10**19 - 1]),
    st.integers(MAX_INT - 3, MAX_INT + 3), st.integers(-MAX_INT - 3, -MAX_INT + 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([Raw("1e400"), Raw("-1e309"), Raw("1e-400"), Raw("-0"), Raw("1.5e308"),
                     Raw("9" * 19), Raw("-" + "9" * 19), Raw("1" * 20), Raw("12345678901234567")]),
    st.text(max_size=4), st.booleans(), st.none(),
    # Strings about the longest allowed: in characters, and (written with escapes) in text.
    st.integers(MAX_STRING - 2, MAX_STRING + 2).map(lambda n: "x" * n),
    st.integers(MAX_STRING // 6 - 2, MAX_STRING // 6 + 2).map(lambda n: "é" * (2 * n)),
    st.integers(MAX_STRING // 2 - 2, MAX_STRING // 2 + 2).map(lambda n: "é" * n),
)
trees = st.recursive(near_limits, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)


@st.composite
def values(draw: st.DrawFn) -> Any:
    """A JSON value, at times nested about the deepest allowed."""
    value = draw(trees)
    for level in range(draw(st.sampled_from([0, 0, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1]))):
        value = [value] if level % 2 else {"k": value}
    return value


def outcome(run: Any) -> tuple[str, Any]:
    try:
        return "accepted", run()
    except DataFileError as exc:
        return "refused", (exc.what, exc.fix)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(values(), st.sampled_from([4096, 1 << 20]))
def test_the_reader_accepts_and_refuses_each_value_as_the_whole_text_parser(
        tmp_path_factory: Any, value: Any, chunk: int) -> None:
    text = dump(value)
    path: Path = tmp_path_factory.mktemp("limits") / "file.json"
    path.write_text('{"items": [' + text + "]}", encoding="utf-8")
    where = f"{path} item 0"  # where the reader says an item's value is
    expected = outcome(lambda: loads_json(text, where))
    got: list[Any] = []
    with mock.patch.object(jsonstream, "CHUNK", chunk):  # small: values cut across chunks
        actual = outcome(lambda: read_object(
            path, "test file", "items", lambda item, index: got.append(item),
            Limits(max_bytes=1 << 30, max_value=1 << 30)))
    if expected[0] == "accepted":
        assert actual[0] == "accepted", (actual, text[:200])
        assert got == [expected[1]]
    else:
        assert actual == expected, text[:200]
