"""Charts as PNG bytes with matplotlib (the ``charts`` extra), headless.

``default_chart_renderer()`` returns a renderer, or None when matplotlib is not
installed: the core then says how to get charts and answers in text only.
matplotlib is imported lazily, with the Agg backend, so that importing this
module costs nothing and never needs a display.

Drawing is most of a ``/leaderboard`` reply's cost, and a board changes far less
often than it is asked for: bar charts are cached by what they show (title,
labels, values, highlight), so the same board state is drawn once.
"""

from __future__ import annotations

import importlib.util
import io
import threading
from collections.abc import Sequence
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from bot.core.ports import ChartRenderer

_LOCK = threading.Lock()  # pyplot's state is global; render one chart at a time
BAR = "#4C72B0"
HIGHLIGHT = "#DD8452"
CACHED_CHARTS = 256  # distinct board states kept drawn (a PNG is a few tens of kB)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


class MatplotlibCharts:
    """A :class:`ChartRenderer` drawing with matplotlib's object API on the Agg canvas."""

    def bar_chart(
        self, title: str, labels: list[str], values: list[float], highlight: int | None = None
    ) -> bytes:
        return _bar_chart_png(title, tuple(labels), tuple(values), highlight)

    def calendar_heatmap(
        self, title: str, counts: dict[date, int], start: date, end: date
    ) -> bytes:
        plt = _pyplot()
        first = start - timedelta(days=start.weekday())
        weeks = (end - first).days // 7 + 1
        grid = [[float("nan")] * weeks for _ in range(7)]
        day = start
        while day <= end:
            week = (day - first).days // 7
            grid[day.weekday()][week] = float(counts.get(day, 0))
            day += timedelta(days=1)
        with _LOCK:
            fig, ax = plt.subplots(figsize=(max(4.0, weeks * 0.28 + 1.5), 2.6))
            try:
                cmap = plt.get_cmap("Greens").with_extremes(bad="white")
                top = max([*counts.values(), 1])
                ax.imshow(grid, cmap=cmap, vmin=0, vmax=top, aspect="equal")
                ax.set_yticks(range(7), labels=["Mon", "", "Wed", "", "Fri", "", "Sun"])
                months = []
                for w in range(weeks):
                    monday = first + timedelta(days=7 * w)
                    if w == 0 or monday.day <= 7:
                        months.append((w, f"{monday:%b}"))
                ax.set_xticks([w for w, _ in months], labels=[m for _, m in months])
                ax.tick_params(length=0)
                for spine in ax.spines.values():
                    spine.set_visible(False)
                active = sum(1 for c in counts.values() if c)
                ax.set_title(f"{title} · {active} active day{'s' * (active != 1)}")
                return _png(fig)
            finally:
                plt.close(fig)


def default_chart_renderer() -> ChartRenderer | None:
    """matplotlib's renderer when the ``charts`` extra is installed, else None."""
    try:
        if importlib.util.find_spec("matplotlib") is None:
            return None
    except (ImportError, ValueError):  # blocked or half-installed
        return None
    return MatplotlibCharts()


@lru_cache(maxsize=CACHED_CHARTS)
def _bar_chart_png(
    title: str, labels: Sequence[str], values: Sequence[float], highlight: int | None
) -> bytes:
    plt = _pyplot()
    with _LOCK:
        height = 1.2 + 0.4 * max(1, len(labels))
        fig, ax = plt.subplots(figsize=(6.4, height))
        try:
            shown = [label if len(label) <= 24 else label[:23] + "…" for label in labels]
            positions = list(range(len(values)))
            colors = [HIGHLIGHT if i == highlight else BAR for i in positions]
            bars = ax.barh(positions, values, color=colors)
            ax.set_yticks(positions, labels=shown)
            ax.invert_yaxis()
            ax.bar_label(bars, labels=[f"{v:g}" for v in values], padding=3)
            ax.set_title(title)
            ax.spines[["top", "right"]].set_visible(False)
            ax.set_xlim(0, max([*values, 1.0]) * 1.15)
            return _png(fig)
        finally:
            plt.close(fig)
