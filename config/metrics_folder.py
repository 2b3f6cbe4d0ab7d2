"""The folder where the worker processes keep their metrics (Prometheus' multiprocess mode).

``python -m config.serve`` calls :func:`prepare` before any worker starts: the folder named by
``PROMETHEUS_MULTIPROC_DIR`` is created and emptied of an earlier run's files, or, when the
variable is unset, a new private folder is made for this run (and removed when it ends). The
workers inherit the variable. When a worker ends, :func:`forget_process` drops its gauges of
things that die with it (open sockets, connections lent), and keeps its counters: the totals
of ``/metrics`` still count what a dead worker did.

This module imports nothing of ``prometheus_client`` at its top: the library chooses between
its in-process and multiprocess modes when it is first imported, so the variable must be set
first.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def prepare() -> Path:
    """Make the metrics folder ready for a new run and name it in ``PROMETHEUS_MULTIPROC_DIR``."""
    named = os.environ.get(VARIABLE)
    if not named:
        folder = Path(tempfile.mkdtemp(prefix="daily-patience-metrics-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ[VARIABLE] = str(folder)
        return folder
    folder = Path(named)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink(missing_ok=True)
    return folder


def forget_process(pid: int) -> None:
    """Drop the live gauges of the ended worker ``pid`` (after :func:`prepare`)."""
    if not os.environ.get(VARIABLE):
        return
    from prometheus_client import multiprocess  # imported once the variable is set (above)

    multiprocess.mark_process_dead(pid)
