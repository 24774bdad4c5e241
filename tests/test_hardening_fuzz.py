"""Fuzz every CLI entry point: random arguments, binary and deeply nested files, no traceback.

One hypothesis test per command (parametrized over the whole command tree, so a new command is
fuzzed without touching this file). Each example runs the command in-process against a database
holding one campaign of every ruleset; whatever the input, the command must end with exit 0, 1
or 2 and never with an uncaught exception. Numbers that size work (runs, days, workers) are drawn
small so an accepted value cannot make an example run for minutes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.core.registry import get_ruleset

pytestmark = pytest.mark.slow

runner = CliRunner()
ROOT: Any = typer.main.get_command(app)
SKIP = {("serve",), ("demo",)}  # a server that never returns; the fixed demo takes no input
WORK_OPTIONS = {"--runs", "--days", "--years", "--turns", "--horizon", "--chunks", "--workers",
                "--count", "--per-turn"}


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = []
    for name, cmd in getattr(group, "commands", {}).items():
        if hasattr(cmd, "commands"):
            found.extend(_commands(cmd, (*prefix, name)))
        elif (*prefix, name) not in SKIP:
            found.append(((*prefix, name), cmd))
    return found


COMMANDS = _commands(ROOT)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Hostile input files, and a database with one campaign per ruleset."""
    root = tmp_path_factory.mktemp("fuzz")
    made = {
        "binary.bin": bytes(range(256)) * 16,
        "deep.json": b"[" * 20000 + b"]" * 20000,
        "deep.toml": b'ruleset = "tcs"\nx = ' + b"[" * 5000 + b"]" * 5000 + b"\n",
        "nan.json": b'{"format": "rallypoint-campaign", "format_version": NaN, "events": []}',
        "huge.json": b'{"n": ' + b"9" * 10000 + b"}",
        "latin1.toml": b'ruleset = "squares"\nname = "J\xe4rvi"\n',
        "empty.json": b"",
        "wrong.json": json.dumps({"format": "rallypoint-campaign", "format_version": 2,
                                  "campaign": {}, "events": [{"seq": "x"}] * 3}).encode(),
    }
    paths = {}
    for name, data in made.items():
        (root / name).write_bytes(data)
        paths[name] = root / name
    paths["missing"] = root / "missing" / "file.toml"
    paths["folder"] = root
    db = root / "seed.sqlite3"
    for name in ("tcs", "squares", "platoon"):
        scenario = str(get_ruleset(name).example_scenarios()[0])
        result = runner.invoke(app, ["--db", str(db), "new", scenario, "--name", name])
        assert result.exit_code == 0, result.output
    paths["db"] = db
    return paths


TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
NUMBERS = st.sampled_from(["0", "1", "2", "-1", "-5", "7", "99", "1" + "0" * 30, "9" * 5000,
                           "1e3", "nan", "x", ""])
NAMES = st.sampled_from(["tcs", "squares", "platoon", "nope", "[/]", "x\x1b[2J", "A=B", "1=2",
                         "hwy", "to", "by_trade", "ErP112", "1/ErP112", "S1", "B2", "Z99"])


def value(files: dict[str, Path], name: str) -> st.SearchStrategy[str]:
    if name in WORK_OPTIONS:
        return st.sampled_from(["0", "1", "2", "-1", "x", "1" + "0" * 30])
    paths = st.sampled_from([str(p) for k, p in files.items() if k != "db"])
    return st.one_of(paths, NUMBERS, NAMES, TEXT)


@st.composite
def argv(draw: st.DrawFn, files: dict[str, Path], cmd: Any) -> list[str]:
    args: list[str] = []
    for param in cmd.params:
        if param.name == "help":
            continue
        if param.param_type_name == "argument":
            if draw(st.booleans()) or param.required:
                args.append(draw(value(files, "")))
        elif getattr(param, "is_flag", False):
            if draw(st.booleans()):
                args.append(param.opts[0])
        elif param.opts[0] in WORK_OPTIONS or draw(st.integers(0, 3)) == 0:
            args.extend([param.opts[0], draw(value(files, param.opts[0]))])
    if draw(st.integers(0, 9)) == 0:
        args.append(draw(TEXT))  # a stray extra argument
    return args


@pytest.mark.parametrize(("path", "cmd"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_no_traceback_whatever_the_input(
    path: tuple[str, ...], cmd: Any, files: dict[str, Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Fuzzed relative paths (``roster-export B2``) must land in the test's folder, not the
    # checkout the suite runs from.
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "fuzz.sqlite3"
    shutil.copy(files["db"], db)

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(args=argv(files, cmd))
    def run(args: list[str]) -> None:
        result = runner.invoke(app, ["--db", str(db), *path, *args], input="n\n")
        failure = result.exception
        if failure is not None and not isinstance(failure, SystemExit):
            shown = [a if len(a) < 60 else a[:60] + "…" for a in args]
            raise AssertionError(f"{' '.join(path)} {shown!r} raised {failure!r}") from failure
        assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output[-300:])
        assert "Traceback" not in result.output

    run()
