"""schemathesis against the OpenAPI schema: no input makes the API answer 5xx, and every refusal
is a 4xx with {code, message}."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings

from rallypoint.core.registry import registered
from rallypoint.session import Session
from rallypoint.web.app import create_app
from rallypoint.web.settings import WebSettings

_DB = Path(tempfile.mkdtemp(prefix="rallypoint-schemathesis-")) / "fuzz.db"
# Real campaigns, so that requests naming one reach past "unknown campaign".
for _ruleset in registered().values():
    for _path in _ruleset.example_scenarios()[:1]:
        Session(_DB).create(_path, name=_path.stem, seed="fuzz")
Session(_DB).create(next(p for r in registered().values() for p in r.example_scenarios()
                         if p.stem == "farm_below_the_ridge"), name="ridge", seed="fuzz")
APP = create_app(WebSettings(db=_DB, allowed_hosts=("testserver", "localhost")))
schema = schemathesis.openapi.from_asgi("/api/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_no_server_errors(case: schemathesis.Case[Any]) -> None:
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.text)
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body.get("code"), str) and body["code"], body
        assert isinstance(body.get("message"), str) and body["message"], body
