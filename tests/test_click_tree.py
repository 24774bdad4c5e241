"""The suite's cached click tree (tests/click_tree.py): built once per app, rebuilt when the app
changed, and answering as typer's own fresh build does."""

from __future__ import annotations

import pytest
import typer
from typer._click import Command
from typer.testing import CliRunner

import click_tree
from rallypoint.cli.main import app

runner = CliRunner()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[typer.Typer]:
    """Record every real build the cache asks for."""
    built: list[typer.Typer] = []
    real = click_tree.REAL_BUILD

    def build(app: typer.Typer) -> Command:
        built.append(app)
        return real(app)

    monkeypatch.setattr(click_tree, "REAL_BUILD", build)
    return built


def _small_app() -> typer.Typer:
    small = typer.Typer()

    @small.command()
    def hello() -> None:
        typer.echo("hello")

    @small.command()
    def bye() -> None:
        typer.echo("bye")

    return small


def test_an_app_is_built_once_for_many_invokes(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _counting(monkeypatch)
    small = _small_app()
    outputs = [runner.invoke(small, ["hello"]).output for _ in range(3)]
    assert outputs == ["hello\n"] * 3
    assert built == [small]


def test_a_command_added_after_the_first_invoke_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _counting(monkeypatch)
    small = _small_app()
    assert runner.invoke(small, ["hello"]).exit_code == 0
    assert runner.invoke(small, ["later"]).exit_code == 2  # no such command yet

    @small.command()
    def later() -> None:
        typer.echo("added later")

    result = runner.invoke(small, ["later"])
    assert (result.exit_code, result.output) == (0, "added later\n")
    assert built == [small, small]


def test_a_sub_app_that_gains_a_command_is_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    _counting(monkeypatch)
    outer, inner = typer.Typer(), _small_app()
    outer.add_typer(inner, name="inner")
    assert runner.invoke(outer, ["inner", "hello"]).output == "hello\n"

    @inner.command()
    def deep() -> None:
        typer.echo("deep")

    assert runner.invoke(outer, ["inner", "deep"]).output == "deep\n"


def test_a_replaced_callback_is_the_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    _counting(monkeypatch)
    small = _small_app()
    assert runner.invoke(small, ["hello"]).output == "hello\n"

    def hello() -> None:  # the same name, another function
        typer.echo("replaced")

    small.registered_commands[0].callback = hello
    assert runner.invoke(small, ["hello"]).output == "replaced\n"


@pytest.mark.parametrize("args", [["--help"], ["scenarios"], ["tcs", "--help"], ["nope"]])
def test_the_cached_tree_answers_as_a_fresh_build(args: list[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    cached = runner.invoke(app, args)
    # The oracle: typer's own runner building the tree afresh for this one invoke.
    monkeypatch.setattr("typer.testing._get_command", click_tree.REAL_BUILD)
    fresh = runner.invoke(app, args)
    assert (cached.exit_code, cached.output) == (fresh.exit_code, fresh.output)
    assert cached.output  # a real answer, not two empty ones
