"""Charts as PNG bytes (the ``charts`` extra), headless.

``default_chart_renderer()`` returns a renderer, or None when matplotlib is not
installed: the core then says how to get charts and answers in text only.

Bar charts (``/leaderboard``) are drawn with Pillow, which matplotlib depends on, in the
DejaVu Sans that matplotlib ships (found on disk, not imported): a board is a few bars and
labels, and drawing it so takes milliseconds, where matplotlib took about 0.15 s a chart,
2-3 s and 60 MB of memory for the process's first (its import). A board changes far less
often than it is asked for, so bar charts are also cached by what they show (title,
labels, values, highlight): the same board state is drawn once. Calendar heatmaps
(``/stats``) are drawn with matplotlib, imported lazily with the Agg backend, so that
importing this module costs nothing and never needs a display.
"""

from __future__ import annotations

import importlib.util
import io
import threading
from collections.abc import Sequence
from datetime import date, timedelta
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from bot.core.ports import ChartRenderer

_LOCK = threading.Lock()  # pyplot's state is global; render one chart at a time
_PIL_LOCK = threading.Lock()  # the fonts are shared between threads
BAR = "#4C72B0"
HIGHLIGHT = "#DD8452"
CACHED_CHARTS = 256  # distinct board states kept drawn (a PNG is a few tens of kB)
# Bar chart geometry, in pixels (the size matplotlib drew them at: 6.4 in at 100 dpi).
WIDTH, ROW, BAR_PAD, MARGIN, TITLE_ROOM = 640, 40, 6, 16, 44
LABEL_SIZE, TITLE_SIZE = 14, 17


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
    """A :class:`ChartRenderer`: bar charts with Pillow, calendar heatmaps with matplotlib's
    object API on the Agg canvas."""

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


@cache
def _font(size: int) -> Any:
    """DejaVu Sans at ``size`` pixels, from matplotlib's files (without importing it); Pillow's
    own default font if they cannot be found."""
    from PIL import ImageFont

    spec = importlib.util.find_spec("matplotlib")
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        if path.is_file():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


@lru_cache(maxsize=CACHED_CHARTS)
def _bar_chart_png(
    title: str, labels: Sequence[str], values: Sequence[float], highlight: int | None
) -> bytes:
    return _draw_bars(title, labels, values, highlight)


def _draw_bars(
    title: str, labels: Sequence[str], values: Sequence[float], highlight: int | None
) -> bytes:
    """Horizontal bars top down as given, each labelled with its value; the title above."""
    from PIL import Image, ImageDraw

    font, title_font = _font(LABEL_SIZE), _font(TITLE_SIZE)
    shown = [label if len(label) <= 24 else label[:23] + "…" for label in labels]
    marks = [f"{v:g}" for v in values]
    left = MARGIN + max([font.getlength(label) for label in shown] or [0.0]) + 8
    room = max([font.getlength(mark) for mark in marks] or [0.0]) + 8 + MARGIN
    span = max(WIDTH - left - room, 40.0)
    top = max(float(v) for v in [*values, 1.0]) * 1.05
    height = TITLE_ROOM + ROW * max(1, len(values)) + MARGIN
    with _PIL_LOCK:
        image = Image.new("RGB", (WIDTH, height), "white")
        draw = ImageDraw.Draw(image)
        draw.text((left + span / 2, MARGIN), title, font=title_font, fill="black", anchor="mt")
        for i, (label, value, mark) in enumerate(zip(shown, values, marks, strict=True)):
            y = TITLE_ROOM + i * ROW
            end = left + span * max(float(value), 0.0) / top
            color = HIGHLIGHT if i == highlight else BAR
            if end > left:
                draw.rectangle((left, y + BAR_PAD, end, y + ROW - BAR_PAD), fill=color)
            middle = y + ROW / 2
            draw.text((left - 8, middle), label, font=font, fill="black", anchor="rm")
            draw.text((end + 4, middle), mark, font=font, fill="black", anchor="lm")
        axis_bottom = TITLE_ROOM + ROW * max(1, len(values))
        draw.line((left, TITLE_ROOM, left, axis_bottom), fill="black", width=1)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
    return buffer.getvalue()
