# studybot: one image for the bot and its migration step.
#
# It installs studybot the way CI tests it (.ci/run): build the wheel, install that wheel with
# every extra, and run from a directory that is not the source tree. The question packs and
# the migrations travel inside the wheel.
FROM python:3.11-slim AS wheel
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY bot ./bot
COPY content ./content
COPY migrations ./migrations
RUN pip wheel --no-deps --wheel-dir dist .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN useradd --create-home --uid 10001 studybot
WORKDIR /tmp/install
COPY --from=wheel /src/dist ./dist
RUN pip install "$(ls dist/studybot-*.whl)[all]" && rm -rf /tmp/install

# The working directory holds what a one-container run writes (a SQLite database, charts).
WORKDIR /app
RUN chown studybot:studybot /app
USER studybot
EXPOSE 3000
# docker stop sends SIGTERM: studybot finishes the work in flight and exits within seconds.
STOPSIGNAL SIGTERM
CMD ["studybot", "run"]
