"""schemathesis against the OpenAPI schema: no input makes the API answer 5xx, and every refusal
is a 4xx with {code, message}."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.core.result import Ok
from schemathesis.schemas import APIOperation

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




def _operations() -> list[APIOperation[Any, Any, Any, Any]]:
    found = []
    for result in schema.get_all_operations():
        if not isinstance(result, Ok):
            raise AssertionError(f"the schema has an operation it cannot read: {result.err()}")
        found.append(result.ok())
    return found


OPERATIONS = _operations()
"""Every operation of the schema, one test each under its own id: schemathesis's own
``schema.parametrize()`` gives all of them one node id, and pytest-xdist schedules by node id,
so under workers only one operation of the 24 was fuzzed."""


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: op.label)
def test_no_server_errors(operation: APIOperation[Any, Any, Any, Any]) -> None:
    @given(case=operation.as_strategy())
    @settings(max_examples=25, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    def check(case: schemathesis.Case[Any]) -> None:
        response = case.call()
        assert response.status_code < 500, (case.method, case.path, response.text)
        if response.status_code >= 400:
            body = response.json()
            assert isinstance(body.get("code"), str) and body["code"], body
            assert isinstance(body.get("message"), str) and body["message"], body

    check()


def test_every_operation_is_a_test_of_its_own() -> None:
    assert len(OPERATIONS) == len({op.label for op in OPERATIONS}) >= 20
