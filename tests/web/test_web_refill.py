"""web/refill.py: a refused form is put back as the player left it, and nothing else is.

The oracle is the HTML a browser would parse (html.parser, independent of the module's edits).
"""

from __future__ import annotations

from html.parser import HTMLParser

from rallypoint.web.refill import Refill, refill_page

PAGE = """<form method="post" action="/c/x/do">
<input type="hidden" name="csrf_token" value="server-token">
<input type="hidden" name="expected_version" value="7">
<input type="hidden" name="form" value="report">
<select id="r" name="tank.3.result"><option value="unhit">unhit</option>
<option value="knocked_out">knocked out</option></select>
<input type="number" id="o" name="tank.3.ordnance_days" placeholder="if knocked out">
<input type="number" id="c" name="tank.3.cohesion" value="60">
<label class="check"><input type="checkbox" name="tank.3.bailed_out"> bailed out</label>
<label class="check"><input type="checkbox" name="objective" checked> objective</label>
<select id="m" name="man.m011"><option>unhurt</option><option>killed</option></select>
<textarea id="j" name="report_json"></textarea>
<input type="file" name="report_file">
</form>
<form method="post" action="/c/x/do"><input type="hidden" name="form" value="rest">
<input type="text" id="other" name="tank.3.cohesion" value="60"></form>
"""


class Fields(HTMLParser):
    """What a browser would show in each field (by id), and which field has autofocus."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.checked: dict[str, bool] = {}
        self.selected: dict[str, list[str]] = {}
        self.autofocus: list[str] = []
        self.hidden: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        key = a.get("id") or a.get("name", "")
        if "autofocus" in a:
            self.autofocus.append(key)
        if tag == "input" and a.get("type") == "hidden":
            self.hidden.setdefault(a["name"], a.get("value", ""))
        elif tag == "input" and a.get("type") == "checkbox":
            self.checked[a["name"]] = "checked" in a
        elif tag == "input":
            self.values[key] = a.get("value", "")
        elif tag == "select":
            self._select = key
            self.selected[key] = []
        elif tag == "option" and "selected" in a and self._select:
            self.selected[self._select].append(a.get("value", "?"))
        elif tag == "textarea":
            self._textarea = key
            self.values[key] = ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.values[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None


def _fields(html: str) -> Fields:
    parser = Fields()
    parser.feed(html)
    return parser


SENT = (("csrf_token", "forged"), ("expected_version", "999"), ("form", "report"),
        ("tank.3.result", "knocked_out"), ("tank.3.ordnance_days", ""),
        ("tank.3.cohesion", "45"), ("tank.3.bailed_out", "on"), ("man.m011", "killed"),
        ("report_json", '{"day": 1} </textarea><script>x()</script>'))


def test_every_typed_value_comes_back_in_the_refused_form_only() -> None:
    out = _fields(refill_page(PAGE, Refill("report", SENT, ("tank.3.ordnance_days",), "E")))
    assert out.selected["r"] == ["knocked_out"]
    assert out.values["c"] == "45"
    assert out.checked["tank.3.bailed_out"] is True
    assert out.checked["objective"] is False           # unticked by the player
    assert out.selected["m"] == ["?"]  # its one option with no value (which: the next test)
    assert out.values["j"] == '{"day": 1} </textarea><script>x()</script>'
    assert out.values["other"] == "60"                 # the other form is left alone
    assert out.autofocus == ["o"]


def test_option_without_value_is_chosen_by_its_text() -> None:
    html = refill_page(PAGE, Refill("report", SENT))
    assert "<option selected>killed</option>" in html


def test_hidden_fields_keep_the_servers_values() -> None:
    # Attacker: a refill that echoed a forged CSRF token or an old version would let a stale
    # or forged form through on the next submit.
    out = _fields(refill_page(PAGE, Refill("report", SENT)))
    assert out.hidden == {"csrf_token": "server-token", "expected_version": "7",
                          "form": "report"}


def test_typed_text_is_escaped_never_markup() -> None:
    sent = (("form", "report"), ("tank.3.cohesion", '"><script>alert(1)</script>'),
            ("report_json", "</textarea><script>alert(2)</script>"))
    html = refill_page(PAGE, Refill("report", sent, ("tank.3.cohesion",), "&lt;b&gt;"))
    assert "<script>" not in html
    out = _fields(html)
    assert out.values["c"] == '"><script>alert(1)</script>'
    assert out.values["j"] == "</textarea><script>alert(2)</script>"


def test_the_faulty_field_is_marked_and_its_error_beside_it() -> None:
    html = refill_page(PAGE, Refill("report", SENT, ("nothing", "tank.3.bailed_out"), "why"))
    assert ('<input type="checkbox" name="tank.3.bailed_out" checked aria-invalid="true" '
            'aria-describedby="field-error" autofocus> bailed out</label><p class="field-error" '
            'id="field-error" role="alert">why</p>') in html


def test_a_form_not_on_the_page_changes_nothing() -> None:
    assert refill_page(PAGE, Refill("sheet", SENT, ("tank.3.cohesion",), "E")) == PAGE
