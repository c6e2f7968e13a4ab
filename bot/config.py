"""Settings, read once from the environment (and an optional .env) into a frozen object.

Nothing else in the bot reads the environment.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite:///studybot.db"


class Settings(BaseSettings):
    """Every setting the bot knows; variable names are the field names in upper case."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    studybot_database_url: str = DEFAULT_DATABASE_URL
    studybot_log_level: str = "INFO"
    studybot_http_host: str = "127.0.0.1"
    studybot_http_port: int = Field(default=3000, ge=1, le=65535)
    studybot_slack_api_url: str = "https://slack.com/api/"
    studybot_discord_api_url: str = "https://discord.com/api/v10"
    studybot_admins: str = ""  # comma-separated platform user ids with admin rights
    studybot_grace_minutes: int = Field(default=60, ge=0)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None

    discord_bot_token: SecretStr | None = None
    discord_public_key: str | None = None
    discord_application_id: str | None = None

    @field_validator("studybot_log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.upper()
        if level not in logging.getLevelNamesMapping():
            raise ValueError(f"unknown log level {value!r}")
        return level

    @field_validator(
        "slack_bot_token",
        "slack_signing_secret",
        "slack_app_token",
        "discord_bot_token",
        "discord_public_key",
        "discord_application_id",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @property
    def database_url(self) -> str:
        return self.studybot_database_url

    @property
    def slack_enabled(self) -> bool:
        return self.slack_bot_token is not None and (
            self.slack_signing_secret is not None or self.slack_app_token is not None
        )

    @property
    def discord_gateway_enabled(self) -> bool:
        return self.discord_bot_token is not None

    @property
    def discord_http_enabled(self) -> bool:
        return self.discord_public_key is not None

    @property
    def admin_ids(self) -> frozenset[str]:
        return frozenset(a.strip() for a in self.studybot_admins.split(",") if a.strip())


def load_settings(**overrides: Any) -> Settings:
    """Read the settings once; ``overrides`` win over the environment (tests, CLI flags)."""
    return Settings(**overrides)
