"""The shape of the code base: who may import whom, and no branching on a ruleset's name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rallypoint"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _files(sub: str) -> list[Path]:
    return sorted((SRC / sub).rglob("*.py"))


@pytest.mark.parametrize("path", _files("core") + _files("dice"), ids=str)
def test_core_and_dice_know_no_ruleset(path: Path) -> None:
    for module in _imports(path):
        assert not module.startswith("rallypoint.rulesets."), f"{path} imports {module}"
        assert not module.startswith(("rallypoint.store", "rallypoint.cli")), module


@pytest.mark.parametrize("path", _files("rulesets"), ids=str)
def test_rulesets_never_import_store_cli_or_web(path: Path) -> None:
    for module in _imports(path):
        assert not module.startswith(
            ("rallypoint.store", "rallypoint.cli", "rallypoint.web", "rallypoint.lab")
        ), f"{path} imports {module}"


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=str)
def test_no_branching_on_a_ruleset_name(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                # A ruleset may check a file is its own; nothing else may name one in a branch.
                own = path.parent.name if path.parent.parent.name == "rulesets" else None
                names = {"tcs", "platoon", "squares"} - {own}
                if isinstance(side, ast.Constant) and side.value in names:
                    pytest.fail(f"{path}:{node.lineno} compares against a ruleset name")


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=str)
def test_rule_code_never_touches_an_rng(path: Path) -> None:
    if path.name == "rollers.py":
        return
    for module in _imports(path):
        assert module not in {"random", "secrets", "numpy.random"} or path.name == "campaign.py", (
            f"{path} imports {module}: rolls go through chance nodes and rollers"
        )


def test_modules_stay_small() -> None:
    big = [(p, n) for p in SRC.rglob("*.py")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500]
    assert not big, f"modules over 500 lines: {big}"
