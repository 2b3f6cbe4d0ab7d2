"""The fast path of a move: one SQL statement in autocommit, when nothing about it is unusual.

A move in play whose position this process has cached is applied by the engine first, then
written by one statement: it updates the game row only if it still is at the move's ply, in
play, the player's, and (a daily game) of a day not over and of a player not banned, and in the
same statement appends the sealed move row and reads back what the answer shows. Nothing is
locked beyond that row update, and PostgreSQL orders two statements on one row: the second sees
the new ply and matches nothing.

``move_append`` returns None whenever the fast path does not apply (another database than
PostgreSQL, a position not cached, an illegal or winning move, a statement that matched no row):
the caller then takes the locking path, which gives the exact refusal, closes a day that is over
and verifies a finished game. Nothing was written in that case. So a result is still written
only by the locking path, after verification.

This is the move of the REST endpoint, on a thread; the game socket's ordinary move is written
on the event loop, many moves to a statement (``games.services.batches``), with the same
conditions.

The statement waits for its WAL record to reach the disk before it answers, as every write of
the service does: an acknowledged move survives a crash of PostgreSQL. ``MOVES_SYNCHRONOUS_COMMIT
=false`` is the documented opt-out (``synchronous_commit`` off for the statement's own
transaction, only in autocommit): a crash of PostgreSQL may then lose the last fraction of a
second of ordinary moves, each with its game row, so the game is whole at an earlier ply and the
client is told so (``stale_ply``) on its next move, never a result: a finish, a resignation, a
void and every result always wait for the flush, and their flush carries every earlier move.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from games import clock, positions, signals
from games.engine import IllegalMove, State, apply_move, is_stuck, state_to_json
from games.models import Deal, Game, Move, Player, Variant
from games.verification.seals import move_seal

# What a move reads of the game row (with its variant's slug and its deal's date).
MOVE_COLUMNS = (
    "id",
    "player_id",
    "variant_id",
    "variant__slug",
    "mode",
    "deal_id",
    "deal__date",
    "seed_text",
    "seed_chosen",
    "ply",
    "status",
    "stuck",
    "can_undo",
    "foundation_cards",
    "verified",
    "assisted",
    "started_at",
    "first_move_at",
    "last_move_at",
    "finished_at",
    "void_reason",
)

# Those of the game row itself, in the model's order (``Model.from_db``); the slug and the date
# come from the statement's joins.
RETURNED = [field for field in Game._meta.concrete_fields if field.attname in MOVE_COLUMNS]
RETURNED_NAMES = [field.attname for field in RETURNED]

MOVE_SQL = f"""
WITH moved AS (
    UPDATE {Game._meta.db_table} AS g
    SET ply = g.ply + 1,
        state = %(state)s::jsonb,
        foundation_cards = %(foundation_cards)s,
        first_move_at = COALESCE(g.first_move_at, %(at)s),
        last_move_at = %(at)s,
        stuck = %(stuck)s,
        can_undo = %(can_undo)s
    WHERE g.id = %(game)s
      AND g.ply = %(ply)s
      AND g.status = %(playing)s
      AND g.player_id = %(player)s
      AND (g.mode <> %(daily)s OR (
          EXISTS (SELECT 1 FROM {Deal._meta.db_table} AS d
                  WHERE d.id = g.deal_id AND d.date >= %(today)s)
          AND NOT EXISTS (SELECT 1 FROM {Player._meta.db_table} AS p
                          WHERE p.id = g.player_id AND p.banned_at IS NOT NULL)))
    RETURNING {", ".join(f"g.{field.column}" for field in RETURNED)}
), appended AS (
    INSERT INTO {Move._meta.db_table} (game_id, ply, move, at, seal)
    SELECT moved.id, %(ply)s, %(move)s::jsonb, %(at)s, %(seal)s FROM moved
), committing AS (
    SELECT set_config('synchronous_commit', %(synchronous_commit)s, true)
)
SELECT moved.*, v.slug, d.date
FROM moved
CROSS JOIN committing
JOIN {Variant._meta.db_table} AS v ON v.id = moved.variant_id
LEFT JOIN {Deal._meta.db_table} AS d ON d.id = moved.deal_id
"""


class _PreparedCursor(psycopg.Cursor[Any]):
    """A psycopg cursor that binds its parameters on the server and has PostgreSQL prepare each
    statement once per connection (Django's own cursors bind on the client and prepare nothing,
    so PostgreSQL would parse and plan the move's statement again for every move)."""

    def execute(self, query: Any, params: Any = None, **options: Any) -> Any:  # type: ignore[override]
        options.setdefault("prepare", True)
        return super().execute(query, params, **options)


def _move_cursor() -> CursorWrapper:
    """Return a cursor of the thread's connection for the move's statement, the same on every
    move: one whose statements PostgreSQL prepares once per connection, wrapped as Django wraps
    its own (database errors translated, execute wrappers run). Where queries are logged
    (``DEBUG``, a test counting them), Django's own cursor instead: its log shows the statement
    with its values, which a server-bound cursor does not give Django to log."""
    if connection.queries_logged:
        return connection.cursor()
    connection.ensure_connection()
    return connection.make_cursor(_PreparedCursor(connection.connection))


def fast_path_applies() -> bool:
    """Whether the database can run the one-statement move (PostgreSQL's data-modifying CTE)."""
    return connection.vendor == "postgresql"


def _may_skip_flush() -> bool:
    """Whether the statement may commit without waiting for the WAL flush: only in autocommit,
    where its transaction is its own (inside a caller's transaction, the setting would last
    until that transaction's commit, which may write a result), and unless
    ``MOVES_SYNCHRONOUS_COMMIT``."""
    return not settings.MOVES_SYNCHRONOUS_COMMIT and not connection.in_atomic_block


def ordinary_position(*, game_id: str, ply: int, move: Any) -> State | None:
    """Return the position after ``move`` (an engine move) at ``ply`` when the move is ordinary
    here: its game's position at that ply is cached, the move is legal and does not win. Else
    None: the locking path takes it."""
    before = positions.cache.get(game_id, ply)
    if before is None:
        return None
    try:
        state = apply_move(before, move)
    except IllegalMove:
        return None  # the locking path words the refusal (or a game over, a stale ply first)
    if state.won:
        return None  # a finish is verified, and its result written, under the row lock
    return state


def move_append(*, game_id: str, player: Player, ply: int, move: Any) -> Game | None:
    """Apply ``move`` (an engine move) at ``ply`` in one statement; return the game, or None
    when the fast path does not apply and nothing was written (see the module docstring)."""
    if not fast_path_applies():
        return None
    state = ordinary_position(game_id=game_id, ply=ply, move=move)
    if state is None:
        return None
    now = clock.now()
    logged = move.to_json()
    params = {
        "game": game_id,
        "ply": ply,
        "player": player.pk,
        "playing": Game.Status.PLAYING.value,
        "daily": Game.Mode.DAILY.value,
        "today": now.date(),  # the day of clock.today(), at the move's own moment
        "state": json.dumps(state_to_json(state)),
        "foundation_cards": state.foundation_cards(),
        "stuck": is_stuck(state),
        "can_undo": state.previous is not None,
        "at": now,
        "move": json.dumps(logged),
        "seal": move_seal(game_id=game_id, ply=ply, move=logged, at=now),
        "synchronous_commit": "off" if _may_skip_flush() else "on",
    }
    with _move_cursor() as cursor:
        cursor.execute(MOVE_SQL, params)
        row = cursor.fetchone()
    if row is None:
        return None
    game = game_from_row(row, player=player, state=state)
    transaction.on_commit(lambda: positions.remember(game, state))
    transaction.on_commit(lambda: signals.send(signals.game_changed, game=game))
    return game


def game_from_row(row: Any, *, player: Player, state: Any) -> Game:
    """Return the game of a move statement's row (the ``RETURNED`` columns, then the variant's
    slug and the deal's date), with its player and its new position: what the answer shows,
    with no further query."""
    count = len(RETURNED)
    game = Game.from_db(connection.alias, RETURNED_NAMES, row[:count])
    variant_id, deal_id = game.variant_id, game.deal_id
    game.variant = Variant.from_db(connection.alias, ["id", "slug"], [variant_id, row[count]])
    if deal_id is not None:
        game.deal = Deal.from_db(connection.alias, ["id", "date"], [deal_id, row[count + 1]])
    game.player = player  # the payload names the player: no query for it
    game.position = state
    return game
