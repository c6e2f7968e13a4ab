"""Charts: PNGs drawn headless (bars with Pillow, calendars with matplotlib); the console
writes them and prints the path; without matplotlib the bot answers in text and says once per
run (per app) how to get charts."""

from __future__ import annotations

import dataclasses
import io
import json
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.console.run import run_console
from bot.bootstrap import App
from bot.charts import MatplotlibCharts, default_chart_renderer
from bot.core.clock import SimulatedClock
from bot.core.context import CHARTS_MISSING, OnceNote
from tests.test_quiz import chat_for, make_app, running_app

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(sqlite_url, clock, tmp_path)


def test_a_bar_chart_is_a_png() -> None:
    png = MatplotlibCharts().bar_chart("Board", ["ann", "bea " * 20], [30.0, 20.0], highlight=1)
    assert png.startswith(PNG) and len(png) > 1000


def test_a_board_state_is_drawn_once_and_a_changed_board_is_drawn_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import bot.charts

    drawn: list[bytes] = []
    real_draw = bot.charts._draw_bars

    def counting_draw(*args: Any) -> bytes:
        drawn.append(png := real_draw(*args))
        return png

    monkeypatch.setattr(bot.charts, "_draw_bars", counting_draw)
    charts = MatplotlibCharts()
    first = charts.bar_chart("Week 49", ["cached-ann", "cached-bea"], [30.0, 20.0], highlight=0)
    again = charts.bar_chart("Week 49", ["cached-ann", "cached-bea"], [30.0, 20.0], highlight=0)
    changed = charts.bar_chart("Week 49", ["cached-ann", "cached-bea"], [30.0, 25.0], highlight=0)
    assert again == first and changed != first
    assert len(drawn) == 2


def test_a_calendar_heatmap_is_a_png() -> None:
    end = date(2026, 12, 1)
    counts = {end - timedelta(days=d): d % 4 for d in range(0, 180, 3)}
    png = MatplotlibCharts().calendar_heatmap("Streak", counts, end - timedelta(days=181), end)
    assert png.startswith(PNG)


def test_the_console_writes_the_chart_and_prints_its_path(quiz_app: App, tmp_path: Path) -> None:
    out = io.StringIO()
    lines = b"/quiz cuda 1\nA\n/stats\n"
    run_console(
        quiz_app,
        user="alice",
        channel="general",
        tz=None,
        json_lines=True,
        stdin=io.BytesIO(lines),
        stdout=out,
        interactive=False,
    )
    messages = [json.loads(line) for line in out.getvalue().splitlines()]
    stats = next(m for m in messages if m.get("title") == "Your stats")
    (path,) = stats["attachments"]
    assert Path(path) == tmp_path / "charts" / "streak-alice.png"
    assert Path(path).read_bytes().startswith(PNG)


def test_the_console_text_mode_prints_the_path(quiz_app: App, tmp_path: Path) -> None:
    out = io.StringIO()
    run_console(
        quiz_app,
        user="alice",
        channel="general",
        tz=None,
        json_lines=False,
        stdin=io.BytesIO(b"/stats\n"),
        stdout=out,
        interactive=False,
    )
    assert f"file: {tmp_path / 'charts' / 'streak-alice.png'}" in out.getvalue()


def test_without_matplotlib_the_bot_answers_in_text_and_says_how_to_get_charts(
    quiz_app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert default_chart_renderer() is None
    quiz_app.bot.services = dataclasses.replace(quiz_app.bot.services, charts=None)
    chat = chat_for(quiz_app)
    stats = chat.send("/stats")[0]
    assert stats.attachments == ()
    assert stats.text.count(CHARTS_MISSING) == 1
    chat.send("/team create Solo")
    board = chat.send("/leaderboard teams")[0]
    assert board.attachments == () and "Solo" in board.text
    assert CHARTS_MISSING not in board.text  # said once already


def base_install_console(
    db_url: str, clock: SimulatedClock, charts_dir: Path, lines: bytes
) -> list[str]:
    """``studybot console`` as a base install runs it: matplotlib cannot be imported, so
    bootstrap wires no chart renderer. The texts it printed, one per message."""
    app = make_app(db_url, clock, charts_dir)
    assert app.services.charts is None
    out = io.StringIO()
    try:
        run_console(
            app,
            user="alice",
            channel="general",
            tz=None,
            json_lines=True,
            stdin=io.BytesIO(lines),
            stdout=out,
            interactive=False,
        )
    finally:
        app.close()
    return [json.loads(line)["text"] for line in out.getvalue().splitlines()]


def test_a_base_install_says_once_per_console_run_that_charts_need_matplotlib(
    db_url: str, clock: SimulatedClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    lines = b"/leaderboard\n/quiz cuda 1\nA\n/leaderboard week\n/stats\n/leaderboard all\n"
    texts = base_install_console(db_url, clock, tmp_path / "charts", lines)
    boards = [t for t in texts if "Leaderboard" in t or "points here" in t]
    assert len(boards) == 3
    assert sum(t.count(CHARTS_MISSING) for t in texts) == 1
    assert CHARTS_MISSING in boards[0]  # the first board says it, the others do not
    assert not list((tmp_path / "charts").glob("*.png"))
    # a new run (a new process) says it once again
    again = base_install_console(db_url, clock, tmp_path / "charts", b"/stats\n/leaderboard\n")
    assert sum(t.count(CHARTS_MISSING) for t in again) == 1


def test_two_replies_built_at_once_carry_the_note_once() -> None:
    note = OnceNote("Charts need matplotlib")
    with ThreadPoolExecutor(8) as pool:
        told = list(pool.map(lambda _: note.take(), range(64)))
    assert told.count("Charts need matplotlib") == 1 and set(told) == {"Charts need matplotlib", ""}
