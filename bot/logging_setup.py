"""Logging: stdlib logging, one format, and no secret ever in a log line."""

from __future__ import annotations

import logging
import re

_SECRET = re.compile(
    r"\b(xox[abprs]-[A-Za-z0-9-]+"  # Slack bot, user and refresh tokens
    r"|xapp-[A-Za-z0-9-]+"  # Slack app-level tokens
    r"|[MN][A-Za-z\d]{23,}\.[\w-]{6}\.[\w-]{27,})"  # Discord bot tokens
)


class RedactSecrets(logging.Filter):
    """Masks Slack tokens and Discord bot tokens wherever they appear in a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _SECRET.sub("[redacted]", message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
