"""A side's export on a ``--shared`` server: its events redacted for the side, and the digest of
what was withheld (``turn.redacted``) in the hashed header, as ``export --for`` writes it. The
server holds no seat key, so the file is unsigned; ``rallypoint verify FILE`` checks the digest
and says so, and an edited withheld payload is refused."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from web.conftest import BACKENDS, database
from web.seats_table import SECRETS, Table, open_table


@pytest.fixture(scope="module", params=BACKENDS)
def table(request: pytest.FixtureRequest,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    folder = tmp_path_factory.mktemp("export")
    for db in database(request.param, folder):
        yield from open_table(db, folder)


def digest_of_withheld(events: list[dict[str, Any]]) -> str:
    """The digest recomputed from the file alone (sorted keys, no spaces: canonical JSON)."""
    shown = [[e["seq"], e["payload"]] for e in events if "$withheld" in e["payload"]]
    text = json.dumps(shown, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _marked(value: Any) -> bool:
    """Whether a payload carries a ``$withheld`` part (or an old marker) anywhere."""
    if isinstance(value, dict):
        return "$withheld" in value or any(_marked(v) for v in value.values())
    if isinstance(value, list):
        return any(_marked(v) for v in value)
    return False


def verify(path: Path, code: int = 0) -> Any:
    result = CliRunner().invoke(app, ["verify", str(path), "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result.stderr.strip()


@pytest.mark.parametrize("side", ["finland", "soviet"])
def test_a_sides_export_carries_the_digest_of_what_it_withholds(
        table: Table, side: str, tmp_path: Path) -> None:
    document = table.people[side].get(f"/api/campaigns/{table.ref}/export").json()
    other = "soviet" if side == "finland" else "finland"
    text = json.dumps(document)
    assert all(s not in text for s in SECRETS[other])
    withheld = [e for e in document["events"] if "$withheld" in e["payload"]]
    assert withheld, "the other side's sheet is withheld"
    turn = document["turn"]
    assert turn["redacted"] == digest_of_withheld(document["events"])
    assert (turn["reader"], turn["sender"], document["signatures"]) == (side, None, [])
    # The page's download is the same file.
    page = table.people[side].get(f"/c/{table.ref}/export")
    assert page.json()["turn"] == turn

    path = tmp_path / "side.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    checked = verify(path)
    assert checked["ok"] is True and checked["withheld"] == len(withheld)
    assert checked["signed_by"] is None and checked["redacted"] == turn["redacted"]
    out = CliRunner().invoke(app, ["verify", str(path)]).stdout
    assert f"{len(withheld)} withheld from you (linked, digest checked, unsigned" in out


def test_an_edited_withheld_payload_is_refused(table: Table, tmp_path: Path) -> None:
    document = table.people["finland"].get(f"/api/campaigns/{table.ref}/export").json()
    hidden = next(e for e in document["events"] if "$withheld" in e["payload"])
    hidden["payload"]["forged"] = True  # its hash cannot show it: the digest does
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert "withheld events are not the ones its signed header names" in verify(path, code=2)


def test_the_referee_and_a_revealed_side_get_the_whole_log(table: Table) -> None:
    document = table.people["referee"].get(f"/api/campaigns/{table.ref}/export").json()
    assert document["turn"]["redacted"] is None and document["turn"]["reader"] is None
    assert not any("$redacted" in e["payload"] or _marked(e["payload"])
                   for e in document["events"])
