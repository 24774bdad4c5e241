"""The README's TCS transcript is true: every command shown, run again, prints what is shown.

The session is played in full (the README elides five `tcs turn` + `tcs check rest` pairs and
says so); each `$ uv run rallypoint …` line of the TCS section's code blocks must have printed the
lines under it, at 100 columns. A `...` line skips the rest of that command's output. Campaign ids
are random per run and are compared as a pattern.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app

README = Path(__file__).parent.parent / "README.md"
HIDDEN_PAIRS = 5
"""The turn + check pairs the README says it leaves out ("five more … missed too")."""


def tcs_blocks() -> list[list[str]]:
    """The code blocks of the README's TCS section, as lines."""
    text = README.read_text("utf-8")
    section = text[text.index("## Using it: TCS R&R"):text.index("## Using it: squares")]
    return [b.splitlines() for b in re.findall(r"```\n(.*?)```", section, re.S)]


def commands(blocks: list[list[str]]) -> list[list[str]]:
    """Each shown command with its expected output lines (continuation lines joined)."""
    found: list[list[str]] = []
    for block in blocks:
        for line in block:
            if line.startswith("$ "):
                found.append([line])
            elif found and found[-1][-1].endswith("\\"):
                found[-1][-1] = found[-1][-1][:-1] + line.strip()
            elif found:
                found[-1].append(line)
    return found


def argv(line: str) -> list[str]:
    words = shlex.split(line[2:])
    assert words[:3] == ["uv", "run", "rallypoint"], line
    return words[3:]


def test_the_tcs_transcript_is_what_the_commands_print(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("RALLYPOINT_DB", str(tmp_path / "readme.sqlite3"))
    monkeypatch.chdir(README.parent)
    shown = commands(tcs_blocks())
    assert len(shown) == 14
    runner = CliRunner()
    hidden_done = False
    for entry in shown:
        args = argv(entry[0])
        if args == ["tcs", "turn"] and not hidden_done:
            # The pairs the README leaves out come before the turn it shows next.
            for _ in range(HIDDEN_PAIRS):
                assert runner.invoke(app, ["tcs", "turn"]).exit_code == 0
                assert "misses" in runner.invoke(app, ["tcs", "check", "rest"]).output
            hidden_done = True
        result = runner.invoke(app, args)
        printed = [line.rstrip() for line in result.output.splitlines()]
        expected = entry[1:]
        if "..." in expected:
            expected = expected[:expected.index("...")]
            printed = printed[:len(expected)]
        pattern = [re.escape(line).replace("97b8c968", "[0-9a-f]{8}") for line in expected]
        assert len(printed) == len(pattern), (entry[0], printed)
        for want, got in zip(pattern, printed, strict=True):
            assert re.fullmatch(want, got), (entry[0], want, got)
    assert hidden_done
