"""The interactive console: a real terminal prompt, built with prompt_toolkit.

prompt_toolkit gives line editing (arrows, Home/End, Ctrl-A/E, Ctrl-R search), a history
kept in a file across runs, Tab completion of the commands, and an asynchronous prompt:
while it waits for a line, a ticker runs what falls due (a live round's next question, a
mock's next round, a reminder) and the messages print above the prompt, which is redrawn
below them (``patch_stdout``). Ctrl-C and Ctrl-D leave at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text

from bot.adapters.console.session import ConsoleSession
from bot.core.commands import COMMANDS

log = logging.getLogger(__name__)
TICK_SECONDS = 1.0  # how often the idle prompt looks for due work
GREETING = "studybot console: type /help for commands, Tab completes them, Ctrl-D or Ctrl-C leaves."


class CommandCompleter(Completer):
    """Completes the command word of a line (``/le`` → ``/leaderboard``), with its usage
    as the hint; an answer (a line without ``/``) is never completed."""

    def __init__(self, commands: Iterable[tuple[str, str]]) -> None:
        self.commands = sorted(commands)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or " " in text:
            return
        typed = text[1:].lower()
        for name, usage in self.commands:
            if name.startswith(typed):
                yield Completion("/" + name, start_position=-len(text), display_meta=usage)


def default_completer() -> CommandCompleter:
    return CommandCompleter((name, spec.usage) for name, spec in COMMANDS.items())


def open_history(path: str) -> History:
    """The line history kept in ``path`` (its folder made if need be); in memory only
    when ``path`` is empty or cannot be written, with a warning in the log."""
    if not path:
        return InMemoryHistory()
    file = Path(path).expanduser()
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.touch(exist_ok=True)
    except OSError as exc:
        log.warning("console history %s cannot be written (%s); keeping it in memory", file, exc)
        return InMemoryHistory()
    return FileHistory(str(file))


async def _tick(session: ConsoleSession, seconds: float) -> None:
    """Run what falls due while the prompt waits for a line (real or simulated clock)."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await session.run_due()
        except Exception:  # logged once; the prompt stays
            log.exception("due work from the idle console failed")


def make_prompt(
    history: History | None = None, input: Input | None = None, output: Output | None = None
) -> PromptSession[str]:
    """The console's prompt: the terminal's own input and output unless given (tests pass
    a pipe and a dummy output)."""
    return PromptSession(
        history=history if history is not None else InMemoryHistory(),
        completer=default_completer(),
        complete_while_typing=False,
        input=input,
        output=output,
    )


async def run_interactive(
    session: ConsoleSession,
    console: Console,
    *,
    prompt: PromptSession[str] | None = None,
    tick_seconds: float = TICK_SECONDS,
) -> None:
    """Read lines at ``prompt`` until Ctrl-D, Ctrl-C or the end of the input, running
    what falls due every ``tick_seconds`` meanwhile."""
    prompt = prompt if prompt is not None else make_prompt()
    await session.start()
    console.print(Text(GREETING, style="bold"))
    ticker = asyncio.create_task(_tick(session, tick_seconds))
    try:
        with patch_stdout(raw=True):
            while True:
                try:
                    line = await prompt.prompt_async(f"{session.user}> ")
                except (EOFError, KeyboardInterrupt):
                    return
                await session.handle_line(line)
    finally:
        ticker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker
        await session.stop()
