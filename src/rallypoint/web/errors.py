"""Every refusal as a 4xx with ``{code, message}`` (the library's error codes), never a 500.

The library raises a :class:`~rallypoint.core.errors.RallypointError` whose ``code`` says what
kind of wrongness it is; here each code gets its HTTP status. A request the routes cannot even
parse (bad JSON, a missing field) is ``malformed-input`` like a bad CLI option.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from rallypoint.core.errors import RallypointError
from rallypoint.web.security import RefusedRequest

STATUS: dict[str, int] = {
    "malformed-input": 400,
    "bad-data-file": 400,
    "unknown-id": 404,
    "illegal-now": 409,
    "stale-version": 409,
    "store": 409,
    "integrity": 409,
    "not-logged-in": 401,
    "not-your-seat": 403,
    "rate-limited": 429,
}
"""HTTP status for each library error code (anything else: 400)."""

HTTP_CODES: dict[int, str] = {404: "not-found", 405: "method-not-allowed",
                              413: "too-large", 415: "unsupported-media-type"}


class ErrorBody(BaseModel):
    """What every 4xx response carries.

    Attributes:
        code: Stable error code (the library's, e.g. ``illegal-now``, ``stale-version``).
        message: One line: what is wrong, where, and how to fix it.
        where: Where it is (a field, a counter id), when known.
        fix: How to fix it, when known.
    """

    code: str
    message: str
    where: str | None = None
    fix: str | None = None


def status_for(error: RallypointError) -> int:
    """The HTTP status for a library error."""
    return STATUS.get(error.code, 400)


def body_for(error: RallypointError, hide: str | None = None) -> dict[str, Any]:
    """The JSON body for a library error (``hide``: a server path never shown to a client)."""
    if hide is not None and error.where == hide:
        error = type(error)(error.what, fix=error.fix)
    return ErrorBody(code=error.code, message=error.message, where=error.where,
                     fix=error.fix).model_dump()


def validation_message(exc: ValidationError | RequestValidationError) -> tuple[str, str]:
    """(where, message) for the first problem of a validation error, in one line."""
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    where = ".".join(str(p) for p in first.get("loc", ()))
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    return where, f"{where or 'request'}: {first.get('msg', 'invalid')}{more}"


def _wants_html(request: Request) -> bool:
    """A page (not the JSON API) asked by a browser: answer with an HTML page."""
    return (not request.url.path.startswith("/api")
            and "text/html" in request.headers.get("accept", ""))


def _page(request: Request, error: ErrorBody, status: int) -> Response:
    from rallypoint.web.deps import renderer

    return renderer(request).html(request, "error.html", status=status, error=error)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every refusal into ``{code, message}``."""

    @app.exception_handler(RallypointError)
    async def _library(request: Request, exc: RallypointError) -> Response:
        body = body_for(exc, hide=str(request.app.state.settings.db))
        if exc.code == "not-logged-in" and _wants_html(request) and request.method == "GET":
            return RedirectResponse(f"/login?{urlencode({'next': request.url.path})}",
                                    status_code=303)
        if _wants_html(request):
            return _page(request, ErrorBody(**body), status_for(exc))
        return JSONResponse(body, status_code=status_for(exc))

    @app.exception_handler(RefusedRequest)
    async def _refused(request: Request, exc: RefusedRequest) -> Response:
        if _wants_html(request):
            return _page(request, ErrorBody(code=exc.code, message=exc.message), exc.status)
        return JSONResponse({"code": exc.code, "message": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> Response:
        where, message = validation_message(exc)
        return JSONResponse(ErrorBody(
            code="malformed-input", message=message + ". See /api/docs for the request's fields.",
            where=where or None, fix="See /api/docs for the request's fields.").model_dump(),
            status_code=400)

    @app.exception_handler(ValidationError)
    async def _model(_: Request, exc: ValidationError) -> Response:
        where, message = validation_message(exc)
        return JSONResponse(ErrorBody(code="malformed-input", message=message,
                                      where=where or None).model_dump(), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        code = HTTP_CODES.get(exc.status_code, "http-error")
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        if _wants_html(request):
            return _page(request, ErrorBody(code=code, message=detail), exc.status_code)
        return JSONResponse({"code": code, "message": detail}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))
