"""The web front end: ``rallypoint serve`` (FastAPI + Jinja2 + vendored htmx).

The web layer calls only the session API (:mod:`rallypoint.session`) and holds no rule logic:
pages and the JSON API render views the library computes. Import :func:`create_app` from
:mod:`rallypoint.web.app`; this package itself imports nothing heavy so the CLI stays fast.
"""
