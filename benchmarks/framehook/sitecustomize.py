"""Per-frame timing of the game socket, loaded into the service's workers by
``benchmarks/load.py --frames`` (this directory on their ``PYTHONPATH``); nothing else loads it.

In each worker it records, for every move frame, the moments it reached the consumer, started
in the worker thread, passed the player's rate limit, left the service call, had its payload
and was answered, with the service call's thread CPU and SQL time; the collector's pauses
(``gc.callbacks``) and the event loop's lag every 10 ms. Every second it writes them to
``$FRAME_TIMING_OUT.<pid>`` as JSON, for ``benchmarks/frames.py`` to summarise.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from typing import Any

OUT = os.environ.get("FRAME_TIMING_OUT", "")


def _install() -> None:
    frames: list[list[float]] = []
    calls: list[tuple[float, float, float]] = []  # (frame start, thread CPU, SQL seconds)
    pauses: list[tuple[int, float, float, float]] = []  # (generation, start, wall, CPU)
    lags: list[float] = []
    local = threading.local()
    started: list[float] = [0.0, 0.0]
    ready = threading.Event()

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0], started[1] = time.perf_counter(), time.thread_time()
        else:
            wall = time.perf_counter() - started[0]
            pauses.append((info["generation"], started[0], wall, time.thread_time() - started[1]))

    gc.callbacks.append(collector)

    def patch() -> None:
        while "games.ws.consumers" not in sys.modules:
            time.sleep(0.05)
        time.sleep(0.5)  # the module finishes importing
        consumers = sys.modules["games.ws.consumers"]
        from django.db.backends import utils

        cls = consumers.GameConsumer
        serve, play, refusal = cls.serve, cls.play, cls.player_refusal
        execute = utils.CursorWrapper.execute

        def timed_execute(self: Any, sql: str, params: Any = None) -> Any:
            begin = time.perf_counter()
            try:
                return execute(self, sql, params)
            finally:
                local.sql = getattr(local, "sql", 0.0) + time.perf_counter() - begin

        def timed_serve(self: Any, action: Any) -> Any:
            self._frame.append(time.perf_counter())
            answer = serve(self, action)
            self._frame.append(time.perf_counter())
            return answer

        def timed_refusal(self: Any) -> Any:
            answer = refusal(self)
            if getattr(self, "_frame", None) is not None:
                self._frame.append(time.perf_counter())
            return answer

        async def lag() -> None:
            import asyncio

            while True:
                begin = time.perf_counter()
                await asyncio.sleep(0.01)
                lags.append(time.perf_counter() - begin - 0.01)

        async def timed_play(self: Any, action: Any, echo: Any) -> None:
            if not ready.is_set():
                import asyncio

                ready.set()
                asyncio.get_running_loop().create_task(lag())
            frame = self._frame = [time.perf_counter()]

            def call() -> Any:
                cpu = time.thread_time()
                local.sql = 0.0
                game = action()
                frame.append(time.perf_counter())
                calls.append((frame[0], time.thread_time() - cpu, local.sql))
                return game

            await play(self, call, echo)
            frame.append(time.perf_counter())
            self._frame = None
            frames.append(frame)

        cls.serve, cls.play, cls.player_refusal = timed_serve, timed_play, timed_refusal
        utils.CursorWrapper.execute = timed_execute

    def dump() -> None:
        while True:
            time.sleep(1)
            if not ready.is_set():
                continue
            record = {"frames": frames, "calls": calls, "pauses": pauses, "lags": lags}
            path = f"{OUT}.{os.getpid()}"
            with open(path + ".tmp", "w") as file:
                json.dump(record, file)
            os.replace(path + ".tmp", path)

    threading.Thread(target=patch, daemon=True).start()
    threading.Thread(target=dump, daemon=True).start()


if OUT:
    _install()
