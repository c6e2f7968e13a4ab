"""Start-up time: ``studybot --help`` and the console ready, against Python's own floors.

Each round runs, interleaved, in fresh processes: ``python -c pass`` (the interpreter),
``python -c "import slack_bolt, discord"`` (the frameworks), ``studybot --help``, and the
console ready: ``studybot console`` on an already migrated SQLite database with stdin at its
end, so that it starts, reads no line and exits (its whole life is its start-up). Then, in
this process, where the console's start goes: importing the console, loading the question
bank, and the part of that load that is jsonschema validating the packs; then loading the
bank as a start does once the packs' bytes are known to be valid (``ValidatedPacks``).

Prints one JSON object (medians over rounds, seconds). Run:
``.venv/bin/python bench/startup.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUDYBOT = str(Path(sys.executable).with_name("studybot"))


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True
    )
    return time.perf_counter() - started


def in_process() -> dict[str, float]:
    """Where the console's start goes, measured in a fresh interpreter."""
    code = """
import json, time
t0 = time.perf_counter()
import bot.adapters.console.run  # noqa: F401
t1 = time.perf_counter()
from bot.core import content
from bot.core.bank import QuestionBank
QuestionBank.load()
t2 = time.perf_counter()
data = [(p, content.read_yaml(p)) for p in content.bank_files()]
t3 = time.perf_counter()
for p, d in data:
    content.schema_problems(d, str(p))
t4 = time.perf_counter()
import tempfile, pathlib
cache = content.ValidatedPacks(pathlib.Path(tempfile.mkdtemp()) / "validated-packs")
QuestionBank.load(validated=cache)
t5 = time.perf_counter()
QuestionBank.load(validated=content.ValidatedPacks(cache.path))
t6 = time.perf_counter()
print(json.dumps({"import_console_s": t1 - t0, "load_bank_s": t2 - t1,
                  "of_which_yaml_s": t3 - t2, "of_which_schema_s": t4 - t3,
                  "load_bank_validated_before_s": t6 - t5}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT
    )
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="studybot-startup-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STUDYBOT_", "SLACK_"))}
    env["HOME"] = str(tmp)
    db = f"sqlite:///{tmp / 'console.db'}"
    try:
        subprocess.run(
            [STUDYBOT, "db", "upgrade"],
            env={**env, "STUDYBOT_DATABASE_URL": db},
            check=True,
            stdout=subprocess.DEVNULL,
        )
        commands = {
            "python_pass": [sys.executable, "-c", "pass"],
            "import_slack_bolt_discord": [sys.executable, "-c", "import slack_bolt, discord"],
            "studybot_help": [STUDYBOT, "--help"],
            "console_ready": [STUDYBOT, "console", "--db", db],
        }
        samples: dict[str, list[float]] = {name: [] for name in commands}
        breakdown: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            for name, command in commands.items():
                samples[name].append(timed(command, env))
            for name, value in in_process().items():
                breakdown.setdefault(name, []).append(value)
        report = {
            "rounds": args.rounds,
            "load_avg_1m": round(os.getloadavg()[0], 2),
            **{f"{name}_s": round(statistics.median(v), 3) for name, v in samples.items()},
            "console_breakdown": {
                name: round(statistics.median(v), 3) for name, v in breakdown.items()
            },
            "targets": {"studybot_help_s": 0.3, "console_ready_s": 1.0},
        }
        print(json.dumps(report, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
