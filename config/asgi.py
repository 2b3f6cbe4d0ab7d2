"""ASGI entry point: HTTP goes to Django, WebSocket to the Channels consumers.

The HTTP stack starts with ``RequestContext`` (the request's id and game in every log line,
``config.middleware``) and ends in Django's handler with a fixed set of threads
(``config.handler``). Both stacks sit inside ``AdmissionGuard`` (``core.admission``: a worker
that is full refuses new games and sockets, and serves the players it has). The WebSocket
stack, outside in: ``SocketGuard`` (anything that escapes ends in a close frame, never an HTTP
500), cookies and the lazy session, ``PlayerAuthMiddleware`` (token or session,
and the ``Origin`` check's verdict, enforced by each consumer: ``games.ws.base``), the routes.
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Set up Django before importing anything that touches models (the consumers do).
django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402

from config.handler import PooledThreadsHandler  # noqa: E402

# Django's handler, lending each request one of ASGI_THREADS long-lived threads.
django_asgi_app = PooledThreadsHandler(settings.ASGI_THREADS)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from config.collector import tune_collector  # noqa: E402
from config.errorreports import wrap_asgi  # noqa: E402
from config.metrics import start_sampling  # noqa: E402
from config.middleware import RequestContext  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from core.admission import AdmissionGuard  # noqa: E402
from games.services.hints import warm_hint_pool  # noqa: E402
from games.ws.auth import PlayerAuthMiddleware  # noqa: E402
from games.ws.base import SocketGuard  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": RequestContext(AdmissionGuard(django_asgi_app)),
        # Error reports (SENTRY_DSN) see what escapes the socket stack; Django's requests are
        # reported by the SDK's Django integration.
        "websocket": wrap_asgi(
            AdmissionGuard(
                SocketGuard(
                    SessionMiddlewareStack(PlayerAuthMiddleware(URLRouter(websocket_urlpatterns)))
                )
            )
        ),
    }
)

# Everything the worker needs is loaded: freeze it out of the collector's scans.
tune_collector()

# The hint search's child processes start with the worker, not on the first hint.
warm_hint_pool()

# Under config.serve, this worker's pool figures reach /metrics whichever worker answers.
start_sampling()
