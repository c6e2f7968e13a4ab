"""The web server's own endpoints: /healthz and /metrics."""

from __future__ import annotations

import httpx
from sqlalchemy import create_engine
from starlette.applications import Starlette

from bot.bootstrap import App
from bot.web import create_web_app


async def get(asgi: Starlette, path: str) -> httpx.Response:
    """A request straight into the ASGI app, no network."""
    transport = httpx.ASGITransport(app=asgi)
    async with httpx.AsyncClient(transport=transport, base_url="http://studybot") as client:
        return await client.get(path)


async def test_healthz_answers_200_when_the_database_answers(app: App) -> None:
    response = await get(create_web_app(app), "/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


async def test_healthz_answers_503_when_the_database_is_gone(app: App) -> None:
    working = app.engine
    app.engine = create_engine("sqlite:////nonexistent-dir/for/sure/x.db")
    try:
        response = await get(create_web_app(app), "/healthz")
    finally:
        app.engine.dispose()
        app.engine = working
    assert response.status_code == 503
    assert response.json()["database"] is False


async def test_metrics_are_in_prometheus_text_format(app: App) -> None:
    response = await get(create_web_app(app), "/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert "studybot_events_total" in response.text


async def test_unknown_paths_are_404(app: App) -> None:
    assert (await get(create_web_app(app), "/nope")).status_code == 404
