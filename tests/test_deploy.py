"""The Docker image and docker-compose.yml run the organisation's shape: postgres, a migration
step, the bot; the image installs studybot exactly as CI tests it (.ci/run).

No Docker engine runs in CI, so the files are checked as data."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
#: How the image and CI install the wheel, word for word.
WHEEL_INSTALL = 'pip install "$(ls dist/studybot-*.whl)[all]"'


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            instructions.append((word.upper(), rest.strip()))
    return instructions


def final_stage() -> list[tuple[str, str]]:
    steps = dockerfile()
    last_from = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


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


def test_every_setting_in_env_reaches_the_migration_and_the_bot() -> None:
    services = compose()["services"]
    for name in ("migrate", "bot"):
        env_file = services[name]["env_file"]
        assert ".env" in ([env_file] if isinstance(env_file, str) else env_file), name


def test_both_use_the_compose_postgres_and_the_bot_listens_on_every_interface() -> None:
    services = compose()["services"]
    url = services["bot"]["environment"]["STUDYBOT_DATABASE_URL"]
    assert url == services["migrate"]["environment"]["STUDYBOT_DATABASE_URL"]
    assert url.startswith("postgresql+psycopg://") and "@postgres:5432/" in url
    env = services["bot"]["environment"]
    assert (env["STUDYBOT_HTTP_HOST"], env["STUDYBOT_HTTP_PORT"]) == ("0.0.0.0", "3000")
    assert any(port.endswith(":3000") for port in services["bot"]["ports"])


def test_every_compose_variable_is_a_setting_the_bot_reads() -> None:
    known = {name.upper() for name in Settings.model_fields}
    for service in ("migrate", "bot"):
        assert set(compose()["services"][service]["environment"]) - known == set()


def test_env_example_lists_every_setting() -> None:
    listed = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE)
    )
    known = {name.upper() for name in Settings.model_fields}
    assert known - listed == set()


def test_every_path_the_image_copies_exists_and_is_not_ignored() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    copied = []
    for word, args in dockerfile():
        if word == "COPY" and not args.startswith("--from"):
            copied.extend(shlex.split(args)[:-1])
    assert {"pyproject.toml", "setup.py", "bot", "content", "migrations"} <= set(copied)
    for path in copied:
        assert (ROOT / path).exists(), path
        assert path not in ignored, path


def test_the_image_installs_the_wheel_as_ci_does_and_runs_the_bot() -> None:
    steps = dockerfile()
    assert ("RUN", "pip wheel --no-deps --wheel-dir dist .") in steps
    final = final_stage()
    runs = [args for word, args in final if word == "RUN"]
    assert any(args.startswith(WHEEL_INSTALL) for args in runs), runs
    assert WHEEL_INSTALL in (ROOT / ".ci" / "run").read_text()
    assert ("CMD", '["studybot", "run"]') in final
    assert ("USER", "studybot") in final
    # the running image has the installed package only, never the source tree
    assert not [args for word, args in final if word == "COPY" and not args.startswith("--from")]


def test_ci_tests_the_installed_wheel_from_an_empty_directory() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    for needed in (
        "make test",
        "pip wheel --quiet --no-deps",
        'python" -m venv',
        "studybot content lint",
        "studybot db upgrade",
        'STUDYBOT_DATABASE_URL="$pg_url" studybot db upgrade',
        "studybot console",
        "DROP DATABASE",
    ):
        assert needed in script, needed
    assert script.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in script
