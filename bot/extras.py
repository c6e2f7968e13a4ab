"""What to tell someone whose install lacks an optional extra.

studybot is installed from a clone or from a wheel built from one (it is not on a package
index), so the advice names the extra and the clone's form of the command.
"""

from __future__ import annotations


def missing_extra(what: str, extra: str) -> str:
    """One sentence: ``what`` needs the ``extra`` extra, and how to add it."""
    return (
        f"{what} is not installed: install studybot with the {extra} extra "
        f"(in a clone: pip install '.[{extra}]'; from a wheel: pip install 'WHEEL[{extra}]')"
    )
