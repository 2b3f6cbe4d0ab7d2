"""Simulated clients of the load benchmark, each run in its own process.

A client process gets its share of the work, connects, tells the conductor it is ready, waits
for the go, measures for the phase's duration and puts its raw measurements on the queue. Every
loop is bounded by a deadline; every connection goes to the loopback address only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from _common import HOST

import games.engine as engine

ANSWER_TIMEOUT = 15.0
CONNECT_TIMEOUT = 30.0


@dataclass
class PlayerSpec:
    """One simulated player and its game: enough to mirror the server's deal client-side."""

    nickname: str
    token: str
    game_id: str
    slug: str
    mode: str  # "practice" | "daily"
    seed: bytes
    seed_text: str = ""
    moves: list[dict[str, Any]] = field(default_factory=list)  # played so far, as sent


@dataclass
class Phase:
    """What every client process of a phase gets."""

    port: int
    duration: float
    origin: bool = False  # docs/api.md: a token client sends no Origin
    player_rate: float = 4.5  # moves per second per player, under the socket limits
    game_plies: int = 300  # start a new practice game after this many plies
    stamps: bool = False  # record (player, ply, time) of every answer, for watcher delays
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def run_process(target: Any, args: tuple[Any, ...]) -> None:
    """Entry point of a client process: run ``target(*args)`` on a fresh event loop."""
    asyncio.run(target(*args))


def spawn(
    target: Any, shares: list[tuple[Any, ...]], events: tuple[Any, Any, Any] | None = None
) -> tuple[list[Any], Any, Any, Any]:
    """Fork one client process per share; return the processes, the queue, go and release
    (given ``events``, share that queue, go and release with other processes)."""
    context = multiprocessing.get_context("fork")
    queue, go, release = events or (context.Queue(), context.Event(), context.Event())
    processes = []
    for share in shares:
        process = context.Process(
            target=run_process, args=(target, (*share, queue, go, release)), daemon=True
        )
        process.start()
        processes.append(process)
    return processes, queue, go, release


def new_events() -> tuple[Any, Any, Any]:
    context = multiprocessing.get_context("fork")
    return context.Queue(), context.Event(), context.Event()


async def wait_event(event: Any, timeout: float) -> bool:
    return await asyncio.get_running_loop().run_in_executor(None, event.wait, timeout)


def ws_headers(phase: Phase) -> dict[str, str]:
    # docs/api.md lets a token client send no Origin (the default here); --origin sends a browser's.
    return {"Origin": f"http://{HOST}:{phase.port}"} if phase.origin else {}


def view_matches(state: engine.State, game: dict[str, Any]) -> bool:
    """Tell whether the server's redacted piles equal the client's view of its own deal."""
    mine = engine.player_view(state)
    mine_piles = mine["piles"] if isinstance(mine, dict) else mine
    return [p["cards"] for p in mine_piles] == [p["cards"] for p in game["state"]["piles"]]


# --- players ------------------------------------------------------------------------------------


class Player:
    """One player: a socket on its game, sending legal moves one at a time."""

    def __init__(self, spec: PlayerSpec, phase: Phase, session: Any, report: dict[str, Any]):
        self.spec = spec
        self.phase = phase
        self.session = session
        self.report = report
        self.rng = random.Random(hash((spec.nickname, phase.seed)))
        self.ws: Any = None
        self.state: engine.State | None = None
        self.ply = 0

    @property
    def url(self) -> str:
        return (
            f"ws://{HOST}:{self.phase.port}/ws/games/{self.spec.game_id}/?token={self.spec.token}"
        )

    def error(self, code: str) -> None:
        self.report["errors"][code] += 1

    async def connect(self) -> bool:
        """Open the game's socket and check the first state against the client's deal."""
        self.state = engine.deal(engine.builtin_variant(self.spec.slug), self.spec.seed)
        try:
            self.ws = await self.session.ws_connect(
                self.url,
                headers=ws_headers(self.phase),
                timeout=CONNECT_TIMEOUT,
                autoping=True,
                max_msg_size=0,
            )
            message = await asyncio.wait_for(self.ws.receive(), ANSWER_TIMEOUT)
            first = json.loads(message.data)
        except Exception as exc:
            self.error(f"connect:{type(exc).__name__}")
            return False
        if first.get("type") != "game":
            self.error(f"connect:{first.get('error', first.get('type'))}")
            return False
        game = first["game"]
        for move in self.spec.moves:  # a game resumed from an earlier phase
            self.state = engine.apply_move(self.state, engine.parse_move(move))
        self.ply = game["ply"]
        if self.ply != len(self.spec.moves) or not view_matches(self.state, game):
            self.error("deal_mismatch")
            return False
        return True

    async def new_practice_game(self) -> bool:
        if self.ws is not None:
            await self.ws.close()
        text = f"{self.spec.seed_text}+{self.rng.getrandbits(32)}"
        body = {"variant": self.spec.slug, "mode": "practice", "seed": text}
        url = f"http://{HOST}:{self.phase.port}/api/games/"
        headers = {"Authorization": f"Token {self.spec.token}"}
        try:
            async with self.session.post(url, json=body, headers=headers) as answer:
                game = await answer.json()
                if answer.status != 201:
                    self.error(f"new_game:{answer.status}")
                    return False
        except Exception as exc:
            self.error(f"new_game:{type(exc).__name__}")
            return False
        self.spec.game_id, self.spec.seed_text, self.spec.moves = game["id"], text, []
        self.spec.seed = engine.practice_seed(text)
        return await self.connect()

    async def play(self, started: float, deadline: float) -> None:
        interval = 1 / self.phase.player_rate if self.phase.player_rate > 0 else 0.0
        await asyncio.sleep(self.rng.uniform(0, interval))  # players do not move in step
        while time.monotonic() < deadline:
            assert self.state is not None
            options = [m for m in engine.legal_moves(self.state) if not isinstance(m, engine.Undo)]
            if not options or self.ply >= self.phase.game_plies:
                if self.spec.mode != "practice" or not await self.new_practice_game():
                    return
                continue
            move = self.rng.choice(options)
            sent = time.monotonic()
            try:
                await self.ws.send_str(json.dumps({"ply": self.ply, "move": move.to_json()}))
                answer = await asyncio.wait_for(self.answer(), ANSWER_TIMEOUT)
            except Exception as exc:
                self.error(f"socket:{type(exc).__name__}")
                return
            now = time.monotonic()
            if answer.get("type") != "game":
                self.error(str(answer.get("error")))
                return
            self.state = engine.apply_move(self.state, move)
            self.ply = answer["game"]["ply"]
            self.spec.moves.append(move.to_json())
            if now <= deadline:
                self.report["moves"] += 1
                self.report["latencies"].append((now - sent) * 1000)
                if self.phase.stamps:
                    self.report["stamps"].append((self.spec.nickname, self.ply, now))
            pause = interval - (time.monotonic() - sent)
            if pause > 0:
                await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))

    async def answer(self) -> dict[str, Any]:
        """Return the answer to the frame sent at ``self.ply``: an error, or the game at the
        next ply (the push of the new state may overtake the answer; either will do, and a
        copy of an earlier state is skipped)."""
        import aiohttp

        while True:
            message = await self.ws.receive()
            if message.type != aiohttp.WSMsgType.TEXT:
                raise ConnectionError(f"socket closed ({self.ws.close_code})")
            data = json.loads(message.data)
            if data.get("type") == "error":
                return data
            if data.get("type") == "game" and data["game"]["ply"] == self.ply + 1:
                return data


async def players_process(
    specs: list[PlayerSpec], phase: Phase, queue: Any, go: Any, release: Any
) -> None:
    """Connect ``specs``' sockets, wait for the go, play for the phase's duration, report."""
    import aiohttp

    report: dict[str, Any] = {"moves": 0, "latencies": [], "errors": Counter(), "stamps": []}
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        players = [Player(spec, phase, session, report) for spec in specs]
        connected = await asyncio.gather(*(p.connect() for p in players))
        queue.put(("ready", sum(connected)))
        if not await wait_event(go, 120):
            queue.put(("result", report))
            return
        cpu = time.process_time()
        started = time.monotonic()
        deadline = started + phase.duration
        live = [p for p, ok in zip(players, connected, strict=False) if ok]
        await asyncio.gather(*(p.play(started, deadline) for p in live))
        report["client_cpu"] = time.process_time() - cpu
        report["specs"] = [p.spec for p in players]
        for p in players:
            if p.ws is not None:
                with contextlib.suppress(Exception):
                    await p.ws.close()
    report["errors"] = dict(report["errors"])
    queue.put(("result", report))


# --- echo ---------------------------------------------------------------------------------------

ECHO_FRAME = json.dumps(
    {"ply": 17, "move": {"type": "move", "from": "tableau-3", "to": "foundation-5", "count": 1}}
)


async def echo_process(sockets: int, phase: Phase, queue: Any, go: Any, release: Any) -> None:
    """Ping-pong a move-sized frame on ``sockets`` echo sockets, paced like the players."""
    import aiohttp

    report: dict[str, Any] = {"moves": 0, "latencies": [], "errors": Counter()}
    url = f"ws://{HOST}:{phase.port}/echo/"
    interval = 1 / phase.player_rate if phase.player_rate > 0 else 0.0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        sockets_ = await asyncio.gather(
            *(session.ws_connect(url, timeout=CONNECT_TIMEOUT) for _ in range(sockets)),
            return_exceptions=True,
        )
        live = [ws for ws in sockets_ if not isinstance(ws, BaseException)]
        report["errors"]["connect"] = len(sockets_) - len(live)
        queue.put(("ready", len(live)))
        await wait_event(go, 120)
        deadline = time.monotonic() + phase.duration

        async def pingpong(ws: Any, offset: float) -> None:
            await asyncio.sleep(offset)  # as the players: not in step
            while time.monotonic() < deadline:
                sent = time.monotonic()
                await ws.send_str(ECHO_FRAME)
                await asyncio.wait_for(ws.receive(), ANSWER_TIMEOUT)
                now = time.monotonic()
                report["moves"] += 1
                report["latencies"].append((now - sent) * 1000)
                pause = interval - (now - sent)
                if pause > 0:
                    await asyncio.sleep(pause)

        rng = random.Random(phase.seed)
        await asyncio.gather(
            *(pingpong(ws, rng.uniform(0, interval)) for ws in live), return_exceptions=True
        )
        for ws in live:
            await ws.close()
    report["errors"] = dict(report["errors"])
    queue.put(("result", report))


# --- daily sockets: idle holders and watchers ---------------------------------------------------


def progress_entries(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the single progress events of a message (one event, or a batch of them)."""
    if message.get("type") != "progress":
        return []
    if isinstance(message.get("players"), list):
        return [entry for entry in message["players"] if isinstance(entry, dict)]
    return [message]


async def daily_process(
    sockets: int,
    path: str,
    phase: Phase,
    queue: Any,
    go: Any,
    release: Any,
) -> None:
    """Open ``sockets`` daily sockets at once (``extra['concurrency']`` handshakes at a time)
    and report their connect times; after the go, count what they receive for the phase's
    duration; hold them until ``release``. The first ``extra['sample']`` sockets also record
    when they got each progress event (player, ply, time)."""
    import aiohttp

    concurrency = phase.extra.get("concurrency", 100)
    sample = phase.extra.get("sample", 0)
    report: dict[str, Any] = {
        "connected": 0,
        "connect_times": [],
        "first_start": time.monotonic(),
        "last_done": None,
        "errors": Counter(),
        "messages": Counter(),
        "seen": [],
    }
    url = f"ws://{HOST}:{phase.port}{path}"
    window = {"start": float("inf"), "end": float("inf")}
    gate = asyncio.Semaphore(concurrency)
    connect_deadline = time.monotonic() + phase.extra.get("connect_budget", 120)
    settled = 0

    async def hold(session: Any, index: int) -> None:
        nonlocal settled
        async with gate:
            if time.monotonic() > connect_deadline:
                report["errors"]["connect:budget"] += 1
                settled += 1
                return
            started = time.monotonic()
            try:
                ws = await session.ws_connect(
                    url, headers=ws_headers(phase), timeout=CONNECT_TIMEOUT, autoping=True
                )
            except Exception as exc:
                report["errors"][f"connect:{type(exc).__name__}"] += 1
                settled += 1
                return
            done = time.monotonic()
            settled += 1
            report["connected"] += 1
            report["connect_times"].append((done - started) * 1000)
            report["last_done"] = done
        try:
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                now = time.monotonic()
                if not window["start"] <= now <= window["end"]:
                    continue
                data = json.loads(message.data)
                report["messages"][data.get("type", "?")] += 1
                if index < sample:
                    for event in progress_entries(data):
                        report["seen"].append((event.get("player"), event.get("ply"), now))
            if not release.is_set():
                report["errors"][f"closed:{ws.close_code}"] += 1
        finally:
            await ws.close()

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        tasks = [asyncio.create_task(hold(session, i)) for i in range(sockets)]
        while settled < sockets and time.monotonic() < connect_deadline + CONNECT_TIMEOUT:
            await asyncio.sleep(0.02)
        queue.put(("ready", report["connected"]))
        await wait_event(go, phase.extra.get("hold", 600))
        window["start"] = time.monotonic()
        window["end"] = window["start"] + phase.duration
        await wait_event(release, phase.duration + phase.extra.get("hold", 600))
        window["end"] = min(window["end"], time.monotonic())
        report["window"] = window["end"] - window["start"]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    report["errors"] = dict(report["errors"])
    report["messages"] = dict(report["messages"])
    queue.put(("result", report))
