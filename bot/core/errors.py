"""One exception tree for the whole bot.

``StudybotError`` is the root. ``UserError`` carries a message that is safe to
show in chat as it is; anything else is logged at the edge and the user gets a
short, kind apology instead of exception text.
"""

from __future__ import annotations


class StudybotError(Exception):
    """Root of every error the bot raises on purpose."""


class UserError(StudybotError):
    """Bad input or a request that cannot be served; ``str(err)`` is shown to the user."""


class NotFound(UserError):
    """Something the user named does not exist (a question id, a team, a mock)."""


class ContentError(StudybotError):
    """A question pack is malformed; ``problems`` lists every problem found."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class ConfigError(StudybotError):
    """The configuration cannot be used as it is."""
