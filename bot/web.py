"""The one ASGI app: platform endpoints from the adapters, plus /healthz and /metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bot import __version__
from bot.bootstrap import App
from bot.metrics import REGISTRY


def create_web_app(app: App, routes: Sequence[BaseRoute] = ()) -> Starlette:
    """Serve ``routes`` (the adapters' endpoints) beside the health and metrics endpoints."""

    def database_answers() -> bool:
        try:
            with app.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    async def healthz(_request: Request) -> Response:
        ok = await asyncio.to_thread(database_answers)
        body = {"status": "ok" if ok else "unavailable", "database": ok, "version": __version__}
        return JSONResponse(body, status_code=200 if ok else 503)

    async def metrics(_request: Request) -> Response:
        return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)

    return Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            *routes,
        ]
    )
