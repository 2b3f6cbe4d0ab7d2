"""``GET /metrics``: the service's metrics in Prometheus' text format (docs/metrics.md).

The endpoint is internal: it answers only a client on the loopback or a private network (the
address the per-IP rate limits count, ``NUM_PROXIES`` applied), and 404 like any unknown path to
everyone else; nginx does not pass it on either (deploy/nginx.conf).

Under ``python -m config.serve`` each worker counts in its own files
(``config.metrics_folder``) and a scrape, whichever worker answers it, adds them all up. Besides
the counters of ``core.metrics``, each scrape reads:

- the database pools of the worker that answers (the other workers' are sampled every
  ``SAMPLE_SECONDS`` by a thread of their own, :func:`start_sampling`);
- the scheduler's heartbeats (``core.heartbeats``, in Redis) and the newest deal (PostgreSQL):
  figures of the whole service, not of a worker.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from rest_framework.throttling import BaseThrottle

from config import metrics_folder
from config.middleware import BothModes
from core import breaker, database, heartbeats, metrics
from games.models import Deal

logger = logging.getLogger(__name__)

SAMPLE_SECONDS = 1.0
# The text format every Prometheus reads (``generate_latest`` writes it).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


# --- who may read them ------------------------------------------------------------------------


def client_address(request: HttpRequest) -> str:
    """Return the client's address as the per-IP rate limits count it (``NUM_PROXIES``)."""
    return str(BaseThrottle().get_ident(request) or "")


def is_internal(address: str) -> bool:
    """Whether ``address`` is on the loopback or a private network (IPv4-mapped included)."""
    try:
        parsed = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    return parsed.is_loopback or parsed.is_private


# --- what is read at each scrape -------------------------------------------------------------


def sample_pools() -> None:
    """Set this worker's database pool gauges from the pools' own figures."""
    figures: dict[str, list[dict[str, int]]] = {"django": [], "loop": []}
    pool = getattr(connections["default"], "pool", None)
    if pool is not None:
        figures["django"].append(pool.get_stats())
    figures["loop"].extend(found.get_stats() for found in database.open_pools())
    for name, found in figures.items():
        in_use = sum(s.get("pool_size", 0) - s.get("pool_available", 0) for s in found)
        waiting = sum(s.get("requests_waiting", 0) for s in found)
        metrics.DATABASE_CONNECTIONS_IN_USE.labels(pool=name).set(in_use)
        metrics.DATABASE_REQUESTS_WAITING.labels(pool=name).set(waiting)


class ServiceCollector(Collector):
    """The figures of the whole service, read when scraped: the scheduler's heartbeats and the
    newest deal. A source that cannot answer leaves its figures out of the scrape."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        beats = heartbeats.read()
        for name, metric, text in (
            (
                heartbeats.SCHEDULER,
                "patience_scheduler_heartbeat_timestamp_seconds",
                "When the scheduler's loop last turned (seconds since the epoch).",
            ),
            (
                heartbeats.SCHEDULER_RUN,
                "patience_scheduler_last_success_timestamp_seconds",
                "When the scheduler's daily jobs last succeeded (seconds since the epoch).",
            ),
        ):
            if name in beats:
                yield GaugeMetricFamily(metric, text, value=beats[name])
        if breaker.is_open():
            return  # PostgreSQL is known down (logged once): the scrape answers at once
        try:
            newest = Deal.objects.aggregate(made=Max("created_at"), date=Max("date"))
        except Exception as error:  # the scrape goes on without the database's figures
            breaker.report(error)
            logger.warning("metrics: the newest deal cannot be read: %r", error)
            return
        if newest["made"] is not None:
            yield GaugeMetricFamily(
                "patience_deal_newest_age_seconds",
                "Seconds since the newest deal was made (preparedeals, or on demand).",
                value=max(0.0, time.time() - newest["made"].timestamp()),
            )
            midnight = dt.datetime.combine(newest["date"], dt.time(), tzinfo=dt.UTC)
            yield GaugeMetricFamily(
                "patience_deal_newest_date_timestamp_seconds",
                "The start (00:00 UTC) of the latest day that has a deal, in seconds since the "
                "epoch.",
                value=midnight.timestamp(),
            )


def multiprocess() -> bool:
    """Whether the workers count in a shared folder (``PROMETHEUS_MULTIPROC_DIR``)."""
    return bool(os.environ.get(metrics_folder.VARIABLE))


def exposition() -> bytes:
    """Return every metric in Prometheus' text format."""
    sample_pools()
    registry = CollectorRegistry()
    if multiprocess():
        MultiProcessCollector(registry)
    else:
        registry.register(REGISTRY)  # type: ignore[arg-type]  # the process's own metrics
    registry.register(ServiceCollector())
    return generate_latest(registry)


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Answer the metrics to an internal client; 404 to anyone else."""
    if not is_internal(client_address(request)):
        raise Http404
    return HttpResponse(exposition(), content_type=CONTENT_TYPE)


# --- the workers' own sampling ----------------------------------------------------------------


_sampling: threading.Thread | None = None


def _sample_forever() -> None:
    while True:
        time.sleep(SAMPLE_SECONDS)
        try:
            sample_pools()
        except Exception:  # a figure is a courtesy: never end the thread for it
            logger.debug("metrics: the pools cannot be sampled", exc_info=True)


def start_sampling() -> None:
    """Sample this worker's pools every ``SAMPLE_SECONDS`` (multiprocess mode only: in one
    process the scrape samples them itself)."""
    global _sampling
    if not multiprocess() or _sampling is not None:
        return
    _sampling = threading.Thread(target=_sample_forever, name="metrics-sampler", daemon=True)
    _sampling.start()


# --- request latency --------------------------------------------------------------------------


def route_of(request: HttpRequest) -> str:
    """Return the name of the route that served ``request`` (never its raw path)."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return match.view_name or match.route or "unnamed"
    if request.path.startswith(settings.STATIC_URL or "/static/"):
        return "static"
    return "unmatched"


class RequestMetricsMiddleware(BothModes):
    """Time each request, outermost, by route name and status class
    (``patience_http_request_duration_seconds``)."""

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        started = time.monotonic()
        status = 500
        try:
            response = self.get_response(request)
            status = response.status_code
            return response
        finally:
            self.observe(request, status, started)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        started = time.monotonic()
        status = 500
        try:
            response = await self.get_response(request)
            status = response.status_code
            return response
        finally:
            self.observe(request, status, started)

    @staticmethod
    def observe(request: HttpRequest, status: int, started: float) -> None:
        seconds = time.monotonic() - started
        labels = {"route": route_of(request), "status": metrics.status_class(status)}
        metrics.HTTP_REQUEST_SECONDS.labels(**labels).observe(seconds)
