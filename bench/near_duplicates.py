"""The lint's near-duplicate prompt check on a large import, against scoring every pair.

Builds N distinct prompts in the bank's style (question templates filled from the shipped
prompts' vocabulary) with every tenth one a near-duplicate of another (a word swapped, two
typos, or the words reordered), then times ``near_duplicate_pairs`` on all of them, and on
a smaller sample times the all-pairs matrix (``rapidfuzz.process.cdist``, what the lint did
before) to check that both find the same pairs. Memory is the peak of Python allocations
(tracemalloc) during each.

Prints one JSON object. Run: ``.venv/bin/python bench/near_duplicates.py [--prompts 20000]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

T = TypeVar("T")

from rapidfuzz import fuzz, process, utils  # noqa: E402

from bot.core.content import PACKS_DIR, load_pack, pack_files  # noqa: E402
from bot.core.lint import DUPLICATE_THRESHOLD, near_duplicate_pairs  # noqa: E402


def prompts(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    shipped = [q.prompt for f in pack_files(PACKS_DIR) for q in load_pack(f).questions]
    vocabulary = sorted({w.strip("?,.") for p in shipped for w in p.split() if len(w) > 3})
    texts: list[str] = []
    for index in range(count):
        if index % 10 == 9:
            words = rng.choice(texts).split()
            change = index % 3
            if change == 0:
                words[rng.randrange(len(words))] = rng.choice(vocabulary)
            elif change == 1:
                for _ in range(2):
                    at = rng.randrange(len(words))
                    word = words[at]
                    if len(word) > 3:
                        words[at] = word[0] + word[2] + word[1] + word[3:]
            else:
                rng.shuffle(words)
            texts.append(" ".join(words))
        else:
            body = " ".join(rng.sample(vocabulary, rng.randint(6, 14)))
            texts.append(f"{rng.choice(['Which', 'How', 'Why', 'What'])} {body}?")
    return texts


def measured(work: Callable[[], T]) -> tuple[T, float, int]:
    tracemalloc.start()
    started = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, seconds, peak


def all_pairs(texts: list[str]) -> set[tuple[int, int]]:
    scores = process.cdist(
        texts,
        texts,
        scorer=fuzz.token_sort_ratio,
        processor=utils.default_process,
        score_cutoff=DUPLICATE_THRESHOLD,
        workers=-1,
    )
    return {
        (i, j)
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
        if scores[i][j] >= DUPLICATE_THRESHOLD
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=20_000)
    parser.add_argument("--sample", type=int, default=4_000, help="prompts also scored all-pairs")
    args = parser.parse_args()
    texts = prompts(args.prompts)
    pairs, seconds, peak = measured(lambda: near_duplicate_pairs(texts))
    sample = texts[: args.sample]
    blocked, blocked_seconds, blocked_peak = measured(
        lambda: {(i, j) for i, j, _ in near_duplicate_pairs(sample)}
    )
    brute, brute_seconds, brute_peak = measured(lambda: all_pairs(sample))
    print(
        json.dumps(
            {
                "prompts": len(texts),
                "pairs_found": len(pairs),
                "seconds": round(seconds, 3),
                "peak_mib": round(peak / 2**20, 1),
                "sample": {
                    "prompts": len(sample),
                    "blocked_seconds": round(blocked_seconds, 3),
                    "all_pairs_seconds": round(brute_seconds, 3),
                    "blocked_peak_mib": round(blocked_peak / 2**20, 1),
                    "all_pairs_peak_mib": round(brute_peak / 2**20, 1),
                    "pairs_all_pairs_finds": len(brute),
                    "pairs_blocked_misses": len(brute - blocked),
                    "pairs_only_blocked_finds": len(blocked - brute),
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
