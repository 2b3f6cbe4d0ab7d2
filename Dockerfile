FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app

# The exact releases of the lock file, each checked against its hashes (make lock), then the
# project itself without resolving anything.
COPY requirements/main.txt ./requirements/main.txt
RUN pip install --require-hashes --no-deps -r requirements/main.txt

COPY pyproject.toml README.md ./
COPY config ./config
COPY core ./core
COPY games ./games
COPY leaderboards ./leaderboards
RUN pip install --no-deps --no-build-isolation .

COPY . .
# collectstatic needs settings, not the real secrets: give it throwaway ones for this step only
# (games.E001 refuses to run the service with that DEAL_SECRET). The static files belong to the
# service's user, so that the compose migrate job can refresh the shared volume
# (docker-compose.yml) in place.
RUN SECRET_KEY=collectstatic DEAL_SECRET=collectstatic DEBUG=false \
    python manage.py collectstatic --noinput \
    && useradd --create-home --uid 1000 patience \
    && mkdir -p var \
    && chown -R patience:patience staticfiles var

USER patience
EXPOSE 8000

# config.serve (uvicorn, a listening socket per worker) starts WEB_CONCURRENCY workers, which
# count their metrics in a folder of the run (PROMETHEUS_MULTIPROC_DIR, docs/metrics.md); each
# holds at most DATABASE_POOL_MAX connections
# (docs/operations.md, Sizing: workers × pool must stay within PostgreSQL's max_connections).
ENV WEB_CONCURRENCY=4 \
    DATABASE_POOL_MAX=10

# The image serves; releases run migrate, loadvariants and collectstatic once beforehand (the
# compose migrate job; docs/operations.md, Upgrades), never in every worker's start.
CMD ["python", "-m", "config.serve", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", \
     "--ws-max-size", "131072", "--timeout-graceful-shutdown", "20"]

