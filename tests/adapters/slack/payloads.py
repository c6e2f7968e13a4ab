"""Slack request bodies built from the recorded fixtures, and Slack's request signature."""

from __future__ import annotations

import copy
import itertools
import json
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from slack_sdk.signature import SignatureVerifier

FIXTURES = Path(__file__).parent / "fixtures"
SECRET = "test-signing-secret"
TEAM = "T111"
CHANNEL = "C111"
USER = "W222"


_TRIGGERS = itertools.count(1)


def trigger_id() -> str:
    """A fresh ``trigger_id``, as Slack gives each command, click and submission its own
    (the adapter handles each trigger once)."""
    return f"{next(_TRIGGERS)}.222.{uuid.uuid4().hex[:8]}"


def trigger_of(body: str) -> str:
    """The ``trigger_id`` of a form-encoded body built here."""
    fields = dict(parse_qsl(body))
    data = json.loads(fields["payload"]) if "payload" in fields else fields
    return str(data["trigger_id"])


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def signed_headers(
    body: str, *, secret: str = SECRET, timestamp: int | None = None, content_type: str = ""
) -> dict[str, str]:
    """Headers as Slack sends them: ``v0=HMAC-SHA256(secret, "v0:{ts}:{body}")``."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    return {
        "content-type": content_type
        or ("application/json" if body.startswith("{") else "application/x-www-form-urlencoded"),
        "x-slack-request-timestamp": ts,
        "x-slack-signature": signature,
    }


def slash(
    command: str,
    text: str = "",
    *,
    user: str = USER,
    channel: str = CHANNEL,
    response_url: str = "https://hooks.slack.com/commands/T111/1/x",
) -> str:
    """A slash command's form body, from the recorded one."""
    fields = dict(parse_qsl((FIXTURES / "slash_command_form_body.txt").read_text().strip()))
    fields.update(
        command=command,
        text=text,
        user_id=user,
        user_name=user.lower(),
        channel_id=channel,
        team_id=TEAM,
        response_url=response_url,
        trigger_id=trigger_id(),
    )
    return urlencode(fields)


def click(
    value: str,
    *,
    user: str = USER,
    channel: str | None = CHANNEL,
    message_ts: str = "1700000000.000001",
    action_id: str | None = None,
) -> str:
    """A block_actions body for a click on a button whose value is ``value``."""
    body = fixture("block_actions.json")
    body["user"] = {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM}
    body["team"]["id"] = TEAM
    body["trigger_id"] = trigger_id()
    body["actions"][0].update(action_id=action_id or value, value=value)
    if channel is None:
        body.pop("channel")
        body["container"] = {"type": "view", "view_id": "V999"}
    else:
        body["channel"]["id"] = channel
        body["container"].update(channel_id=channel, message_ts=message_ts, is_ephemeral=False)
    return "payload=" + _quote(body)


def submission(view: dict[str, Any], typed: str, *, user: str = USER) -> str:
    """A view_submission body for ``view`` (as the adapter opened it) with ``typed`` entered."""
    body = fixture("view_submission.json")
    body["trigger_id"] = trigger_id()
    body["user"] = {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM}
    submitted = copy.deepcopy(body["view"])
    submitted.update(
        callback_id=view["callback_id"],
        private_metadata=view["private_metadata"],
        blocks=view["blocks"],
        app_installed_team_id=TEAM,
    )
    block = view["blocks"][0]
    submitted["state"] = {
        "values": {
            block["block_id"]: {
                block["element"]["action_id"]: {"type": "plain_text_input", "value": typed}
            }
        }
    }
    body["view"] = submitted
    return "payload=" + _quote(body)


def message_event(
    text: str,
    *,
    user: str = USER,
    channel: str = CHANNEL,
    ts: str = "1700000100.000100",
    thread_ts: str | None = None,
    parent_user_id: str | None = None,
    kind: str = "message",
    event_id: str = "Ev1",
) -> str:
    """An event_callback for a message (or an ``app_mention``), from the recorded one."""
    body = fixture(
        "event_callback_message.json" if kind == "message" else "event_callback_app_mention.json"
    )
    event = body["event"]
    event.update(text=text, user=user, channel=channel, ts=ts, event_ts=ts, team=TEAM)
    event.pop("blocks", None)
    if kind == "message":
        event["channel_type"] = "im" if channel.startswith("D") else "channel"
    if thread_ts:
        event["thread_ts"] = thread_ts
    if parent_user_id:
        event["parent_user_id"] = parent_user_id
    body.update(team_id=TEAM, event_id=event_id)
    return json.dumps(body)


def event_callback(name: str, **changes: Any) -> str:
    """A recorded event_callback fixture, with fields of its ``event`` changed."""
    body = fixture(name)
    body["team_id"] = TEAM
    body["event"].update(changes)
    return json.dumps(body)


def home_opened(user: str = USER, tab: str = "home") -> str:
    body = fixture("event_callback_message.json")
    body["event"] = {
        "type": "app_home_opened",
        "user": user,
        "channel": f"D{user}",
        "tab": tab,
        "event_ts": "1700000200.000100",
    }
    body["team_id"] = TEAM
    return json.dumps(body)


def _quote(body: dict[str, Any]) -> str:
    from urllib.parse import quote

    return quote(json.dumps(body))
