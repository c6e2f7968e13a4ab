"""A console session: one line in, messages out; /as and /advance live here."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from datetime import timedelta

from pytimeparse.timeparse import timeparse as parse_duration

from bot.adapters.base import report_failure
from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.events import Event, EventKind
from bot.core.messages import Outgoing, say
from bot.core.mock.times import in_words
from bot.core.model import USERS, WORKSPACES
from bot.core.timezones import zone
from bot.db.activity import latest_activity

log = logging.getLogger(__name__)
PLATFORM = "console"
WORKSPACE = "console"
MAX_LINE_CHARS = 8000
MAX_ADVANCE = timedelta(days=400)
NAME_OK = re.compile(r"^[A-Za-z0-9._-]{1,40}$")
NAME_RULE = "letters, digits, '.', '_' or '-', up to 40"


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be a console user's name (``/as`` and ``--user``), or None."""
    return None if NAME_OK.match(name) else f"a name is {NAME_RULE}; {name[:40]!r} is not one"


class ConsoleNotifier:
    """Hands messages from the outbox to the console's printer.

    While a line is being answered the printer is held (``hold``/``release``), so that a
    line's own replies print before what its commit queued for others (a peer's DM, a
    post): a transcript reads in the order things happened."""

    def __init__(self, emit: Callable[[Outgoing], None]) -> None:
        self.emit = emit
        self.sent = 0
        self._held = False
        # An asyncio.Event belongs to the event loop it was first waited in, and piped input
        # and the tests run each line in a loop of its own: one gate per loop.
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def _open(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, asyncio.Event())
        gate = self._gate[1]
        if self._held:
            gate.clear()
        else:
            gate.set()
        return gate

    def hold(self) -> None:
        self._held = True
        if self._gate is not None:
            self._gate[1].clear()

    def release(self) -> None:
        self._held = False
        if self._gate is not None:
            self._gate[1].set()

    async def send(self, message: Outgoing) -> str | None:
        await self._open().wait()
        self.emit(message)
        self.sent += 1
        return f"console-{self.sent}"


class ConsoleSession:
    """Turns console lines into events for the bot and prints what comes back."""

    def __init__(
        self, app: App, user: str, channel: str, tz: str | None, emit: Callable[[Outgoing], None]
    ) -> None:
        self.app = app
        self.user = user
        self.channel = channel
        self.tz = tz
        self.emit = emit
        self.notifier = ConsoleNotifier(emit)
        app.register_notifier(PLATFORM, self.notifier)
        self._due_lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    def _lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._due_lock is None or self._due_lock[0] is not loop:  # a lock per event loop
            self._due_lock = (loop, asyncio.Lock())
        return self._due_lock[1]

    async def run_due(self) -> int:
        """Run what has fallen due, one run at a time (a line's, ``/advance`` and the idle
        prompt's ticker)."""
        async with self._lock():
            return await self.app.runner.run_due()

    def _reply(self, text: str) -> None:
        self.emit(say(self.user, text, channel=self.channel))

    def emit_error(self, text: str) -> None:
        """Tell the acting user that a line could not be used."""
        self._reply(text)

    async def start(self) -> None:
        """Open the session: apply ``--tz`` to a user who has another zone already, say
        what a simulated clock that starts far from the database's last activity means,
        then deliver anything that fell due while the console was closed."""
        stored = self._stored_zone()
        if self.tz and stored and stored != self.tz:
            # --tz is explicit: it sets the acting user's zone, as /tz does, and says so
            await self._handle_event(self._event(EventKind.COMMAND, command="tz", args=self.tz))
        for note in self._clock_notes():
            self._reply(note)
        await self.app.runner.run_due_and_deliver()

    def _stored_zone(self) -> str | None:
        """The acting user's own time zone as stored; None for a user not seen yet."""
        with self.app.uow() as uow:
            workspace = uow[WORKSPACES].ensure(PLATFORM, WORKSPACE)
            found = [u for u in uow[USERS].find(workspace, self.user) if u.external_id == self.user]
            uow.commit()
        return found[0].timezone if found else None

    def _clock_notes(self) -> list[str]:
        """Lines about a ``--clock`` that starts before the database's last activity (time
        goes backwards) or so long after it that due work will be skipped, as after any
        downtime longer than the grace."""
        clock = self.app.clock
        if not isinstance(clock, SimulatedClock):
            return []
        now, last = clock.now(), latest_activity(self.app.session_factory)
        if last is None:
            return []
        shown = f"{last.isoformat(timespec='minutes')}"
        if now < last:
            return [
                f"Note: --clock {now.isoformat(timespec='minutes')} is before this database's "
                f"last activity ({shown}), so time goes backwards here: what was recorded "
                "later stays as it is. Start with a later --clock, or use a new --db."
            ]
        due, grace = self.app.runner.next_due(), self.app.services.grace
        if due is None or now - due <= grace:
            return []
        return [
            f"Note: the clock starts {in_words(now - last)} after this database's last "
            f"activity ({shown}). As after any downtime longer than {in_words(grace)}, what "
            "fell due longer ago than that (daily posts, reminders, nudges) is skipped, not "
            "sent late. To run it, start with an earlier --clock and /advance."
        ]

    async def settle(self) -> None:
        """Wait until the messages queued so far have been printed (piped input, whose
        transcript must come in order); the interactive console never waits."""
        await self.app.runner.deliverer.settle()

    async def stop(self) -> None:
        """Print what is still queued, then stop the background delivery."""
        await self.settle()
        await self.app.stop()

    async def handle_line(self, line: str) -> None:
        """One line: its replies are printed at once; channel posts and other queued
        messages follow from the background delivery. A failure is this adapter's edge:
        logged once, counted, and the user gets a short apology."""
        try:
            await self._handle_line(line.strip())
        except Exception:
            self._reply(report_failure(log, PLATFORM, f"the line {line[:40]!r}"))

    async def _handle_line(self, line: str) -> None:
        if not line:
            return
        if len(line) > MAX_LINE_CHARS:
            self._reply(
                f"That line is too long ({len(line):,} characters); "
                f"keep it under {MAX_LINE_CHARS:,}. Nothing was done."
            )
            return
        if line.startswith("/"):
            name, _, args = line[1:].partition(" ")
            name = name.lower()
            if name == "as":
                self._switch_user(args.strip())
                return
            if name == "advance":
                await self._advance(args.strip())
                return
            event = self._event(EventKind.COMMAND, command=name, args=args.strip())
        else:
            event = self._event(EventKind.MESSAGE, text=line)
        await self._handle_event(event)

    def _event(
        self, kind: EventKind, *, command: str = "", args: str = "", text: str = ""
    ) -> Event:
        return Event(
            kind,
            PLATFORM,
            WORKSPACE,
            self.channel,
            self.user,
            user_name=self.user,
            command=command,
            args=args,
            text=text,
            user_tz=self.tz,
        )

    async def _handle_event(self, event: Event) -> None:
        self.notifier.hold()
        try:
            for message in await self.app.handle(event):
                self.emit(message)
        finally:
            self.notifier.release()
        await self.run_due()  # what fell due meanwhile (a live round's countdown)

    def _switch_user(self, name: str) -> None:
        if check_name(name) is not None:
            self._reply(f"Usage: /as NAME ({NAME_RULE}).")
            return
        self.user = name
        self._reply(f"You are now {name}.")

    async def _advance(self, text: str) -> None:
        clock = self.app.clock
        if not isinstance(clock, SimulatedClock):
            self._reply("/advance needs a simulated clock: start the console with --clock ISO8601.")
            return
        if not text:
            self._reply(
                "/advance moves the simulated clock on and runs what falls due: give a "
                "duration, e.g. /advance 90m, /advance 1d or /advance 2h30m."
            )
            return
        seconds = parse_duration(text)
        if seconds is None or seconds <= 0:
            self._reply(f"{text!r} is not a duration. Try /advance 90m or /advance 1d.")
            return
        delta = timedelta(seconds=seconds)
        if delta > MAX_ADVANCE:
            self._reply("That is too far; advance at most 400 days at a time.")
            return
        async with self._lock():
            await self.app.runner.advance(clock, delta)
        now = clock.now()
        # Seconds only when there are some: "/advance 15s" twice must not print one time twice.
        spec, wall = ("seconds", "%H:%M:%S") if now.second else ("minutes", "%H:%M")
        shown_in = self._stored_zone() or self.tz  # the acting user's clock, as they set it
        local = (
            f" ({now.astimezone(zone(shown_in)):%a %d %b {wall}} in {shown_in})" if shown_in else ""
        )
        self._reply(f"The clock is now {now.isoformat(timespec=spec)}{local}.")
