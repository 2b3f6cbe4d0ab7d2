"""Django settings for Daily Patience.

Everything that differs between machines comes from the environment (docs/configuration.md).
With neither ``DATABASE_URL`` nor ``REDIS_URL`` set, the service runs on its embedded default:
SQLite, an in-memory channel layer and a local-memory cache.
"""

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

from config import checks as _checks  # noqa: F401  (registers the sizing checks)
from config import env as config_env
from config import errorreports

BASE_DIR = Path(__file__).resolve().parent.parent
ENV = os.environ

_worker = ENV.get("PYTEST_XDIST_WORKER")
if ENV.get("REDIS_URL") and _worker and ENV.get("DAILY_PATIENCE_WORKER_REDIS") != _worker:
    # A test run in parallel workers (``make test``): each worker gets a Redis database of its
    # own, after the configured one (gw0 keeps it), since the tests empty the cache and the
    # channel layer between tests. Services a test starts inherit the worker's database as it
    # is (the marker says it is chosen already).
    _parts = urlsplit(ENV["REDIS_URL"])
    _database = int(_parts.path.lstrip("/") or 0) + int(_worker[2:])
    ENV["REDIS_URL"] = urlunsplit(_parts._replace(path=f"/{_database}"))
    ENV["DAILY_PATIENCE_WORKER_REDIS"] = _worker

if config_env.env_bool(ENV, "DAILY_PATIENCE_REQUIRE_SERVICES", default=False) and not (
    ENV.get("DATABASE_URL") and ENV.get("REDIS_URL")
):
    raise ImproperlyConfigured(
        "DAILY_PATIENCE_REQUIRE_SERVICES is set: set DATABASE_URL and REDIS_URL too."
    )

DEBUG = config_env.debug_config(ENV)
_secrets = config_env.secrets_config(ENV, BASE_DIR / "var" / "secrets.env", debug=DEBUG)
SECRET_KEY = _secrets["SECRET_KEY"]
# Earlier signing keys still accepted while a new SECRET_KEY takes over (docs/operations.md).
SECRET_KEY_FALLBACKS = config_env.env_list(ENV, "SECRET_KEY_FALLBACKS", ())
DEAL_SECRET = _secrets["DEAL_SECRET"]

ALLOWED_HOSTS = config_env.env_list(ENV, "ALLOWED_HOSTS", config_env.DEFAULT_ALLOWED_HOSTS)
CSRF_TRUSTED_ORIGINS = config_env.csrf_trusted_origins(ENV, ALLOWED_HOSTS)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "games",
    "leaderboards",
    "leagues",
]

MIDDLEWARE = [
    "config.middleware.RequestContextMiddleware",  # the log context of the whole request
    "config.metrics.RequestMetricsMiddleware",  # outermost: a request's whole time
    "config.middleware.DatabaseBreakerMiddleware",  # PostgreSQL known down: 503 at once
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.SecurityHeadersMiddleware",
    "config.middleware.ErrorMiddleware",
    "config.staticfiles.StaticFilesMiddleware",  # WhiteNoise
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The request's language (docs/languages.md); after WhiteNoise, so that static files do not
    # vary by language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "frontend"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": config_env.database_config(ENV, BASE_DIR)}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    (BASE_DIR / "var").mkdir(exist_ok=True)  # the test database file lives there
_pool = DATABASES["default"].get("OPTIONS", {}).get("pool")
# Sizing (docs/operations.md): WEB_CONCURRENCY workers × DATABASE_POOL_MAX connections must stay
# within DATABASE_MAX_CONNECTIONS (PostgreSQL's max_connections); config/checks.py warns if not.
# ASGI_THREADS bounds the requests one worker runs at once (config/handler.py).
WEB_CONCURRENCY = config_env.env_int(ENV, "WEB_CONCURRENCY", 1)
DATABASE_MAX_CONNECTIONS = config_env.env_int(ENV, "DATABASE_MAX_CONNECTIONS", 100)
ASGI_THREADS = config_env.env_int(ENV, "ASGI_THREADS", _pool["max_size"] if _pool else 32)
CHANNEL_LAYERS = config_env.channel_layers_config(ENV)
CACHES = config_env.cache_config(ENV)
# django-redis: log the errors IGNORE_EXCEPTIONS turns into misses (each is handed to the Redis
# breaker instead, which logs an outage once: config/logging.py).
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
REDIS_URL = ENV.get("REDIS_URL") or None

# Bodies: the API takes small JSON documents; larger ones are refused with 413.
DATA_UPLOAD_MAX_MEMORY_SIZE = config_env.env_int(ENV, "DATA_UPLOAD_MAX_MEMORY_SIZE", 64 * 1024)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# HTTPS and security headers (docs/operations.md). Off by default so that plain-HTTP local runs
# and docker compose keep working; a real deployment sets them (manage.py check --deploy).
SECURE_SSL_REDIRECT = config_env.env_bool(ENV, "SECURE_SSL_REDIRECT", default=False)
# The probes and Prometheus use plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^livez$", r"^readyz$", r"^metrics$"]
if config_env.env_bool(ENV, "TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = config_env.env_int(ENV, "SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = config_env.env_bool(
    ENV, "SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False
)
SECURE_HSTS_PRELOAD = config_env.env_bool(ENV, "SECURE_HSTS_PRELOAD", default=False)
SESSION_COOKIE_SECURE = config_env.env_bool(ENV, "SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE = config_env.env_bool(ENV, "CSRF_COOKIE_SECURE", default=False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy by path prefix (config/middleware.py), the longest prefix winning. The
# client is plain module scripts and style sheets served by the service, with no inline script,
# no inline style attribute and no eval; the interactive API docs (Swagger UI, served from the
# service) and the admin add inline styles and data: images.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
CONTENT_SECURITY_POLICY = {
    "/": _CSP,
    "/api/docs/": _CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
    "/admin/": _CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
}
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=()"

AUTH_USER_MODEL = "games.Player"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Languages (docs/languages.md): the language cookie, else the browser's Accept-Language, else
# English. Server sentences are in locale/<language>/LC_MESSAGES/django.po, the client's in
# frontend/i18n/<language>.json.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_HTTPONLY = True  # the client reads its language from <html lang>
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "frontend" / "static"]
# Static files under names hashed from their content, ES module imports rewritten to them
# (config/staticfiles.py): with DEBUG off, collectstatic must have run before the service serves
# (the image, the compose migrate job, make run and the tests' start do it).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "config.staticfiles.HashedStaticFilesStorage"},
}
# Serve straight from the source folders too: in DEBUG pages name the plain files.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
# Files served at the site's root: /favicon.ico, which browsers ask of every page (the admin's too).
WHITENOISE_ROOT = BASE_DIR / "frontend" / "root"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Throttle rates of the API (games/api/throttles.py), each overridable as THROTTLE_<SCOPE>.
THROTTLE_RATES = {
    "moves_player": "600/min",
    "moves_ip": "1200/min",
    "games_player": "30/min",
    "games_ip": "60/min",
    "hints_player": "20/min",
    "auth_ip": "120/min",
    "auth_ip_hour": "1000/hour",
    "account_player": "10/hour",
    "leagues_join_player": "30/hour",
    "leagues_join_ip": "120/hour",
}

# Leagues (leagues/): how many open leagues a player may be in (owned ones included), and how
# many members a league may have (its owner included).
LEAGUES_PER_PLAYER = config_env.env_int(ENV, "LEAGUES_PER_PLAYER", 10)
LEAGUE_MEMBERS = config_env.env_int(ENV, "LEAGUE_MEMBERS", 50)

# Threads of one worker that run the sockets' database calls (games/ws/base.py), below the pool's
# size: the worker's HTTP requests borrow from the same pool.
WEBSOCKET_DATABASE_THREADS = config_env.env_int(ENV, "WEBSOCKET_DATABASE_THREADS", 8)

# An ordinary move, as every write, is acknowledged once PostgreSQL has flushed it to disk
# (games/services/moves.py, batches.py); false is the opt-out that answers before the flush.
MOVES_SYNCHRONOUS_COMMIT = config_env.env_bool(ENV, "MOVES_SYNCHRONOUS_COMMIT", True)

# Admission control (core/admission.py): while a worker's event loop lags more than
# ADMISSION_LOOP_LAG_MS, or more than ADMISSION_MOVE_BACKLOG moves wait for the database, new
# games and sockets are refused for ADMISSION_RETRY_SECONDS; players already in play go on.
ADMISSION = config_env.env_bool(ENV, "ADMISSION", True)
ADMISSION_LOOP_LAG_MS = config_env.env_int(ENV, "ADMISSION_LOOP_LAG_MS", 250)
ADMISSION_MOVE_BACKLOG = config_env.env_int(ENV, "ADMISSION_MOVE_BACKLOG", 2000)
# ... or while an HTTP request has waited longer than this for one of its ASGI_THREADS
# (config/handler.py).
ADMISSION_REQUEST_WAIT_MS = config_env.env_int(ENV, "ADMISSION_REQUEST_WAIT_MS", 1000)
ADMISSION_RETRY_SECONDS = config_env.env_int(ENV, "ADMISSION_RETRY_SECONDS", 3)

# API tokens (games/services/tokens.py): each lives TOKEN_LIFETIME_DAYS from its making; a player
# keeps at most TOKEN_LIMIT (a sign-in past it ends the oldest).
TOKEN_LIFETIME_DAYS = config_env.env_count(ENV, "TOKEN_LIFETIME_DAYS", 90, 1)
TOKEN_LIMIT = config_env.env_count(ENV, "TOKEN_LIMIT", 20, 1)

# The admin login page (games/admin/login.py): ADMIN_LOGIN_ACCOUNT_FAILURES failures for one
# nickname, or ADMIN_LOGIN_ADDRESS_FAILURES from one address, within ADMIN_LOCKOUT_MINUTES lock
# that nickname or address out until the window has passed (counted in PostgreSQL).
ADMIN_LOGIN_ACCOUNT_FAILURES = config_env.env_count(ENV, "ADMIN_LOGIN_ACCOUNT_FAILURES", 5, 1)
ADMIN_LOGIN_ADDRESS_FAILURES = config_env.env_count(ENV, "ADMIN_LOGIN_ADDRESS_FAILURES", 20, 1)
ADMIN_LOCKOUT_MINUTES = config_env.env_count(ENV, "ADMIN_LOCKOUT_MINUTES", 15, 1)

# GET /api/daily/ is built at most once per DAILY_LIST_SECONDS a process (games/services/days.py).
DAILY_LIST_SECONDS = config_env.env_float(ENV, "DAILY_LIST_SECONDS", 2.0)

# Connections of each worker's event loop (core/database.py): the game socket's ordinary moves
# are written on them, many to a statement (games/services/batches.py).
DATABASE_LOOP_CONNECTIONS = config_env.env_int(ENV, "DATABASE_LOOP_CONNECTIONS", 2)

# The garbage collector of an ASGI worker (config/collector.py): the start-up heap frozen, and
# the youngest generation collected every GC_THRESHOLD net allocations instead of 700.
GC_FREEZE = config_env.env_bool(ENV, "GC_FREEZE", True)
GC_THRESHOLD = config_env.gc_threshold(ENV)

# The solver (games/engine/solver/) on the server: certifying daily deals ahead of time
# (preparedeals) and hints. Each budget is wall time per search.
# A value out of range (a budget not more than 0 or past its bound, no attempt) stops the start
# with the reason: a bad budget would make every search answer "unknown", or never end.
DEAL_ATTEMPTS = config_env.env_count(ENV, "DEAL_ATTEMPTS", 5, least=1)
DEAL_CERTIFY_SECONDS = config_env.env_seconds(ENV, "DEAL_CERTIFY_SECONDS", 10, most=3600)
HINT_SECONDS = config_env.env_seconds(ENV, "HINT_SECONDS", 1, most=60)
# How long a hint's search may go on after its request stopped waiting (HINT_SECONDS): the
# player asking again at that position gets its answer (never less than HINT_SECONDS).
HINT_SEARCH_SECONDS = config_env.env_seconds(ENV, "HINT_SEARCH_SECONDS", 5, most=600)
# Child processes of each worker that search hints (games/services/hints.py); 0 searches in the
# request's thread.
HINT_PROCESSES = config_env.env_count(ENV, "HINT_PROCESSES", 1, least=0)

REST_FRAMEWORK = {
    # Token first: DRF's 401 needs the first class to name a WWW-Authenticate scheme.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.api.authentication.HexTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "games.api.exceptions.api_exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        scope: ENV.get(f"THROTTLE_{scope.upper()}", rate) for scope, rate in THROTTLE_RATES.items()
    },
    # How many reverse proxies add to X-Forwarded-For; 0 trusts only REMOTE_ADDR.
    "NUM_PROXIES": int(ENV.get("NUM_PROXIES", "0")),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Daily Patience API",
    "DESCRIPTION": "Daily patience (solitaire) challenges: variants, daily deals, games, "
    "leaderboards and leagues. Error details and the variants' names and descriptions are in "
    "English, French or Spanish, as the `django_language` cookie or else `Accept-Language` asks; "
    "error codes are the same in every language.\n\n"
    "**WebSocket.** Three sockets push changes live. `ws://HOST/ws/games/<id>/`, for the game's "
    "player (session, `?token=` or `Authorization: Token`), sends `game` and `error` messages "
    'and takes a move `{"ply": n, "move": MOVE}` or `{"type": "resign"}`. '
    "`ws://HOST/ws/daily/<slug>/<date>/`, for anyone, sends `leaderboard`, `progress` and "
    "`presence` (at most one push a second per deal) and `error`. "
    "`ws://HOST/ws/leagues/<id>/<slug>/<date>/`, for a league's members, sends the league's "
    "`leaderboard` (on connect, then whenever it changes) and `error` (`not_member` when the "
    "player leaves or is removed, `league_closed`). A refusal is an `error` "
    "message, then a close: 4403 not allowed, 4404 not found, 4429 rate limited, 1009 frame "
    "over 64 KiB, 1011 unavailable. Each message is defined by a JSON Schema (draft 2020-12) in "
    "the source repository, `docs/schemas/`: `messages/game.json`, `messages/move.json`, "
    "`messages/resign.json`, `messages/leaderboard.json`, `messages/progress.json`, "
    "`messages/presence.json` and `messages/error.json` (with each error's close code), "
    "gathered per socket in `game-socket.json`, `daily-socket.json` and `league-socket.json`. "
    "The whole protocol, REST and WebSocket, is described in the repository's `docs/api.md`, "
    "and how deals are made from their seeds in `docs/deals.md`.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The interactive docs load Swagger UI from the service itself, not from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PARSER_WHITELIST": ["games.api.base.StrictJSONParser"],
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": ["playing", "won", "resigned"],
        "ResultStatusEnum": ["won", "resigned"],
    },
}

# config/logging.py applies LOGGING, then keeps tokens out of every log (uvicorn's access log too).
LOGGING_CONFIG = "config.logging.configure"
# One line a record: JSON (LOG_FORMAT=json, the default) or plain text (LOG_FORMAT=text).
LOG_FORMAT = config_env.log_format(ENV)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"()": f"config.logging.{LOG_FORMAT.capitalize()}Formatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line"}},
    "root": {"handlers": ["console"], "level": ENV.get("LOG_LEVEL", "INFO")},
    # The pool logs each connection it loses and each failed attempt; an outage is logged
    # once by the breaker (core/breaker.py).
    "filters": {"redis_outage": {"()": "config.logging.RedisOutageOnce"}},
    "loggers": {
        "psycopg.pool": {"level": "ERROR"},
        "django_redis.cache": {"filters": ["redis_outage"]},
    },
}


# WebSocket frame limits (games/ws/limits.py): per socket a token bucket of `frames` refilled over
# `seconds` (in process), per player a sliding window across workers (core.ratelimits); the
# socket is closed with code 4429 beyond them. The player's limit matches REST's.
# WEBSOCKET_RATE_SOCKET and WEBSOCKET_RATE_PLAYER override them as `frames/seconds`.
def _frame_limit(name: str, default: str) -> dict[str, int]:
    frames, _, seconds = ENV.get(name, default).partition("/")
    try:
        limit = {"frames": int(frames), "seconds": int(seconds)}
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be frames/seconds, e.g. {default}") from None
    if limit["frames"] < 1 or limit["seconds"] < 1:
        raise ImproperlyConfigured(f"{name} must be frames/seconds, e.g. {default}")
    return limit


WEBSOCKET_RATE_LIMITS = {
    "socket": _frame_limit("WEBSOCKET_RATE_SOCKET", "20/1"),
    "player": _frame_limit("WEBSOCKET_RATE_PLAYER", "600/60"),
}

# Error reports to Sentry when SENTRY_DSN is set (config/errorreports.py).
SENTRY_ENABLED = errorreports.configure(ENV)
