"""Calendar files (.ics, RFC 5545 and the iTIP methods of RFC 5546) for mock interviews,
built with ``icalendar``.

One UID per mock, so a calendar that imported the invitation updates the same event
when the mock changes (a higher SEQUENCE: a new time, an acceptance, a decline) and
removes it when it is cancelled (METHOD:CANCEL, STATUS:CANCELLED). An invitation is a
METHOD:REQUEST with an ORGANIZER and ATTENDEEs, each with their PARTSTAT, so calendars
treat it as an invitation; it is STATUS:TENTATIVE until everyone invited has accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bot.core.messages import Attachment

# icalendar is imported where a file is built: a start of the bot does not need it.
if TYPE_CHECKING:
    import icalendar

PRODID = "-//studybot//mock interviews//EN"
MIME = "text/calendar"
TENTATIVE, CONFIRMED, CANCELLED = "TENTATIVE", "CONFIRMED", "CANCELLED"
ACCEPTED, NEEDS_ACTION, DECLINED = "ACCEPTED", "NEEDS-ACTION", "DECLINED"


@dataclass(frozen=True, slots=True)
class Person:
    """Someone on the invitation: a display name and a calendar address (``mailto:``)."""

    name: str
    address: str
    partstat: str = NEEDS_ACTION


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
    tentative: bool = False
    organizer: Person | None = None
    attendees: tuple[Person, ...] = ()

    @property
    def status(self) -> str:
        if self.cancelled:
            return CANCELLED
        return TENTATIVE if self.tentative else CONFIRMED

    @property
    def method(self) -> str:
        if self.cancelled:
            return "CANCEL"
        return "REQUEST" if self.organizer is not None else "PUBLISH"


def _address(person: Person, role: str | None = None) -> icalendar.vCalAddress:
    import icalendar

    address = icalendar.vCalAddress(person.address)
    address.params["CN"] = icalendar.vText(person.name)
    if role is not None:
        address.params["ROLE"] = icalendar.vText(role)
        address.params["PARTSTAT"] = icalendar.vText(person.partstat)
        address.params["RSVP"] = icalendar.vText("FALSE")
    return address


def build_ics(event: CalendarEvent) -> bytes:
    """The event as an iCalendar file's bytes (times in UTC)."""
    import icalendar

    cal = icalendar.Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", event.method)
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
    vevent.add("status", event.status)
    if event.organizer is not None:
        vevent.add("organizer", _address(event.organizer))
    for attendee in event.attendees:
        vevent.add("attendee", _address(attendee, "REQ-PARTICIPANT"), encode=False)
    cal.add_component(vevent)
    data: bytes = cal.to_ical()
    return data


def ics_attachment(event: CalendarEvent, filename: str) -> Attachment:
    return Attachment(filename=filename, content=build_ics(event), mime_type=MIME)
