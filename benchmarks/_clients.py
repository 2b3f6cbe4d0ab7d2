"""Simulated clients of the load benchmark, each run in its own process.

A client process gets its share of the work, connects, tells the conductor it is ready, waits
for the go, measures for the phase's duration and puts its raw measurements on the queue. Every
loop is bounded by a deadline; every connection goes to the loopback address only.
"""

from __future__ import annotations

import asyncio
import collections
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
CONNECT_BUDGET = 120.0  # seconds a player keeps trying to open its socket before the window
LAG_TICK = 0.05  # seconds between the event-loop lag probes of a client process


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
    pending: dict[str, Any] | None = None  # sent, its answer not seen (played or not)


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
    line: int = 0  # legal moves each player computes before the go (0: each move as it goes)
    connect_concurrency: int = 64  # handshakes at a time in one client process
    extra: dict[str, Any] = field(default_factory=dict)


def run_process(target: Any, args: tuple[Any, ...]) -> None:
    """Entry point of a client process: run ``target(*args)`` on a fresh event loop (uvloop's
    when it is installed: the clients should cost the machine as little as they can)."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(target(*args))
    else:
        uvloop.run(target(*args))


def retry_delay(answer: dict[str, Any] | None, rng: random.Random, default: float = 1.0) -> float:
    """Return how long a client waits before it tries again: the server's ``retry_after``
    (seconds) or ``default``, times 1 + a random fraction, so that refused clients spread out."""
    after = (answer or {}).get("retry_after")
    base = float(after) if isinstance(after, int | float) and after >= 0 else default
    return base * (1 + rng.random())


class LagProbe:
    """Measure how late a client process's event loop wakes up (a busy client shows here)."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(LAG_TICK)
            self.lags.append((time.monotonic() - before - LAG_TICK) * 1000)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def stop(self) -> list[float]:
        if self._task is not None:
            self._task.cancel()
        return self.lags


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
    """One player: a socket on its game, sending legal moves one at a time.

    The moves come from a line the player computed with the engine before the go (``Phase.line``
    moves), else from the legal moves of its position as it goes. A refusal ``unavailable`` (at
    the handshake or on a move) is counted apart, with its ``retry_after``; the player waits
    ``retry_after`` × (1 + random) and opens its socket again, resuming at the game's ply.
    """

    def __init__(self, spec: PlayerSpec, phase: Phase, session: Any, report: dict[str, Any]):
        self.spec = spec
        self.phase = phase
        self.session = session
        self.report = report
        self.rng = random.Random(hash((spec.nickname, phase.seed)))
        self.ws: Any = None
        self.state: engine.State | None = None
        self.ply = 0
        self.line: collections.deque[engine.AnyMove] = collections.deque()

    @property
    def url(self) -> str:
        return (
            f"ws://{HOST}:{self.phase.port}/ws/games/{self.spec.game_id}/?token={self.spec.token}"
        )

    def error(self, code: str) -> None:
        self.report["errors"][code] += 1

    def refused(self, answer: dict[str, Any], where: str) -> float:
        """Count an ``unavailable`` refusal and return how long to wait before trying again."""
        self.report["unavailable"][where] += 1
        if isinstance(answer.get("retry_after"), int | float):
            self.report["retry_after"].append(float(answer["retry_after"]))
        return retry_delay(answer, self.rng)

    def options(self, state: engine.State) -> list[engine.AnyMove]:
        return [m for m in engine.legal_moves(state) if not isinstance(m, engine.Undo)]

    def prepare(self, length: int) -> None:
        """Compute the next ``length`` moves from the player's position (fewer if it sticks)."""
        assert self.state is not None
        state = self.state
        self.line.clear()
        for _ in range(length):
            options = self.options(state)
            if not options:
                break
            move = self.rng.choice(options)
            state = engine.apply_move(state, move)
            self.line.append(move)

    def next_move(self) -> engine.AnyMove | None:
        if self.line:
            return self.line.popleft()
        assert self.state is not None
        options = self.options(self.state)
        return self.rng.choice(options) if options else None

    async def connect(self, budget: float = CONNECT_BUDGET) -> bool:
        """Open the game's socket and check the first state against the client's deal (trying
        again after an ``unavailable`` refusal, within ``budget`` seconds)."""
        deadline = time.monotonic() + budget
        while True:
            outcome, answer = await self.open_socket()
            if outcome != "unavailable":
                return outcome == "ok"
            wait = self.refused(answer, "connect")
            if time.monotonic() + wait > deadline:
                self.error("connect:gave_up")
                return False
            await asyncio.sleep(wait)

    async def open_socket(self) -> tuple[str, dict[str, Any]]:
        """Open the socket once: ("ok" | "unavailable" | "failed", the first message). A move
        whose answer was never seen counts as played if the game is one ply on, else it is
        the next to send."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
            self.ws = None
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
            return "failed", {}
        if first.get("type") != "game":
            if first.get("error") == "unavailable":
                return "unavailable", first
            self.error(f"connect:{first.get('error', first.get('type'))}")
            return "failed", first
        game = first["game"]
        # The client's own deal, brought to the moves it saw answered.
        self.state = engine.deal(engine.builtin_variant(self.spec.slug), self.spec.seed)
        for move in self.spec.moves:
            self.state = engine.apply_move(self.state, engine.parse_move(move))
        if self.spec.pending is not None:
            pending = engine.parse_move(self.spec.pending)
            if game["ply"] == len(self.spec.moves) + 1:
                self.commit(pending)
            else:
                self.spec.pending = None
                self.line.appendleft(pending)  # not played: send it again
        self.ply = game["ply"]
        if self.ply != len(self.spec.moves) or not view_matches(self.state, game):
            self.error("deal_mismatch")
            return "failed", first
        return "ok", first

    def commit(self, move: engine.AnyMove) -> None:
        assert self.state is not None
        self.state = engine.apply_move(self.state, move)
        self.spec.moves.append(move.to_json())
        self.spec.pending = None

    async def rejoin(self, deadline: float, answer: dict[str, Any]) -> bool:
        """Wait as the server asked (or a second), then open the socket again, until the
        window's end. Return whether the player may go on."""
        wait = retry_delay(answer, self.rng)
        while time.monotonic() + wait < deadline:
            await asyncio.sleep(wait)
            outcome, first = await self.open_socket()
            if outcome == "ok":
                return True
            if outcome == "failed":
                return False
            wait = self.refused(first, "reconnect")
        return False

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
        self.line.clear()
        return await self.connect()

    async def play(self, started: float, deadline: float) -> None:
        interval = 1 / self.phase.player_rate if self.phase.player_rate > 0 else 0.0
        await asyncio.sleep(self.rng.uniform(0, interval))  # players do not move in step
        while time.monotonic() < deadline:
            move = self.next_move()
            if move is None or self.ply >= self.phase.game_plies:
                if self.spec.mode != "practice" or not await self.new_practice_game():
                    return
                continue
            sent = time.monotonic()
            self.report["sent"] += 1
            self.spec.pending = move.to_json()
            try:
                await self.ws.send_str(json.dumps({"ply": self.ply, "move": move.to_json()}))
                answer = await self.answer()
            except Exception as exc:
                self.error(f"socket:{type(exc).__name__}")
                if not await self.rejoin(deadline, {}):
                    return
                continue
            now = time.monotonic()
            if answer.get("type") != "game":
                if answer.get("error") != "unavailable":
                    self.error(str(answer.get("error")))
                    self.spec.pending = None  # refused: not played
                    return
                self.refused(answer, "move")
                if not await self.rejoin(deadline, answer):
                    return
                continue
            self.commit(move)
            self.ply = answer["game"]["ply"]
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
        copy of an earlier state is skipped). Raise TimeoutError after ANSWER_TIMEOUT."""
        import aiohttp

        while True:
            # receive's own timeout, not wait_for: no task made per move (the clients' CPU)
            message = await self.ws.receive(timeout=ANSWER_TIMEOUT)
            if message.type != aiohttp.WSMsgType.TEXT:
                raise ConnectionError(f"socket closed ({self.ws.close_code})")
            data = json.loads(message.data)
            if data.get("type") == "error":
                return data
            if data.get("type") == "game" and data["game"]["ply"] == self.ply + 1:
                return data


def new_report() -> dict[str, Any]:
    return {
        "moves": 0,
        "sent": 0,
        "latencies": [],
        "errors": Counter(),
        "unavailable": Counter(),
        "retry_after": [],
        "stamps": [],
    }


async def players_process(
    specs: list[PlayerSpec], phase: Phase, queue: Any, go: Any, release: Any
) -> None:
    """Connect ``specs``' sockets (``phase.connect_concurrency`` handshakes at a time), compute
    each player's line of moves, wait for the go, play for the phase's duration, report."""
    import aiohttp

    report = new_report()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT)
    gate = asyncio.Semaphore(phase.connect_concurrency)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        players = [Player(spec, phase, session, report) for spec in specs]

        async def ready(player: Player) -> bool:
            async with gate:
                if not await player.connect():
                    return False
            if phase.line:
                player.prepare(phase.line)
                await asyncio.sleep(0)  # let the other handshakes go on
            return True

        connected = await asyncio.gather(*(ready(p) for p in players))
        queue.put(("ready", sum(connected)))
        if not await wait_event(go, 120):
            queue.put(("result", report))
            return
        probe = LagProbe()
        probe.start()
        cpu = time.process_time()
        started = time.monotonic()
        deadline = started + phase.duration
        live = [p for p, ok in zip(players, connected, strict=False) if ok]
        await asyncio.gather(*(p.play(started, deadline) for p in live))
        report["client_cpu"] = time.process_time() - cpu
        report["client_elapsed"] = time.monotonic() - started
        report["lags"] = probe.stop()
        report["specs"] = [p.spec for p in players]
        for p in players:
            if p.ws is not None:
                with contextlib.suppress(Exception):
                    await p.ws.close()
    for key in ("errors", "unavailable"):
        report[key] = dict(report[key])
    queue.put(("result", report))


# --- echo ---------------------------------------------------------------------------------------

ECHO_FRAME = json.dumps(
    {"ply": 17, "move": {"type": "move", "from": "tableau-3", "to": "foundation-5", "count": 1}}
)


async def echo_process(sockets: int, phase: Phase, queue: Any, go: Any, release: Any) -> None:
    """Ping-pong a move-sized frame on ``sockets`` echo sockets, paced like the players (as
    fast as answers come when ``phase.player_rate`` is 0)."""
    import aiohttp

    report: dict[str, Any] = {"moves": 0, "latencies": [], "errors": Counter()}
    url = f"ws://{HOST}:{phase.port}/echo/"
    interval = 1 / phase.player_rate if phase.player_rate > 0 else 0.0
    gate = asyncio.Semaphore(phase.connect_concurrency)

    async def open_one(session: aiohttp.ClientSession) -> Any:
        async with gate:
            return await session.ws_connect(url, timeout=CONNECT_TIMEOUT)

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        sockets_ = await asyncio.gather(
            *(open_one(session) for _ in range(sockets)), return_exceptions=True
        )
        live = [ws for ws in sockets_ if not isinstance(ws, BaseException)]
        report["errors"]["connect"] = len(sockets_) - len(live)
        queue.put(("ready", len(live)))
        await wait_event(go, 120)
        probe = LagProbe()
        probe.start()
        cpu = time.process_time()
        started = time.monotonic()
        deadline = started + phase.duration

        async def pingpong(ws: Any, offset: float) -> None:
            await asyncio.sleep(offset)  # as the players: not in step
            while time.monotonic() < deadline:
                sent = time.monotonic()
                await ws.send_str(ECHO_FRAME)
                await ws.receive(timeout=ANSWER_TIMEOUT)
                now = time.monotonic()
                if now <= deadline:
                    report["moves"] += 1
                    report["latencies"].append((now - sent) * 1000)
                pause = interval - (now - sent)
                if pause > 0:
                    await asyncio.sleep(min(pause, max(0.0, deadline - now)))

        rng = random.Random(phase.seed)
        outcomes = await asyncio.gather(
            *(pingpong(ws, rng.uniform(0, interval)) for ws in live), return_exceptions=True
        )
        report["client_cpu"] = time.process_time() - cpu
        report["client_elapsed"] = time.monotonic() - started
        report["lags"] = probe.stop()
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                report["errors"][f"socket:{type(outcome).__name__}"] += 1
        for ws in live:
            await ws.close()
    report["errors"] = {k: v for k, v in report["errors"].items() if v}
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
