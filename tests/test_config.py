"""Settings are read once, from the environment and .env, into a frozen object;
no token ever reaches a log line."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import InvalidSettings, Settings, load_settings
from bot.logging_setup import RedactSecrets


def test_defaults_need_no_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert settings.database_url == "sqlite:///studybot.db"
    assert (settings.studybot_http_host, settings.studybot_http_port) == ("127.0.0.1", 3000)
    assert not settings.slack_enabled
    assert not settings.discord_gateway_enabled and not settings.discord_http_enabled


def test_environment_and_dotenv_are_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-1\nSLACK_SIGNING_SECRET=s3cret\n")
    monkeypatch.setenv("STUDYBOT_DATABASE_URL", "sqlite:///other.db")
    monkeypatch.setenv("STUDYBOT_ADMINS", "U1, U2 ,")
    settings = load_settings()
    assert settings.database_url == "sqlite:///other.db"
    assert settings.slack_enabled
    assert settings.admin_ids == frozenset({"U1", "U2"})


def test_blank_credentials_count_as_unset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "  ")
    assert not load_settings().discord_gateway_enabled


def test_settings_are_frozen() -> None:
    settings = Settings()
    with pytest.raises(ValidationError):
        settings.studybot_log_level = "DEBUG"  # type: ignore[misc]


def test_a_bad_value_is_refused_with_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDYBOT_HTTP_PORT", "seventy")
    with pytest.raises(InvalidSettings, match="STUDYBOT_HTTP_PORT='seventy': "):
        load_settings()
    monkeypatch.setenv("STUDYBOT_HTTP_PORT", "3000")
    monkeypatch.setenv("STUDYBOT_LOG_LEVEL", "chatty")
    with pytest.raises(InvalidSettings, match="unknown log level"):
        load_settings()


def test_secrets_do_not_print(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-123-456-abcdef")
    settings = load_settings()
    assert "xoxb" not in repr(settings)
    assert "xoxb" not in str(settings.slack_bot_token)


@pytest.mark.parametrize(
    "secret",
    [
        "xoxb-1234-5678-abcdefghijkl",
        "xapp-1-A111-222-abcdef",
        "MTA5ODc2NTQzMjEwOTg3NjU0MzIx.GaBcDe.abcdefghijklmnopqrstuvwxyz01234",
    ],
)
def test_tokens_are_redacted_from_log_lines(secret: str) -> None:
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "calling with %s", (secret,), None)
    RedactSecrets().filter(record)
    assert secret not in record.getMessage()
    assert "[redacted]" in record.getMessage()
