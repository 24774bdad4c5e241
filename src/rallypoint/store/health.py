"""Whether a store is fit to serve: reachable, and its schema is the one this version writes.

A load balancer or an operator asks this through ``GET /healthz``; it reads, never migrates or
writes (a read of a SQLite store still upgrades an old file once, as every read open does).
"""

from __future__ import annotations

from dataclasses import dataclass

from rallypoint.core.errors import RallypointError
from rallypoint.store import migrations
from rallypoint.store import postgres_schema as pg_schema
from rallypoint.store.location import Location, exists, open_store
from rallypoint.store.postgres import is_postgres_url


@dataclass(frozen=True)
class Health:
    """What the check found.

    Attributes:
        reachable: The database answered.
        migrations_current: Every migration this version knows is applied (and none unknown).
        backend: ``"sqlite"`` or ``"postgresql"``.
        problem: One line on what is wrong (``None`` when healthy).
    """

    reachable: bool
    migrations_current: bool
    backend: str
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """Fit to serve."""
        return self.reachable and self.migrations_current


def check(location: Location) -> Health:
    """Open the store read-only and compare its applied migrations with this version's."""
    backend = "postgresql" if is_postgres_url(location) else "sqlite"
    expected = [name for name, _ in (pg_schema.MIGRATIONS if backend == "postgresql"
                                     else migrations.MIGRATIONS)]
    if not exists(location):
        return Health(False, False, backend, "no database yet (the server makes it on start)")
    try:
        with open_store(location, readonly=True) as store:
            applied = store.applied_migrations()
    except RallypointError as exc:
        return Health(False, False, backend, exc.what)
    if applied != expected:
        missing = [n for n in expected if n not in applied]
        unknown = [n for n in applied if n not in expected]
        what = (f"migrations not applied: {', '.join(missing)}" if missing else
                f"migrations from a newer version: {', '.join(unknown)}")
        return Health(True, False, backend, what)
    return Health(True, True, backend)
