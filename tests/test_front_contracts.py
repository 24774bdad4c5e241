"""The seams between the rules and the front ends carry typed values, not words for one front end.

TCS's due items name the kind of command that does them (``fo``, ``check``); the CLI words
them (``rallypoint tcs fo``) and the web makes a button of the same value.
"""

from __future__ import annotations

from pathlib import Path

from rallypoint.cli.due import command_words
from rallypoint.core.due import Due
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.outlook import DueKind, due_now
from test_tcs_rules import fo_campaign


def test_tcs_due_items_hold_a_command_kind_not_cli_words(tmp_path: Path) -> None:
    (due,) = due_now(tcs_state(fo_campaign(tmp_path)))
    assert (due.kind, due.command, due.sheet) == (DueKind.FO, "fo", "")
    typed = due.typed()
    assert (typed.kind, typed.command, typed.subject) == ("fo", "fo", None)
    assert command_words("tcs", typed) == "rallypoint tcs fo"
    assert command_words("tcs", Due("check", "sheet rest may be checked", "check", "rest")) == (
        "rallypoint tcs check rest")
