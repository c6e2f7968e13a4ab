"""Small helpers shared by the CLI modules."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def usage_of(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """A handler for a command group called without an action: print its help, exit 2."""

    def handler(_args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return handler
