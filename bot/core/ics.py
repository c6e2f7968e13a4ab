"""Calendar files (.ics, RFC 5545) for mock interviews, built with ``icalendar``.

One UID per mock, so a calendar that imported the invitation updates the same event
when the mock is rescheduled (a higher SEQUENCE) and removes it when it is cancelled
(METHOD:CANCEL, STATUS:CANCELLED).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import icalendar

from bot.core.messages import Attachment

PRODID = "-//studybot//mock interviews//EN"
MIME = "text/calendar"


@dataclass(frozen=True, slots=True)
class CalendarEvent:
    uid: str
    summary: str
    description: str
    starts_at: datetime
    ends_at: datetime
    stamp: datetime
    sequence: int = 0
    cancelled: bool = False
    location: str = ""


def build_ics(event: CalendarEvent) -> bytes:
    """The event as an iCalendar file's bytes (times in UTC)."""
    cal = icalendar.Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "CANCEL" if event.cancelled else "PUBLISH")
    vevent = icalendar.Event()
    vevent.add("uid", event.uid)
    vevent.add("dtstamp", event.stamp.astimezone(UTC))
    vevent.add("dtstart", event.starts_at.astimezone(UTC))
    vevent.add("dtend", event.ends_at.astimezone(UTC))
    vevent.add("summary", event.summary)
    vevent.add("description", event.description)
    if event.location:
        vevent.add("location", event.location)
    vevent.add("sequence", event.sequence)
    vevent.add("status", "CANCELLED" if event.cancelled else "CONFIRMED")
    cal.add_component(vevent)
    data: bytes = cal.to_ical()
    return data


def ics_attachment(event: CalendarEvent, filename: str) -> Attachment:
    return Attachment(filename=filename, content=build_ics(event), mime_type=MIME)
