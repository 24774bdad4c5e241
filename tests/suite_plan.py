"""How the whole suite runs on two cores: bytecode once, then (with ``-n auto``) two workers,
the longest files first.

``conftest.py`` imports these hooks. pytest-xdist's ``-n auto --dist loadfile
--no-loadscope-reorder`` asks them what "auto" means:

- a run of whole folders (``uv run pytest -n auto``, ``... tests/web``) gets one worker a
  core: the suite waits on subprocesses, PostgreSQL and chromium much of the time, so one
  process leaves the second core idle;
- a run of named files (``uv run pytest tests/test_x.py -k y``) stays in one process:
  starting workers costs more than it saves there. ``-n 2`` or ``-n 0`` decides outright.

The default (pyproject's ``addopts``). A worker's temporary path is 10 characters longer
(``popen-gw0/``), so a test that checks the words of a line printing such a path gives its
command a terminal wide enough for it (test_scenario_cli, test_scenario_import). A file is the
unit of work (``loadfile``): its module fixtures (a lab sample, a shared chromium) are built
once.
"""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "rallypoint"

LONGEST_FIRST = (
    "tests/web/test_hosting.py",
    "tests/test_lab_platoon_fast.py",
    "tests/test_hardening_fuzz.py",
    "tests/web/test_web_live.py",
    "tests/web/test_web_redteam.py",
    "tests/web/test_web_player_walks.py",
    "tests/test_cli_rough_edges.py",
    "tests/test_lab_variants.py",
    "tests/web/test_web_seats_matrix.py",
    "tests/test_readme_transcripts.py",
    "tests/web/test_web_builder_walks.py",
    "tests/web/test_web_browser.py",
    "tests/test_scenario_cli.py",
    "tests/test_store_crash.py",
    "tests/test_tcs_partial.py",
)
"""The files that take longest (measured: docs/performance.md), handed out first, longest
first, so that no long file starts last and leaves the other worker idle at the end. A file not
named here keeps its collection order after them."""


def pytest_configure(config: pytest.Config) -> None:
    """Compile rallypoint's own modules once, for the command lines the tests start.

    Why: where ``PYTHONDONTWRITEBYTECODE`` is set (CI's machine), Python caches no bytecode, so
    each ``rallypoint`` process the tests start (README transcripts, servers and their
    workers, the crash tests) compiled the modules it imports from source again: about half a
    second of CPU per process. ``uv sync --compile-bytecode`` compiles site-packages only, not
    this editable source. Compiling here (in the controller only, under xdist) writes the same
    ``__pycache__`` a plain run would; a changed file is compiled anew next run.
    """
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        _terminal_as_the_controllers(worker)
    elif sys.dont_write_bytecode:
        compileall.compile_dir(SRC, quiet=1)


TERMINAL = ("COLUMNS", "LINES")
"""What a worker's environment says of the terminal: execnet sets 80 x 24 in each worker, and
the command line wraps its output at a ``COLUMNS`` it is given (piped, none given, it does
not), so a worker must see the controller's own values."""


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Hand each worker the controller's ``COLUMNS`` and ``LINES`` (or their absence)."""
    node.workerinput["terminal"] = {name: os.environ.get(name) for name in TERMINAL}


def _terminal_as_the_controllers(worker: dict[str, Any]) -> None:
    for name, value in worker.get("terminal", {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker a core for a run of folders, none (one process) for named files."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    named = [arg.split("::", 1)[0] for arg in config.args]
    if not any(Path(config.invocation_params.dir, arg).is_dir() for arg in named):
        return 0
    if hasattr(os, "sched_getaffinity"):  # the cores this process may use (Linux)
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under workers, the files of :data:`LONGEST_FIRST` first (a stable sort: the order of
    the tests inside a file is kept)."""
    if not hasattr(config, "workerinput"):
        return
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}

    def first(item: pytest.Item) -> int:
        return rank.get(Path(item.path).relative_to(ROOT).as_posix(), len(rank))

    items.sort(key=first)
