"""The scenario builder without a browser: every button is a plain form post, so these send the
forms a browser without JavaScript would. The oracles are the library's own scenario check and
scenario model, and Python's TOML reader; never the builder's code.
"""

from __future__ import annotations

import html
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rallypoint.core.registry import get_ruleset
from rallypoint.core.scenario_check import COLLECTING, scenario_files
from rallypoint.session.scenarios import check_scenario
from web.conftest import token_of

SHIPPED = sorted((Path(__file__).resolve().parents[2] / "src" / "rallypoint" / "rulesets")
                 .glob("*/scenarios/*.toml"))


class _Form(HTMLParser):
    """The (name, value) pairs the builder's form would send, as a browser sends them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pairs: list[tuple[str, str]] = []
        self._select: str | None = None
        self._chosen: str | None = None
        self._first: str | None = None
        self._option: dict[str, str] | None = None
        self._in_form = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("id") == "builder":
            self._in_form = True
        if not self._in_form:
            return
        if tag == "input" and a.get("name") and a.get("type") not in ("submit", "file"):
            if a.get("type") != "checkbox" or "checked" in a:
                self.pairs.append((a["name"], a.get("value", "")))
        elif tag == "select":
            self._select, self._chosen, self._first = a.get("name"), None, None
        elif tag == "option" and self._select is not None:
            self._option = a

    def handle_data(self, data: str) -> None:
        if self._option is not None:
            value = self._option.get("value", data)
            if self._first is None:
                self._first = value
            if "selected" in self._option:
                self._chosen = value
            self._option = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select is not None:
            self.pairs.append((self._select, self._chosen if self._chosen is not None
                               else self._first or ""))
            self._select = None
        elif tag == "form":
            self._in_form = False


def form_of(html: str) -> list[tuple[str, str]]:
    parser = _Form()
    parser.feed(html)
    return parser.pairs


def press(client: TestClient, ruleset: str, pairs: list[tuple[str, str]], action: str,
          **changes: str) -> Any:
    """Post the builder's form with ``changes`` typed in and the button ``action`` pressed."""
    sent = [(k, changes.pop(k, v)) if k in changes else
            (k, changes.pop(k[2:], v)) if k.startswith("v:") else (k, v) for k, v in pairs]
    sent += [(f"v:{k}", v) for k, v in changes.items()]
    return client.post(f"/build/{ruleset}", data={"action": action, **_multi(sent)},
                       follow_redirects=False)


def _multi(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        out.setdefault(k, []).append(v)
    return {k: v[0] if len(v) == 1 else v for k, v in out.items()}


def _model(ruleset: str, data: dict[str, Any]) -> Any:
    files = scenario_files(get_ruleset(ruleset))
    assert files is not None
    return files.scenario_model.model_validate(data, context={COLLECTING: True})


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_a_shipped_scenario_opened_and_saved_is_the_same_scenario(client: TestClient,
                                                                  path: Path) -> None:
    token = token_of(client.get("/build").text)
    opened = client.post("/build", data={"csrf_token": token},
                         files={"file": (path.name, path.read_bytes(), "text/plain")})
    assert opened.status_code == 200, opened.text[:500]
    ruleset = tomllib.loads(path.read_text(encoding="utf-8"))["ruleset"]
    saved = press(client, ruleset, form_of(opened.text), "download")
    assert saved.status_code == 200
    assert saved.headers["content-disposition"] == f'attachment; filename="{path.name}"'
    text = saved.text
    assert check_scenario(ruleset, text) == []
    original = tomllib.loads(path.read_text(encoding="utf-8"))
    assert _model(ruleset, tomllib.loads(text)) == _model(ruleset, original)


def test_add_like_this_and_remove_without_javascript(client: TestClient) -> None:
    page = client.get("/build/tcs")
    pairs = form_of(page.text)
    assert ("r:formations.0", "1") in pairs
    added = press(client, "tcs", pairs, "add:formations.0.companies",
                  **{"formations.0.id": "JR16", "formations.0.side": "finland"})
    assert added.status_code == 200
    pairs = form_of(added.text)
    # The new company came with the one counter a company must have.
    assert ("r:formations.0.companies.0.counters.0", "1") in pairs
    filled = press(client, "tcs", pairs, "copy:formations.0.companies.0.counters.0",
                   **{"formations.0.companies.0.counters.0.id": "1/JR16-1",
                      "formations.0.companies.0.counters.0.steps": "4"})
    pairs = form_of(filled.text)
    values = dict(pairs)
    assert values["v:formations.0.companies.0.counters.1.id"] == "1/JR16-2"
    assert values["v:formations.0.companies.0.counters.1.steps"] == "4"
    assert values["v:formations.0.id"] == "JR16"
    removed = press(client, "tcs", pairs, "remove:formations.0.companies.0.counters.0")
    values = dict(form_of(removed.text))
    assert values["v:formations.0.companies.0.counters.0.id"] == "1/JR16-2"
    assert "v:formations.0.companies.0.counters.1.id" not in values


def test_what_the_model_refuses_is_kept_as_typed_and_worded_as_new_words_it(
        client: TestClient) -> None:
    pairs = form_of(client.get("/build/tcs").text)
    r = press(client, "tcs", pairs, "check", **{"turn_track.turn_minutes": "twenty",
                                                "scenario.title": "<b>mine</b>"})
    assert r.status_code == 200
    assert dict(form_of(r.text))["v:turn_track.turn_minutes"] == "twenty"
    assert "&lt;b&gt;mine&lt;/b&gt;" in r.text and "<b>mine</b>" not in r.text
    toml = 'ruleset = "tcs"\n\n[scenario]\ntitle = "<b>mine</b>"\n\n[turn_track]\n' \
           'turn_minutes = "twenty"\n\n[[sides]]\n\n[[formations]]\n'
    expected = check_scenario("tcs", toml, file="scenario.toml")
    shown = r.text.count('<li class="problem">')
    assert shown == len(expected) > 0
    assert expected[0].what in r.text


def test_the_live_check_answers_the_problems_alone(client: TestClient) -> None:
    pairs = form_of(client.get("/build/squares").text)
    r = client.post("/build/squares/check", data=_multi(pairs), headers={"hx-request": "true"})
    assert r.status_code == 200
    assert r.text.lstrip().startswith('<div id="problems"')
    assert r.text.count('<li class="problem">') == len(
        check_scenario("squares", {"ruleset": "squares", "scenario": {}, "grid": {},
                                   "sides": [{}, {}], "brigades": [{}], "units": [{}]},
                       file="scenario.toml"))


def test_create_redirects_to_the_campaign(client: TestClient) -> None:
    path = next(p for p in SHIPPED if p.stem == "farm_below_the_ridge")
    opened = client.get("/build/squares?start=farm_below_the_ridge")
    r = press(client, "squares", form_of(opened.text), "create", name="my farm")
    assert r.status_code == 303
    campaign = client.get(r.headers["location"].replace("/c/", "/api/campaigns/")).json()
    assert campaign["name"] == "my farm" and campaign["version"] == 1
    assert '"squares"' in client.get("/api/campaigns").text
    assert path.exists()


def test_a_refused_create_writes_nothing_and_keeps_every_value(client: TestClient) -> None:
    pairs = form_of(client.get("/build/tcs").text)
    r = press(client, "tcs", pairs, "create", name="half",
              **{"scenario.title": "half done", "formations.0.side": "sweden"})
    assert r.status_code == 400
    assert "not created: Field required (at scenario.toml:" in r.text
    values = dict(form_of(r.text))
    assert values["v:scenario.title"] == "half done"
    assert values["v:formations.0.side"] == "sweden"
    assert values["name"] == "half"
    assert 'id="f-turn_track-start" name="v:turn_track.start" value="" aria-invalid="true"' \
        in r.text
    assert client.get("/api/campaigns").json() == []


def test_every_builder_post_needs_the_csrf_token(client: TestClient) -> None:
    pairs = form_of(client.get("/build/squares?start=farm_below_the_ridge").text)
    for token in (None, "0" * 64):
        sent = [(k, v) for k, v in pairs if k != "csrf_token"]
        if token is not None:
            sent.append(("csrf_token", token))
        for url in ("/build/squares", "/build/squares/check"):
            r = client.post(url, data={"action": "create", **_multi(sent)},
                            follow_redirects=False)
            assert (r.status_code, r.json()["code"]) == (403, "csrf"), (url, token)
        r = client.post("/build", data=_multi(sent),
                        files={"file": ("x.toml", b'ruleset = "tcs"', "text/plain")})
        assert r.status_code == 403
    assert client.get("/api/campaigns").json() == []


def test_the_download_name_cannot_break_the_header(client: TestClient) -> None:
    pairs = form_of(client.get("/build/squares?start=farm_below_the_ridge").text)
    sent = [(k, v) for k, v in pairs if k != "file_name"]
    sent.append(("file_name", 'evil"\r\nset-cookie: x=1; ../../etc/passwd'))
    r = client.post("/build/squares", data={"action": "download", **_multi(sent)})
    assert r.status_code == 200
    assert r.headers["content-disposition"] == \
        'attachment; filename="evilset-cookie x1 ....etcpasswd.toml"'
    assert "x=1" not in r.headers.get("set-cookie", "")


@pytest.mark.parametrize("bad", [
    (b"\xff\xfe not utf-8", "is not UTF-8 text"),
    (b"ruleset = ", "TOML syntax error"),
    (b'title = "no ruleset line"', "does not say which ruleset"),
    (b'ruleset = "chess"', "no scenario builder for ruleset 'chess'"),
])
def test_a_file_that_cannot_be_opened_says_why_in_one_line(client: TestClient,
                                                           bad: tuple[bytes, str]) -> None:
    content, words = bad
    token = token_of(client.get("/build").text)
    r = client.post("/build", data={"csrf_token": token},
                    files={"file": ("mine.toml", content, "text/plain")})
    assert r.status_code in (400, 404)
    assert words in html.unescape(r.text) and 'id="error-top"' in r.text


def test_an_unknown_ruleset_or_shipped_name_is_a_404(client: TestClient) -> None:
    assert client.get("/build/chess").status_code == 404
    assert client.get("/build/squares?start=nowhere").status_code == 404
    assert client.get("/build/squares?start=../tcs/scenarios/example1_tolvajarvi"
                      ).status_code == 404
    token = token_of(client.get("/build").text)
    assert client.post("/build/chess", data={"csrf_token": token}).status_code == 404


def test_a_row_list_stops_growing_at_its_limit(client: TestClient) -> None:
    from rallypoint.web.scenario_form import MAX_ROWS

    pairs = [p for p in form_of(client.get("/build/squares").text)
             if not p[0].startswith("r:sides")]
    pairs += [(f"r:sides.{n}", "1") for n in range(MAX_ROWS + 5)]
    r = press(client, "squares", pairs, "copy:sides.3")
    assert sum(1 for k, _ in form_of(r.text) if k.startswith("r:sides.")) == MAX_ROWS


def test_a_value_toml_cannot_hold_is_refused_not_saved(client: TestClient) -> None:
    pairs = form_of(client.get("/build/squares?start=farm_below_the_ridge").text)
    for action, status in (("download", 400), ("create", 400), ("check", 200)):
        r = press(client, "squares", pairs, action, parameters="x = nan")
        assert r.status_code == status, action
        assert "cannot be saved as TOML: nan and inf have no place in a scenario" \
            in html.unescape(r.text)
        assert dict(form_of(r.text))["v:parameters"] == "x = nan"
    assert client.get("/api/campaigns").json() == []


INLINE = """ruleset = "squares"
[scenario]
title = "inline tables"
[grid]
columns = 3
rows = 3
[parameters]
adjacency = "four"
[terrain_kinds.cornfield]
blocks_sight = true
[terrain_kinds."rye \\"tall\\""]
fortification = true
[[terrain]]
kind = "cornfield"
squares = ["A1", "B2"]
[[sides]]
id = "a"
[[sides]]
id = "b"
[[brigades]]
id = "x"
side = "a"
[[units]]
id = "u1"
brigade = "x"
stamina = 5
square = "C3"
"""


def test_inline_tables_and_lists_survive_the_form(client: TestClient) -> None:
    token = token_of(client.get("/build").text)
    opened = client.post("/build", data={"csrf_token": token},
                         files={"file": ("inline.toml", INLINE.encode(), "text/plain")})
    values = dict(form_of(opened.text))
    assert values["v:terrain_kinds"] == \
        'cornfield = { blocks_sight = true }, "rye \\"tall\\"" = { fortification = true }'
    assert values["v:terrain.0.squares"] == "A1, B2"
    saved = press(client, "squares", form_of(opened.text), "download")
    assert check_scenario("squares", saved.text) == []
    assert _model("squares", tomllib.loads(saved.text)) == _model("squares",
                                                                  tomllib.loads(INLINE))
