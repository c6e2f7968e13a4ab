"""Macro-F1 of the reference grader on held-back SemEval-2013 questions.

    .venv/bin/python bench/asag_eval.py [--data DIR] [--seed N] [--out FILE]

Splits the ASAG *training* splits (``/work/shared/datasets/asag``) into a
tune part and a held-out part by question, per dataset (25% of each
dataset's questions held out, deterministic seed), then prints JSON with the
held-out macro-F1 of

* ``baseline``: plain word overlap (share of the reference's words found in
  the answer), its threshold tuned on the tune part;
* ``lexical``: the grader's fallback, with the constants in
  ``bot/core/grading/reference.py`` (fitted on the tune part by
  ``bench/asag_fit.py``);
* ``semantic``: the same with the ``semantic`` extra, when it is installed;

and the per-answer latency (p50/p99, ms) of each grader. A prediction counts
as correct when the probability reaches the tuned threshold, which is exactly
when ``grade_against_reference`` passes a question at the default pass score.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.grading import reference

DATA_DIR = Path(os.environ.get("STUDYBOT_ASAG_DIR", "/work/shared/datasets/asag"))
FILES = ("beetle-2way-train.jsonl", "scientsbank-2way-train.jsonl")
SEED = 2013
HELD_OUT = 0.25

Row = dict[str, Any]


def load(data_dir: Path = DATA_DIR) -> list[Row]:
    rows: list[Row] = []
    for name in FILES:
        with (data_dir / name).open(encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    return rows


def split(
    rows: Sequence[Row], seed: int = SEED, frac: float = HELD_OUT
) -> tuple[list[Row], list[Row]]:
    """(tune, held_out), grouped by question so no held-out question is seen in tuning."""
    held: set[tuple[str, str]] = set()
    for ds in sorted({r["dataset"] for r in rows}):
        qids = sorted({r["question_id"] for r in rows if r["dataset"] == ds})
        random.Random(f"{seed}:{ds}").shuffle(qids)
        held |= {(ds, q) for q in qids[: round(len(qids) * frac)]}
    tune = [r for r in rows if (r["dataset"], r["question_id"]) not in held]
    held_out = [r for r in rows if (r["dataset"], r["question_id"]) in held]
    return tune, held_out


def references(row: Row) -> list[str]:
    return list(row.get("all_references") or [row["reference"]])


def label(row: Row) -> int:
    return 1 if row["label"] == "correct" else 0


def macro_f1(gold: Sequence[int], pred: Sequence[int]) -> float:
    scores = []
    for cls in (0, 1):
        tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == cls and p == cls)
        fp = sum(1 for g, p in zip(gold, pred, strict=True) if g != cls and p == cls)
        fn = sum(1 for g, p in zip(gold, pred, strict=True) if g == cls and p != cls)
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores)


def best_threshold(scores: Sequence[float], gold: Sequence[int]) -> float:
    """The threshold on ``scores`` that maximises macro-F1 on (tune) data."""
    best, best_t = -1.0, 0.5
    for t in sorted({round(s, 4) for s in scores}):
        f1 = macro_f1(gold, [1 if s >= t else 0 for s in scores])
        if f1 > best:
            best, best_t = f1, t
    return best_t


_WORDS = re.compile(r"\w+")


def word_overlap(answer: str, refs: Iterable[str]) -> float:
    """The plain baseline: share of a reference's words that the answer contains (best ref)."""
    words = set(_WORDS.findall(answer.lower()))
    best = 0.0
    for ref in refs:
        ref_words = set(_WORDS.findall(ref.lower()))
        if ref_words:
            best = max(best, len(words & ref_words) / len(ref_words))
    return best


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


_CPU_MS: list[float] = []  # thread CPU time of the last _timed run: contention-free


def _timed(fn: Callable[[Row], float], rows: Sequence[Row]) -> tuple[list[float], list[float]]:
    out, lat = [], []
    _CPU_MS.clear()
    for row in rows:
        start, cpu = time.perf_counter(), time.thread_time()
        out.append(fn(row))
        lat.append((time.perf_counter() - start) * 1000)
        _CPU_MS.append((time.thread_time() - cpu) * 1000)
    return out, lat


def _latency(lat: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(_percentile(lat, 0.5), 3),
        "p99": round(_percentile(lat, 0.99), 3),
        "cpu_p50": round(_percentile(_CPU_MS, 0.5), 3),
        "cpu_p99": round(_percentile(_CPU_MS, 0.99), 3),
    }


def _report(gold: Sequence[int], pred: Sequence[int], rows: Sequence[Row]) -> dict[str, Any]:
    per = {}
    for ds in sorted({r["dataset"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["dataset"] == ds]
        per[ds] = round(macro_f1([gold[i] for i in idx], [pred[i] for i in idx]), 4)
    return {"macro_f1": round(macro_f1(gold, pred), 4), "per_dataset": per}


def evaluate_grader(mode: str, rows: Sequence[Row]) -> dict[str, Any]:
    """Held-out figures of the grader with ``mode`` and its stored constants."""
    reference.set_reference_backend(mode)
    if reference.reference_backend() != mode:
        return {"available": False}
    start = time.perf_counter()
    reference.reference_probability("warm up", ["load the model"], "")
    load_ms = (time.perf_counter() - start) * 1000
    threshold = reference.reference_probability("x", ["y"], "")[1]
    # References and prompts are embedded once per question (at pack load in
    # the bot, see reference.warm_up_question): time the answers alone.
    reference.warm_up(sorted({t for r in rows for t in (*references(r), r["question"])}))
    gold = [label(r) for r in rows]
    probs, lat = _timed(
        lambda r: reference.reference_probability(r["answer"], references(r), r["question"])[0],
        rows,
    )
    pred = [1 if p >= threshold else 0 for p in probs]
    out = _report(gold, pred, rows)
    strict = reference.SEMANTIC_STRICT if mode == reference.SEMANTIC else reference.LEXICAL_STRICT
    passes = [g for g, p in zip(gold, probs, strict=True) if p >= strict]
    out["strict_paraphrase_check"] = {
        "threshold": strict,
        "passes": len(passes),
        "precision": round(sum(passes) / len(passes), 4) if passes else None,
    }
    out.update(
        available=True,
        threshold=threshold,
        load_ms=round(load_ms, 1),
        latency_ms=_latency(lat),
    )
    return out


def evaluate_baseline(tune: Sequence[Row], rows: Sequence[Row]) -> dict[str, Any]:
    t = best_threshold(
        [word_overlap(r["answer"], references(r)) for r in tune], [label(r) for r in tune]
    )
    scores, lat = _timed(lambda r: word_overlap(r["answer"], references(r)), rows)
    out = _report([label(r) for r in rows], [1 if s >= t else 0 for s in scores], rows)
    out.update(
        threshold=t,
        latency_ms=_latency(lat),
    )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA_DIR)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args(argv)
    rows = load(args.data)
    tune, held_out = split(rows, args.seed)
    result: dict[str, Any] = {
        "data": "SemEval-2013 2-way train splits (beetle, sciEntsBank)",
        "split": {
            "seed": args.seed,
            "held_out_fraction_of_questions": HELD_OUT,
            "tune_answers": len(tune),
            "held_out_answers": len(held_out),
            "held_out_questions": len({(r["dataset"], r["question_id"]) for r in held_out}),
            "held_out_correct_share": round(statistics.mean(label(r) for r in held_out), 4),
        },
        "baseline_word_overlap": evaluate_baseline(tune, held_out),
        "lexical": evaluate_grader(reference.LEXICAL, held_out),
        "semantic": evaluate_grader(reference.SEMANTIC, held_out),
    }
    if result["semantic"].get("available"):
        result["semantic"]["model"] = reference.SEMANTIC_MODEL
    reference.set_reference_backend("auto")
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
