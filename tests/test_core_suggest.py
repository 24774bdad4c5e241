"""core/suggest: case-insensitive id matching and "did you mean" suggestions."""

import pytest

from rallypoint.core.errors import MalformedInputError, UnknownIdError
from rallypoint.core.suggest import did_you_mean, match_id, near

IDS = ["1/ErP112", "2/ErP112", "3/ErP112", "ErP112-MG"]


def test_exact_then_case_insensitive() -> None:
    assert match_id("2/ErP112", IDS, "company") == "2/ErP112"
    assert match_id("2/erp112", IDS, "company") == "2/ErP112"
    assert match_id("ERP112-mg", IDS, "company") == "ErP112-MG"


def test_unknown_suggests_the_nearest() -> None:
    with pytest.raises(UnknownIdError) as err:
        match_id("4/ErP112", IDS, "company", fix="Use an id from `rallypoint show`.")
    message = err.value.message
    assert message.startswith("no company '4/ErP112'. Did you mean ")
    assert "1/ErP112" in message and message.endswith("Use an id from `rallypoint show`.")


def test_nothing_near_gives_only_the_fix() -> None:
    assert did_you_mean("zzz", IDS) == ""
    with pytest.raises(UnknownIdError) as err:
        match_id("zzz", IDS, "company", fix="Use an id.")
    assert err.value.fix == "Use an id."


def test_ids_differing_only_by_case_are_not_guessed() -> None:
    with pytest.raises(MalformedInputError) as err:
        match_id("ab", ["AB", "Ab"], "counter")
    assert "'ab' could be AB or Ab" in err.value.message


def test_near_ignores_case_and_keeps_the_known_spelling() -> None:
    assert near("erp112-mg", IDS)[0] == "ErP112-MG"


def test_scope_words_follow_the_id() -> None:
    with pytest.raises(UnknownIdError) as err:
        match_id("1/erp113", IDS, "company", scope="in this scenario")
    assert err.value.message.startswith("no company '1/erp113' in this scenario. Did you mean")


def test_a_foreign_command_is_named_in_words_not_by_its_class() -> None:
    from rallypoint.core.suggest import foreign_command
    from rallypoint.rulesets.squares.commands import NextTurn

    assert foreign_command(NextTurn(expected_version=1)) == "a squares command 'turn'"
    assert foreign_command(object()) == "that command"
