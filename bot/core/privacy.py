"""A person's data: ``/studybot export-me`` sends it, ``/studybot forget-me`` deletes it.

What is stored is what the features need: the user's platform id, display name and time zone,
their answers and grades, streak, review cards, points, teams, mock interviews, reminders,
availability, time away and disputes. An export is every row that belongs to the user, by
the tables' own links to them, as one JSON file sent in a DM; forgetting deletes the user and,
with them, every row that belongs to them (a mock they were the interviewer of stays, without
them). A workspace admin can delete the whole workspace's data (``/studybot forget-workspace``,
or ``studybot data delete`` on the server). docs/privacy.md says the same for users.

Rules
- Deleting asks for the word ``confirm`` on the same command: ``/studybot forget-me confirm``.
  Without it the reply says what would be deleted, and nothing is.
- Forgetting a user does not stop them from using the bot again: their next message starts a
  new, empty record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any, Final, Protocol

from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.messages import Attachment, Card, Delivery, Outgoing, say
from bot.core.model import User, Workspace
from bot.core.ports import Port

#: The version of the export's layout, its first field.
EXPORT_FORMAT: Final = 1
CONFIRM: Final = "confirm"

#: Rows by table name, each row a mapping of column to value.
Rows = Mapping[str, Sequence[Mapping[str, Any]]]


class PersonalDataRepository(Protocol):
    def rows_of(self, user: User) -> Rows:
        """Every stored row that belongs to ``user``, by table (empty tables left out)."""
        ...

    def forget_user(self, user: User) -> int:
        """Delete ``user`` and every row that belongs to them; the number of rows deleted."""
        ...

    def forget_workspace(self, workspace: Workspace) -> int:
        """Delete ``workspace`` and everything in it; the number of rows deleted."""
        ...


PERSONAL_DATA = Port[PersonalDataRepository]("personal_data")


def export_document(workspace: Workspace, user: User, rows: Rows, now: datetime) -> bytes:
    """The export file: who, when, and the rows, as indented JSON (UTF-8)."""
    document = {
        "studybot_export": EXPORT_FORMAT,
        "exported_at": now.isoformat(),
        "platform": workspace.platform,
        "workspace": workspace.external_id,
        "user": user.external_id,
        "tables": {name: [dict(row) for row in found] for name, found in sorted(rows.items())},
    }
    return json.dumps(document, indent=2, ensure_ascii=False, default=_plain).encode("utf-8")


def _plain(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def _counted(rows: Rows) -> str:
    """How many rows of each kind, in words: "15 activity days, 1 attempt, 2 pairing
    matches"."""
    parts = [_rows_of(len(found), name) for name, found in sorted(rows.items())]
    return ", ".join(parts) if parts else "nothing yet"


def _rows_of(count: int, table: str) -> str:
    word = table.replace("_", " ")
    if count != 1:
        word += "es" if word.endswith(("s", "x", "ch", "sh")) else "s"
    return f"{count} {word}"


def export_me(ctx: Context, args: Sequence[str]) -> list[Outgoing]:
    """``/studybot export-me``: the acting user's data as a JSON file in a DM."""
    if args:
        raise UserError("Usage: /studybot export-me (it takes nothing after it)")
    rows = ctx.uow[PERSONAL_DATA].rows_of(ctx.user)
    content = export_document(ctx.workspace, ctx.user, rows, ctx.now)
    filename = f"studybot-{ctx.user.external_id}-{ctx.now:%Y-%m-%d}.json"
    file = Attachment(filename, content, "application/json")
    card = Card(
        title="Your studybot data",
        blocks=(
            f"Everything I store about you in this workspace, as of {ctx.now:%Y-%m-%d %H:%M} "
            f"UTC: {_counted(rows)}. To delete it: /studybot forget-me",
        ),
    )
    return [
        Outgoing(Delivery.DM, ctx.user.external_id, card, attachments=(file,)),
        say(
            ctx.user.external_id,
            f"I sent you your data as {filename} in a direct message.",
            channel=ctx.channel.external_id,
        ),
    ]


def forget_me(ctx: Context, args: Sequence[str]) -> list[Outgoing]:
    """``/studybot forget-me [confirm]``: delete the acting user's data, once confirmed."""
    if not _confirmed(args, "/studybot forget-me"):
        rows = ctx.uow[PERSONAL_DATA].rows_of(ctx.user)
        return [
            say(
                ctx.user.external_id,
                f"This deletes everything I store about you here ({_counted(rows)}): your "
                "streak, points, reviews and mocks are gone for good. To go ahead: "
                "/studybot forget-me confirm · to keep a copy first: /studybot export-me",
                channel=ctx.channel.external_id,
            )
        ]
    deleted = ctx.uow[PERSONAL_DATA].forget_user(ctx.user)
    return [
        say(
            ctx.user.external_id,
            f"Done: I deleted your data ({deleted} records). If you use me again, you start "
            "from nothing.",
            channel=ctx.channel.external_id,
        )
    ]


def forget_workspace(ctx: Context, args: Sequence[str]) -> list[Outgoing]:
    """``/studybot forget-workspace [confirm]`` (admins): delete the workspace's data."""
    if not ctx.is_admin:
        raise UserError("Only a workspace admin can delete the workspace's data.")
    if not _confirmed(args, "/studybot forget-workspace"):
        return [
            say(
                ctx.user.external_id,
                "This deletes everything I store for this workspace: every member's answers, "
                "streaks, points, reviews, teams, mocks, the channels' schedules and the "
                "question history. To go ahead: /studybot forget-workspace confirm",
                channel=ctx.channel.external_id,
            )
        ]
    deleted = ctx.uow[PERSONAL_DATA].forget_workspace(ctx.workspace)
    return [
        say(
            ctx.user.external_id,
            f"Done: I deleted this workspace's data ({deleted} records).",
            channel=ctx.channel.external_id,
        )
    ]


def _confirmed(args: Sequence[str], command: str) -> bool:
    if not args:
        return False
    if len(args) == 1 and args[0].lower() == CONFIRM:
        return True
    raise UserError(f"Usage: {command} [confirm]")
