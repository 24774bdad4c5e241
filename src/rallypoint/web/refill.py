"""A refused form comes back as the player left it: what was typed, ticked and chosen.

The page is re-rendered from the campaign as it stands (nothing was written), so its forms show
their defaults; here the one form that was sent (found by its ``form`` field, or by its
``action`` when it has none) gets back every value the browser submitted, and the field the
refusal names is marked ``aria-invalid``, described by the error beside it and given
``autofocus``, so the browser scrolls to it and the player's next key goes there. This works
without JavaScript and knows no ruleset: it reads only the page's own HTML and the submitted
(name, value) pairs.

Hidden fields (the CSRF token, the campaign version) keep the server's values; file inputs
cannot be refilled by any page (browsers forbid it), so the refusal says to choose the file again.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

UNFILLED = frozenset({"hidden", "file", "submit", "button", "reset", "image", "password"})
"""Input types whose value the page, not the player, decides (or no page may set)."""


@dataclass(frozen=True)
class Refill:
    """What to put back into a re-rendered page.

    Attributes:
        form: The refused form's ``form`` field value (e.g. ``report``), or its ``action``.
        submitted: The (name, value) pairs the browser sent (text fields only; files left out).
        fields: The names the field at fault may have, most likely first (the first one on
            the form is marked and focused).
        error_html: The refusal, already escaped, shown beside that field.
    """

    form: str
    submitted: tuple[tuple[str, str], ...]
    fields: tuple[str, ...] = ()
    error_html: str = ""


@dataclass
class _Edit:
    start: int
    end: int
    text: str


class _Scan(HTMLParser):
    """Reads a page once: its forms, start tags, end tags and text, each with its offset."""

    def __init__(self, refill: Refill, lines: list[int]) -> None:
        super().__init__(convert_charrefs=True)
        self.refill = refill
        self.lines = lines
        self.forms: list[tuple[int, int | None, bool]] = []
        self.tags: list[tuple[str, dict[str, str], int, int]] = []
        self.ends: list[tuple[str, int, int]] = []
        self.texts: list[tuple[int, str]] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        values = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append((start, None, values.get("action") == self.refill.form))
        self.tags.append((tag, values, start, start + len(raw)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        start = self._offset()
        if tag == "form" and self.forms and self.forms[-1][1] is None:
            begin, _, by_action = self.forms[-1]
            self.forms[-1] = (begin, start, by_action)
        self.ends.append((tag, start, start + len(f"</{tag}>")))

    def handle_data(self, data: str) -> None:
        self.texts.append((self._offset(), data))


def refill_page(html: str, refill: Refill) -> str:
    """``html`` with the refused form filled back in and its faulty field marked.

    Args:
        html: The re-rendered page.
        refill: The form, what was sent, and the field at fault.

    Returns:
        The page; unchanged when the form is not on it.
    """
    lines = [0]
    for line in html.splitlines(keepends=True):
        lines.append(lines[-1] + len(line))
    scan = _Scan(refill=refill, lines=lines)
    scan.feed(html)
    scan.close()
    span = _form_span(scan, refill.form)
    if span is None:
        return html
    edits = _edits(scan, span, refill)
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        html = html[:edit.start] + edit.text + html[edit.end:]
    return html


def _form_span(scan: _Scan, key: str) -> tuple[int, int] | None:
    """Where the refused form is: the one holding ``<input name="form" value=KEY>``."""
    for begin, end, by_action in scan.forms:
        if end is None:
            continue
        if by_action or any(t == "input" and a.get("name") == "form" and a.get("value") == key
                            and begin <= s < end for t, a, s, _ in scan.tags):
            return begin, end
    return None


def _edits(scan: _Scan, span: tuple[int, int], refill: Refill) -> list[_Edit]:
    sent: dict[str, list[str]] = {}
    for name, value in refill.submitted:
        sent.setdefault(name, []).append(value)
    pairs = set(refill.submitted)
    edits: list[_Edit] = []
    select: str | None = None
    marked = _faulty(scan, span, refill.fields)
    for tag, attrs, start, end in scan.tags:
        if not span[0] <= start < span[1]:
            continue
        name = attrs.get("name", "")
        new = dict(attrs)
        if tag == "select":
            select = name
        elif tag == "option" and select in sent:
            value = attrs.get("value", _text_after(scan, end))
            new.pop("selected", None)
            if (select, value) in pairs:
                new["selected"] = ""
        elif tag == "input" and name and attrs.get("type") in ("checkbox", "radio"):
            # A browser sends only the boxes ticked: one not sent was unticked.
            new.pop("checked", None)
            if (name, attrs.get("value", "on")) in pairs:
                new["checked"] = ""
        elif tag == "input" and name in sent and attrs.get("type", "text") not in UNFILLED:
            new["value"] = sent[name][0]
        elif tag == "textarea" and name in sent:
            close = _end_of(scan, "textarea", end)
            edits.append(_Edit(end, close, escape(sent[name][0], quote=False)))
        if start == marked:
            new.update({"aria-invalid": "true", "aria-describedby": "field-error",
                        "autofocus": ""})
            after = _after_field(scan, tag, attrs, end)
            edits.append(_Edit(after, after, '<p class="field-error" id="field-error" '
                               f'role="alert">{refill.error_html}</p>'))
        if new != attrs:
            edits.append(_Edit(start, end, _tag(tag, new)))
    return edits


def _faulty(scan: _Scan, span: tuple[int, int], names: tuple[str, ...]) -> int | None:
    """Where the field at fault starts: the form's first field with the likeliest name."""
    for wanted in names:
        for tag, attrs, start, _ in scan.tags:
            if span[0] <= start < span[1] and tag in ("input", "select", "textarea") \
                    and attrs.get("name") == wanted and attrs.get("type") != "hidden":
                return start
    return None


def _after_field(scan: _Scan, tag: str, attrs: dict[str, str], end: int) -> int:
    """Where the error goes: after the field, or after the label a box sits in (its words)."""
    if tag != "input":
        return _end_of(scan, tag, end, closing=True)
    if attrs.get("type") in ("checkbox", "radio"):
        return _end_of(scan, "label", end, closing=True)
    return end


def _text_after(scan: _Scan, offset: int) -> str:
    """An option's text (its value when it has no ``value`` attribute)."""
    for at, data in scan.texts:
        if at == offset:
            return data.strip()
    return ""


def _end_of(scan: _Scan, tag: str, after: int, closing: bool = False) -> int:
    """Where the first ``</tag>`` after ``after`` starts (or ends, with ``closing``)."""
    for name, start, end in scan.ends:
        if name == tag and start >= after:
            return end if closing else start
    return after


def _tag(tag: str, attrs: dict[str, str]) -> str:
    """A start tag written back, every value escaped."""
    parts = [tag] + [k if v == "" and k in ("selected", "checked", "autofocus", "required",
                                            "multiple", "disabled", "download", "defer")
                     else f'{k}="{escape(v)}"' for k, v in attrs.items()]
    return "<" + " ".join(parts) + ">"
