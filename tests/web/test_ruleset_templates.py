"""A ruleset's page templates live in its own folder, found under its name (issue 21)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from jinja2 import TemplateNotFound

from rallypoint.core.registry import RulesetPlugin, register, unregister
from rallypoint.web.render import Renderer
from rallypoint.web.settings import WebSettings

WEB_TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "rallypoint" / "web" / "templates"


@pytest.fixture
def homed(tmp_path: Path) -> Iterator[Path]:
    """A ruleset package ``homed_rules`` with ``front/templates/page.html``, registered."""
    front = tmp_path / "homed_rules" / "front"
    (front / "templates").mkdir(parents=True)
    (tmp_path / "homed_rules" / "__init__.py").write_text("")
    (front / "__init__.py").write_text("")
    (front / "templates" / "page.html").write_text("{% extends 'base.html' %}"
                                                   "{% block content %}at home{% endblock %}")
    sys.path.insert(0, str(tmp_path))
    register(RulesetPlugin(name="homed", rules="homed_rules:RULES",
                           templates="homed_rules.front"))
    try:
        yield tmp_path
    finally:
        unregister("homed")
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("homed_rules")]:
            del sys.modules[name]


def test_a_rulesets_template_is_found_in_its_own_folder(homed: Path) -> None:
    env = Renderer(WEB_TEMPLATES, WebSettings(db=homed / "x.db", secret=b"k" * 32)).env
    source, filename, _ = env.loader.get_source(env, "homed/page.html")  # type: ignore[union-attr]
    assert "at home" in source
    assert Path(str(filename)) == homed / "homed_rules" / "front" / "templates" / "page.html"
    # ... and extends the web's generic base page like any other.
    assert env.get_template("homed/page.html").blocks.keys() >= {"content"}


def test_another_name_does_not_reach_into_a_rulesets_folder(homed: Path) -> None:
    env = Renderer(WEB_TEMPLATES, WebSettings(db=homed / "x.db", secret=b"k" * 32)).env
    with pytest.raises(TemplateNotFound):
        env.get_template("other/page.html")
    # The generic pages stay where they were.
    assert env.get_template("base.html") is not None
