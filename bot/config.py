"""Settings, read once from the environment (and an optional .env) into a frozen object.

Nothing else in the bot reads the environment.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.core.errors import ConfigError

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
    # prepended to every Slack slash command where a name is taken: "sb-" gives /sb-quiz
    studybot_slack_command_prefix: str = ""
    studybot_discord_api_url: str = "https://discord.com/api/v10"
    studybot_admins: str = ""  # comma-separated platform user ids with admin rights
    studybot_grace_minutes: int = Field(default=60, ge=0)
    studybot_charts_dir: str = "charts"  # where the console writes chart PNGs
    # the interactive console's line history; empty keeps it in memory for one run
    studybot_console_history: str = "~/.local/state/studybot/console_history"
    # Where studybot keeps what it can compute again (the digests of packs that passed
    # validation, so that a start does not validate unchanged packs); empty keeps nothing.
    studybot_cache_dir: str = "~/.cache/studybot"
    # How open questions with only a model answer are graded: "auto" uses the semantic
    # model when the `semantic` extra is installed, "lexical" forces the fallback.
    studybot_reference_backend: Literal["auto", "semantic", "lexical"] = "auto"
    # Directories of a team's own question packs, added to the packs that ship inside the
    # package; separated like PATH (":" here, ";" on Windows).
    studybot_packs: str = ""
    # The optional judge of open answers (docs/judge.md): an OpenAI-compatible API's base
    # URL (e.g. http://127.0.0.1:11434/v1 for Ollama), the model, and a key if it needs one.
    # Off when the URL is unset. It is consulted only where the rules are unsure, waits at
    # most the timeout (the platforms want a reply within 3 s), and caches its readings.
    studybot_judge_url: str | None = None
    studybot_judge_model: str = Field(default="", validate_default=True)
    studybot_judge_key: SecretStr | None = None
    studybot_judge_timeout: float = Field(default=2.0, gt=0, le=2.5)
    studybot_judge_cache_size: int = Field(default=2048, ge=0, le=1_000_000)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None

    discord_bot_token: SecretStr | None = None
    discord_public_key: str | None = None
    discord_application_id: str | None = None
    # Discord gateway URL (tests point it at a local fake); default Discord's own.
    studybot_discord_gateway_url: str | None = None
    # Connect to the gateway when a bot token is set; false: the token only serves REST calls
    # (HTTP interactions mode).
    studybot_discord_gateway: bool = True
    # The privileged MESSAGE_CONTENT intent, to grade plain thread replies to a daily post.
    studybot_discord_message_content: bool = False
    # Run the gateway as discord.py's AutoShardedClient (from about 1,000 guilds).
    studybot_discord_sharded: bool = False
    # Sync the slash commands when the bot starts: globally, or to this guild only.
    studybot_discord_sync_on_start: bool = False
    studybot_discord_guild_id: str | None = None
    # Answer an interaction at once if the work takes less than this; else defer (type 5).
    studybot_discord_defer_after: float = Field(default=2.0, ge=0, le=2.8)
    # Pacing of channel posts and DMs, under Discord's 50 requests/s per bot.
    studybot_discord_sends_per_second: float = Field(default=40.0, gt=0, le=50)
    # Rate limits longer than this are handed back to the outbox (retry later), not waited.
    studybot_discord_max_ratelimit_wait: float = Field(default=30.0, ge=30)

    @field_validator("studybot_log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.upper()
        if level not in logging.getLevelNamesMapping():
            raise ValueError(f"unknown log level {value!r}")
        return level

    @field_validator("studybot_slack_command_prefix")
    @classmethod
    def _slack_prefix(cls, value: str) -> str:
        prefix = value.strip().lower().lstrip("/")
        if not re.fullmatch(r"[a-z0-9_-]{0,20}", prefix):
            raise ValueError(
                "STUDYBOT_SLACK_COMMAND_PREFIX takes up to 20 lowercase letters, digits, "
                f"'-' or '_', e.g. 'sb-'; not {value!r}"
            )
        return prefix

    @field_validator(
        "slack_bot_token",
        "slack_signing_secret",
        "slack_app_token",
        "discord_bot_token",
        "discord_public_key",
        "discord_application_id",
        "studybot_discord_gateway_url",
        "studybot_discord_guild_id",
        "studybot_judge_url",
        "studybot_judge_key",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("studybot_judge_url")
    @classmethod
    def _judge_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                "STUDYBOT_JUDGE_URL takes the http(s) base URL of an OpenAI-compatible API, "
                "e.g. http://127.0.0.1:11434/v1"
            )
        return value

    @field_validator("studybot_judge_model")
    @classmethod
    def _judge_needs_a_model(cls, value: str, info: ValidationInfo) -> str:
        value = value.strip()
        if info.data.get("studybot_judge_url") is not None and not value:
            raise ValueError(
                "STUDYBOT_JUDGE_URL is set, so name the judge's model, e.g. qwen2.5:3b"
            )
        return value

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

    def secrets(self) -> tuple[str, ...]:
        """The configured tokens and signing secret, for the log to mask wherever they
        appear, whatever their shape."""
        values = (
            self.slack_bot_token,
            self.slack_signing_secret,
            self.slack_app_token,
            self.discord_bot_token,
            self.studybot_judge_key,
        )
        return tuple(v.get_secret_value() for v in values if v is not None)

    @property
    def pack_dirs(self) -> tuple[Path, ...]:
        """The extra pack directories of STUDYBOT_PACKS, in the order given."""
        parts = (p.strip() for p in self.studybot_packs.split(os.pathsep))
        return tuple(Path(p).expanduser() for p in parts if p)

    @property
    def validated_packs_path(self) -> Path | None:
        """The file of digests of validated packs, or None when there is no cache dir."""
        if not self.studybot_cache_dir.strip():
            return None
        return Path(self.studybot_cache_dir.strip()).expanduser() / "validated-packs"

    @property
    def admin_ids(self) -> frozenset[str]:
        return frozenset(a.strip() for a in self.studybot_admins.split(",") if a.strip())


class InvalidSettings(ConfigError, ValueError):
    """A setting has a value the bot cannot use; the message names each, on one line."""


def load_settings(**overrides: Any) -> Settings:
    """Read the settings once; ``overrides`` win over the environment (tests, CLI flags).

    Raises InvalidSettings naming every variable whose value cannot be used.
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise InvalidSettings(describe(exc)) from exc


def describe(exc: ValidationError) -> str:
    """Every problem of ``exc`` as ``NAME='value': why``, on one line (secrets not shown)."""
    problems = []
    for error in exc.errors():
        name = ".".join(str(part) for part in error["loc"]).upper()
        shown = "" if _SECRET_NAME.search(name) else f"={error.get('input')!r}"
        problems.append(f"{name}{shown}: {error['msg']}")
    return "invalid setting " + "; ".join(problems)


_SECRET_NAME = re.compile(r"TOKEN|SECRET|KEY|PASSWORD")
