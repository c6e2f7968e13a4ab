"""Numbers read from text (command arguments, button ids) are ASCII digits within bounds:
``/mock cancel ²`` or a button id past int64 gets a clear reply and changes nothing, never an
internal error."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.bootstrap import App
from bot.core.app import APOLOGY
from bot.core.events import Event, EventKind
from bot.core.numbers import MAX_ID, whole_number
from tests.support import Transcript, row_counts

ODD_NUMBERS = ["²", "١٢", "１２", "-1", "1e3", str(2**63), "9" * 40]


@given(st.text(max_size=25))
def test_any_text_is_a_number_in_bounds_or_none_and_never_an_error(text: str) -> None:
    number = whole_number(text)
    if number is None:
        assert not (text and set(text) <= set("0123456789") and int(text) <= MAX_ID)
    else:
        assert 0 <= number <= MAX_ID and str(number) == text.lstrip("0").rjust(1, "0")


@given(st.integers(min_value=-(10**30), max_value=10**30), st.integers(0, 50), st.integers(0, 50))
def test_a_bounded_number_is_taken_only_within_its_bounds(value: int, low: int, span: int) -> None:
    high = low + span
    taken = whole_number(str(value), low=low, high=high)
    assert taken == (value if low <= value <= high else None)


@pytest.mark.parametrize(
    "line",
    [
        "/mock cancel {}",
        "/mock history {}",
        "/mock accept {}",
        "/mock decline {}",
        "/mock vote {} 1 yes",
        "/mock note {} 1 fine",
        "/mock reschedule {} tomorrow 3pm",
    ],
)
def test_a_mock_command_with_an_odd_number_gets_a_clear_reply(
    line: str, chat: Transcript, app: App
) -> None:
    before = row_counts(app)
    for number in ODD_NUMBERS:
        reply = chat.say(line.format(number))
        assert reply and APOLOGY not in reply, number
    assert row_counts(app) == before


@pytest.mark.parametrize(
    "action",
    [
        "daily:{}:A",
        "quiz:{}:0:A",
        "quiz:1:{}:A",
        "live:{}:0:A",
        "live:1:{}:A",
        "mock:{}:accept",
        "mock:1:{}:form",
        "mock:{}:0:v:yes",
    ],
)
def test_a_button_id_that_is_no_id_is_no_longer_valid(
    action: str, chat: Transcript, app: App
) -> None:
    chat.send("/daily")
    before = row_counts(app)
    for number in ODD_NUMBERS:
        where = ("console", "console", "general", "alice", "alice")
        click = Event(EventKind.ACTION, *where, action=action.format(number))
        replies = asyncio.run(app.handle(click))
        assert replies and all(APOLOGY not in r.text for r in replies), number
    assert row_counts(app) == before
