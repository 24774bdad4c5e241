"""No refusal on a web page names a command line command or option.

Every error the library (everything but ``cli/`` and ``lab/``) constructs whose fix names a
command line command or option (backticks, ``rallypoint VERB``, ``--option``) carries a typed
``instead``: a command kind that a ruleset page names its own button for (``COMMANDS``), or a
:class:`~rallypoint.errors.Hint` worded by ``web.words.HINTS``. The walk reads the source
(``ast``), so an error added later without a hint fails here; the pages are then checked with
real refusals. ``cli/`` words its own errors; ``lab/`` is reached from the web only through the
lab page's fixed rest simulation, whose one refusal (``web/lab.py``) is walked with the rest.
"""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

from fastapi.testclient import TestClient

from rallypoint.core.errors import Hint, IllegalNowError
from rallypoint.rulesets.platoon.front import web as platoon
from rallypoint.rulesets.squares.front import web as squares
from rallypoint.rulesets.tcs.front import web as tcs
from rallypoint.web.words import HINTS, web_message
from web.conftest import token_of

SRC = Path(__file__).resolve().parents[2] / "src" / "rallypoint"
CLI_WORDS = re.compile(r"`|\brallypoint (?!to |wrote|campaign|database)[a-z]|(?<![\w-])--[a-z]")
"""Command line words: a backticked command, ``rallypoint VERB``, an ``--option``."""
PAGE_COMMANDS = {**tcs.COMMANDS, **squares.COMMANDS, **platoon.COMMANDS}


def _texts(node: ast.AST, names: dict[str, str] | None = None) -> str:
    """The string constants in ``node``, and the module constants it names (``_SHOW``)."""
    return " ".join([n.value for n in ast.walk(node)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str)]
                    + [(names or {}).get(n.id, "") for n in ast.walk(node)
                       if isinstance(n, ast.Name)])


def _constants(tree: ast.Module) -> dict[str, str]:
    """A module's top-level names bound to text."""
    return {t.id: _texts(a.value) for a in tree.body if isinstance(a, ast.Assign)
            for t in a.targets if isinstance(t, ast.Name)}


PINNED = SRC / "rulesets" / "platoon" / "v1"
"""The platoon v1 rules, pinned byte for byte."""


def _error_calls() -> list[tuple[str, int, str, ast.expr | None]]:
    """Every error construction (or error-making helper call given a fix) outside ``cli/`` and
    ``lab/`` and a ruleset's command-line and lab front parts (``front/`` modules but its web
    page): (file, line, its fix's words, its ``instead``)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).parts
        if parts[0] in ("cli", "lab") or ("front" in parts and not path.stem.startswith("web")):
            continue
        if path.is_relative_to(PINNED):
            # Pinned rules (tests/test_platoon_events.py: SHA-256 per file) never change; a
            # hint there would need a new schema version. Their fixes stay in CLI words.
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _constants(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = str(getattr(node.func, "id", "") or getattr(node.func, "attr", ""))
            keywords = {k.arg: k.value for k in node.keywords}
            if not (name.endswith("Error") or name.startswith("_refuse") or "fix" in keywords):
                continue
            fix = keywords.get("fix")
            words = _texts(fix, names) if fix is not None else \
                " ".join(_texts(a, names) for a in node.args)
            found.append((str(path.relative_to(SRC)), node.lineno, words,
                          keywords.get("instead")))
    return found


def test_every_fix_naming_a_cli_command_carries_a_typed_hint() -> None:
    calls = _error_calls()
    cli_worded = [c for c in calls if CLI_WORDS.search(c[2])]
    # The walk sees them: there were 100 when this was written, 85 once the tcs rules named
    # their fixes by kind (rulesets/tcs/fixes.py) and their front part worded them.
    assert len(cli_worded) > 60
    bare = [f"{file}:{line}: {words[:70]}" for file, line, words, instead in cli_worded
            if instead is None]
    assert not bare, "fixes in CLI words with no instead=:\n" + "\n".join(bare)


def test_every_hint_given_has_web_words_without_cli_words() -> None:
    given: set[str] = set()
    for _, _, _, instead in _error_calls():
        if isinstance(instead, ast.Attribute) and getattr(instead.value, "id", "") == "Hint":
            given.add(Hint[instead.attr].value)
        elif isinstance(instead, ast.Constant) and isinstance(instead.value, str):
            given.add(instead.value)
    assert {h.value for h in Hint} <= given | set(HINTS)
    assert set(HINTS) == {h.value for h in Hint}
    unworded = sorted(g for g in given if g not in HINTS and g not in PAGE_COMMANDS)
    assert not unworded, f"no page words for instead={unworded}"
    for kind in sorted(given):
        error = IllegalNowError("refused", fix="Use `rallypoint x --y`.", instead=kind)
        words = web_message(error, PAGE_COMMANDS)
        assert not CLI_WORDS.search(words), (kind, words)
        assert words != "refused. Use `rallypoint x --y`."


def test_a_fields_own_words_come_before_the_generic_hint() -> None:
    error = IllegalNowError("each center must be safe", at=("attest",),
                            fix="Check the centers, then attest (--attest).",
                            instead=Hint.FIX_FIELD)
    assert web_message(error, tcs.COMMANDS, tcs.FIELDS) == (
        "each center must be safe. Check the centers on the map, then tick the box that "
        "attests them.")
    assert web_message(error, tcs.COMMANDS) == (
        "each center must be safe. Correct the marked field, then send the form again.")


def _refusal(page: str) -> str:
    """The words of the refusal at the top of a page."""
    box = re.search(r'id="error-top"[^>]*>(.*?)</div>', page, re.S)
    assert box, page[:500]
    return html.unescape(re.sub(r"<[^>]+>", "", box.group(1)))


def test_refused_forms_show_page_words(client: TestClient) -> None:
    cid = client.post("/api/campaigns", json={"scenario": "example1_tolvajarvi", "name": "ex1",
                                              "seed": "web"}).json()["id"]
    page = client.get(f"/c/{cid}").text
    base = {"csrf_token": token_of(page), "expected_version": "1"}
    refusals = {
        # An id the page does not list (the library's fix: `rallypoint show`).
        "unknown counter": {"kind": "loss", "form": "loss", "s:counter": "1/ErP112-9"},
        # Dice that are no dice (the library's fix: --dice 5,1,4).
        "bad dice": {"kind": "check", "form": "check", "s:sheet": "nope", "dice": "5,x"},
        # A field of the wrong shape (the library's fix: `rallypoint play`).
        "bad field": {"kind": "turn", "form": "turn", "l:fired": "a", "b:skip_fo": "yes",
                      "s:unknown_field": "1"},
        # A center not attested (the library's fix: --attest).
        "no attest": {"kind": "write_sheet", "form": "sheet", "s:sheet": "rest",
                      "l:members": "1/ErP112", "ms:centers.1/ErP112": "23.15", "i:size": "0"},
    }
    seen = {}
    for label, form in refusals.items():
        r = client.post(f"/c/{cid}/do", data={**base, **form}, follow_redirects=False)
        assert r.status_code in (400, 404, 409), (label, r.status_code)
        words = _refusal(r.text)
        assert not CLI_WORDS.search(words), (label, words)
        seen[label] = words
    assert seen["unknown counter"].endswith("Choose one of the ids this page lists.")
    assert seen["bad dice"].endswith(HINTS[Hint.DICE])
    assert seen["bad field"].endswith(HINTS[Hint.FIX_FIELD])
    assert seen["no attest"].endswith("tick the box that attests them.")
