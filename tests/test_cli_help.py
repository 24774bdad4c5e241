"""``--help`` at 80 columns: a docstring's paragraphs are re-wrapped to the terminal, not left
with a stub line after every source line (typer keeps the source line breaks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rallypoint.cli.usage import joined_paragraphs


def test_a_paragraph_is_joined_and_an_indented_one_kept() -> None:
    assert joined_paragraphs(["one\ntwo three", "  $ an example\n  $ kept"]) == (
        "one two three\n\n  $ an example\n  $ kept")
    assert joined_paragraphs(["\bkept\nas is"]) == "\bkept\nas is"


def test_help_at_80_columns_wraps_whole_paragraphs() -> None:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    script = Path(sys.executable).parent / "rallypoint"  # the installed entry point
    shown = subprocess.run([str(script), "reveal", "--help"], env=env, capture_output=True,
                           text=True, check=True).stdout
    lines = [line.strip() for line in shown.splitlines()]
    # The docstring's second source line begins "committed, every redaction"; typer alone put
    # "was" on a line of its own before it.
    assert "was" not in lines
    assert any(line.startswith("was committed, every redaction shown must be honest")
               for line in lines)
    assert all(len(line) <= 80 for line in shown.splitlines())
