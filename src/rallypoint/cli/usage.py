"""Usage errors (a bad option, a missing argument, an unknown command) as one refusal line.

Typer prints click's usage errors as a multi-line box; every other refusal in rallypoint is one
line ``error (code): what (at where). fix``, exit 2. Typer looks ``rich_format_error`` up on its
``rich_utils`` module when an error happens, so replacing that one function changes only error
output: ``--help`` stays rich.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from rallypoint.core.inputs import shorten

_MAX_MESSAGE = 200


def usage_line(error: Any) -> str | None:
    """The one line for a click usage error, or ``None`` for "no arguments: show help"."""
    if type(error).__name__ == "NoArgsIsHelpError":
        return None
    message = " ".join(str(error.format_message()).split()).rstrip(".")
    ctx = getattr(error, "ctx", None)
    path = ctx.command_path if ctx is not None else "rallypoint"
    return (f"{shorten(message, _MAX_MESSAGE)} (at {path}). "
            f"Run `{path} --help` for what it takes.")


def print_usage_error(error: Any) -> None:
    """Typer's hook for usage errors: one line on stderr in the refusal style."""
    from rallypoint.cli.session import err_console

    line = usage_line(error)
    if line is not None:
        err_console.print(f"[bold red]error[/] [dim](usage)[/]: {escape(line)}",
                          highlight=False, soft_wrap=True)


def install() -> None:
    """Route typer's usage-error output through :func:`print_usage_error`."""
    import typer.rich_utils

    typer.rich_utils.rich_format_error = print_usage_error  # type: ignore[assignment]
