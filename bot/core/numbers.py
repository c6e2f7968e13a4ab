"""Whole numbers that users type or that button ids carry: ASCII digits, within bounds.

``str.isdigit()`` is no test for ``int()``: it accepts ``"²"``, which ``int()`` refuses, and
``int()`` itself reads Arabic-Indic and other digits; a button id past int64 overflows a
database integer. Everything that reads a number from text goes through here.
"""

from __future__ import annotations

#: The largest id a database integer column holds (a signed 64-bit integer).
MAX_ID = 2**63 - 1
_MAX_DIGITS = len(str(MAX_ID))
#: The largest id of a row whose primary key is a plain ``Integer`` (32 bits on PostgreSQL).
MAX_ROW_ID = 2**31 - 1


def whole_number(text: str, *, low: int = 0, high: int = MAX_ID) -> int | None:
    """``text`` (0-9 only, no sign, no spaces) as an int in ``low..high``; None otherwise."""
    if not (0 < len(text) <= _MAX_DIGITS and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if low <= value <= high else None
