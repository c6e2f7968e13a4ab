"""An in-memory unit of work for the core's rule tests: no database, no migration.

:class:`FakeStore` is what the database would hold, as plain records; a
:class:`FakeUnitOfWork` works on a copy of it and writes the copy back on ``commit``, so
that leaving without commit rolls back, as the SQL unit of work does. Its repositories
implement the ports that recording answers, streaks, away days, interview goals, reviews,
teams, seasons and the leaderboard use; ``tests/test_port_contracts.py`` runs the same
contract against them and against the SQL repositories (SQLite and PostgreSQL), so a rule
test on the fake tests the rule, not the fake.

A port the fake does not provide raises KeyError, as ``UnitOfWork.__getitem__`` says.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from types import TracebackType
from typing import Any, Self, TypeVar, cast

from bot.core import grading
from bot.core.away import AWAY, AwayPeriod
from bot.core.bank import QuestionBank
from bot.core.clock import Clock
from bot.core.context import Context, Grader, Services
from bot.core.events import DELIVERIES, Event, EventKind
from bot.core.goal import GOALS, Goal
from bot.core.leaderboard import LEADERBOARD, BoardRow, TeamScore
from bot.core.messages import OUTBOX, Outgoing
from bot.core.model import (
    ACTORS,
    ATTEMPTS,
    CHANNELS,
    USERS,
    WORKSPACES,
    Actor,
    Attempt,
    Channel,
    DailyPrompt,
    User,
    Workspace,
)
from bot.core.ports import Port
from bot.core.seasons import SEASONS, Season
from bot.core.srs import REVIEWS, ReviewCard
from bot.core.streaks import STREAKS, ChannelPost, DayMark, StreakState
from bot.core.teams import TEAMS, Team
from bot.core.timezones import zone

R = TypeVar("R")


@dataclass
class QueuedMessage:
    workspace_id: int
    platform: str
    message: Outgoing
    key: str
    due_at: datetime


@dataclass
class FakeStore:
    """The rows, as records. Keys mirror the tables' unique constraints."""

    workspaces: dict[int, Workspace] = field(default_factory=dict)
    users: dict[int, User] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    attempts: dict[int, Attempt] = field(default_factory=dict)
    outbox: dict[str, QueuedMessage] = field(default_factory=dict)
    reviews: dict[tuple[int, str], ReviewCard] = field(default_factory=dict)
    review_limits: dict[int, tuple[int, int]] = field(default_factory=dict)  # user: (ws, limit)
    streaks: dict[int, tuple[int, StreakState]] = field(default_factory=dict)
    days: dict[tuple[int, date], tuple[int, DayMark]] = field(default_factory=dict)
    away: dict[int, tuple[int, AwayPeriod]] = field(default_factory=dict)
    goals: dict[int, tuple[int, Goal]] = field(default_factory=dict)
    points: dict[tuple[int, str], tuple[int, int, int]] = field(default_factory=dict)
    seasons: dict[int, Season] = field(default_factory=dict)
    teams: dict[int, tuple[Team, str]] = field(default_factory=dict)  # id: (team, name key)
    members: dict[tuple[int, int], datetime] = field(default_factory=dict)  # (team, user)
    prompts: dict[int, DailyPrompt] = field(default_factory=dict)
    # a channel's schedule: its next post (None: none planned), whether it is paused, its zone
    schedules: dict[int, tuple[int, datetime | None, bool, str]] = field(default_factory=dict)
    deliveries: set[tuple[str, str]] = field(default_factory=set)  # (platform, key) taken
    commits: int = 0

    def next_id(self, table: dict[int, Any]) -> int:
        return max(table, default=0) + 1

    def post_daily(
        self, channel: Channel, question_id: str, posted_at: datetime, day: date | None = None
    ) -> DailyPrompt:
        """A daily question posted in ``channel`` (what the daily job would have stored) for
        its date ``day`` (default: ``posted_at``'s date in UTC)."""
        prompt = DailyPrompt(
            self.next_id(self.prompts),
            channel.workspace_id,
            channel.id,
            question_id,
            day or posted_at.date(),
            posted_at,
            posted_at + timedelta(hours=8),
            None,
            None,
        )
        self.prompts[prompt.id] = prompt
        return prompt


class _Repo:
    def __init__(self, store: FakeStore, clock: Clock) -> None:
        self.s = store
        self.clock = clock


class FakeWorkspaces(_Repo):
    def ensure(self, platform: str, external_id: str, name: str = "") -> Workspace:
        for workspace in self.s.workspaces.values():
            if (workspace.platform, workspace.external_id) == (platform, external_id):
                return workspace
        workspace = Workspace(self.s.next_id(self.s.workspaces), platform, external_id, name, "UTC")
        self.s.workspaces[workspace.id] = workspace
        return workspace


class FakeUsers(_Repo):
    def ensure(
        self, workspace: Workspace, external_id: str, name: str = "", timezone: str | None = None
    ) -> User:
        for user in self.s.users.values():
            if (user.workspace_id, user.external_id) == (workspace.id, external_id):
                if name and user.name != name:
                    user = replace(user, name=name)
                if timezone and user.timezone is None:
                    user = replace(user, timezone=timezone)
                self.s.users[user.id] = user
                return user
        user = User(
            self.s.next_id(self.s.users), workspace.id, external_id, name or external_id, timezone
        )
        self.s.users[user.id] = user
        return user

    def get(self, workspace: Workspace, user_id: int) -> User | None:
        user = self.s.users.get(user_id)
        return user if user is not None and user.workspace_id == workspace.id else None

    def find(self, workspace: Workspace, handle: str) -> list[User]:
        key = handle.casefold()
        return [
            u
            for _, u in sorted(self.s.users.items())
            if u.workspace_id == workspace.id
            and key in (u.external_id.casefold(), u.name.casefold())
        ]

    def set_timezone(self, user: User, timezone: str) -> User:
        changed = replace(self.s.users[user.id], timezone=timezone)
        self.s.users[user.id] = changed
        return changed


class FakeChannels(_Repo):
    def ensure(self, workspace: Workspace, external_id: str, name: str = "") -> Channel:
        for channel in self.s.channels.values():
            if (channel.workspace_id, channel.external_id) == (workspace.id, external_id):
                return channel
        channel = Channel(
            self.s.next_id(self.s.channels), workspace.id, external_id, name or external_id
        )
        self.s.channels[channel.id] = channel
        return channel

    def get(self, workspace: Workspace, channel_id: int) -> Channel | None:
        channel = self.s.channels.get(channel_id)
        return channel if channel is not None and channel.workspace_id == workspace.id else None

    def set_live_seconds(self, channel: Channel, seconds: int | None) -> Channel:
        if self.get(self.s.workspaces[channel.workspace_id], channel.id) is None:
            raise LookupError(f"no channel {channel.id}")
        changed = replace(self.s.channels[channel.id], live_seconds=seconds)
        self.s.channels[channel.id] = changed
        return changed


class FakeActors(_Repo):
    def ensure(
        self,
        platform: str,
        workspace: str,
        user: str,
        channel: str,
        user_name: str = "",
        user_tz: str | None = None,
    ) -> Actor:
        where = FakeWorkspaces(self.s, self.clock).ensure(platform, workspace)
        return Actor(
            where,
            FakeUsers(self.s, self.clock).ensure(where, user, user_name, user_tz),
            FakeChannels(self.s, self.clock).ensure(where, channel),
        )


class FakeAttempts(_Repo):
    def add(self, attempt: Attempt) -> Attempt:
        if attempt.scored and any(
            a.scored
            and a.user_id == attempt.user_id
            and a.daily_prompt_id == attempt.daily_prompt_id
            for a in self.s.attempts.values()
        ):
            attempt = replace(attempt, scored=False, points=0)  # kept as practice
        stored = replace(attempt, id=self.s.next_id(self.s.attempts))
        self.s.attempts[cast(int, stored.id)] = stored
        return stored


class FakeOutbox(_Repo):
    def add(
        self, workspace: Workspace, platform: str, message: Outgoing, key: str, due_at: datetime
    ) -> bool:
        if key in self.s.outbox:
            return False
        self.s.outbox[key] = QueuedMessage(workspace.id, platform, message, key, due_at)
        return True


class FakeReviews(_Repo):
    def get(self, user: User, question_id: str) -> ReviewCard | None:
        card = self.s.reviews.get((user.id, question_id))
        return card if card is not None and card.workspace_id == user.workspace_id else None

    def save(self, card: ReviewCard) -> None:
        self.s.reviews[(card.user_id, card.question_id)] = replace(card, state=dict(card.state))

    def for_user(self, workspace: Workspace, user: User) -> list[ReviewCard]:
        cards = [
            c
            for (uid, _), c in self.s.reviews.items()
            if uid == user.id and c.workspace_id == workspace.id
        ]
        return sorted(cards, key=lambda c: (c.due_at, c.question_id))

    def daily_limit(self, user: User) -> int | None:
        found = self.s.review_limits.get(user.id)
        return found[1] if found is not None and found[0] == user.workspace_id else None

    def set_daily_limit(self, user: User, limit: int, now: datetime) -> None:
        self.s.review_limits[user.id] = (user.workspace_id, limit)


class FakeStreaks(_Repo):
    def get(self, user: User) -> StreakState:
        found = self.s.streaks.get(user.id)
        return found[1] if found is not None and found[0] == user.workspace_id else StreakState()

    def save(self, user: User, state: StreakState) -> None:
        self.s.streaks[user.id] = (user.workspace_id, state)

    def add_day(self, user: User, day: date, *, answers: int = 1, frozen: bool = False) -> None:
        _, mark = self.s.days.get((user.id, day), (user.workspace_id, DayMark(0, False)))
        self.s.days[(user.id, day)] = (
            user.workspace_id,
            DayMark(mark.answers + answers, mark.frozen or frozen),
        )

    def days(self, user: User, first: date, last: date) -> dict[date, DayMark]:
        return {
            day: mark
            for (uid, day), (ws, mark) in self.s.days.items()
            if uid == user.id and ws == user.workspace_id and first <= day <= last
        }

    def first_day(self, user: User) -> date | None:
        return min(
            (
                day
                for (uid, day), (ws, _) in self.s.days.items()
                if uid == user.id and ws == user.workspace_id
            ),
            default=None,
        )

    def zone_of(self, user: User) -> str:
        if user.timezone:
            return user.timezone
        workspace = self.s.workspaces.get(user.workspace_id)
        return workspace.timezone if workspace is not None else "UTC"

    def channel_posts(self, user: User, first: date, last: date) -> list[ChannelPost] | None:
        ids = {
            self.s.prompts[a.daily_prompt_id].channel_id
            for a in self.s.attempts.values()
            if a.user_id == user.id
            and a.workspace_id == user.workspace_id
            and a.daily_prompt_id in self.s.prompts
        }
        if not ids:
            return None
        posts = []
        mine = [
            p
            for p in self.s.prompts.values()
            if p.workspace_id == user.workspace_id and p.channel_id in ids
        ]
        for p in mine:
            if first <= p.local_date <= last:
                answers = [
                    a.answered_at
                    for a in self.s.attempts.values()
                    if a.user_id == user.id and a.daily_prompt_id == p.id
                ]
                posts.append(ChannelPost(p.local_date, p.posted_at, min(answers, default=None)))
        made = {(p.channel_id, p.local_date) for p in mine}
        for channel_id, (ws, next_at, paused, zone_name) in self.s.schedules.items():
            if ws != user.workspace_id or channel_id not in ids or paused or next_at is None:
                continue
            day = next_at.astimezone(zone(zone_name)).date()
            coming = next_at >= self.clock.now() and (channel_id, day) not in made
            if coming and first <= day <= last:
                posts.append(ChannelPost(day, next_at))
        return posts

    def set_nudges(self, user: User, enabled: bool) -> None:
        found = self.s.users.get(user.id)
        if found is not None and found.workspace_id == user.workspace_id:
            self.s.users[user.id] = replace(found, nudges=enabled)

    def next_nudge_at(self) -> datetime | None:
        return min(
            (s.nudge_at for _, s in self.s.streaks.values() if s.nudge_at is not None),
            default=None,
        )


class FakeAway(_Repo):
    def _mine(self, user: User) -> list[AwayPeriod]:
        return [
            p for ws, p in self.s.away.values() if p.user_id == user.id and ws == user.workspace_id
        ]

    def add(self, user: User, first: date, last: date, now: datetime) -> AwayPeriod:
        period = AwayPeriod(self.s.next_id(self.s.away), user.id, first, last)
        self.s.away[period.id] = (user.workspace_id, period)
        return period

    def periods(self, user: User, from_day: date) -> list[AwayPeriod]:
        found = [p for p in self._mine(user) if p.last >= from_day]
        return sorted(found, key=lambda p: (p.first, p.id))

    def ranges(self, user: User, first: date, last: date) -> list[tuple[date, date]]:
        return [(p.first, p.last) for p in self._mine(user) if p.last >= first and p.first <= last]

    def set_last(self, user: User, period_id: int, last: date) -> None:
        (period,) = [p for p in self._mine(user) if p.id == period_id]
        self.s.away[period_id] = (user.workspace_id, replace(period, last=last))

    def delete(self, user: User, period_id: int) -> bool:
        if not any(p.id == period_id for p in self._mine(user)):
            return False
        del self.s.away[period_id]
        return True


class FakeGoals(_Repo):
    def get(self, user: User) -> Goal | None:
        found = self.s.goals.get(user.id)
        return found[1] if found is not None and found[0] == user.workspace_id else None

    def set(self, user: User, day: date, fmt: str, now: datetime) -> Goal:
        goal = Goal(user.id, day, fmt, None)
        self.s.goals[user.id] = (user.workspace_id, goal)
        return goal

    def clear(self, user: User) -> bool:
        if self.get(user) is None:
            return False
        del self.s.goals[user.id]
        return True

    def mark_suggested(self, user: User, now: datetime) -> None:
        goal = self.get(user)
        if goal is not None:
            self.s.goals[user.id] = (user.workspace_id, replace(goal, mock_suggested_at=now))


class FakeLeaderboard(_Repo):
    def add(
        self, workspace_id: int, user_id: int, periods: list[str], points: int, answers: int
    ) -> None:
        for period in periods:
            ws, had_points, had_answers = self.s.points.get((user_id, period), (workspace_id, 0, 0))
            self.s.points[(user_id, period)] = (ws, had_points + points, had_answers + answers)

    def _scoped(
        self, workspace: Workspace, period: str, team_id: int | None
    ) -> list[tuple[int, int, int]]:
        """(user id, points, answers) of the rows with points, in a team where asked."""
        return [
            (uid, pts, ans)
            for (uid, key), (ws, pts, ans) in self.s.points.items()
            if ws == workspace.id
            and key == period
            and pts > 0
            and (team_id is None or (team_id, uid) in self.s.members)
        ]

    def top(
        self, workspace: Workspace, period: str, limit: int, team_id: int | None = None
    ) -> list[BoardRow]:
        rows = sorted(self._scoped(workspace, period, team_id), key=lambda r: (-r[1], -r[0]))
        return [BoardRow(u, self.s.users[u].name, p, a) for u, p, a in rows[:limit]]

    def row(self, workspace: Workspace, period: str, user: User) -> BoardRow | None:
        found = self.s.points.get((user.id, period))
        if found is None or found[0] != workspace.id:
            return None
        return BoardRow(user.id, user.display, found[1], found[2])

    def count_above(
        self, workspace: Workspace, period: str, points: int, team_id: int | None = None
    ) -> int:
        return sum(1 for _, p, _ in self._scoped(workspace, period, team_id) if p > points)

    def count(self, workspace: Workspace, period: str, team_id: int | None = None) -> int:
        return len(self._scoped(workspace, period, team_id))

    def _active(self, workspace: Workspace, period: str) -> dict[int, int]:
        """user id: points, of the users with answers in ``period``."""
        return {
            uid: pts
            for (uid, key), (ws, pts, ans) in self.s.points.items()
            if ws == workspace.id and key == period and ans > 0
        }

    def teams(self, workspace: Workspace, period: str) -> list[TeamScore]:
        active = self._active(workspace, period)
        scores = []
        for team, _ in self.s.teams.values():
            if team.workspace_id != workspace.id:
                continue
            members = [uid for tid, uid in self.s.members if tid == team.id]
            if not members:
                continue  # an inner join: a team without members has no row
            in_board = [uid for uid in members if uid in active]
            points = sum(active[uid] for uid in in_board)
            scores.append(TeamScore(team.id, team.name, len(members), len(in_board), points))
        return scores

    def everyone(self, workspace: Workspace, period: str) -> tuple[int, int]:
        active = self._active(workspace, period)
        return sum(active.values()), len(active)


class FakeSeasons(_Repo):
    def _of(self, workspace: Workspace) -> list[Season]:
        return [s for s in self.s.seasons.values() if s.workspace_id == workspace.id]

    def latest(self, workspace: Workspace) -> Season | None:
        return max(self._of(workspace), key=lambda s: s.starts_at, default=None)

    def containing(self, workspace: Workspace, when: datetime) -> Season | None:
        found = [s for s in self._of(workspace) if s.starts_at <= when < s.ends_at]
        return found[0] if found else None

    def named(self, workspace: Workspace, name: str) -> Season | None:
        found = [s for s in self._of(workspace) if s.name == name]
        return found[0] if found else None

    def listing(self, workspace: Workspace, limit: int) -> list[Season]:
        return sorted(self._of(workspace), key=lambda s: s.starts_at, reverse=True)[:limit]

    def add(
        self,
        workspace: Workspace,
        name: str,
        starts_at: datetime,
        ends_at: datetime,
        next_length: str,
    ) -> tuple[Season, bool]:
        found = self.named(workspace, name)
        if found is not None:
            return found, False
        season = Season(
            self.s.next_id(self.s.seasons),
            workspace.id,
            name,
            starts_at,
            ends_at,
            next_length,
            None,
        )
        self.s.seasons[season.id] = season
        return season, True

    def copy_points(self, workspace: Workspace, from_key: str, to_key: str) -> None:
        for (uid, key), (ws, pts, ans) in list(self.s.points.items()):
            if ws == workspace.id and key == from_key and (uid, to_key) not in self.s.points:
                self.s.points[(uid, to_key)] = (ws, pts, ans)

    def change(
        self, season: Season, *, ends_at: datetime | None = None, next_length: str | None = None
    ) -> Season:
        changed = self.s.seasons[season.id]
        if ends_at is not None:
            changed = replace(changed, ends_at=ends_at)
        if next_length is not None:
            changed = replace(changed, next_length=next_length)
        self.s.seasons[season.id] = changed
        return changed


class FakeTeams(_Repo):
    def _members(self, team_id: int) -> int:
        return sum(1 for tid, _ in self.s.members if tid == team_id)

    def find(self, workspace: Workspace, name_key: str) -> Team | None:
        for team, key in self.s.teams.values():
            if team.workspace_id == workspace.id and key == name_key:
                return replace(team, members=self._members(team.id))
        return None

    def create(self, workspace: Workspace, name: str, name_key: str, by: User) -> Team | None:
        if self.find(workspace, name_key) is not None:
            return None
        team = Team(self.s.next_id(self.s.teams), workspace.id, name)
        self.s.teams[team.id] = (team, name_key)
        self.s.members[(team.id, by.id)] = self.clock.now()
        return replace(team, members=1)

    def join(self, team: Team, user: User, when: datetime) -> bool:
        if (team.id, user.id) in self.s.members:
            return False
        self.s.members[(team.id, user.id)] = when
        return True

    def leave(self, team: Team, user: User) -> bool:
        if self.s.members.pop((team.id, user.id), None) is None:
            return False
        if self._members(team.id) == 0:
            del self.s.teams[team.id]
        return True

    def _by_name(self, workspace: Workspace) -> list[tuple[Team, str]]:
        found = [(t, k) for t, k in self.s.teams.values() if t.workspace_id == workspace.id]
        return sorted(found, key=lambda tk: tk[1])

    def all(self, workspace: Workspace) -> list[Team]:
        return [replace(t, members=self._members(t.id)) for t, _ in self._by_name(workspace)]

    def of_user(self, workspace: Workspace, user: User) -> list[Team]:
        return [t for t, _ in self._by_name(workspace) if (t.id, user.id) in self.s.members]

    def workspace_members(self, workspace: Workspace) -> int:
        return sum(1 for u in self.s.users.values() if u.workspace_id == workspace.id)


class FakeDeliveries(_Repo):
    def first(self, platform: str, key: str) -> bool:
        if (platform, key) in self.s.deliveries:
            return False
        self.s.deliveries.add((platform, key))
        return True


FAKES: dict[Port[Any], type[_Repo]] = {
    WORKSPACES: FakeWorkspaces,
    USERS: FakeUsers,
    CHANNELS: FakeChannels,
    ACTORS: FakeActors,
    ATTEMPTS: FakeAttempts,
    OUTBOX: FakeOutbox,
    REVIEWS: FakeReviews,
    STREAKS: FakeStreaks,
    AWAY: FakeAway,
    GOALS: FakeGoals,
    LEADERBOARD: FakeLeaderboard,
    SEASONS: FakeSeasons,
    TEAMS: FakeTeams,
    DELIVERIES: FakeDeliveries,
}


class FakeUnitOfWork:
    """One transaction on a :class:`FakeStore`: works on a copy, ``commit`` writes it back,
    leaving without commit drops it."""

    def __init__(self, store: FakeStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._work = copy.deepcopy(store)
        self._repositories: dict[Port[Any], Any] = {}

    def __enter__(self) -> Self:
        self._work = copy.deepcopy(self.store)
        self._repositories = {}
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.rollback()

    def __getitem__(self, port: Port[R]) -> R:
        repository = self._repositories.get(port)
        if repository is None:
            repository = self._repositories[port] = FAKES[port](self._work, self.clock)
        return cast(R, repository)

    def commit(self) -> None:
        self._work.commits = self.store.commits + 1
        self.store.__dict__.update(copy.deepcopy(self._work).__dict__)

    def rollback(self) -> None:
        self._work = copy.deepcopy(self.store)
        self._repositories = {}


class FakeWorld:
    """The core's services on a :class:`FakeStore`: open a unit of work, or act as a user
    (``with world.acting("alice") as ctx``: the workspace, user and channel exist, and the
    block's work is committed when it ends without an error)."""

    def __init__(self, clock: Clock, bank: QuestionBank, grade: Grader = grading.grade) -> None:
        self.store = FakeStore()
        self.clock = clock
        self.services = Services(clock=clock, bank=bank, grade=grade)

    def uow(self) -> FakeUnitOfWork:
        return FakeUnitOfWork(self.store, self.clock)

    @contextmanager
    def acting(self, user: str = "alice", channel: str = "general") -> Iterator[Context]:
        with self.uow() as uow:
            workspace = uow[WORKSPACES].ensure("console", "console")
            who = uow[USERS].ensure(workspace, user)
            where = uow[CHANNELS].ensure(workspace, channel)
            event = Event(EventKind.COMMAND, "console", "console", channel, user)
            yield Context(uow, self.services, event, workspace, who, where)
            uow.commit()
