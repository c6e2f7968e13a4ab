"""Settings are read once, from the environment and .env, into a frozen object;
no token ever reaches a log line."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import InvalidSettings, Settings, load_settings
from bot.logging_setup import FORMAT, RedactingFormatter, RedactSecrets, redact


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
        # Discord ids from 2022 on encode to tokens starting with O, later ones with others
        "OTg3NjU0MzIxMDk4NzY1NDMy.GaBcDe.abcdefghijklmnopqrstuvwxyz01234",
        "MTI5ODc2NTQzMjEwOTg3NjU0Mw.G1-_2x.aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM",
        "ZmFrZS1ib3QtaWQtOTk5OTk5OQ.Xy_9Zk.0123456789abcdefghijklmnopqrstuvwxyz",
        "xoxe-1-ABCDEFGHIJ",
    ],
)
def test_tokens_are_redacted_from_log_lines(secret: str) -> None:
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "calling with %s", (secret,), None)
    RedactSecrets().filter(record)
    assert secret not in record.getMessage()
    assert "[redacted]" in record.getMessage()


def test_a_configured_secret_is_masked_whatever_its_shape_also_in_a_traceback() -> None:
    settings = Settings(
        slack_bot_token="not-shaped-like-a-token-1",  # type: ignore[arg-type]
        slack_signing_secret="0123456789abcdef0123456789abcdef",  # type: ignore[arg-type]
    )
    formatter = RedactingFormatter(FORMAT, settings.secrets())
    try:
        raise RuntimeError(
            "POST https://discord.com/api/v10/webhooks/123456789012345678/aW50ZXJhY3Rpb246"
            "OTk5OTk5OTk5OTk5OTk5OTk6MTIz/messages/@original failed; "
            "response_url https://hooks.slack.com/commands/T111/1/abcDEF123456 "
            "signed with 0123456789abcdef0123456789abcdef"
        )
    except RuntimeError:
        record = logging.LogRecord(
            "t",
            logging.ERROR,
            __file__,
            1,
            "token %s",
            ("not-shaped-like-a-token-1",),
            sys.exc_info(),
        )
    line = formatter.format(record)
    assert "not-shaped-like-a-token-1" not in line
    assert "0123456789abcdef0123456789abcdef" not in line
    assert "aW50ZXJhY3Rpb24" not in line and "abcDEF123456" not in line
    assert "/webhooks/123456789012345678/[redacted]" in line
    assert "RuntimeError" in line  # the traceback itself is kept


def test_ordinary_text_is_not_masked() -> None:
    line = "Discord gateway ready as studybot; daily:42:B answered in 1.5s by user.name"
    assert redact(line, ("short",)) == line
