"""The interactive console as a real terminal: keys go through prompt_toolkit exactly as
a terminal sends them (a pipe input and a dummy output stand in for the terminal).

Arrow keys edit the line and recall history (kept in a file across runs), Tab completes
commands, Ctrl-C and Ctrl-D leave at once, and what falls due while nobody types prints
on its own. Waits are on conditions (bounded, to fail rather than hang), never on time.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from bot.adapters.console.session import ConsoleSession
from bot.adapters.console.terminal import make_prompt, open_history, run_interactive
from bot.bootstrap import App
from bot.cli import main
from bot.core.clock import SimulatedClock
from bot.core.messages import Outgoing
from tests.support import Transcript
from tests.test_mock import mapp, mclock, mock_bank, mocks

__all__ = ["mapp", "mclock", "mock_bank"]  # fixtures shared with tests.test_mock

UP, LEFT, RIGHT = "\x1b[A", "\x1b[D", "\x1b[C"  # as a terminal sends them
TAB, ENTER, CTRL_C, CTRL_D = "\t", "\r", "\x03", "\x04"
BOUND = 30.0  # seconds before a wait gives up and the test fails (a hang, not a speed test)


async def until(condition: Callable[[], bool], what: str) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(poll(), BOUND)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


@dataclass
class Terminal:
    keys: PipeInput
    prompt: PromptSession[str]
    task: asyncio.Task[None]
    printed: list[Outgoing] = field(default_factory=list)

    def texts(self) -> list[str]:
        return [m.text for m in self.printed]

    async def line(self, keys: str, expect: str) -> str:
        """Type ``keys`` (ending in Enter) and wait for a message containing ``expect``."""
        start = len(self.printed)
        self.keys.send_text(keys)
        found: list[str] = []

        def seen() -> bool:
            found[:] = [t for t in self.texts()[start:] if expect in t]
            return bool(found)

        await until(seen, f"a message with {expect!r} after {keys!r}")
        return found[0]

    async def leave(self, key: str) -> None:
        self.keys.send_text(key)
        await asyncio.wait_for(self.task, BOUND)


@asynccontextmanager
async def terminal(app: App, history: Path | None = None) -> AsyncIterator[Terminal]:
    with create_pipe_input() as keys:
        prompt = make_prompt(open_history(str(history or "")), input=keys, output=DummyOutput())
        printed: list[Outgoing] = []
        session = ConsoleSession(app, user="alice", channel="general", tz=None, emit=printed.append)
        task = asyncio.create_task(
            run_interactive(session, Console(file=io.StringIO()), prompt=prompt, tick_seconds=0.05)
        )
        term = Terminal(keys, prompt, task, printed)
        try:
            yield term
        finally:
            if not task.done():
                keys.send_text(CTRL_C)  # leaves whatever is on the line
                await asyncio.wait_for(task, BOUND)


async def test_arrow_keys_edit_the_line_instead_of_typing_escape_codes(mapp: App) -> None:
    async with terminal(mapp) as term:
        await term.line(f"/hel{LEFT}{RIGHT}p{ENTER}", "studybot commands")
        await term.line(f"/strek{LEFT}a{ENTER}", "No streak running")  # fixed mid-line
        assert not [t for t in term.texts() if "\x1b" in t or "Unknown command" in t]


async def test_up_recalls_the_last_line_and_history_is_kept_across_runs(
    mapp: App, tmp_path: Path
) -> None:
    history = tmp_path / "state" / "history"
    async with terminal(mapp, history) as term:
        await term.line(f"/streak{ENTER}", "No streak running")
        await term.leave(CTRL_D)
    assert history.read_text(encoding="utf-8").count("/streak") == 1
    async with terminal(mapp, history) as term:
        await term.line(f"{UP}{ENTER}", "No streak running")  # the previous run's line
        await term.line(f"/help{ENTER}", "studybot commands")
    kept = history.read_text(encoding="utf-8")
    assert kept.count("+/streak") == 1 and kept.count("+/help") == 1  # a repeat is kept once


async def test_tab_completes_a_command_and_then_it_runs(mapp: App) -> None:
    async with terminal(mapp) as term:
        term.keys.send_text(f"/stre{TAB}")
        await until(lambda: term.prompt.default_buffer.text == "/streak", "/stre completed")
        await term.line(ENTER, "No streak running")


async def test_tab_after_a_command_word_or_in_an_answer_completes_nothing(mapp: App) -> None:
    async with terminal(mapp) as term:
        term.keys.send_text(f"/streak {TAB}x")
        await until(lambda: term.prompt.default_buffer.text == "/streak x", "the x typed")
        term.keys.send_text("\x15")  # Ctrl-U clears the line
        term.keys.send_text(f"isol{TAB}y")
        await until(lambda: term.prompt.default_buffer.text == "isoly", "the y typed")


async def test_ctrl_c_leaves_at_once_and_runs_nothing_typed_after_it(mapp: App) -> None:
    async with terminal(mapp) as term:
        await term.line(f"/streak{ENTER}", "No streak running")
        before = len(term.printed)
        await term.leave(f"/hel{CTRL_C}")
        assert len(term.printed) == before  # the half-typed line did not run


async def test_ctrl_d_leaves(mapp: App) -> None:
    async with terminal(mapp) as term:
        await term.leave(CTRL_D)
        assert term.task.done() and term.task.exception() is None


async def test_what_falls_due_prints_while_nobody_types(mapp: App, mclock: SimulatedClock) -> None:
    async with terminal(mapp) as term:
        await term.line(f"/mock schedule in 1 hour technical{ENTER}", "Mock #1 scheduled")
        mclock.advance(timedelta(hours=1))  # time passes; nobody presses a key
        await until(
            lambda: any("round 1 of 3" in m.card.title for m in term.printed),
            "round 1 posted by the idle ticker",
        )
        assert mocks(mapp)[0].status == "running"


# -- the console's own words ------------------------------------------------------------------


def test_advance_with_no_duration_says_what_it_wants(mapp: App) -> None:
    chat = Transcript(mapp)
    text = chat.say("/advance")
    assert "give a duration" in text and "/advance 90m" in text
    assert "Nothing" not in text


@pytest.mark.parametrize("name", ["bad name!", "", "x" * 41, "a/b"])
def test_a_bad_user_name_is_refused_as_by_as(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    db = tmp_path / "x.db"
    assert main(["console", "--db", f"sqlite:///{db}", "--user", name]) == 2
    err = capsys.readouterr().err
    assert "--user" in err and "letters, digits" in err and "Traceback" not in err
    assert not db.exists()  # refused before anything was opened


def test_as_refuses_the_same_names(mapp: App) -> None:
    chat = Transcript(mapp)
    assert "letters, digits" in chat.say("/as bad name!")
