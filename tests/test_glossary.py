"""Help in context: every command whose help uses a game word (row, prep, d66, weighted turns,
cohesion, SP) explains it in an epilog, as `--help` prints it through the installed entry point
at 80 columns; docs/glossary.md says the same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rallypoint.cli.glossary import TERMS, epilog

ROOT = Path(__file__).resolve().parents[1]
RALLYPOINT = str(Path(sys.executable).parent / "rallypoint")


def help_of(*words: str) -> str:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}
    done = subprocess.run([RALLYPOINT, *words, "--help"], env=env, capture_output=True,
                          text=True, check=True)
    return " ".join(done.stdout.replace("│", " ").split())


@pytest.mark.parametrize(("command", "words"), [
    (("odds", "tcs-implementation"), ["row", "prep", "d66", "weighted turns"]),
    (("tcs", "check"), ["d66"]),
    (("tcs", "turn"), ["weighted turns"]),
    (("squares", "board"), ["SP"]),
    (("squares", "rally"), ["SP"]),
    (("platoon", "roster"), ["cohesion"]),
])
def test_help_explains_the_words_it_uses(command: tuple[str, ...], words: list[str]) -> None:
    text = help_of(*command)
    assert "Words used here (docs/glossary.md):" in text
    for term in TERMS:
        explained = f"{term.word}: {' '.join(term.meaning.split())}"
        assert (explained in text) == (term.word in words), (term.word, text)


def test_help_without_game_words_has_no_glossary() -> None:
    assert "Words used here" not in help_of("list")
    assert epilog("List the campaigns in the database.") is None


def test_the_glossary_page_says_what_help_says() -> None:
    page = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    for term in TERMS:
        assert f"## {term.word}\n\n{term.meaning}\n" in page


@pytest.mark.parametrize(("text", "found"), [
    ("Command prep + Op Sheet size.", {"prep"}),
    ("the rows of a table, a thrown die, tomorrow", set()),
    ("--row", {"row"}), ("1 SP lost", {"SP"}), ("disorder or sp", {"SP"}),
    ("Weighted turns accrued.", {"weighted turns"}), ("spare", set()),
])
def test_words_are_spotted_whole(text: str, found: set[str]) -> None:
    assert {t.word for t in TERMS if t.found_in(text)} == found
