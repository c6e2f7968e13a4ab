# studybot: one image for the bot and its migration step.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
RUN useradd --create-home --uid 10001 studybot

COPY pyproject.toml README.md alembic.ini ./
COPY bot ./bot
COPY content ./content
COPY migrations ./migrations
RUN pip install ".[all]"

USER studybot
EXPOSE 3000
CMD ["studybot", "run"]
