"""The README's squares and platoon transcripts, re-run as a player types them (80 columns, piped).

Each ``$ uv run rallypoint …`` line runs the installed console script in a fresh folder and
database, in order; its output must be the lines under it, exactly. ``...`` in a transcript
stands for lines left out (the rest must still come in order); a campaign's random id is the only
other thing allowed to differ. ``$ cat FILE`` writes the lines under it to ``FILE``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RALLYPOINT = str(Path(sys.executable).parent / "rallypoint")
SECTIONS = ("Using it: squares", "Using it: platoon", "Your own scenario, from the terminal")
ID = re.compile(r"id [0-9a-f]{8}\b")


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    parts = re.split(r"(?=^## )", text, flags=re.M)
    return next(p for p in parts if p.startswith(f"## {title}"))


def transcript(text: str) -> list[tuple[str, list[str]]]:
    """Each command of the section's code blocks, with the lines shown under it."""
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"^```\n(.*?)^```", text, flags=re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line.rstrip())
    return steps


def matches(expected: list[str], got: list[str]) -> bool:
    """``got`` is ``expected``, each ``...`` standing for any lines (ids may differ)."""
    pattern = "\n".join(".*?" if line == "..." else re.escape(ID.sub("id ID", line))
                        for line in expected)
    pattern = pattern.replace("\n.*?\n", "(?:\n.*?)?\n")
    return re.fullmatch(pattern, "\n".join(ID.sub("id ID", g) for g in got), flags=re.S) \
        is not None


@pytest.mark.slow
@pytest.mark.parametrize("title", SECTIONS)
def test_readme_transcript_is_true(title: str, tmp_path: Path) -> None:
    (tmp_path / "src").symlink_to(ROOT / "src")
    env = {**os.environ, "RALLYPOINT_DB": str(tmp_path / "readme.sqlite3"), "COLUMNS": "80",
           "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    steps = transcript(section(title))
    assert len(steps) > 5
    for command, expected in steps:
        if command.startswith("cat "):
            (tmp_path / command.split()[1]).write_text("\n".join(expected) + "\n",
                                                       encoding="utf-8")
            continue
        words = re.sub(r"\s+#.*$", "", command).split()
        assert words[:3] == ["uv", "run", "rallypoint"], command
        done = subprocess.run([RALLYPOINT, *words[3:]], cwd=tmp_path, env=env,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
        got = [line.rstrip() for line in (done.stdout + done.stderr).rstrip("\n").splitlines()]
        assert matches(expected, got), f"$ {command}\n" + "\n".join(got)
