"""Slack payloads → neutral events. Pure functions: no I/O, no business rule.

What reaches the core:
- a slash command ``/[prefix]NAME args`` → COMMAND ``NAME`` with ``args``;
- a button click → ACTION with the button's value (our action id, ``daily:42:B``);
- a modal submission → ACTION with the form's action and the typed text;
- a reply in a thread of one of the bot's posts, a mention of the bot, or a
  direct message to it → MESSAGE (``thread`` is ``CHANNEL:TS`` of the thread's
  parent, the form the notifier returns for a post);
- opening the App Home tab → ACTION ``home``.

Other messages (channel chatter, bots, edits, deletions) are not addressed to
the bot and give no event.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from bot.core.events import Event, EventKind

PLATFORM = "slack"
FORM_CALLBACK_ID = "studybot_form"
HOME_ACTION = "home"
# Message subtypes that carry a user's own words; edits, deletions, joins and the like do not.
_USER_SUBTYPES = frozenset({"thread_broadcast", "file_share"})
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")

Payload = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SlackUser:
    """What the adapter knows of a user: from ``users.info``, or only the id."""

    id: str
    name: str = ""
    tz: str | None = None
    is_admin: bool = False


def command_name(slash: str, prefix: str) -> str:
    """The core's command name for a Slack slash command (the prefix removed)."""
    name = slash.strip().lstrip("/").lower()
    if prefix and name.startswith(prefix):
        name = name[len(prefix) :]
    return name


def team_of(body: Payload) -> str:
    """The workspace a payload belongs to: the team the app is installed in."""
    view = body.get("view") or {}
    team = body.get("team") or {}
    user = body.get("user") or {}
    return str(
        view.get("app_installed_team_id")
        or body.get("team_id")
        or (team.get("id") if isinstance(team, dict) else team)
        or (user.get("team_id") if isinstance(user, dict) else "")
        or ""
    )


def thread_ref(channel: str, ts: str) -> str:
    """``CHANNEL:TS``: how a Slack message is named across the bot (outbox refs, threads)."""
    return f"{channel}:{ts}"


def split_ref(ref: str, default_channel: str = "") -> tuple[str, str]:
    """The channel and ts of a ``CHANNEL:TS`` ref (a bare ts uses ``default_channel``)."""
    channel, sep, ts = ref.rpartition(":")
    return (channel, ts) if sep else (default_channel, ref)


def unescape(text: str) -> str:
    """Slack escapes ``&``, ``<`` and ``>`` in message text; answers are graded unescaped."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def command_event(body: Payload, prefix: str, user: SlackUser) -> Event:
    """A slash command (form fields ``command``, ``text``, ``channel_id``, ``user_id``…)."""
    channel = str(body.get("channel_id", ""))
    return Event(
        EventKind.COMMAND,
        PLATFORM,
        team_of(body),
        channel,
        user.id,
        user_name=user.name or str(body.get("user_name", "")),
        command=command_name(str(body.get("command", "")), prefix),
        args=unescape(str(body.get("text") or "")).strip(),
        user_tz=user.tz,
        is_admin=user.is_admin,
        is_dm=channel.startswith("D") or body.get("channel_name") == "directmessage",
    )


def action_channel(body: Payload) -> str:
    """The channel a block action happened in; empty for the App Home and modals."""
    channel = body.get("channel") or {}
    container = body.get("container") or {}
    return str(channel.get("id") or container.get("channel_id") or "")


@dataclass(frozen=True, slots=True)
class ReplyTarget:
    """Where an apology for a failed request goes: the user, privately, where they acted."""

    user: str
    channel: str = ""  # empty: a DM
    thread: str | None = None
    response_url: str | None = None


def reply_target(body: Payload, event: Payload | None = None) -> ReplyTarget:
    """Who sent a command, action, submission or message, and where (read before anything
    else, so that even a request that fails at once can be answered)."""
    if event is not None:
        channel = str(event.get("channel") or "")
        thread_ts = event.get("thread_ts") or event.get("ts")
        return ReplyTarget(
            str(event.get("user") or ""),
            channel,
            thread_ref(channel, str(thread_ts)) if channel and thread_ts else None,
        )
    who = body.get("user")
    user = str(who.get("id") or "") if isinstance(who, dict) else str(body.get("user_id") or "")
    channel = str(body.get("channel_id") or "") or action_channel(body)
    url = body.get("response_url")
    return ReplyTarget(user, channel, response_url=str(url) if url else None)


def action_events(body: Payload, user: SlackUser, channel: str) -> list[Event]:
    """One ACTION per clicked element: the button's value (our action), else its action id."""
    container = body.get("container") or {}
    message_ts = container.get("message_ts")
    thread = thread_ref(channel, str(message_ts)) if message_ts and channel else None
    events: list[Event] = []
    for action in body.get("actions") or ():
        name = str(action.get("value") or action.get("action_id") or "")
        if not name:
            continue
        events.append(
            Event(
                EventKind.ACTION,
                PLATFORM,
                team_of(body),
                channel,
                user.id,
                user_name=user.name,
                action=name,
                thread=thread,
                user_tz=user.tz,
                is_admin=user.is_admin,
                is_dm=channel.startswith("D"),
            )
        )
    return events


def form_metadata(action: str, channel: str, thread: str | None) -> str:
    """What a modal carries to its submission (``private_metadata``, at most 3000 chars)."""
    return json.dumps({"action": action, "channel": channel, "thread": thread})


def submitted_text(view: Payload) -> str:
    """The value typed into the modal's text input (the first plain-text input found)."""
    values = ((view.get("state") or {}).get("values")) or {}
    for block in values.values():
        for element in block.values():
            if element.get("type") == "plain_text_input":
                return str(element.get("value") or "")
    return ""


def submission_event(body: Payload, user: SlackUser) -> Event | None:
    """A submitted studybot form; None for a view that is not ours or lost its metadata."""
    view = body.get("view") or {}
    try:
        meta = json.loads(view.get("private_metadata") or "")
    except ValueError:
        return None
    if not isinstance(meta, dict) or not meta.get("action") or not meta.get("channel"):
        return None
    channel = str(meta["channel"])
    return Event(
        EventKind.ACTION,
        PLATFORM,
        team_of(body),
        channel,
        user.id,
        user_name=user.name,
        action=str(meta["action"]),
        text=submitted_text(view),
        thread=meta.get("thread") or None,
        user_tz=user.tz,
        is_admin=user.is_admin,
        is_dm=channel.startswith("D"),
    )


def is_addressed_message(event: Payload, bot_user_id: str | None) -> bool:
    """A person's message for the bot: a mention, a DM, or a reply in a thread of a bot post."""
    if event.get("bot_id") or not event.get("user") or event.get("user") == bot_user_id:
        return False
    subtype = event.get("subtype")
    if subtype is not None and subtype not in _USER_SUBTYPES:
        return False
    if event.get("type") == "app_mention" or event.get("channel_type") == "im":
        return True
    thread_ts = event.get("thread_ts")
    if not thread_ts or thread_ts == event.get("ts"):
        return False  # top-level chatter in a channel is not an answer
    parent = event.get("parent_user_id") or (event.get("root") or {}).get("user")
    return bool(bot_user_id) and parent == bot_user_id


def message_event(
    body: Payload, event: Payload, user: SlackUser, bot_user_id: str | None
) -> Event | None:
    """A MESSAGE event for a message addressed to the bot (see :func:`is_addressed_message`)."""
    if not is_addressed_message(event, bot_user_id):
        return None
    channel = str(event.get("channel", ""))
    thread_ts = event.get("thread_ts")
    thread = (
        thread_ref(channel, str(thread_ts)) if thread_ts and thread_ts != event.get("ts") else None
    )
    text = unescape(_MENTION.sub("", str(event.get("text") or ""))).strip()
    if not text:
        return None
    return Event(
        EventKind.MESSAGE,
        PLATFORM,
        team_of(body) or str(event.get("team", "")),
        channel,
        user.id,
        user_name=user.name,
        text=text,
        thread=thread,
        user_tz=user.tz,
        is_admin=user.is_admin,
        is_dm=event.get("channel_type") == "im",
    )


def home_event(body: Payload, event: Payload, user: SlackUser) -> Event | None:
    """Opening the App Home tab → the ``home`` action; the Messages tab gives nothing."""
    if event.get("tab", "home") != "home" or not event.get("channel"):
        return None
    return Event(
        EventKind.ACTION,
        PLATFORM,
        team_of(body),
        str(event["channel"]),
        user.id,
        user_name=user.name,
        action=HOME_ACTION,
        user_tz=user.tz,
        is_admin=user.is_admin,
        is_dm=True,
    )


def delivery_key(body: Payload, event: Payload | None = None) -> str:
    """What makes one Slack delivery itself, for handling it once however often it comes: a
    message is its ``(channel, ts)`` (``app_mention`` and ``message`` both fire for one
    mention, with different event ids, and Slack retries with ``X-Slack-Retry-Num``); a
    command, click or submission is its ``trigger_id`` (a replay of the signed request
    carries the same one). Empty when the payload has neither."""
    team = team_of(body)
    if event is not None:
        channel, ts = event.get("channel"), event.get("ts")
        return f"{team}:message:{channel}:{ts}" if channel and ts else ""
    trigger = body.get("trigger_id")
    return f"{team}:trigger:{trigger}" if isinstance(trigger, str) and trigger else ""
