"""Where a stated event and the rules' own result for it part: the first differing field.

Shared by the re-derivation of whole events (:mod:`rallypoint.session.rederive`) and a
ruleset's check of the public parts of an event redacted for this seat
(:meth:`rallypoint.core.ruleset.PartialKnowledge.check_public`), so that both refuse a file in
the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rallypoint.core.events import canonical_json
from rallypoint.core.inputs import shorten


@dataclass(frozen=True)
class Difference:
    """The first place a stated event and its re-derivation part.

    Attributes:
        path: The payload field (``counters.1/609-1.steps``), or what else differs.
        stated: What the event says there.
        derived: What deciding its command again gives.
    """

    path: str
    stated: str
    derived: str


def first_difference(stated: Any, derived: Any, path: str = "") -> Difference | None:
    """The first field path (sorted keys, list order) where two JSON values differ.

    Values compare as JSON values do in Python (``1``, ``1.0`` and ``true`` are equal: each
    reads as the same value into the event's typed field, so the fold cannot tell them apart).
    """
    if stated == derived:
        return None
    if isinstance(stated, Mapping) and isinstance(derived, Mapping):
        for key in sorted(set(stated) | set(derived)):
            where = f"{path}.{key}" if path else str(key)
            if key not in stated or key not in derived:
                return Difference(where, _shown(stated, key), _shown(derived, key))
            found = first_difference(stated[key], derived[key], where)
            if found is not None:
                return found
    if isinstance(stated, list) and isinstance(derived, list):
        for index, (one, other) in enumerate(zip(stated, derived, strict=False)):
            found = first_difference(one, other, f"{path}[{index}]")
            if found is not None:
                return found
        index = min(len(stated), len(derived))
        return Difference(f"{path}[{index}]", _item(stated, index), _item(derived, index))
    return Difference(path or "payload", shorten(canonical_json(stated), 60),
                      shorten(canonical_json(derived), 60))


def _item(value: list[Any], index: int) -> str:
    return shorten(canonical_json(value[index]), 60) if index < len(value) else "(absent)"


def _shown(value: Mapping[str, Any], key: str) -> str:
    return shorten(canonical_json(value[key]), 60) if key in value else "(absent)"
