"""The web server's own endpoints: /healthz and /metrics."""

from __future__ import annotations

import json

import httpx
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.bootstrap import App
from bot.core.events import Event, EventKind
from bot.web import MAX_BODY, create_web_app
from tests.adapters.discord.conftest import served
from tests.support import raw_post


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


# --- request bodies are bounded on every route -------------------------------------------------


def echo_app(app: App) -> tuple[Starlette, list[bytes]]:
    """The web app with one extra route that keeps the bodies it was given."""
    seen: list[bytes] = []

    async def echo(request: Request) -> Response:
        seen.append(await request.body())
        return Response(b"ok")

    return create_web_app(app, [Route("/echo", echo, methods=["POST"])]), seen


async def test_a_body_declared_over_the_limit_is_refused_413_before_it_is_sent(app: App) -> None:
    web, seen = echo_app(app)
    async with served(web) as url:
        # 100 MiB declared, 1 KiB sent: the answer comes without the rest ever being sent.
        head = {"Content-Length": str(100 * 1024 * 1024), "Content-Type": "application/json"}
        status, body = await raw_post(url, "/echo", head, b"x" * 1024)
    assert status == 413
    assert str(MAX_BODY) in json.loads(body)["error"]
    assert seen == []


async def test_a_streamed_body_is_refused_413_once_it_passes_the_limit(app: App) -> None:
    web, seen = echo_app(app)
    async with served(web) as url:
        status, _ = await raw_post(url, "/echo", {}, b"y" * (MAX_BODY + 1), chunked=True)
        within = await raw_post(url, "/echo", {}, b"z" * MAX_BODY, chunked=True)
    assert status == 413
    assert within == (200, b"ok")
    assert seen == [b"z" * MAX_BODY]


async def test_a_content_length_that_is_not_a_number_is_refused_400(app: App) -> None:
    web, seen = echo_app(app)
    async with served(web) as url:
        for declared in ("abc", "1e3", "-5", "²"):
            status, _ = await raw_post(url, "/echo", {"Content-Length": declared}, b"")
            assert status == 400, declared
    assert seen == []
