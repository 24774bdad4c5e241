"""The command line's last rough edges (issue 22), each through the installed console script as a
player meets it: one refusal line, exit 2, nothing written; or, where the input is fine, the
command simply works (a name with brackets, ``-`` for a pipe, typed dice in a seeded campaign)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

RALLYPOINT = str(Path(sys.executable).parent / "rallypoint")


def run(db: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    full = {**os.environ, "RALLYPOINT_DB": str(db), "COLUMNS": "80", "NO_COLOR": "1",
            **(env or {})}
    full.pop("FORCE_COLOR", None)
    return subprocess.run([RALLYPOINT, *args], env=full, capture_output=True, input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL, cwd=cwd)


def ok(db: Path, *args: str, **kw: object) -> str:
    done = run(db, *args, **kw)  # type: ignore[arg-type]
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def refused(db: Path, *args: str, **kw: object) -> str:
    """The one refusal line (exit 2, nothing on stdout, no traceback)."""
    done = run(db, *args, **kw)  # type: ignore[arg-type]
    err = done.stderr.decode()
    assert done.returncode == 2, (done.returncode, err)
    assert done.stdout == b"" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


def versions(db: Path) -> dict[str, int]:
    return {c["name"]: c["version"] for c in json.loads(ok(db, "list", "--json"))}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "edges.sqlite3"


def test_a_name_with_rich_markup_is_shown_as_typed(db: Path) -> None:
    out = ok(db, "platoon", "create", "--name", "[/]x", "--seed", "a")
    assert out.startswith("created platoon campaign [/]x (id ")
    assert versions(db) == {"[/]x": 1}
    ok(db, "new", "example1", "--name", "[red]y[/]")
    assert ok(db, "show", "-c", "[red]y[/]").startswith("[red]y[/] — Tolvajärvi")


@pytest.mark.parametrize(("content", "needle"), [
    (b"\xff\xfe{}", "battle report is not UTF-8 text (byte 1 is invalid)"),
    (bytes(range(256)) * 4, "battle report is not UTF-8 text"),
    (b"1" * 5000, "has 5000 digits; numbers must fit in 64 bits"),
    (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply"),
    (b'{"a": ' * 200 + b"1" + b"}" * 200, "nested more than 64 levels"),
])
def test_a_bad_battle_report_file_is_one_line_and_writes_nothing(
        db: Path, tmp_path: Path, content: bytes, needle: str) -> None:
    ok(db, "platoon", "create", "--name", "p", "--seed", "a")
    report = tmp_path / "report.json"
    report.write_bytes(content)
    assert needle in refused(db, "platoon", "report", str(report))
    assert versions(db) == {"p": 1}


@pytest.mark.parametrize(("args", "needle"), [
    (["odds", "tcs-implementation", "--row", "3", "--weighted-turns", "0", "--per-turn", "1",
      "--horizon", "5000"], "'--horizon': Input should be less than or equal to 500"),
    (["odds", "tcs-implementation", "--row", "3", "--weighted-turns", "0", "--per-turn", "-1"],
     "'--per-turn': Input should be greater than or equal to 0"),
    (["odds", "tcs-implementation", "--row", "3", "--weighted-turns", "0", "--horizon", "0"],
     "'--horizon': Input should be greater than or equal to 1"),
    (["odds", "tcs-fo", "--number", "12", "--horizon", "5000"],
     "'--horizon': Input should be less than or equal to 500"),
    (["simulate", "tcs-recovery", "--modifier", "1", "--row", "3", "--turns", "5000"],
     "'--turns': Input should be less than or equal to 500"),
])
def test_odds_past_any_scenario_are_refused_before_computing(db: Path, args: list[str],
                                                             needle: str) -> None:
    assert needle in refused(db, *args)


def test_the_longest_exact_tables_still_print(db: Path) -> None:
    out = ok(db, "odds", "tcs-implementation", "--row", "3", "--weighted-turns", "0",
             "--per-turn", "1", "--horizon", "500", "--json")
    assert len(json.loads(out)["turns"]) > 0
    assert "hours until the FO returns" in ok(db, "odds", "tcs-fo", "--number", "12",
                                              "--horizon", "500")


@pytest.mark.parametrize("option", ["--plot", "--csv"])
def test_simulate_refuses_an_output_in_a_missing_folder_before_running(
        db: Path, tmp_path: Path, option: str) -> None:
    target = tmp_path / "no such folder" / ("out.png" if option == "--plot" else "out.csv")
    line = refused(db, "simulate", "tcs-recovery", "--modifier", "1", "--runs", "100", option,
                   str(target))
    assert f"Invalid value for '{option}': no folder" in line and "make it first" in line
    assert not target.parent.exists(), "the folder is not made on a typo's behalf"


def test_simulate_refuses_a_plot_it_cannot_draw_before_running(db: Path, tmp_path: Path) -> None:
    line = refused(db, "simulate", "tcs-recovery", "--modifier", "1", "--plot",
                   str(tmp_path / "out.txt"))
    assert "cannot write 'out.txt': give a file ending in .png or .svg" in line


LONG = "y" * 5000


@pytest.mark.parametrize("args", [
    ["simulate", "tcs-recovery", "--modifier", "1", "--column", LONG],
    ["new", LONG], ["show", "-c", LONG], ["export", LONG], ["import", LONG],
    ["platoon", "report", LONG], ["odds", "squares-rally", "--modifier", LONG],
])
def test_a_refusal_echoes_at_most_a_few_hundred_characters(db: Path, args: list[str]) -> None:
    ok(db, "platoon", "create", "--name", "p", "--seed", "a")
    line = refused(db, *args)
    assert len(line) < 1000, len(line)
    assert "yyyyyyyy" in line or "File name too long" in line or "Input should" in line


def test_dash_pipes_export_verify_and_import(db: Path, tmp_path: Path) -> None:
    ok(db, "new", "farm", "--name", "ridge", "--seed", "s")
    ok(db, "squares", "lose", "95th")
    done = run(db, "export", "-", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.decode().startswith("exported 2 events to standard output")
    piped = json.loads(done.stdout)
    assert [e["seq"] for e in piped["events"]] == [1, 2]
    assert not (tmp_path / "-").exists(), "no file named '-'"
    verdict = ok(db, "verify", "-", stdin=done.stdout)
    assert verdict.startswith("ok: 2 events, hash chain intact, head at #2, every event folds")
    other = tmp_path / "other.sqlite3"
    imported = ok(other, "import", "-", stdin=done.stdout)
    assert imported.startswith("imported ridge (2 events, 2 new)")
    assert "standard input is empty" in refused(other, "import", "-", stdin=b"")
    assert "not valid JSON" in refused(other, "verify", "-", stdin=b"{nope")
    # A file really called '-' is still reachable, by a path with a folder in it.
    ok(db, "export", str(tmp_path / "-"))
    assert json.loads((tmp_path / "-").read_text(encoding="utf-8"))["events"][1]["seq"] == 2


def test_export_writes_into_a_pipe_and_never_replaces_it(db: Path, tmp_path: Path) -> None:
    ok(db, "new", "farm", "--name", "ridge")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    # A daemon: if the pipe were replaced, its reader would wait for a writer forever.
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = run(db, "export", str(fifo))
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"", "the summary goes to stderr, out of the piped file's way"
    assert fifo.is_fifo(), "the pipe is still a pipe, not a regular file renamed over it"
    reader.join(timeout=60)
    assert json.loads(got[0])["events"][0]["type"] == "created"


def test_a_seeded_campaign_with_typed_dice_passes_its_own_verify(db: Path, tmp_path: Path) -> None:
    ok(db, "new", "farm", "--name", "ridge", "--seed", "s")
    ok(db, "squares", "rally", "kempt", "28th", "--kind", "disorder", "--dice", "6")
    ok(db, "export", str(tmp_path / "ridge.json"))
    out = ok(db, "verify", str(tmp_path / "ridge.json"))
    assert "legacy seed: 1 typed in, 0 failed (dice)" in out
    # The mark is checked: typed faces that differ from the stored ones fail.
    document = json.loads((tmp_path / "ridge.json").read_text(encoding="utf-8"))
    document["events"][1]["payload"]["dice_proof"]["tape"] = [[6, 1]]
    (tmp_path / "forged.json").write_text(json.dumps(document), encoding="utf-8")
    forged = run(db, "verify", str(tmp_path / "forged.json"))
    assert forged.returncode != 0


def test_install_completion_names_the_startup_file_it_edits(db: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("alias ll='ls -l'\n", encoding="utf-8")
    out = ok(db, "--install-completion", "bash", env={"HOME": str(home)})
    script = home / ".bash_completions" / "rallypoint.sh"
    assert out.splitlines()[0] == (f"edited {home / '.bashrc'}: added the line \"source "
                                   f"'{script}'\" (delete it to undo)")
    assert (home / ".bashrc").read_text(encoding="utf-8").startswith("alias ll='ls -l'\n")
    again = ok(db, "--install-completion", "bash", env={"HOME": str(home)})
    assert "edited" not in again, "nothing added the second time, so nothing to say"


def test_export_through_a_link_writes_its_target_and_keeps_the_link(db: Path,
                                                                   tmp_path: Path) -> None:
    # /dev/stdout is such a link when standard output is a file: renaming over it would
    # replace the link itself (as root, the system's /dev/stdout).
    ok(db, "new", "farm", "--name", "ridge")
    target = tmp_path / "real.json"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    ok(db, "export", str(link))
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert json.loads(target.read_text(encoding="utf-8"))["events"][0]["type"] == "created"
