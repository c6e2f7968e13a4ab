"""Fit the reference grader's constants on the tune part of the ASAG data.

    .venv/bin/python bench/asag_fit.py [--write]

Uses exactly the split of ``bench/asag_eval.py`` (same seed, grouped by
question) and only its *tune* part: an L2-regularised logistic regression on
the grader's features (Newton's method, numpy), then the probability
threshold that maximises macro-F1 on the tune part. Fits the lexical model
always and the semantic one when the extra is installed. Prints the constants;
``--write`` puts them into ``bot/core/grading/reference.py`` between the
"Fitted constants" markers.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from asag_eval import (
    SEED,
    best_threshold,
    label,
    load,
    macro_f1,
    references,
    split,
)

from bot.core.grading import reference

L2 = 1.0
MODULE = Path(reference.__file__)


def fit_logistic(x: Any, y: Any, l2: float = L2, iters: int = 60) -> tuple[list[float], float]:
    """Weights and bias of an L2 logistic regression (the bias is not penalised)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    penalty = np.r_[np.full(x.shape[1], l2), 0.0]
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -40, 40)))
        grad = xb.T @ (p - y) + penalty * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return [float(v) for v in w[:-1]], float(w[-1])


def fit(mode: str, tune: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    reference.set_reference_backend(mode)
    if reference.reference_backend() != mode:
        return None
    embedder = reference._get_embedder() if mode == reference.SEMANTIC else None
    x = np.array(
        [
            reference.reference_features(
                r["answer"], references(r), r["question"], embedder=embedder
            )
            for r in tune
        ]
    )
    y = np.array([label(r) for r in tune], dtype=float)
    weights, bias = fit_logistic(x, y)
    z = x @ np.array(weights) + bias
    probs = [float(v) for v in 1 / (1 + np.exp(-z))]
    threshold = best_threshold(probs, [int(v) for v in y])
    tune_f1 = macro_f1([int(v) for v in y], [1 if p >= threshold else 0 for p in probs])
    return {
        "weights": weights,
        "bias": bias,
        "threshold": threshold,
        "strict": max(threshold, strict_threshold(probs, [int(v) for v in y])),
        "tune_macro_f1": tune_f1,
    }


def strict_threshold(probs: Sequence[float], gold: Sequence[int], precision: float = 0.9) -> float:
    """The lowest threshold whose passes are right at least ``precision`` of the time (tune).

    For callers that must add no false passes, such as a rubric point's
    paraphrase check; at least 50 passes so one lucky answer cannot set it.
    """
    ranked = sorted(zip(probs, gold, strict=True), reverse=True)
    best, right = 1.0, 0
    for n, (p, g) in enumerate(ranked, start=1):
        right += g
        if n >= 50 and right / n >= precision:
            best = p
    return best


def _fmt(values: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:.4f}" for v in values) + ("," if len(values) == 1 else "") + ")"


def constants_block(lexical: dict[str, Any], semantic: dict[str, Any] | None) -> str:
    lines = [
        f"LEXICAL_WEIGHTS = {_fmt(lexical['weights'])}",
        f"LEXICAL_BIAS = {lexical['bias']:.4f}",
        f"LEXICAL_THRESHOLD = {lexical['threshold']:.4f}",
        f"LEXICAL_STRICT = {lexical['strict']:.4f}",
    ]
    if semantic is not None:
        lines += [
            f"SEMANTIC_WEIGHTS = {_fmt(semantic['weights'])}",
            f"SEMANTIC_BIAS = {semantic['bias']:.4f}",
            f"SEMANTIC_THRESHOLD = {semantic['threshold']:.4f}",
            f"SEMANTIC_STRICT = {semantic['strict']:.4f}",
        ]
    return "\n".join(lines)


def write(block: str) -> None:
    """Replace the fitted assignments in reference.py, keeping everything else."""
    text = MODULE.read_text(encoding="utf-8")
    for line in block.splitlines():
        name = re.split(r"[:= ]", line, maxsplit=1)[0]
        pattern = re.compile(rf"^{name}(:[^=]*)? = .*$", re.M)
        if not pattern.search(text):
            raise SystemExit(f"{name} not found in {MODULE}")
        text = pattern.sub(line, text, count=1)
    MODULE.write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--write", action="store_true", help="write the constants into reference.py")
    args = ap.parse_args(argv)
    tune, _held_out = split(load(), args.seed)
    lexical = fit(reference.LEXICAL, tune)
    assert lexical is not None
    semantic = fit(reference.SEMANTIC, tune)
    reference.set_reference_backend("auto")
    for name, res in (("lexical", lexical), ("semantic", semantic)):
        if res is not None:
            print(f"# {name}: tune macro-F1 {res['tune_macro_f1']:.4f}", file=sys.stderr)
    block = constants_block(lexical, semantic)
    print(block)
    if args.write:
        write(block)
        print(f"# written to {MODULE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
