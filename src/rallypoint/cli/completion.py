"""``rallypoint --install-completion`` says which shell start-up file it edited.

Typer's installer adds a ``source …`` line to ``~/.bashrc`` (or ``~/.zshrc``) and reports only
the completion script it wrote. A player should know that a file they own was changed and how to
undo it, so the installer is wrapped: the start-up files it may edit are read before and after,
and every line it added is named.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

RC_FILES = (".bashrc", ".zshrc")
"""The start-up files (under the home folder) typer's installer appends to."""


def _contents() -> dict[Path, list[str]]:
    found = {}
    for name in RC_FILES:
        path = Path.home() / name
        try:
            found[path] = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            found[path] = []
    return found


def added_lines(before: dict[Path, list[str]], after: dict[Path, list[str]]
                ) -> list[tuple[Path, str]]:
    """The non-blank lines each file gained, in file order."""
    added = []
    for path, lines in after.items():
        had = set(before.get(path, []))
        added += [(path, line) for line in lines if line.strip() and line not in had]
    return added


def install() -> None:
    """Wrap typer's completion installer (looked up by name when the option runs)."""
    import typer.completion

    original = typer.completion.install  # type: ignore[attr-defined]
    if getattr(original, "_rallypoint_notes", False):
        return

    def noting(*args: Any, **kwargs: Any) -> Any:
        before = _contents()
        result = original(*args, **kwargs)
        for path, line in added_lines(before, _contents()):
            typer.echo(f"edited {path}: added the line {line!r} (delete it to undo)")
        return result

    noting._rallypoint_notes = True  # type: ignore[attr-defined]
    typer.completion.install = noting  # type: ignore[attr-defined]
