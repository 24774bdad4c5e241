"""The seams between the session and the store, checked on the syntax tree (issue 21).

- Nothing outside ``store/`` reaches into the store's private parts: no ``_``-prefixed name is
  imported from a ``rallypoint.store`` module, and no ``_``-prefixed attribute the store's
  classes define (``_sql``, ``_read``, ``_write``, ...) is read off anything but ``self``. What
  the session needs of the store is a typed method of it (``store/seats.py``, say).
- The session is a small facade (``session/__init__.py`` re-exporting ``session/api.py``) over
  modules that never import it back: no other module of session/ imports ``rallypoint.session.api``
  or takes a name from the package ``rallypoint.session`` that is not a module of its own, even
  for annotations only (they take a :class:`~rallypoint.session.handle.Handle`).
- The store only stores: it folds no campaign. It imports neither the fold
  (``core.folding``, ``core.playcheck``, ``Campaign`` and the folding functions of
  ``core.campaign``) nor the rulesets' registry; whether a log can be played is the session's
  question (``session/importing.py``).

Each checker is a plain function over source text; a planted violation proves it flags it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rallypoint"
SOURCES = sorted(SRC.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(SRC).as_posix()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def store_private_names(sources: dict[str, str]) -> frozenset[str]:
    """The private attributes the store's modules define: methods and ``self._x`` fields of
    their classes, and their module-level private functions."""
    found: set[str] = set()
    for path, text in sources.items():
        if path.split("/")[0] != "store":
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
                found.add(node.name)
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id == "self" and _private(node.attr)):
                found.add(node.attr)
    return frozenset(found)


def store_private_uses(source: str, path: str, private: frozenset[str]) -> list[str]:
    """Where ``source`` (at ``path``, outside store/) imports a private name from the store or
    reads a store-private attribute off an object other than ``self``/``cls``."""
    if path.split("/")[0] == "store":
        return []
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "rallypoint.store"):
            found += [f"line {node.lineno}: imports {alias.name}" for alias in node.names
                      if _private(alias.name)]
        elif (isinstance(node, ast.Attribute) and node.attr in private
              and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


PRIVATE = store_private_names({_rel(p): p.read_text(encoding="utf-8") for p in SOURCES})


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_nothing_outside_the_store_touches_its_private_parts(path: Path) -> None:
    assert store_private_uses(path.read_text(encoding="utf-8"), _rel(path), PRIVATE) == []


def test_the_store_private_names_are_found() -> None:
    # The names the session once wrote SQL through are among them (a rename of the store's
    # internals must not empty the set and so pass everything).
    assert {"_sql", "_read", "_write", "_conn"} <= PRIVATE


def test_flags_a_reach_into_the_store() -> None:
    planted = ("from rallypoint.store.exchange import _check_importable, export_text\n"
               "from rallypoint.store import EventStore\n\n"
               "def f(store: EventStore) -> None:\n"
               "    with store._write() as conn:\n"
               "        conn.execute(store._sql('DELETE FROM seats'))\n"
               "    self._read()\n")
    assert store_private_uses(planted, "session/seats.py", PRIVATE) == [
        "line 1: imports _check_importable", "line 5: store._write",
        "line 6: store._sql"]
    assert store_private_uses(planted, "store/seats.py", PRIVATE) == []


FOLDING_MODULES = ("rallypoint.core.folding", "rallypoint.core.playcheck",
                   "rallypoint.core.ruleset", "rallypoint.rulesets")
CAMPAIGN_NAMES_THE_STORE_USES = frozenset({"bulk_reading"})
"""What the store may take from ``core.campaign``: pausing the collector, not folding."""


def store_folds(source: str, path: str) -> list[str]:
    """Where a module of store/ imports a fold, a ruleset, or a folding name of core.campaign."""
    if path.split("/")[0] != "store":
        return []
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith(FOLDING_MODULES)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = {a.name for a in node.names}
            if module.startswith(FOLDING_MODULES) or (
                    module == "rallypoint.core.campaign"
                    and names - CAMPAIGN_NAMES_THE_STORE_USES):
                found.append(f"line {node.lineno}: from {module} import {', '.join(sorted(names))}")
    return sorted(found, key=lambda line: int(line.split()[1].rstrip(":")))


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_the_store_folds_no_campaign(path: Path) -> None:
    assert store_folds(path.read_text(encoding="utf-8"), _rel(path)) == []


def test_flags_a_fold_in_the_store() -> None:
    planted = ("from rallypoint.core.campaign import Campaign, bulk_reading\n"
               "from rallypoint.core.campaign import bulk_reading\n"
               "def f():\n    from rallypoint.core.folding import LogFold\n"
               "import rallypoint.rulesets.tcs\n")
    assert store_folds(planted, "store/exchange.py") == [
        "line 1: from rallypoint.core.campaign import Campaign, bulk_reading",
        "line 4: from rallypoint.core.folding import LogFold",
        "line 5: import rallypoint.rulesets.tcs"]
    assert store_folds(planted, "session/importing.py") == []


FACADE = frozenset({"session/__init__.py", "session/api.py"})
SESSION_MODULES = frozenset(p.stem for p in (SRC / "session").glob("*.py")) - {"__init__"}


def facade_imports(source: str, path: str) -> list[str]:
    """Where a module of session/ below the facade imports the facade back."""
    if path.split("/")[0] != "session" or path in FACADE:
        return []
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name == "rallypoint.session.api"]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [a.name for a in node.names]
            if module == "rallypoint.session.api" or (module == "rallypoint.session" and (
                    set(names) - SESSION_MODULES or "api" in names)):
                found.append(f"line {node.lineno}: from {module} import {', '.join(names)}")
    return sorted(found, key=lambda line: int(line.split()[1].rstrip(":")))


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_the_session_modules_never_import_the_facade(path: Path) -> None:
    assert facade_imports(path.read_text(encoding="utf-8"), _rel(path)) == []


def test_flags_a_module_importing_the_facade() -> None:
    planted = ("from typing import TYPE_CHECKING\n"
               "from rallypoint.session import commands, snapshots\n"
               "if TYPE_CHECKING:\n    from rallypoint.session.api import Session\n"
               "def f():\n    from rallypoint.session import Session\n"
               "from rallypoint.session import api\n")
    assert facade_imports(planted, "session/pbem.py") == [
        "line 4: from rallypoint.session.api import Session",
        "line 6: from rallypoint.session import Session",
        "line 7: from rallypoint.session import api"]
    assert facade_imports(planted, "session/api.py") == []
    assert facade_imports(planted, "web/service.py") == []


SESSION_NAMES = [
    "Builder", "Campaign", "CampaignInfo", "Command", "CommandLike", "Decision", "Dice", "Executed",
    "LogEntry", "PolicyInfo", "RallypointError", "RollerFor", "Session", "VerifyReport",
    "campaign_view", "created_event", "created_from_scenario", "default_db_path", "log_entries",
    "policy_named", "seeded_roller", "start", "summary", "write_atomically"]
"""What ``rallypoint.session`` exported before it became a facade (issue 21)."""
ADDED_SINCE = ["state_of"]
"""Names exported since, each on purpose: ``state_of`` gives a ruleset's front part its
campaign's state checked against its own state type (``Campaign.state`` is ``object``)."""
SESSION_METHODS = ["answer", "campaigns", "check", "create", "create_from", "delete", "execute",
                   "export", "import_file", "last_used", "load", "log", "pending", "play",
                   "policies", "rename", "resolve", "transaction", "undo", "verify", "view"]
"""The public methods :class:`~rallypoint.session.Session` had before it became a facade."""


def test_the_facade_keeps_every_public_name() -> None:
    import rallypoint.session as session

    assert sorted(session.__all__) == sorted(SESSION_NAMES + ADDED_SINCE)
    assert all(getattr(session, name) is not None for name in SESSION_NAMES)
    methods = sorted(name for name in dir(session.Session) if not name.startswith("_"))
    assert methods == SESSION_METHODS
    made = session.Session("campaigns.sqlite3")
    assert (made.location, made.path) == (Path("campaigns.sqlite3"), Path("campaigns.sqlite3"))
