"""The ordinary move of a game socket, on the event loop, written by group commit.

``games.services.moves`` writes one ordinary move in one statement, on a thread, with Django's
connection. Here the same move is written without leaving the event loop: ``move_play``
applies the move to the cached position, then hands its row to the loop's writer and awaits it.
The writer sends every move queued meanwhile in **one statement** (``BATCH_SQL``: the same
conditions as the single move's, one input row per move), on the loop's asynchronous pool
(``core.database``), and answers each move once the statement has committed: with its game row,
or with None when its row matched nothing (another tab moved first, the game ended, the day is
over, the player was banned). So a thousand moves a second cost tens of statements and tens of
WAL flushes, and each socket is answered only when its own move is durable.

What the writer keeps:

- **One move per game per statement**, and never two statements of one game in flight: a
  game's later move waits for the statement of its earlier one, so each game's moves are
  applied in the order they came, and the row conditions (``g.ply = i.ply``) stay exact.
- **Durable by default**: each statement commits with ``synchronous_commit`` on, one WAL flush
  for every move in it. ``MOVES_SYNCHRONOUS_COMMIT=false`` turns the wait off (a crash of
  PostgreSQL may then lose the last moves acknowledged, never a result).
- **At most** ``DATABASE_LOOP_CONNECTIONS`` statements in flight per loop, each on its own
  connection; moves queue while they run, which is what makes the next statement larger.
- **A bounded queue**: ``backlog()`` counts the moves waiting; ``core.admission`` refuses new
  games and sockets while it is over ``ADMISSION_MOVE_BACKLOG``. A move already accepted is
  never dropped: it waits, or fails its socket (``unavailable``) if the database fails.

Nothing but an ordinary move goes this way: a move that is illegal, wins, or whose position is
not cached, and any move whose row matched nothing, takes the locking path
(``games.services.game_move`` on a thread), which words the refusal, closes a day that is over
and verifies a finished game. Nothing was written in those cases.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson
from django.conf import settings

from core import database, metrics
from games import clock, positions, selectors, signals
from games.engine import State, is_stuck, state_to_json
from games.models import Deal, Game, Move, Player, Variant
from games.services.games import check_move, check_ply
from games.services.moves import RETURNED, game_from_row, ordinary_position
from games.verification.seals import move_seal

logger = logging.getLogger(__name__)

STATS_SECONDS = 5.0

BATCH_SQL = f"""
WITH input AS (
    SELECT * FROM jsonb_to_recordset(%(rows)s::jsonb) AS i(
        game text, ply int, player bigint, today date, state jsonb, foundation_cards int,
        stuck bool, can_undo bool, at timestamptz, move jsonb, seal text
    )
), moved AS (
    UPDATE {Game._meta.db_table} AS g
    SET ply = g.ply + 1,
        state = i.state,
        foundation_cards = i.foundation_cards,
        first_move_at = COALESCE(g.first_move_at, i.at),
        last_move_at = i.at,
        stuck = i.stuck,
        can_undo = i.can_undo
    FROM input AS i
    WHERE g.id = i.game
      AND g.ply = i.ply
      AND g.status = %(playing)s
      AND g.player_id = i.player
      AND (g.mode <> %(daily)s OR (
          EXISTS (SELECT 1 FROM {Deal._meta.db_table} AS d
                  WHERE d.id = g.deal_id AND d.date >= i.today)
          AND NOT EXISTS (SELECT 1 FROM {Player._meta.db_table} AS p
                          WHERE p.id = g.player_id AND p.banned_at IS NOT NULL)))
    RETURNING {", ".join(f"g.{column.column}" for column in RETURNED)},
        i.ply AS logged_ply, i.move AS logged_move, i.at AS logged_at, i.seal AS logged_seal
), appended AS (
    INSERT INTO {Move._meta.db_table} (game_id, ply, move, at, seal)
    SELECT moved.id, moved.logged_ply, moved.logged_move, moved.logged_at, moved.logged_seal
    FROM moved
), committing AS (
    SELECT set_config('synchronous_commit', %(synchronous_commit)s, true)
)
SELECT {", ".join(f"moved.{column.column}" for column in RETURNED)}, v.slug, d.date
FROM moved
CROSS JOIN committing
JOIN {Variant._meta.db_table} AS v ON v.id = moved.variant_id
LEFT JOIN {Deal._meta.db_table} AS d ON d.id = moved.deal_id
"""


@dataclass
class Pending:
    """One move waiting for the writer: its input row and the future its socket awaits."""

    game_id: str
    row: dict[str, Any]
    future: asyncio.Future[tuple[Any, ...] | None]


@dataclass
class Figures:
    """What the writer did since its figures were last logged."""

    statements: int = 0
    moves: int = 0
    seconds: float = 0.0
    since: float = field(default_factory=time.monotonic)


class Writer:
    """The group-commit writer of one event loop (see the module docstring)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queues: dict[str, deque[Pending]] = {}  # by game, in arrival order
        self.waiting = 0
        self.busy: set[str] = set()  # games with a statement in flight
        self.flying = 0
        self.scheduled = False
        self.figures = Figures()

    def submit(self, game_id: str, row: dict[str, Any]) -> asyncio.Future[Any]:
        """Queue a move's row; the statement starts once the loop's current turn is over, so
        every move submitted in that turn joins it."""
        pending = Pending(game_id, row, self.loop.create_future())
        self.queues.setdefault(game_id, deque()).append(pending)
        self.waiting += 1
        if not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self._start)
        return pending.future

    def _take(self) -> list[Pending]:
        """Take the first waiting move of every game that has no statement in flight."""
        taken = []
        for game_id, queue in list(self.queues.items()):
            if game_id in self.busy:
                continue
            taken.append(queue.popleft())
            if not queue:
                del self.queues[game_id]
        self.waiting -= len(taken)
        return taken

    def _start(self) -> None:
        self.scheduled = False
        while self.flying < database.pool_size():
            batch = self._take()
            if not batch:
                return
            self.flying += 1
            self.busy.update(pending.game_id for pending in batch)
            self.loop.create_task(self._write(batch))

    async def _write(self, batch: list[Pending]) -> None:
        started = time.monotonic()
        try:
            rows = await self._execute(batch)
        except BaseException as error:  # every move of the batch fails with its statement
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(error)
            if not isinstance(error, Exception):
                raise
        else:
            metrics.MOVE_BATCH_SIZE.observe(len(batch))
            metrics.MOVES.labels(path="batched").inc(len(rows))
            by_game = {row[0]: row for row in rows}
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_result(by_game.get(pending.game_id))
        finally:
            self.flying -= 1
            self.busy.difference_update(pending.game_id for pending in batch)
            self._count(len(batch), time.monotonic() - started)
            self._start()

    async def _execute(self, batch: list[Pending]) -> list[tuple[Any, ...]]:
        # One JSON document of every row: PostgreSQL parses it once, where arrays of JSON text
        # cost psycopg an escaping pass per element (a third of a worker's time, profiled).
        rows = orjson.dumps([pending.row for pending in batch], option=orjson.OPT_NON_STR_KEYS)
        params: dict[str, Any] = {"rows": rows.decode()}
        params["playing"] = Game.Status.PLAYING.value
        params["daily"] = Game.Mode.DAILY.value
        params["synchronous_commit"] = "on" if settings.MOVES_SYNCHRONOUS_COMMIT else "off"
        pool = await database.pool()
        async with pool.connection() as connection:
            cursor = await connection.execute(BATCH_SQL, params)
            return await cursor.fetchall()

    def _count(self, moves: int, seconds: float) -> None:
        figures = self.figures
        figures.statements += 1
        figures.moves += moves
        figures.seconds += seconds
        now = time.monotonic()
        if now - figures.since >= STATS_SECONDS:
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "moves written: %d in %d statements (%.1f each, %.1f ms each), %d waiting",
                    figures.moves,
                    figures.statements,
                    figures.moves / figures.statements,
                    figures.seconds * 1000 / figures.statements,
                    self.waiting,
                )
            self.figures = Figures(since=now)


_writers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Writer] = weakref.WeakKeyDictionary()


def writer() -> Writer:
    """Return the running loop's writer."""
    loop = asyncio.get_running_loop()
    found = _writers.get(loop)
    if found is None:
        found = _writers[loop] = Writer(loop)
    return found


def applies() -> bool:
    """Whether moves can be written here (PostgreSQL: the batch is a data-modifying CTE)."""
    return database.available()


def backlog() -> int:
    """Return the moves waiting for a statement, in every loop of this process."""
    return sum(found.waiting for found in list(_writers.values()))


def backlog_over_limit() -> bool:
    """Whether the moves waiting exceed ``ADMISSION_MOVE_BACKLOG`` (``core.admission``)."""
    return backlog() > settings.ADMISSION_MOVE_BACKLOG


def move_row(*, game_id: str, player: Player, ply: int, move: Any, state: State) -> dict[str, Any]:
    """Return the input row of a move at ``ply`` that leads to ``state``."""
    now = clock.now()
    logged = move.to_json()
    return {
        "game": game_id,
        "ply": ply,
        "player": player.pk,
        "today": now.date().isoformat(),  # the day of clock.today(), at the move's own moment
        "state": state_to_json(state),
        "foundation_cards": state.foundation_cards(),
        "stuck": is_stuck(state),
        "can_undo": state.previous is not None,
        "at": now.isoformat(),
        "move": logged,
        "seal": move_seal(game_id=game_id, ply=ply, move=logged, at=now),
    }


def prepare(*, game_id: str, player: Player, ply: int, move: Any) -> tuple[State, dict] | None:
    """Return the position after an ordinary ``move`` at ``ply`` and its input row, or None when
    the move is not ordinary here (position not cached, illegal, a win)."""
    state = ordinary_position(game_id=game_id, ply=ply, move=move)
    if state is None:
        return None
    return state, move_row(game_id=game_id, player=player, ply=ply, move=move, state=state)


_notifying: set[asyncio.Task[None]] = set()


async def move_play(*, game_id: Any, player: Player, ply: Any, move: Any) -> Game | None:
    """Apply an ordinary move at ``ply`` (a MOVE object, checked here: ``invalid`` when
    malformed) and write it with the loop's other moves; return the game once the move is
    durable, or None when this path does not apply and nothing was written (see the module
    docstring). ``games.signals.move_played`` goes out once the move is written, without
    delaying the answer."""
    game_id = selectors.check_game_id(game_id)
    expected = check_ply(ply)
    parsed = check_move(move)
    if not applies():
        return None
    prepared = prepare(game_id=game_id, player=player, ply=expected, move=parsed)
    if prepared is None:
        return None
    state, row = prepared
    found = await writer().submit(game_id, row)
    if found is None:
        return None
    game = game_from_row(found, player=player, state=state)
    positions.remember(game, state)
    task = asyncio.get_running_loop().create_task(signals.asend(signals.move_played, game=game))
    _notifying.add(task)
    task.add_done_callback(_notifying.discard)
    return game


async def drain() -> None:
    """Wait for the notifications of the moves written on this loop (tests, a clean shutdown)."""
    loop = asyncio.get_running_loop()
    pending = [task for task in _notifying if task.get_loop() is loop]
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
