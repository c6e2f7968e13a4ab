"""Prometheus metrics: one registry for the process, served at GET /metrics."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

EVENTS = Counter(
    "studybot_events_total",
    "Events handled, by platform and kind",
    ["platform", "kind"],
    registry=REGISTRY,
)
EVENT_ERRORS = Counter(
    "studybot_event_errors_total",
    "Events whose handling failed unexpectedly",
    ["platform"],
    registry=REGISTRY,
)
EVENT_SECONDS = Histogram(
    "studybot_event_seconds",
    "Time to handle one event",
    ["platform"],
    registry=REGISTRY,
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
OUTBOX = Counter(
    "studybot_outbox_total",
    "Outbox deliveries, by platform and result",
    ["platform", "result"],
    registry=REGISTRY,
)
JUDGE = Counter(
    "studybot_judge_total",
    "Open answers the rules were unsure of, by what the optional judge did (docs/judge.md)",
    ["outcome"],
    registry=REGISTRY,
)
