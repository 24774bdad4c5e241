"""Instant commands: a command loads only its campaign's ruleset and no heavy library it does not
use (icepool, numpy, matplotlib, dask). Run in a fresh interpreter, end to end through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rallypoint.core.registry import get_ruleset, plugins
from rallypoint.session import Session

HEAVY = ("icepool", "numpy", "matplotlib", "dask")
PROBE = """
import json, sys
from rallypoint.cli.main import app
try:
    app(sys.argv[1:], standalone_mode=False)
finally:
    sys.stdout.flush()
    sys.__stderr__.write("\\n@@" + json.dumps(sorted(sys.modules)) + "\\n")
"""


def _modules_after(db: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, "--db", str(db), *args],
                          capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL)
    return set(json.loads(done.stderr.rsplit("@@", 1)[1]))


def _rule_modules(loaded: set[str]) -> set[str]:
    """The rulesets whose rule code (anything but the light plugin module and the front part:
    the whole command line loads every ruleset's verbs, not their rules) was imported."""
    return {m.split(".")[2] for m in loaded if m.startswith("rallypoint.rulesets.")
            and m.split(".")[-1] != "plugin" and m.count(".") >= 3
            and m.split(".")[3] != "front"}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("instant") / "c.sqlite3"
    session = Session(path)
    for name in plugins():
        session.create(get_ruleset(name).example_scenarios()[0], name=name, seed="instant")
    return path


@pytest.mark.parametrize("name", sorted(plugins()))
def test_show_loads_only_the_campaigns_ruleset(db: Path, name: str) -> None:
    loaded = _modules_after(db, "show", "--campaign", name)
    assert _rule_modules(loaded) == {name}
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]


# What a read command on a TCS campaign does not load: the rule and command modules (a command's
# path), the log's describe lines, and the store's export/import format and seat signatures.
LAZY = ("rallypoint.rulesets.tcs.rules", "rallypoint.rulesets.tcs.commands",
        "rallypoint.rulesets.tcs.distribution", "rallypoint.rulesets.tcs.describe",
        "rallypoint.store.exchange", "rallypoint.store.signing", "rallypoint.session.pbem")


def test_show_on_tcs_loads_no_command_path_module(db: Path) -> None:
    loaded = _modules_after(db, "show", "--campaign", "tcs")
    assert "rallypoint.rulesets.tcs.fold" in loaded  # the probe sees the campaign's modules
    assert [m for m in LAZY if m in loaded] == []


def test_a_tcs_turn_imports_no_heavy_library(db: Path) -> None:
    loaded = _modules_after(db, "tcs", "turn", "--campaign", "tcs")
    assert _rule_modules(loaded) == {"tcs"}
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]


def test_odds_import_icepool_only_beyond_one_die(db: Path) -> None:
    # A rally is one die: its exact law needs no icepool.
    loaded = _modules_after(db, "squares", "odds", "--campaign", "squares")
    assert _rule_modules(loaded) == {"squares"}
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]
    # An FO's return is 2d6: icepool computes it (the probe sees what is imported).
    loaded = _modules_after(db, "odds", "tcs-fo", "--number", "11")
    assert "icepool" in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("numpy", "matplotlib", "dask")]


RUN_PROBE = """
import json, sys
from pydantic import BaseModel
from rallypoint.cli import main

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

sys.argv = ["rallypoint", *sys.argv[1:]]
try:
    main.run()
except SystemExit:
    pass
finally:
    sys.stdout.flush()
    from rallypoint.core.events import EventModel
    built = sorted({f"{c.__module__}.{c.__qualname__}" for c in subclasses(BaseModel)
                    if c.__pydantic_complete__})
    events = sorted({f"{c.__module__}.{c.__qualname__}" for c in subclasses(EventModel)})
    sys.__stderr__.write("\\n@@" + json.dumps({"modules": sorted(sys.modules), "built": built,
                                                "events": events}))
"""


def _probe_run(db: Path, *args: str) -> tuple[set[str], set[str], set[str]]:
    """The modules imported, the pydantic models built and the event models defined, after one
    command through the console entry point (``run``: only the named command is built)."""
    done = subprocess.run([sys.executable, "-c", RUN_PROBE, "--db", str(db), *args],
                          capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL)
    found = json.loads(done.stderr.rsplit("@@", 1)[1])
    return set(found["modules"]), set(found["built"]), set(found["events"])


@pytest.mark.parametrize("name", sorted(plugins()))
def test_show_builds_no_help_renderer_and_no_event_validator_it_does_not_use(
        db: Path, name: str) -> None:
    loaded, built, events = _probe_run(db, "show", "--campaign", name)
    # typer's rich help and error renderer (rich's markdown) is for --help and errors only.
    assert not {"typer.rich_utils", "markdown_it", "rich.markdown"} & loaded
    assert not [m for m in loaded if m.startswith(("rallypoint.web", "rallypoint.lab"))]
    # Event models are validated one type at a time (defer_build): a fresh campaign, whose log
    # is its `created` event, builds at most what its view previews, never the whole union.
    ours = {e for e in events if e.startswith(f"rallypoint.rulesets.{name}.")}
    assert len(ours) >= 4
    assert len(ours & built) <= len(ours) // 4
    assert "rallypoint.core.events.Created" in built


def test_a_usage_error_is_one_line_through_the_entry_point(db: Path) -> None:
    done = subprocess.run([sys.executable, "-c", RUN_PROBE, "--db", str(db), "show", "--nope"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    line = done.stderr.rsplit("@@", 1)[0].strip()
    assert line == ("error (usage): No such option: --nope (at rallypoint show). "
                    "Run `rallypoint show --help` for what it takes.")
