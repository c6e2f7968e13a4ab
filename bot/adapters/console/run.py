"""The console's loop: a prompt_toolkit prompt on a TTY (``terminal``), one line at a time
from a pipe."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TextIO

from bot.adapters.console.render import as_json, as_text, save_attachments, without_fences
from bot.adapters.console.session import ConsoleSession
from bot.bootstrap import App
from bot.core.messages import Delivery, Outgoing

# rich and prompt_toolkit are imported when a terminal is there to draw on: a script (stdin
# from a pipe or a file) does not pay for them.
if TYPE_CHECKING:
    from rich.console import Console

STYLE = {
    Delivery.CHANNEL: "cyan",
    Delivery.PRIVATE: "green",
    Delivery.DM: "magenta",
    Delivery.UPDATE: "cyan",
    Delivery.MODAL: "yellow",
}


def make_printer(
    json_lines: bool,
    out: TextIO,
    rich_console: Console | None,
    channel: Callable[[], str],
    charts_dir: Path | None = None,
) -> Callable[[Outgoing], None]:
    def emit(message: Outgoing) -> None:
        paths = save_attachments(message, charts_dir) if charts_dir is not None else []
        if json_lines:
            out.write(as_json(message, channel(), paths) + "\n")
        elif rich_console is not None:
            from rich.panel import Panel
            from rich.text import Text

            title = {
                Delivery.CHANNEL: f"#{message.to}",
                Delivery.PRIVATE: f"to {message.to} (only you)",
                Delivery.DM: f"DM to {message.to}",
                Delivery.UPDATE: f"#{message.to} (updated)",
                Delivery.MODAL: f"form for {message.to}",
            }[message.delivery]
            body = "\n".join(without_fences(message.text)) + "".join(f"\nfile: {p}" for p in paths)
            rich_console.print(
                Panel(
                    Text(body),
                    title=title,
                    title_align="left",
                    border_style=STYLE[message.delivery],
                )
            )
        else:
            out.write(as_text(message, paths) + "\n")
        out.flush()

    return emit


def decode(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def run_script(session: ConsoleSession, stream: BinaryIO) -> None:
    """Script mode: every line of ``stream`` in turn; bad bytes get a message, not a crash."""
    await session.start()
    try:
        await _read_script(session, stream)
    finally:
        await session.stop()


async def _read_script(session: ConsoleSession, stream: BinaryIO) -> None:
    while True:
        raw = await asyncio.to_thread(stream.readline)
        if not raw:
            return
        line = decode(raw)
        if line is None:
            session.emit_error("That line is not valid UTF-8 text. Nothing was done.")
            continue
        await session.handle_line(line)
        await session.settle()  # a script's transcript comes in order


def run_console(
    app: App,
    *,
    user: str,
    channel: str,
    tz: str | None,
    json_lines: bool,
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    interactive: bool | None = None,
) -> int:
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    if interactive is None:
        interactive = sys.stdin.isatty() and stdout.isatty() and not json_lines
    rich_console = None
    if interactive:
        # No fixed file: rich then writes to sys.stdout as it is at each print, which is
        # prompt_toolkit's proxy while the prompt shows (messages print above it).
        from rich.console import Console

        rich_console = Console(file=None if stdout is sys.stdout else stdout, force_terminal=True)
    holder: list[ConsoleSession] = []
    charts_dir = Path(app.settings.studybot_charts_dir)
    emit = make_printer(json_lines, stdout, rich_console, lambda: holder[0].channel, charts_dir)
    session = ConsoleSession(app, user=user, channel=channel, tz=tz, emit=emit)
    holder.append(session)
    if rich_console is not None:
        from bot.adapters.console.terminal import make_prompt, open_history, run_interactive

        prompt = make_prompt(open_history(app.settings.studybot_console_history))
        asyncio.run(run_interactive(session, rich_console, prompt=prompt))
    else:
        asyncio.run(run_script(session, stdin))
    return 0
