"""docker-compose.yml runs the organisation's shape: postgres, a migration step, the bot.

No Docker engine runs in CI, so the file is checked as data."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def test_compose_runs_postgres_with_a_healthcheck_and_a_volume() -> None:
    postgres = compose()["services"]["postgres"]
    assert postgres["image"].startswith("postgres:")
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    assert any(v.endswith(":/var/lib/postgresql/data") for v in postgres["volumes"])
    assert "pgdata" in compose()["volumes"]


def test_migrations_run_once_after_postgres_is_healthy() -> None:
    migrate = compose()["services"]["migrate"]
    assert migrate["command"] == ["studybot", "db", "upgrade"]
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert migrate["restart"] == "no"


def test_the_bot_starts_after_the_migration_succeeds() -> None:
    bot = compose()["services"]["bot"]
    assert bot["command"] == ["studybot", "run"]
    assert bot["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "/healthz" in " ".join(bot["healthcheck"]["test"])


def test_the_bot_gets_every_variable_it_needs() -> None:
    env = compose()["services"]["bot"]["environment"]
    for name in (
        "STUDYBOT_DATABASE_URL",
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_APP_TOKEN",
        "DISCORD_BOT_TOKEN",
        "DISCORD_PUBLIC_KEY",
        "DISCORD_APPLICATION_ID",
        "STUDYBOT_HTTP_HOST",
        "STUDYBOT_HTTP_PORT",
    ):
        assert name in env, name
    assert env["STUDYBOT_HTTP_HOST"] == "0.0.0.0"
    assert env["STUDYBOT_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@postgres:5432/" in env["STUDYBOT_DATABASE_URL"]


def test_every_compose_variable_is_a_setting_the_bot_reads() -> None:
    env = compose()["services"]["bot"]["environment"]
    known = {name.upper() for name in Settings.model_fields}
    assert set(env) - known == set()


def test_env_example_lists_every_setting() -> None:
    listed = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE)
    )
    known = {name.upper() for name in Settings.model_fields}
    assert known - listed == set()


def test_the_image_installs_the_bot_and_everything_it_ships() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for needed in (
        "COPY bot",
        "COPY content",
        "COPY migrations",
        "alembic.ini",
        'pip install ".[all]"',
        'CMD ["studybot", "run"]',
    ):
        assert needed in dockerfile, needed
