"""Slack: slack-bolt listeners, Block Kit rendering, Socket Mode and HTTP.

Importing this package needs the ``slack`` extra; ``studybot run`` reports a
missing extra when Slack credentials are set without it.
"""

from bot.adapters.slack.adapter import SlackAdapter, build_slack_adapter

__all__ = ["SlackAdapter", "build_slack_adapter"]
