"""Instant commands: a command loads only its campaign's ruleset and no heavy library it does not
use (icepool, numpy, matplotlib, dask). Run in a fresh interpreter, end to end through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rallypoint.core.ruleset import get_ruleset, plugins
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
    """The rulesets whose rule code (anything but the light plugin module) was imported."""
    return {m.split(".")[2] for m in loaded if m.startswith("rallypoint.rulesets.")
            and m.split(".")[-1] != "plugin" and m.count(".") >= 3}


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


def test_a_tcs_turn_imports_no_heavy_library(db: Path) -> None:
    loaded = _modules_after(db, "tcs", "turn", "--campaign", "tcs")
    assert _rule_modules(loaded) == {"tcs"}
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]


def test_odds_import_icepool_but_not_the_lab_libraries(db: Path) -> None:
    loaded = _modules_after(db, "squares", "odds", "--campaign", "squares")
    assert _rule_modules(loaded) == {"squares"}
    assert "icepool" in loaded  # exact odds do need it: the probe sees what is imported
    assert not [m for m in loaded if m.split(".")[0] in ("numpy", "matplotlib", "dask")]
