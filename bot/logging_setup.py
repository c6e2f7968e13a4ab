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


#: Libraries whose INFO lines say nothing an operator needs: APScheduler's two lines every
#: time the due-work job wakes up, Alembic's migration context (studybot says what it
#: applied), slack-sdk's retries (studybot says once that Slack cannot be reached).
CHATTY = ("apscheduler", "alembic", "slack_sdk")


def setup_logging(level: str) -> None:
    """One handler on stderr, tokens redacted, at ``level``; below DEBUG the chatty libraries
    say only warnings and errors."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in CHATTY:
        logging.getLogger(name).setLevel(
            logging.DEBUG if root.level <= logging.DEBUG else logging.WARNING
        )


class OncePerOutage(logging.Filter):
    """For a logger of a library that logs every failed reconnection with a traceback (slack-sdk
    every 10 s, discord.py with backoff): the first failure of a run becomes one warning with
    the reason, the rest are dropped until a line containing one of ``recovered`` says the
    connection is back (logged as "``label``: reconnected"). Lines containing one of
    ``dropped`` are dropped."""

    def __init__(
        self, label: str, failure: str, recovered: tuple[str, ...], dropped: tuple[str, ...] = ()
    ) -> None:
        super().__init__()
        self.label, self.failure, self.recovered, self.dropped = label, failure, recovered, dropped
        self.failing = False

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(text in message for text in self.dropped):
            return False
        if self.failure in message:
            if self.failing:
                return False
            self.failing = True
            error = record.exc_info[1] if record.exc_info else None
            reason = f" ({type(error).__name__}: {error})" if error is not None else ""
            record.msg = f"{self.label}: {message}{reason}; said once until it reconnects"
            record.args, record.exc_info, record.exc_text = None, None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        elif self.failing and any(text in message for text in self.recovered):
            self.failing = False
            record.msg, record.args = f"{self.label}: reconnected", None
        return True
