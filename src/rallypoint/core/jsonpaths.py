"""Cutting parts out of a JSON value by path: what a per-viewer filter leaves out.

A path is the keys and list indexes that lead to a value. :func:`redact_value` copies a value
without the parts at some paths (a key dropped or, for an event stored before issue 18, replaced
by a ``{"$withheld": owner}`` marker; a list item dropped).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from rallypoint.core.events import WITHHELD_KEY as WITHHELD

Path = tuple[str | int, ...]
"""A place inside a JSON value: keys and list indexes."""


class Part(Protocol):
    """A part to cut: where it is and whose it is (a :class:`rallypoint.core.visibility.Secret`)."""

    @property
    def path(self) -> Path:
        """Where the part is."""
        ...

    @property
    def owner(self) -> str:
        """Whose it is (named by an old-format marker)."""
        ...


def redact_value(value: Mapping[str, Any], secrets: Iterable[Part], *,
                 marker: bool) -> dict[str, Any]:
    """A deep copy of ``value`` without the parts at ``secrets``' paths.

    ``marker``: put ``{"$withheld": owner}`` where a mapping's value was (events); otherwise drop
    the key (views, which need not say what they leave out). List items are always dropped.
    Paths that do not exist are ignored.
    """
    copy: dict[str, Any] = _deep_copy(value)
    # Deepest and highest indexes first, so dropping a list item leaves earlier paths valid.
    for secret in sorted(secrets, key=lambda s: (len(s.path), _sort_key(s.path)), reverse=True):
        _withhold(copy, secret, marker)
    return copy


def _sort_key(path: Path) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, p) if isinstance(p, int) else (1, p) for p in path)


def _deep_copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_deep_copy(v) for v in value]
    return value


def _withhold(root: dict[str, Any], secret: Part, marker: bool) -> None:
    parent: Any = root
    for step in secret.path[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return
    last = secret.path[-1]
    if isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
        del parent[last]
    elif isinstance(parent, dict) and last in parent:
        if marker:
            parent[last] = {WITHHELD: secret.owner}
        else:
            del parent[last]
