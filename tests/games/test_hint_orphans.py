"""The hint pool's children never outlive the worker that started them, however it stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A worker's hint pool as games.services.hints makes it; it prints its child's pid, then waits.
WORKER = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from games import hintworker
if __name__ == "__main__":
    pool = ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=hintworker.watch_parent,
    )
    print(pool.submit(os.getpid).result(timeout=60), flush=True)
    time.sleep(120)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_hint_child_exits_when_its_worker_is_killed() -> None:
    # given a worker whose hint pool has started its child
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert worker.stdout is not None
        child = int(worker.stdout.readline())
        assert alive(child)

        # when the worker is killed, with no chance to shut its pool down
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)

        # then the child notices and exits too
        deadline = time.monotonic() + 20
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child), "the hint child outlived its worker"
    finally:
        worker.kill()
        worker.wait()
