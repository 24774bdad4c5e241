"""``check_scenario``: every problem of a scenario at once, in the words ``rallypoint new`` uses.

The oracle for "the same messages as ``new``" is ``new``'s own path (``created_event``) run on
the same file; the oracle for line numbers is a search of the test's own text.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rallypoint.core.campaign import created_event
from rallypoint.core.errors import DataFileError
from rallypoint.core.registry import get_ruleset, plugins, registered
from rallypoint.session.scenarios import check_scenario
from test_squares_scenario import BASE

SHIPPED = sorted(p for r in registered().values() for p in r.example_scenarios())


def line(text: str, start: str, after: int = 0) -> int:
    """The 1-based number of the first line starting with ``start`` (after line ``after``)."""
    return next(n for n, s in enumerate(text.splitlines(), start=1)
                if n > after and s.startswith(start))


def new_error(tmp_path: Path, text: str) -> str:
    """What ``rallypoint new`` says of this file (its one line)."""
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    ruleset = get_ruleset("squares" if 'ruleset = "squares"' in text else "tcs")
    with pytest.raises(DataFileError) as caught:
        created_event(ruleset, path, "x", seed="s")
    return caught.value.message


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_scenario_has_no_problem(path: Path) -> None:
    assert check_scenario(None, path.read_text(encoding="utf-8"), file=path.name) == []


BROKEN = [  # (replace, with): each one problem, in a different step of `new`'s path
    ('stamina = 5\nsquare = "A2"', 'stamina = 0\nsquare = "A2"'),
    ('square = "D4"', 'square = "4D"'),
    ('brigade = "b1"\nstamina = 5', 'brigade = "b9"\nstamina = 5'),
    ('id = "r1u"', 'id = "brig"'),
    ('kind = "woods"', 'kind = "swamp"'),
    ('rows = 4\n', 'rows = 4\n\n[parameters]\nadjacency = "six"\nmorale = 1\n'),
]


@pytest.mark.parametrize(("old", "new"), BROKEN)
def test_the_first_problem_is_new_s_own_message(tmp_path: Path, old: str, new: str) -> None:
    text = BASE.replace(old, new, 1)
    problems = check_scenario("squares", text, file=str(tmp_path / "s.toml"))
    assert problems
    said = new_error(tmp_path, text)
    # `new` adds a count of the others ("(1 more)"); the rest of its line is the first problem,
    # but for a parameter, where `new` names only the table and the check gives file:line too.
    said = said.replace(" (more after it: `rallypoint scenario check` lists every problem)", "")
    said = said.replace(" (1 more)", "")
    if "[parameters]" in said:
        said = said.replace("[parameters].adjacency", f"{tmp_path / 's.toml'}:11 "
                                                      "parameters.adjacency")
    assert said == problems[0].message


def test_every_problem_is_reported_each_with_its_line(tmp_path: Path) -> None:
    text = BASE.replace('stamina = 5\nsquare = "A2"', 'stamina = 0\nsquare = "A2"', 1)
    text = text.replace('square = "D4"', 'square = "4D"', 1)
    text = text.replace("rows = 4\n", 'rows = 4\n\n[parameters]\nadjacency = "six"\nmorale = 1\n')
    found = [(p.line, p.field, p.what) for p in check_scenario("squares", text, file="s.toml")]
    assert found == [
        (line(text, "stamina = 0"), "units[0].stamina",
         "Input should be greater than or equal to 1"),
        (line(text, 'square = "4D"'), "units[1].square",
         "'4D' is not a square (write the column letter then the row, e.g. C4)"),
        (line(text, "adjacency"), "parameters.adjacency", "parameter 'adjacency' cannot be 'six'"),
        (line(text, "morale"), "parameters.morale", "unknown parameter 'morale'"),
    ]


def test_every_cross_reference_problem_is_reported(tmp_path: Path) -> None:
    text = BASE.replace('brigade = "b1"\nstamina = 5', 'brigade = "b9"\nstamina = 5', 1)
    text = text.replace('id = "r1u"', 'id = "brig"', 1).replace('kind = "woods"', 'kind = "swamp"')
    found = [(p.line, p.what) for p in check_scenario("squares", text, file="s.toml")]
    assert found == [
        (line(text, 'id = "brig"'), "id 'brig' is used twice"),
        (line(text, 'id = "u1"'), "unit 'u1' names unknown brigade 'b9'"),
        (None, "terrain kind 'swamp' is unknown (known: fortification, hill, open, town, "
               "walled_farm, woods)"),
    ]
    assert "(2 more)" in new_error(tmp_path, text)


def test_a_tcs_file_reports_each_unknown_nationality_and_field(tmp_path: Path) -> None:
    path = next(p for p in SHIPPED if p.stem == "example1_tolvajarvi")
    text = path.read_text(encoding="utf-8").replace('nationality = "finnish"',
                                                      'nationality = "martian"', 1)
    problems = check_scenario("tcs", text, file="t.toml")
    assert [(p.line, p.field, p.what) for p in problems] == [
        (line(text, 'nationality = "martian"'), "sides[0].nationality",
         "unknown nationality: sides[0].nationality = 'martian'")]
    assert problems[0].fix.startswith("Use one of: american (us, usa,")
    assert new_error(tmp_path, text).startswith(
        f"unknown nationality: sides[0].nationality = 'martian' (at {tmp_path / 's.toml'}). "
        "Use one of: american")


def test_a_platoon_roster_reports_every_clash() -> None:
    text = ('ruleset = "platoon"\n'
            + "".join(f'[[men]]\nid = "{i}"\nname = "M"\nage = 20\ntrade = "gunner"\nskill = 50\n'
                      f'crew = "1"\nseat = "gunner"\n' for i in ("a", "a", "b"))
            + '[[men]]\nid = "c"\nname = "C"\nage = 20\ntrade = "driver"\nskill = 50\ncrew = "2"\n')
    assert [p.what for p in check_scenario("platoon", text)] == [
        "man id 'a' is used twice", "two men in crew 1's gunner seat",
        "two men in crew 1's gunner seat", "man 'c': give both crew and seat, or neither"]


def test_what_cannot_be_read_is_one_problem() -> None:
    assert [p.message for p in check_scenario(None, 'title = "no ruleset"')] == [
        "the scenario does not say which ruleset it is for (at line 1). "
        f'Add a top-level line like ruleset = "{max(plugins())}" (installed: '
        f'{", ".join(sorted(plugins()))}).']
    (syntax,) = check_scenario("squares", 'ruleset = "squares"\n[grid\n', file="g.toml")
    assert (syntax.what.startswith("TOML syntax error"), syntax.line) == (True, 2)
    (other,) = check_scenario("squares", 'ruleset = "tcs"\n')
    assert other.what == "scenario is for ruleset 'tcs', not 'squares'"
    (unknown,) = check_scenario(None, 'ruleset = "chess"\n')
    assert unknown.what == "no ruleset named 'chess'"


def test_parsed_data_is_checked_too() -> None:
    import tomllib

    data = tomllib.loads(BASE.replace('square = "D4"', 'square = "E4"'))
    assert [p.message for p in check_scenario("squares", data)] == [
        "unit 'r1u' is at E4, off the 4x4 grid. Correct that field; docs/scenarios.md lists "
        "every field and its meaning."]


def test_a_refused_entry_does_not_hide_the_rest_nor_accuse_its_neighbours() -> None:
    # Brigade b1's side is not even text: b1 is left out of the cross-reference check, and the
    # unit and the brigadier that name it are not accused of naming an unknown brigade.
    text = BASE.replace('id = "b1"\nside = "blue"', 'id = "b1"\nside = 5', 1)
    text = text.replace('id = "r1"\nside = "red"', 'id = "r1"\nside = "green"', 1)
    found = [(p.line, p.field, p.what) for p in check_scenario("squares", text)]
    assert found == [
        (line(text, "side = 5"), "brigades[0].side", "Input should be a valid string"),
        (line(text, 'id = "r1"'), "", "brigade 'r1' names unknown side 'green'"),
    ]


def test_a_ruleset_without_the_hooks_is_checked_by_new_s_own_path() -> None:
    """A third party's ruleset with no ScenarioFiles members (the toy): its first problem."""
    from toy_kit import SCENARIO, installed

    with installed():
        text = SCENARIO.read_text(encoding="utf-8")
        assert check_scenario(None, text, file="ford.toml") == []
        broken = check_scenario(None, text.replace("supplies = 2", 'supplies = "lots"'),
                                file="ford.toml")
    assert [(p.file, p.line, p.field) for p in broken] == [("ford.toml", 5, "supplies")]
