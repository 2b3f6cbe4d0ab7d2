"""Fresh players arriving at the daily rollover, each run by a client process of the load
benchmark (``load.py``'s rollover phase).

Each player arrives at its moment of the arrival window and, as a browser would at midnight:
opens the home page (``GET /``), the daily list (``GET /api/daily/``), becomes a guest, starts
today's deal of the variant (``POST /api/games/``), opens its game socket and makes a first
legal move, computed by the conductor from the deal's seed. A ``503`` or a socket's
``unavailable`` refusal, a ``429``, a lost connection or a timeout is counted as an error of its
step and tried again after the server's ``retry_after`` (the ``Retry-After`` header, else a
second) times 1 + a random fraction, for as long as the player's patience lasts; any other
refusal ends the player there. Every connection goes to the loopback address only.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Any

from _clients import ANSWER_TIMEOUT, CONNECT_TIMEOUT, LagProbe, retry_delay, wait_event
from _common import HOST

STEPS = ("home", "daily list", "guest", "game start", "socket", "first move")
REQUEST_TIMEOUT = 30.0


@dataclass
class Rollover:
    """What every client process of the rollover gets."""

    port: int
    run: str
    slug: str
    first_move: dict[str, Any]  # a legal first move of today's deal, as sent
    patience: float  # seconds after its arrival a player keeps trying
    origin: bool = False


class Retry(Exception):
    """A transient failure of a step: try again after ``wait`` seconds."""

    def __init__(self, key: str, wait: float):
        super().__init__(key)
        self.key = key
        self.wait = wait


class GiveUp(Exception):
    """A failure a client does not retry (a bug, or a refusal that will not change)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def new_report() -> dict[str, Any]:
    return {
        "steps": {
            step: {"ok": 0, "errors": Counter(), "retries": 0, "latencies": []} for step in STEPS
        },
        "through": 0,
        "through_after_retry": 0,
        "gave_up": Counter(),  # step where a player stopped, and why
        "to_first_move": [],  # ms from arrival (GET /) to the first move answered
        "retry_after": [],
        "players": 0,
    }


class Arrival:
    """One fresh player at the rollover."""

    def __init__(self, index: int, plan: Rollover, report: dict[str, Any]):
        self.index = index
        self.plan = plan
        self.report = report
        self.rng = random.Random(f"{plan.run}-{index}")
        self.base = f"http://{HOST}:{plan.port}"
        self.token = ""
        self.game_id = ""
        self.retried = False
        self.socket: tuple[Any, int] = (None, 0)

    async def run(self, session: Any) -> None:
        arrived = time.monotonic()
        deadline = arrived + self.plan.patience
        self.report["players"] += 1
        actions = {
            "home": lambda: self.get(session, "/", json_body=False),
            "daily list": lambda: self.get(session, "/api/daily/"),
            "guest": lambda: self.guest(session),
            "game start": lambda: self.game_start(session),
        }
        for step in STEPS[:4]:
            if not await self.step(step, actions[step], deadline):
                return
        if not await self.play_first_move(session, deadline):
            return
        self.report["through"] += 1
        self.report["through_after_retry"] += self.retried
        self.report["to_first_move"].append((time.monotonic() - arrived) * 1000)

    async def step(self, name: str, action: Any, deadline: float) -> bool:
        """Run one step until it succeeds, retrying transient failures within the deadline."""
        while (outcome := await self.attempt(name, action, deadline)) == "retry":
            pass
        return outcome == "ok"

    async def attempt(self, name: str, action: Any, deadline: float) -> str:
        """Run a step once and record it: "ok", "retry" (after waiting as asked) or "stop"."""
        record = self.report["steps"][name]
        started = time.monotonic()
        try:
            await action()
        except Retry as failure:
            record["errors"][failure.key] += 1
            if time.monotonic() + failure.wait > deadline:
                self.report["gave_up"][f"{name}: {failure.key} (patience)"] += 1
                return "stop"
            record["retries"] += 1
            self.retried = True
            await asyncio.sleep(failure.wait)
            return "retry"
        except GiveUp as failure:
            record["errors"][failure.key] += 1
            self.report["gave_up"][f"{name}: {failure.key}"] += 1
            return "stop"
        record["ok"] += 1
        record["latencies"].append((time.monotonic() - started) * 1000)
        return "ok"

    # --- HTTP steps ---

    async def request(
        self, session: Any, method: str, path: str, body: Any = None, json_body: bool = True
    ) -> Any:
        import aiohttp

        headers = {"Authorization": f"Token {self.token}"} if self.token else {}
        try:
            async with session.request(
                method, self.base + path, json=body, headers=headers
            ) as answer:
                text = await answer.text()
                status = answer.status
                header_after = answer.headers.get("Retry-After")
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise Retry(type(exc).__name__, retry_delay(None, self.rng)) from exc
        data: Any = None
        if json_body or status >= 400:
            try:
                data = json.loads(text) if text else None
            except ValueError:
                data = None
        if status < 400:
            return data
        refusal = data if isinstance(data, dict) else {}
        key = f"{status} {refusal.get('error', '')}".strip()
        if status in (429, 503) or status >= 500:
            if "retry_after" not in refusal and header_after and header_after.isdigit():
                refusal = {**refusal, "retry_after": int(header_after)}
            if isinstance(refusal.get("retry_after"), int | float):
                self.report["retry_after"].append(float(refusal["retry_after"]))
            raise Retry(key, retry_delay(refusal, self.rng))
        raise GiveUp(key)

    async def get(self, session: Any, path: str, json_body: bool = True) -> None:
        await self.request(session, "GET", path, json_body=json_body)

    async def guest(self, session: Any) -> None:
        # A retried sign-up may have succeeded unseen: a fresh nickname each attempt.
        nickname = f"r{self.plan.run}{self.index}x{self.rng.getrandbits(16):x}"
        body = await self.request(session, "POST", "/api/auth/guest/", {"nickname": nickname})
        self.token = body["token"]

    async def game_start(self, session: Any) -> None:
        body = {"variant": self.plan.slug, "mode": "daily"}
        game = await self.request(session, "POST", "/api/games/", body)
        self.game_id = game["id"]

    # --- the socket and the first move ---

    async def play_first_move(self, session: Any, deadline: float) -> bool:
        """Open the game socket, then send the first move; after a refused or lost move the
        socket is opened again, and a move whose answer was lost counts as answered if the
        game is then at ply 1."""
        while True:
            if not await self.step("socket", lambda: self.open(session), deadline):
                return False
            ws, ply = self.socket
            try:
                if ply == 1:
                    self.report["steps"]["first move"]["ok"] += 1
                    return True
                outcome = await self.attempt("first move", partial(self.move, ws), deadline)
            finally:
                await ws.close()
            if outcome != "retry":
                return outcome == "ok"

    async def open(self, session: Any) -> None:
        url = f"ws://{HOST}:{self.plan.port}/ws/games/{self.game_id}/?token={self.token}"
        headers = {"Origin": f"http://{HOST}:{self.plan.port}"} if self.plan.origin else {}
        try:
            ws = await session.ws_connect(url, headers=headers, timeout=CONNECT_TIMEOUT)
        except Exception as exc:
            raise Retry(f"connect:{type(exc).__name__}", retry_delay(None, self.rng)) from exc
        first = await self.receive(ws)
        if first.get("type") != "game":
            await ws.close()
            self.refusal(first)
        self.socket = (ws, first["game"]["ply"])

    async def move(self, ws: Any) -> None:
        frame = {"ply": 0, "move": self.plan.first_move}
        try:
            await ws.send_str(json.dumps(frame))
        except Exception as exc:
            raise Retry(f"socket:{type(exc).__name__}", retry_delay(None, self.rng)) from exc
        while True:
            answer = await self.receive(ws)
            if answer.get("type") == "game" and answer["game"]["ply"] == 1:
                return
            if answer.get("type") == "error":
                self.refusal(answer)

    async def receive(self, ws: Any) -> dict[str, Any]:
        import aiohttp

        try:
            message = await asyncio.wait_for(ws.receive(), ANSWER_TIMEOUT)
        except TimeoutError as exc:
            raise Retry("socket:timeout", retry_delay(None, self.rng)) from exc
        if message.type != aiohttp.WSMsgType.TEXT:
            raise Retry(f"closed:{ws.close_code}", retry_delay(None, self.rng))
        return json.loads(message.data)

    def refusal(self, answer: dict[str, Any]) -> None:
        """Raise the retry or the end an ``error`` message of a socket calls for."""
        code = str(answer.get("error"))
        if code in ("unavailable", "rate_limited", "server_error"):
            if isinstance(answer.get("retry_after"), int | float):
                self.report["retry_after"].append(float(answer["retry_after"]))
            raise Retry(code, retry_delay(answer, self.rng))
        raise GiveUp(code)


async def rollover_process(
    arrivals: list[tuple[int, float]], plan: Rollover, queue: Any, go: Any, release: Any
) -> None:
    """Let each ``(index, offset)`` player arrive ``offset`` seconds after the go; report."""
    import aiohttp

    report = new_report()
    queue.put(("ready", len(arrivals)))
    if not await wait_event(go, 300):
        queue.put(("result", report))
        return
    probe = LagProbe()
    probe.start()
    cpu = time.process_time()
    started = time.monotonic()

    async def arrive(index: int, offset: float) -> None:
        await asyncio.sleep(max(0.0, started + offset - time.monotonic()))
        # Each player its own connections, as each browser has.
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
        connector = aiohttp.TCPConnector(limit=4)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
            await Arrival(index, plan, report).run(session)

    await asyncio.gather(*(arrive(index, offset) for index, offset in arrivals))
    report["client_cpu"] = time.process_time() - cpu
    report["client_elapsed"] = time.monotonic() - started
    report["lags"] = probe.stop()
    for record in report["steps"].values():
        record["errors"] = dict(record["errors"])
    report["gave_up"] = dict(report["gave_up"])
    queue.put(("result", report))
