"""Study groups: ``/team create|join|leave|list``.

The workspace is everyone's default team and has no row; a user may be in
several teams. Names are unique per workspace regardless of case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from rapidfuzz import process, utils

from bot.core.context import Context
from bot.core.errors import NotFound, UserError
from bot.core.messages import Card, Delivery, Outgoing, say
from bot.core.model import User, Workspace
from bot.core.ports import Port

MAX_NAME = 40
_NAME_OK = re.compile(r"^[\w][\w .'&+#-]*$")
USAGE = "Usage: /team create NAME | /team join NAME | /team leave NAME | /team list"


@dataclass(frozen=True, slots=True)
class Team:
    id: int
    workspace_id: int
    name: str
    members: int = 0


class TeamRepository(Protocol):
    def find(self, workspace: Workspace, name_key: str) -> Team | None:
        """The team whose case-folded name is ``name_key``."""
        ...

    def create(self, workspace: Workspace, name: str, name_key: str, by: User) -> Team | None:
        """Create the team with ``by`` as its first member; None if the name is taken."""
        ...

    def join(self, team: Team, user: User, when: datetime) -> bool:
        """Add ``user``; False if already a member."""
        ...

    def leave(self, team: Team, user: User) -> bool:
        """Remove ``user`` (and the team once empty); False if not a member."""
        ...

    def all(self, workspace: Workspace) -> list[Team]:
        """Every team of the workspace with its member count, by name."""
        ...

    def of_user(self, workspace: Workspace, user: User) -> list[Team]: ...

    def workspace_members(self, workspace: Workspace) -> int: ...


TEAMS = Port[TeamRepository]("teams")


def name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def clean_name(raw: str) -> str:
    """A valid team name from what the user typed; raises UserError with the reason."""
    name = " ".join(raw.split())
    if not name:
        raise UserError("Give the team a name, for example /team create GPU Gang.")
    if len(name) > MAX_NAME:
        raise UserError(
            f"That name is {len(name)} characters long; keep team names to {MAX_NAME} or fewer."
        )
    if not _NAME_OK.match(name):
        raise UserError(
            "Team names use letters, digits, spaces and . ' & + # - _ and start with a "
            "letter or digit."
        )
    return name


#: How people name the team that is the whole workspace (shown first by /team list).
WORKSPACE_TEAM_NAMES = ("everyone", "everyone (the workspace)", "the workspace")


def find_team(ctx: Context, raw: str) -> Team:
    """The team named ``raw`` (any case); NotFound suggests the closest name."""
    name = clean_name(raw)
    team = ctx.uow[TEAMS].find(ctx.workspace, name_key(name))
    if team is not None:
        return team
    if name_key(name) in WORKSPACE_TEAM_NAMES:
        raise UserError(
            "Everyone is the whole workspace: every member is in it, so it cannot be joined or "
            "left. Study groups are the teams you join and leave (/team list)."
        )
    names = [t.name for t in ctx.uow[TEAMS].all(ctx.workspace)]
    match = (
        process.extractOne(name, names, processor=utils.default_process, score_cutoff=60)
        if names
        else None
    )
    hint = f" Did you mean {match[0]}?" if match else " See /team list."
    raise NotFound(f"There is no team called {name!r}.{hint}")


def board_team(ctx: Context, raw: str) -> Team | None:
    """The team a board is asked for (``/leaderboard … team NAME``): None for the whole
    workspace ("everyone"), whose board is the one without a team; else :func:`find_team`
    (a study group that took such a name before they were refused keeps its board)."""
    name = clean_name(raw)
    key = name_key(name)
    if key in WORKSPACE_TEAM_NAMES and ctx.uow[TEAMS].find(ctx.workspace, key) is None:
        return None
    return find_team(ctx, name)


def _reply(ctx: Context, text: str) -> list[Outgoing]:
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]


def team_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/team create|join|leave NAME`` and ``/team list``."""
    verb, _, rest = args.strip().partition(" ")
    verb = verb.lower()
    if verb == "create":
        name = clean_name(rest)
        if name_key(name) in WORKSPACE_TEAM_NAMES:
            raise UserError(
                f"{name!r} is the whole workspace, the team everyone is in already: give your "
                "study group a name of its own."
            )
        team = ctx.uow[TEAMS].create(ctx.workspace, name, name_key(name), ctx.user)
        if team is None:
            existing = ctx.uow[TEAMS].find(ctx.workspace, name_key(name))
            shown = existing.name if existing else name
            raise UserError(
                f"A team called {shown!r} exists already. Join it with /team join {shown}."
            )
        return _reply(ctx, f"Team {team.name!r} created, and you are in it.")
    if verb == "join":
        team = find_team(ctx, rest)
        if not ctx.uow[TEAMS].join(team, ctx.user, ctx.now):
            raise UserError(f"You are already in {team.name!r}.")
        return _reply(ctx, f"You joined {team.name!r}.")
    if verb == "leave":
        team = find_team(ctx, rest)
        if not ctx.uow[TEAMS].leave(team, ctx.user):
            raise UserError(f"You are not in {team.name!r}.")
        return _reply(ctx, f"You left {team.name!r}.")
    if verb == "list" and not rest.strip():
        return [list_card(ctx)]
    raise UserError(USAGE)


def list_card(ctx: Context) -> Outgoing:
    teams = ctx.uow[TEAMS].all(ctx.workspace)
    mine = {t.id for t in ctx.uow[TEAMS].of_user(ctx.workspace, ctx.user)}
    everyone = ctx.uow[TEAMS].workspace_members(ctx.workspace)
    lines = [f"Everyone (the workspace) · {everyone} member{'s' * (everyone != 1)} · you"]
    for team in teams:
        you = " · you" if team.id in mine else ""
        lines.append(f"{team.name} · {team.members} member{'s' * (team.members != 1)}{you}")
    if not teams:
        lines.append("No study groups yet: start one with /team create NAME.")
    return Outgoing(
        Delivery.PRIVATE,
        ctx.user.external_id,
        Card(title="Teams", blocks=("\n".join(lines),)),
        channel=ctx.channel.external_id,
    )
