"""Grading benchmark: latency per kind of question and ``--jsonl`` throughput, as one JSON object.

Run: ``.venv/bin/python bench/grading.py [--lines 20000] [--rounds 5] [--labelled PACK ANSWERS]``.
``agreement`` scores the labelled regression set (and ``--labelled`` a pack file with a
JSONL of ``{id, answer, label}``, such as a blind set): binary agreement, false-correct
(incorrect graded correct) and false-reject (correct graded not correct), overall and per
kind, and how many replies were no answer at all. Latencies are
warm (each question graded once before timing), in milliseconds, over the answers of
the labelled set in tests/data/grading/: each answer's median over the rounds, then the
p50/p99 over answers. Throughput runs the real ``grade_lines`` (best of three runs).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.cli.grade import grade_lines  # noqa: E402
from bot.core.content import Question, load_pack  # noqa: E402
from bot.core.grading import GRADER_VERSION, grade  # noqa: E402
from bot.core.grading.choice import polar_words  # noqa: E402
from bot.core.grading.normalize import normalize  # noqa: E402
from bot.core.grading.numeric import prepared  # noqa: E402
from bot.core.grading.short import prepare  # noqa: E402


def clear_answer_caches() -> None:
    """Forget normalised answers, so repeated answers cost what new ones would."""
    normalize.cache_clear()
    prepare.cache_clear()
    polar_words.cache_clear()
    prepared.cache_clear()
    reference = sys.modules.get("bot.core.grading.reference")
    embed = getattr(getattr(reference, "_model", None), "embed", None)
    if hasattr(embed, "cache_clear"):
        embed.cache_clear()  # the semantic grader's embeddings of answers


DATA = ROOT / "tests" / "data" / "grading"


def semantic_backend() -> str:
    """Which grader handles open questions without a rubric."""
    import bot.core.grading.reference  # noqa: F401  (what grades them; loaded lazily)

    backend = getattr(sys.modules.get("bot.core.grading.reference"), "reference_backend", None)
    return f"reference ({backend()})" if callable(backend) else "reference"


def kind_of(question: Question) -> str:
    if question.kind != "open":
        return question.kind
    return "rubric" if question.rubric else "semantic"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def agreement(questions: dict[str, Question], rows: list[dict[str, str]]) -> dict[str, object]:
    """Binary agreement, false-correct and false-reject rates, overall and per kind."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        question = questions.get(row["id"])
        label = row.get("label") or row.get("expected")
        if question is None or label is None or not row["answer"].strip():
            continue
        result = grade(question, row["answer"])
        got = result.verdict.value == "correct"
        for key in ("all", kind_of(question)):
            c = counts.setdefault(
                key, dict.fromkeys(("n", "agree", "inc", "fc", "cor", "fr", "na"), 0)
            )
            c["n"] += 1
            c["agree"] += (label == "correct") == got
            c["inc"] += label == "incorrect"
            c["fc"] += label == "incorrect" and got
            c["cor"] += label == "correct"
            c["fr"] += label == "correct" and not got
            c["na"] += not result.answered
    rate = lambda a, b: round(a / b, 3) if b else None  # noqa: E731
    return {
        kind: {
            "n": c["n"],
            "agreement": rate(c["agree"], c["n"]),
            "false_correct": rate(c["fc"], c["inc"]),
            "false_reject": rate(c["fr"], c["cor"]),
            "not_an_answer": c["na"],
        }
        for kind, c in sorted(counts.items(), key=lambda kv: (kv[0] != "all", kv[0]))
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=20_000, help="lines for the --jsonl run")
    parser.add_argument("--rounds", type=int, default=7, help="timed passes over the labelled set")
    parser.add_argument(
        "--labelled", nargs=2, metavar=("PACK", "ANSWERS"), help="also score this labelled set"
    )
    args = parser.parse_args()

    pack = load_pack(DATA / "questions.yaml")
    questions = {q.id: q for q in pack.questions}
    rows = [json.loads(line) for line in (DATA / "answers.jsonl").read_text("utf-8").splitlines()]
    for row in rows:  # warm the per-question caches, as a running bot has them
        grade(questions[row["id"]], row["answer"])

    # Each answer is timed in every round and its median kept: the p99 is then over
    # answers, not over the moments the OS took the CPU away on a busy 2-core machine.
    times: list[list[float]] = [[] for _ in rows]
    for _ in range(args.rounds):
        for i, row in enumerate(rows):
            question = questions[row["id"]]
            clear_answer_caches()
            start = time.perf_counter()
            grade(question, row["answer"])
            times[i].append((time.perf_counter() - start) * 1000)
    samples: dict[str, list[float]] = {}
    for i, row in enumerate(rows):
        kind = kind_of(questions[row["id"]])
        samples.setdefault(kind, []).append(statistics.median(times[i]))
    big = "MIG isolates memory, but time-slicing does not; about 900 GB/s. " * 1600  # ~100 KB
    big_times = []
    for question in pack.questions:
        start = time.perf_counter()
        grade(question, big)
        big_times.append((time.perf_counter() - start) * 1000)

    # Every line differs (trailing spaces), so no answer is served from a cache.
    lines = [
        json.dumps({"id": row["id"], "answer": row["answer"] + " " * (i // len(rows)), "n": i})
        for i, row in zip(range(args.lines), (rows * (args.lines // len(rows) + 1)), strict=False)
    ]
    no_semantic = [
        line for line in lines if kind_of(questions[json.loads(line)["id"]]) != "semantic"
    ]
    throughput = {}
    for name, batch in (("all", lines), ("without_semantic", no_semantic)):
        rates = []
        for _ in range(3):
            clear_answer_caches()
            stream, out = io.StringIO("\n".join(batch) + "\n"), io.StringIO()
            start = time.perf_counter()
            grade_lines(pack, stream, out)
            rates.append(len(batch) / (time.perf_counter() - start))
        throughput[name] = round(max(rates))

    scores = {"regression_set": agreement(questions, rows)}
    if args.labelled:
        other = {q.id: q for q in load_pack(Path(args.labelled[0])).questions}
        labelled = [
            json.loads(x)
            for x in Path(args.labelled[1]).read_text("utf-8").splitlines()
            if x.strip()
        ]
        scores[Path(args.labelled[1]).stem] = agreement(other, labelled)

    result = {
        "grader_version": GRADER_VERSION,
        "agreement": scores,
        "semantic_grader": semantic_backend(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "latency_ms": {
            kind: {
                "n": len(values),
                "p50": round(statistics.median(values), 4),
                "p99": round(percentile(values, 0.99), 4),
            }
            for kind, values in sorted(samples.items())
        },
        "answer_100kb_ms": {
            "p50": round(statistics.median(big_times), 3),
            "max": round(max(big_times), 3),
        },
        "jsonl_answers_per_s": throughput,
        "jsonl_lines": len(lines),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
