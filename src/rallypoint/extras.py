"""The optional parts of an install (extras), and the one line a command says when one is missing.

The base install plays every ruleset in the terminal. The web server, the PostgreSQL store and the
lab are extras (``pyproject.toml``), so a player's install holds none of their packages. A command
that needs one checks here first, before it imports anything of it, so a missing package is one
line with the install command instead of a traceback.
"""

from __future__ import annotations

import importlib.util
from enum import StrEnum

from rallypoint.errors import Hint, MissingExtraError


class Extra(StrEnum):
    """An optional part of rallypoint, by the name ``pip install 'rallypoint[NAME]'`` takes."""

    WEB = "web"
    POSTGRES = "postgres"
    LAB = "lab"
    CLUSTER = "cluster"


MODULES: dict[Extra, tuple[str, ...]] = {
    Extra.WEB: ("fastapi", "uvicorn", "jinja2", "multipart", "argon2", "itsdangerous"),
    Extra.POSTGRES: ("psycopg", "psycopg_pool"),
    Extra.LAB: ("numpy", "matplotlib"),
    Extra.CLUSTER: ("dask", "distributed"),
}
"""The top-level modules each extra installs (checked without importing them)."""

PURPOSE: dict[Extra, str] = {
    Extra.WEB: "the web app (`rallypoint serve`) and shared seats",
    Extra.POSTGRES: "a PostgreSQL database (`--db postgresql://…`)",
    Extra.LAB: "the lab (`rallypoint simulate`, plots)",
    Extra.CLUSTER: "the Dask backend (`simulate --scheduler`)",
}


def missing(extra: Extra) -> tuple[str, ...]:
    """The modules of ``extra`` that this install cannot import (none: the extra is there)."""
    return tuple(name for name in MODULES[extra] if importlib.util.find_spec(name) is None)


def require(extra: Extra) -> None:
    """Check that ``extra`` is installed before a command imports any of it.

    Raises:
        MissingExtraError: One of its packages is missing; the message says which extra to
            install and how.
    """
    absent = missing(extra)
    if absent:
        raise MissingExtraError(
            f"{PURPOSE[extra]} needs the {extra.value!r} extra, which this install lacks "
            f"(no module {absent[0]!r})",
            fix=f"Install it: `uv sync --extra {extra.value}` in a checkout, or "
                f"`pip install 'rallypoint[{extra.value}]'`.", instead=Hint.SERVER)
