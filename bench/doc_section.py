"""One benchmark's own section of docs/performance.md, between its markers.

Each script (``commands.py``, ``web.py``) owns the text between ``<!-- NAME:begin -->`` and
``<!-- NAME:end -->``; ``run.py`` rewrites the rest and keeps these sections as they are.
"""

from __future__ import annotations

from pathlib import Path


def write_section(doc: Path, begin: str, end: str, section: str) -> None:
    """Replace the text from ``begin`` to ``end`` in ``doc`` with ``section`` (which carries
    both markers), or append it when the doc has no such section yet."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + section.rstrip("\n") + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.write_text(text, encoding="utf-8")
