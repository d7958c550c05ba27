# rigscout in a container: the daily job as its own daemon (`rigscout schedule`), or any
# command. compose.yaml runs it with PostgreSQL and serves the report; see the README,
# "Running it every day".
#
#   docker build -t rigscout .
#   docker run --rm rigscout run --offline /opt/rigscout/fixtures/demo   # the demo, no eBay
#
# /data is the working directory: put rigscout.toml there (a volume); the SQLite database,
# the report folder and the lock files are written next to it.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /opt/rigscout
COPY pyproject.toml README.md LICENSE ./
COPY core core
COPY scraper scraper
COPY ranking ranking
COPY db db
COPY alerts alerts
COPY rigscout rigscout
COPY fixtures/demo fixtures/demo
RUN pip install ".[postgres]" \
    && useradd --system --create-home --home-dir /data --uid 10001 rigscout

USER rigscout
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["rigscout"]
# The daemon logs each run and when the next one is due; SIGTERM (docker stop) lets the run in
# progress finish, so give the container time to stop (compose.yaml: stop_grace_period).
CMD ["-v", "schedule"]
