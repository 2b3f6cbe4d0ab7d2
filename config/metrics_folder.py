"""The folder where the worker processes keep their metrics (Prometheus' multiprocess mode).

``python -m config.serve`` calls :func:`prepare` before any worker starts: the folder named by
``PROMETHEUS_MULTIPROC_DIR`` is created and emptied of an earlier run's files, or, when the
variable is unset, a new private folder is made for this run (removed when it ends, or by the
next run when a signal ended this one first). The
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
# A private folder is named for the supervisor's pid: ``daily-patience-metrics-<pid>-<random>``.
PREFIX = "daily-patience-metrics-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _sweep_private_folders() -> None:
    """Remove the private folders of runs whose supervisor is gone (a run stopped by a signal
    does not reach its own clean-up)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        owner = folder.name[len(PREFIX) :].split("-", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)


def prepare() -> Path:
    """Make the metrics folder ready for a new run and name it in ``PROMETHEUS_MULTIPROC_DIR``."""
    named = os.environ.get(VARIABLE)
    if not named:
        _sweep_private_folders()
        folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
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
