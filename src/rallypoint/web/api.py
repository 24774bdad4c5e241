"""The JSON API under ``/api``: the session API over HTTP, described by its OpenAPI schema."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from rallypoint.web import deps

router = APIRouter(prefix="/api", tags=["api"])


@router.get("/campaigns")
def list_campaigns(request: Request) -> list[dict[str, Any]]:
    """Every campaign in the database, oldest first."""
    return [i.model_dump(mode="json") for i in deps.service(request).campaigns()]
