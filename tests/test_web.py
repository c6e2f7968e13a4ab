"""The web server's own endpoints: /healthz and /metrics."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine
from starlette.applications import Starlette

from bot.bootstrap import App
from bot.core.events import Event, EventKind
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


def _events_handled(metrics: str) -> float:
    """The value of the console's command counter in a /metrics page."""
    families = {f.name: f for f in text_string_to_metric_families(metrics)}
    return sum(
        sample.value
        for sample in families["studybot_events"].samples
        if sample.name == "studybot_events_total"
        and sample.labels == {"platform": "console", "kind": "command"}
    )


async def test_metrics_are_in_prometheus_text_format_and_count_events(app: App) -> None:
    web = create_web_app(app)
    before = await get(web, "/metrics")
    assert before.status_code == 200
    assert before.headers["content-type"].startswith("text/plain")
    help_command = Event(EventKind.COMMAND, "console", "console", "general", "ada", command="help")
    await app.handle(help_command)
    after = await get(web, "/metrics")
    assert _events_handled(after.text) == _events_handled(before.text) + 1


async def test_unknown_paths_are_404(app: App) -> None:
    assert (await get(create_web_app(app), "/nope")).status_code == 404
