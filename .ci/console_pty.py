"""Drive the installed `studybot console` through a real pseudo-terminal, as a person
would: it must come up interactive, complete a command on Tab, edit with the arrow keys,
recall the last line with Up, and leave on Ctrl-D. Exit status 0 when all of that worked;
otherwise the screen so far on stderr and a non-zero status."""

from __future__ import annotations

import os
import pty
import select
import sys
import time

LIMIT = 60.0  # seconds for each expected text before giving up
ARGS = ["studybot", "console", "--user", "pat", "--clock", "2026-12-01T08:30:00+00:00"]
screen = b""


def tail() -> str:
    return screen[-3000:].decode(errors="replace")


def wait_for(fd: int, text: bytes) -> None:
    global screen
    start = len(screen)
    deadline = time.monotonic() + LIMIT
    while text not in screen[start:]:
        if time.monotonic() > deadline:
            sys.exit(f"never saw {text!r}; the screen ends:\n{tail()}")
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                screen += os.read(fd, 65536)
            except OSError:
                sys.exit(f"the console ended before {text!r}:\n{tail()}")


def type_keys(fd: int, keys: bytes) -> None:
    os.write(fd, keys)
    time.sleep(0.3)  # a person's pause: lets the completion menu come up


def main() -> int:
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.setdefault("TERM", "xterm-256color")
        os.environ["PROMPT_TOOLKIT_NO_CPR"] = "1"
        os.execvp(ARGS[0], ARGS)
    wait_for(fd, b"pat>")  # a user of its own: earlier CI steps gave alice a streak
    type_keys(fd, b"/stre\t")
    type_keys(fd, b"\r")
    wait_for(fd, b"No streak running")
    type_keys(fd, b"/hel\x1b[D\x1b[Cp\r")  # Left then Right mid-word: still /help
    wait_for(fd, b"studybot commands")
    type_keys(fd, b"\x1b[A\r")  # Up: /help again
    wait_for(fd, b"studybot commands")
    type_keys(fd, b"\x04")
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(tail(), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
