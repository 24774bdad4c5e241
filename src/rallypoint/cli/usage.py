"""Usage errors (a bad option, a missing argument, an unknown command) as one refusal line.

Typer prints click's usage errors as a multi-line box; every other refusal in rallypoint is one
line ``error (code): what (at where). fix``, exit 2. Typer looks ``rich_format_error`` up on its
``rich_utils`` module when an error happens, so replacing that one function changes only error
output: ``--help`` stays rich (its paragraphs re-wrapped to the terminal:
:func:`joined_paragraphs`).
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


def joined_paragraphs(paragraphs: list[str], markup_mode: Any = None) -> str:
    """A command's help paragraphs with each one's source line breaks joined, so rich wraps them
    to the terminal (typer keeps the docstring's breaks, which at 80 columns leaves a stub line
    after every source line). A paragraph with an indented line (an example, a table) or one
    marked ``\\b`` is kept as written."""
    out = []
    for paragraph in paragraphs:
        lines = paragraph.splitlines()
        if paragraph.startswith("\b") or any(line.startswith((" ", "\t")) for line in lines):
            out.append(paragraph)
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


def install() -> None:
    """Route typer's usage-error output through :func:`print_usage_error`.

    ``typer.rich_utils`` imports rich's markdown renderer (tens of milliseconds), and typer
    imports it only for help or an error; so it is patched when it is first imported, through a
    one-shot import hook, rather than imported here on every command.
    """
    import sys

    module = sys.modules.get("typer.rich_utils")
    if module is not None:
        module.rich_format_error = print_usage_error  # type: ignore[attr-defined]
        module._fix_linebreaks = joined_paragraphs  # type: ignore[attr-defined]
    elif _RichUtilsHook not in sys.meta_path:
        sys.meta_path.insert(0, _RichUtilsHook)


class _RichUtilsHook:
    """A meta-path finder that answers only for ``typer.rich_utils``, once, and patches it."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        if name != "typer.rich_utils":
            return None
        import importlib.util
        import sys

        sys.meta_path.remove(_RichUtilsHook)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)  # type: ignore[assignment]
        return spec


class _PatchingLoader:
    """Loads ``typer.rich_utils`` as usual, then swaps in :func:`print_usage_error`."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.inner.exec_module(module)
        module.rich_format_error = print_usage_error
        module._fix_linebreaks = joined_paragraphs
