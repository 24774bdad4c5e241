"""A later ``uv run`` is quiet: once the environment is in sync, ``uv run rallypoint …`` prints
the command's output and nothing of uv's own (no "Bytecode compiled N files" line: the project
does not ask uv to compile site-packages on every sync, astral-sh/uv#12202)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not on PATH")
def test_a_second_uv_run_prints_no_tool_noise(tmp_path: Path) -> None:
    env = {**os.environ, "RALLYPOINT_DB": str(tmp_path / "quiet.sqlite3"), "NO_COLOR": "1"}
    for name in ("UV_NO_SYNC", "UV_COMPILE_BYTECODE", "VIRTUAL_ENV", "UV_FROZEN"):
        env.pop(name, None)
    # Inexact, like every `uv run`: extras a developer synced (--all-extras) are left alone.
    first = subprocess.run(["uv", "run", "--project", str(ROOT), "rallypoint", "new", "farm"],
                           env=env, capture_output=True, text=True, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(["uv", "run", "--project", str(ROOT), "rallypoint", "list"],
                            env=env, capture_output=True, text=True, cwd=tmp_path)
    assert second.returncode == 0
    assert second.stderr == "", "a later uv run prints nothing of its own"
    assert "farm_below_the_ridge" in second.stdout
