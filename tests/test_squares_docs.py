"""The data file and docs/rules/squares.md against the seed text and the test suite.

Source: ../shared/seeds/003_d34c7a60f6abd116.txt. Every modifier in ``data.toml`` quotes its seed
line (and the quote carries the value); the coverage matrix quotes the seed in order and names
only tests that exist.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT.parent / "shared" / "seeds" / "003_d34c7a60f6abd116.txt"
DOC = ROOT / "docs" / "rules" / "squares.md"
TEST_FILES = {"Ra": "test_squares_rally.py", "Rc": "test_squares_recovery.py",
              "G": "test_squares_grid.py", "O": "test_squares_odds.py",
              "P": "test_squares_properties.py", "S": "test_squares_scenario.py",
              "C": "test_squares_cli.py", "D": "test_squares_docs.py"}


RULE_LINES = [
    "There are no enemy units in an adjacent square.",
    "The disordered unit was not the target of bombardment or ranged fire already in the same "
    "turn.",
    "The disordered unit has more than 1SP remaining to it.",
    "may conduct ranged combat but may not move during that same activation.",
    "If the result is 6 or more, then the test is passed and the results applied.",
    "If the result is 0 or less, the unit breaks and is removed from play.",
    "A Rally may not be attempted if any enemy is adjacent to intended unit.",
    "Testing unit is attempting to recover from disorder: +2",
    "For each SP loss from testing unit's starting Stamina: -1",
    "If both the Brigadier and Army Commander are in the same square as testing unit: +1",
    "Testing unit is in a square with friendly fortification terrain: +1",
    "There are no enemy units visible to testing unit: +1",
    "Each shaken friendly unit in same or adjacent squares: -1",
    "If no friendly unit in same or adjacent square: -1",
    "For each non-shaken friendly unit in same or adjacent square: +1 (maximum of +3)",
]
"""The seed's rule sentences; each must be quoted whole somewhere in the matrix."""


def normal(text: str) -> str:
    """Curly apostrophes straight, runs of whitespace (incl. no-break spaces) single."""
    return " ".join(text.replace("’", "'").split())


def seed_text() -> str:
    if not SEED.exists():
        pytest.skip("the seed text is not next to this checkout")
    return normal(SEED.read_text(encoding="utf-8"))


def raw_data() -> dict[str, Any]:
    text = resources.files("rallypoint.rulesets.squares").joinpath("data.toml").read_text("utf-8")
    return tomllib.loads(text)


def test_modifier_sources_quote_the_seed() -> None:
    seed = seed_text()
    for key, rule in raw_data()["modifiers"].items():
        quote = normal(rule["source"].rsplit("': '", 1)[1].removesuffix("'"))
        assert quote in seed, f"{key}: {quote!r} is not in the seed"
        match = re.search(r": ([+-]\d+)(?: \(maximum of \+(\d+)\))?$", quote)
        assert match is not None, f"{key}: the quote does not end with its value"
        value, cap = match.groups()
        assert int(value) == rule["value"], key
        assert (int(cap) if cap else None) == rule.get("cap"), key


def test_thresholds_are_the_seeds() -> None:
    seed = seed_text()
    limits = raw_data()["thresholds"]
    assert f"If the result is {limits['pass_at']} or more, then the test is passed" in seed
    assert f"If the result is {limits['break_at']} or less, the unit breaks" in seed
    assert f"has more than {limits['recovery_needs_more_than']}SP remaining" in seed
    assert f"units at {limits['shaken_sp']}SP (and therefore Shaken)" in seed
    assert "Once a unit has lost two or more SP" in seed and limits["rally_after_sp_lost"] == 2


def _rows() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8").split("## Clauses", 1)[1].split("\n## ", 1)[0]
    return [[cell.strip() for cell in line.strip("|").split(" | ")]
            for line in text.splitlines() if re.match(r"^\| \d+ \|", line)]


def test_the_matrix_quotes_every_clause_of_the_seed_in_order() -> None:
    seed = seed_text()
    rows = _rows()
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    position = 0
    for row in rows:
        quotes = [normal(q) for q in re.findall(r"\"([^\"]+)\"", row[1])]
        assert quotes, f"row {row[0]} quotes nothing"
        for quote in quotes:
            for part in (p.strip() for p in quote.split("…")):
                assert part in seed, f"row {row[0]}: {part!r} is not in the seed"
        first = seed.find(quotes[0].split("…")[0].strip())
        assert first >= position, f"row {row[0]} is out of seed order"
        position = first
    quoted = " ".join(normal(q) for r in rows for q in re.findall(r"\"([^\"]+)\"", r[1]))
    for rule in RULE_LINES:
        assert rule in seed and rule in quoted, f"{rule!r} is not quoted in the matrix"


def test_the_matrix_names_only_tests_that_exist() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = re.findall(r"`(Ra|Rc|G|O|P|S|C|D)::(test_\w+)", text)
    assert len(named) > 40
    for short, name in named:
        source = (ROOT / "tests" / TEST_FILES[short]).read_text(encoding="utf-8")
        assert f"def {name}(" in source, f"{short}::{name} does not exist"


def test_docs_list_every_parameter() -> None:
    text = DOC.read_text(encoding="utf-8")
    data = raw_data()
    for name, parameter in data["parameters"].items():
        row = next((line for line in text.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, f"parameter {name} is not in the table"
        default = str(parameter["value"]).lower()
        assert f"| `{default}` |" in row, f"{name}: the table's default is not {default}"
    for key in data["modifiers"]:
        assert f"[modifiers.{key}]" in text or f"modifiers.{key}" in text, key
