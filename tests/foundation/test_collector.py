"""An ASGI worker freezes its start-up heap and collects young objects less often
(config/collector.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import env as config_env

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import gc, config.asgi; "
    "print(gc.get_threshold()[0], gc.get_freeze_count(), gc.get_threshold()[1:] == (10, 10))"
)


def worker_collector(**extra: str) -> tuple[int, int, bool]:
    """Load the ASGI application in a fresh interpreter, as a worker does; return its
    collector's youngest threshold, how many objects it froze, and whether the older
    generations kept Python's thresholds."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **extra}
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    threshold, frozen, older = result.stdout.split()
    return int(threshold), int(frozen), older == "True"


def test_a_worker_freezes_its_start_up_heap_and_raises_the_youngest_threshold() -> None:
    threshold, frozen, older_kept = worker_collector()
    assert threshold == config_env.DEFAULT_GC_THRESHOLD == 10_000
    assert frozen > 10_000  # Django, DRF, Channels and the app: far more than a bare interpreter
    assert older_kept


def test_the_collector_settings_come_from_the_environment() -> None:
    threshold, frozen, _ = worker_collector(GC_THRESHOLD="700", GC_FREEZE="false")
    assert (threshold, frozen) == (700, 0)


@pytest.mark.parametrize("raw", ["0", "99", "-5", "ten"])
def test_a_threshold_that_would_switch_the_collector_off_is_refused(raw: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="GC_THRESHOLD"):
        config_env.gc_threshold({"GC_THRESHOLD": raw})


def test_no_threshold_means_the_default() -> None:
    assert config_env.gc_threshold({}) == config_env.DEFAULT_GC_THRESHOLD
    assert config_env.gc_threshold({"GC_THRESHOLD": "250"}) == 250
