"""The service's metrics, in Prometheus' client library (docs/metrics.md names each one).

Every worker process counts in its own files when ``PROMETHEUS_MULTIPROC_DIR`` is set
(``python -m config.serve`` sets it), and ``/metrics`` adds the files of every worker up
(``config.metrics``); without it (tests, ``manage.py``) the counts stay in the process.
The library picks its mode when it is first imported: the variable must be set before that.

What is counted on the hot path is a counter or a histogram with a few fixed labels (a route,
a variant, a mode, a path): never a player, a game or a deal.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Seconds: from a millisecond to the 10 s beyond which a client has long given up.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

HTTP_REQUEST_SECONDS = Histogram(
    "patience_http_request_duration_seconds",
    "Time from a request's arrival in the Django stack to its response, by route and status class.",
    ["route", "status"],
    buckets=LATENCY_BUCKETS,
)

SOCKETS_OPEN = Gauge(
    "patience_sockets_open",
    "WebSockets open now, by kind (game, daily).",
    ["kind"],
    multiprocess_mode="livesum",
)

MOVES = Counter(
    "patience_moves_total",
    "Moves written, by path: batched (the game socket's group commit on the event loop), "
    "statement (one statement on a thread), locking (the row-locking path).",
    ["path"],
)
SOCKET_MOVE_SECONDS = Histogram(
    "patience_socket_move_duration_seconds",
    "Time from a move frame's arrival on a game socket to its answer, by path (batched or thread).",
    ["path"],
    buckets=LATENCY_BUCKETS,
)
MOVE_BATCH_SIZE = Histogram(
    "patience_move_batch_size",
    "Moves in one statement of the event loop's group commit.",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
)

GAMES_STARTED = Counter(
    "patience_games_started_total", "Games started, by variant and mode.", ["variant", "mode"]
)
GAMES_FINISHED = Counter(
    "patience_games_finished_total",
    "Games finished, by variant, mode and status (won, resigned).",
    ["variant", "mode", "status"],
)
RESULTS_VERIFIED = Counter(
    "patience_results_verified_total",
    "Finished games whose verification passed, by mode (a daily game's sealed result; a "
    "practice game's replay).",
    ["mode"],
)
VERIFICATION_FAILURES = Counter(
    "patience_verification_failures_total",
    "Finished games whose verification failed, by mode.",
    ["mode"],
)

HINT_SEARCHES = Counter(
    "patience_hint_searches_total",
    "Hint searches, by outcome: ran (a search started), refused (every searcher busy), "
    "timed_out (the answer gave no move for lack of time).",
    ["outcome"],
)

RATE_LIMIT_REFUSALS = Counter(
    "patience_rate_limit_refusals_total",
    "Requests and socket frames refused by a rate limit, by scope.",
    ["scope"],
)
ADMISSION_REFUSALS = Counter(
    "patience_admission_refusals_total",
    "Newcomers refused by a full worker, by kind (socket, game_start).",
    ["kind"],
)

REDIS_BREAKER_OPEN = Gauge(
    "patience_redis_breaker_open",
    "Worker processes whose Redis circuit breaker is open (an outage under way).",
    multiprocess_mode="livesum",
)
DATABASE_BREAKER_OPEN = Gauge(
    "patience_database_breaker_open",
    "Worker processes whose PostgreSQL circuit breaker is open (an outage under way: requests "
    "answered 503 at once).",
    multiprocess_mode="livesum",
)
REDIS_FAILURES = Counter(
    "patience_redis_failures_total",
    "Redis calls that failed and opened the circuit breaker.",
)

CHANNEL_LAYER_FAILURES = Counter(
    "patience_channel_layer_failures_total",
    "Channel-layer calls that failed, by what they carried: game_push (a game's new state to "
    "its other sockets), daily_push (a deal's board, progress and presence to its watchers), "
    "receive (a socket or a worker waiting for its pushes).",
    ["what"],
)

DATABASE_CONNECTIONS_IN_USE = Gauge(
    "patience_database_connections_in_use",
    "Database connections lent out now, by pool (django: requests and threads; loop: the "
    "event loop's moves).",
    ["pool"],
    multiprocess_mode="livesum",
)
DATABASE_REQUESTS_WAITING = Gauge(
    "patience_database_requests_waiting",
    "Callers waiting for a database connection now, by pool.",
    ["pool"],
    multiprocess_mode="livesum",
)


def status_class(status: int) -> str:
    """Return the class of an HTTP status: ``2xx``, ``4xx``..."""
    return f"{status // 100}xx"
