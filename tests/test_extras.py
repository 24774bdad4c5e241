"""Extras: the base install plays every ruleset in the terminal; the server, PostgreSQL and the lab
are optional, and a command that needs a missing one says which to install in one line (exit 2).

The in-process tests hide an extra's modules from ``importlib.util.find_spec`` (the check the
commands make before they import anything of it). The slow test builds a real lean install with
``uv sync --locked --no-dev`` into a throwaway environment and plays the demo from it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import rallypoint
from rallypoint import extras
from rallypoint.cli.main import build
from rallypoint.core.errors import MissingExtraError

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """Names put in the returned set cannot be found, as in an install without their extra."""
    hidden: set[str] = set()
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name.split(".")[0] in hidden else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    yield hidden


@pytest.mark.parametrize(("argv", "module", "extra"), [
    (["serve"], "fastapi", "web"),
    (["simulate", "tcs", "--runs", "5"], "numpy", "lab"),
    (["--db", "postgresql://nobody@127.0.0.1:1/none", "list"], "psycopg", "postgres"),
])
def test_a_missing_extra_is_one_line_naming_the_extra(
        without: set[str], tmp_path: Path, argv: list[str], module: str, extra: str) -> None:
    without.add(module)
    db = tmp_path / "c.db"
    full = argv if argv[0] == "--db" else ["--db", str(db), *argv]
    result = runner.invoke(build(argv), full)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert f"the {extra!r} extra" in lines[0]
    assert f"uv sync --extra {extra}" in lines[0] and f"rallypoint[{extra}]" in lines[0]
    assert not db.exists()  # nothing written


def test_require_passes_when_installed_and_names_the_first_missing_module(
        without: set[str]) -> None:
    extras.require(extras.Extra.WEB)  # the test environment has every extra
    without.update({"uvicorn", "jinja2"})
    with pytest.raises(MissingExtraError, match="no module 'uvicorn'"):
        extras.require(extras.Extra.WEB)


def test_every_extra_lists_the_packages_pyproject_gives_it() -> None:
    # The module lists here must follow the extras in pyproject.toml: an extra gaining a package
    # whose module is not checked would let a command get as far as a traceback.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    optional = project["optional-dependencies"]
    module_of = {"python-multipart": "multipart", "argon2-cffi": "argon2",
                 "psycopg[binary]": "psycopg", "dask[distributed]": "dask"}
    for extra in extras.Extra:
        packages = [p.split(">")[0].split("=")[0] for p in optional[extra.value]
                    if not p.startswith("rallypoint[")]
        expected = {module_of.get(p, p.replace("-", "_")) for p in packages}
        assert expected <= set(extras.MODULES[extra]), (extra, expected)
    assert set(optional["all"][0].split("[")[1].rstrip("]").split(",")) == {
        e.value for e in extras.Extra}
    base = {d.split(">")[0].split("=")[0].split("[")[0] for d in project["dependencies"]}
    heavy = {"fastapi", "uvicorn", "psycopg", "numpy", "matplotlib", "dask", "argon2-cffi"}
    assert not base & heavy


def test_the_version_has_one_source() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    from importlib.metadata import version

    assert version("rallypoint") == rallypoint.__version__
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


@pytest.mark.slow
def test_a_lean_install_has_no_server_database_or_lab_and_plays_the_demo(
        tmp_path: Path) -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(tmp_path / "venv"),
           "RALLYPOINT_DB": str(tmp_path / "demo.db"), "COLUMNS": "80"}
    env.pop("VIRTUAL_ENV", None)
    subprocess.run([uv, "sync", "--locked", "--no-dev", "--quiet"], cwd=ROOT, env=env,
                   check=True, timeout=600)
    python = tmp_path / "venv" / "bin" / "python"
    probe = ("import importlib.util as u; print(' '.join(m for m in "
             "('fastapi','uvicorn','psycopg','numpy','matplotlib','dask','argon2') "
             "if u.find_spec(m)))")
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert found == ""
    lean = subprocess.run([str(tmp_path / "venv" / "bin" / "rallypoint"), "demo"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert lean.returncode == 0, lean.stderr
    full = subprocess.run([str(Path(sys.executable).parent / "rallypoint"), "demo"],
                          env={**env, "RALLYPOINT_DB": str(tmp_path / "full.db")},
                          capture_output=True, text=True, timeout=300)
    assert full.returncode == 0, full.stderr
    assert lean.stdout == full.stdout  # the same demo, number for number
    served = subprocess.run([str(tmp_path / "venv" / "bin" / "rallypoint"), "serve"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert served.returncode == 2 and "'web' extra" in served.stderr + served.stdout
