FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app

COPY pyproject.toml README.md ./
COPY config ./config
COPY games ./games
COPY leaderboards ./leaderboards
RUN pip install .

COPY . .
# collectstatic needs settings, not the real secrets: give it throwaway ones for this step only.
RUN SECRET_KEY=collectstatic DEAL_SECRET=collectstatic DEBUG=false \
    python manage.py collectstatic --noinput \
    && useradd --create-home --uid 1000 patience

USER patience
EXPOSE 8000

# uvicorn starts WEB_CONCURRENCY workers; each holds at most DATABASE_POOL_MAX connections
# (README, Production: workers × pool must stay within PostgreSQL's max_connections).
ENV WEB_CONCURRENCY=4 \
    DATABASE_POOL_MAX=10

CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py loadvariants && exec uvicorn config.asgi:application --host 0.0.0.0 --port 8000 --ws-max-size 131072 --timeout-graceful-shutdown 20"]
