"""Typer's test runner builds an app's click command tree once per app, not once per invoke.

``typer.testing.CliRunner.invoke`` turns the whole Typer app into click commands on every call
(evaluating every command's annotations): about 0.1 s for rallypoint's full command line, more
than most commands take to run, paid thousands of times by the suite. A running ``rallypoint``
builds its tree once too, so a tree kept per app and reused is what a player's process runs.

Kept per app instance and per *shape* (the commands, groups and callbacks registered on it and
on its sub-apps): an app that gains or loses a command after its first invoke is built anew.
``conftest.py`` swaps the cached builder in for the whole run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import typer
import typer.main
import typer.testing
from typer._click import Command  # typer's own copy of click: what its builder returns

Shape = tuple[object, ...]

REAL_BUILD: Callable[[typer.Typer], Command] = typer.main.get_command
"""Typer's own builder (the one ``CliRunner.invoke`` calls, as ``typer.testing._get_command``)."""

_BUILT: dict[int, tuple[typer.Typer, Shape, Command]] = {}
"""By the app's id: the app itself (so that its id is never reused), its shape when built, and
the tree built from it."""


def shape(app: typer.Typer) -> Shape:
    """What the tree is built from: the callback, each command (and its callback) and each group
    (its name, callback and its own shape), by identity."""
    commands = tuple((id(c), id(c.callback), c.name) for c in app.registered_commands)
    groups = tuple((g.name, id(g.callback), shape(g.typer_instance))
                   for g in app.registered_groups if g.typer_instance is not None)
    callback = app.registered_callback
    return (id(callback), id(callback.callback) if callback else None, commands, groups)


def cached_build(app: typer.Typer) -> Command:
    """The app's click tree: built on first use, rebuilt when its shape changed since."""
    now = shape(app)
    kept = _BUILT.get(id(app))
    if kept is not None and kept[0] is app and kept[1] == now:
        return kept[2]
    command = REAL_BUILD(app)
    _BUILT[id(app)] = (app, now, command)
    return command


@pytest.fixture(autouse=True, scope="session")
def one_click_tree_per_app() -> Iterator[None]:
    """Swap :func:`cached_build` in for typer's builder for the whole run."""
    setattr(typer.testing, "_get_command", cached_build)  # noqa: B010  (a private name)
    try:
        yield
    finally:
        setattr(typer.testing, "_get_command", REAL_BUILD)  # noqa: B010
        _BUILT.clear()
