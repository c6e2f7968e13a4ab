"""Logging: stdlib logging, one format, and no secret ever in a log line."""

from __future__ import annotations

import logging
import re

_SECRET = re.compile(
    r"\b(xox[abeprs]-[A-Za-z0-9-]+"  # Slack bot, user, refresh and config tokens
    r"|xapp-[A-Za-z0-9-]+"  # Slack app-level tokens
    # Discord bot tokens: base64 of the bot's id (any first letter: newer ids do not start
    # with M or N), a timestamp, an HMAC.
    r"|[A-Za-z\d_-]{18,}\.[A-Za-z\d_-]{5,7}\.[A-Za-z\d_-]{27,})"
)
#: A URL path that carries a secret after a public id: Discord interaction and webhook
#: tokens, Slack's response_url and incoming webhooks.
_SECRET_PATH = re.compile(
    r"((?:/webhooks|/interactions)/\d+/|hooks\.slack\.com/)[A-Za-z0-9_./-]{8,}"
)
#: Known secrets shorter than this are not masked: a short value would mask common words.
MIN_KNOWN_SECRET = 8


def redact(text: str, known: tuple[str, ...] = ()) -> str:
    """``text`` with every token and secret-bearing URL path masked as ``[redacted]``, and
    every ``known`` secret (the configured tokens and signing secret) too."""
    for secret in known:
        text = text.replace(secret, "[redacted]")
    text = _SECRET.sub("[redacted]", text)
    return _SECRET_PATH.sub(r"\1[redacted]", text)


def _known(secrets: tuple[str, ...]) -> tuple[str, ...]:
    # the longest first, so that a secret containing another is masked whole
    return tuple(sorted({s for s in secrets if len(s) >= MIN_KNOWN_SECRET}, key=len, reverse=True))


class RedactSecrets(logging.Filter):
    """Masks tokens (by their shape, and the ``secrets`` given by value) in a record's
    message, for every handler that sees the record."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.secrets = _known(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message, self.secrets)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


class RedactingFormatter(logging.Formatter):
    """The one format, masked as a whole: a traceback or an exception's text (an aiohttp
    error that quotes a webhook URL, say) is masked as well as the message."""

    def __init__(self, fmt: str, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(fmt)
        self.secrets = _known(secrets)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self.secrets)


FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


#: Libraries whose INFO lines say nothing an operator needs: APScheduler's two lines every
#: time the due-work job wakes up, Alembic's migration context (studybot says what it
#: applied), slack-sdk's retries (studybot says once that Slack cannot be reached).
CHATTY = ("apscheduler", "alembic", "slack_sdk")


def setup_logging(level: str, secrets: tuple[str, ...] = ()) -> None:
    """One handler on stderr, tokens (and the configured ``secrets``) redacted from every
    line and traceback, at ``level``; below DEBUG the chatty libraries say only warnings and
    errors."""
    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter(FORMAT, secrets))
    handler.addFilter(RedactSecrets(secrets))
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
