"""Results no one can forge: a daily result is computed by replaying its deal, then sealed.

Each test edits the database as an attacker with write access would, then checks that the
leaderboard shows nothing the server did not prove.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.cache import cache
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games import clock, services
from games.engine import legal_moves
from games.models import Deal, Game, Move, Player, Result, VerificationFailure
from games.verification.seals import seal_is_valid

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
BOARD = "/api/leaderboards/caprice/2026-12-01/"
DAILY = {"variant": "caprice", "mode": "daily"}


def play(client: APIClient, game_id: str, plies: int, start: int = 0) -> dict[str, Any]:
    """Make ``plies`` legal moves (never undo) and return the last answer."""
    answer: dict[str, Any] = {}
    for ply in range(start, start + plies):
        state = services.engine_state(Game.objects.get(pk=game_id))
        move = next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")
        response = client.post(f"/api/games/{game_id}/moves/", {"ply": ply, "move": move}, "json")
        assert response.status_code == 200, response.json()
        answer = response.json()
    return answer


def board() -> list[dict[str, Any]]:
    """Return the deal's leaderboard as it would be rebuilt from the database now."""
    cache.clear()
    with clock.frozen(NOON):
        answer = APIClient().get(BOARD)
    assert answer.status_code == 200
    return answer.json()["entries"]


def players(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["player"] for entry in entries]


@pytest.fixture
def honest(join) -> dict[str, Any]:
    """Alice and Bob each played a few moves of today's Caprice and resigned: both rank."""
    clients = {"Alice": join("Alice"), "Bob": join("Bob")}
    games = {}
    with clock.frozen(NOON):
        for name, client in clients.items():
            game = client.post("/api/games/", DAILY, "json").json()
            play(client, game["id"], 3 if name == "Alice" else 2)
            assert client.post(f"/api/games/{game['id']}/resign/").status_code == 200
            games[name] = game["id"]
    return {"clients": clients, "games": games}


def test_an_honest_resigned_game_ranks_with_the_figures_its_replay_proves(honest) -> None:
    entries = board()
    assert players(entries) == ["Alice", "Bob"] or players(entries) == ["Bob", "Alice"]
    result = Result.objects.get(game_id=honest["games"]["Alice"])
    assert seal_is_valid(result)
    assert (result.moves, result.status) == (3, "resigned")
    assert Deal.objects.get(pk=result.deal_id).results_count == 2


def test_a_result_edited_in_the_database_never_ranks(honest) -> None:
    # when Alice's sealed result is given more cards
    Result.objects.filter(game_id=honest["games"]["Alice"]).update(foundation_cards=52)

    # then it fails its seal and hides itself
    assert players(board()) == ["Bob"]


def test_a_forged_result_row_never_ranks(join) -> None:
    # given Carol's game still playing, and a result row written for it by hand
    carol = join("Carol")
    with clock.frozen(NOON):
        game = Game.objects.get(pk=carol.post("/api/games/", DAILY, "json").json()["id"])
    Result.objects.create(
        game=game,
        deal_id=game.deal_id,
        player_id=game.player_id,
        status="won",
        foundation_cards=52,
        moves=60,
        duration_ms=1000,
        finished_at=NOON,
        seal="0" * 64,
        verified_at=NOON,
    )

    assert board() == []


@pytest.mark.parametrize(
    ("column", "value"),
    [("foundation_cards", 40), ("ply", 1), ("status", "won")],
)
def test_a_game_row_edited_while_playing_never_ranks(join, column: str, value: Any) -> None:
    # given Carol's daily game with moves, whose row is then edited
    carol = join("Carol")
    with clock.frozen(NOON):
        game = carol.post("/api/games/", DAILY, "json").json()
        play(carol, game["id"], 2)
        Game.objects.filter(pk=game["id"]).update(**{column: value})

        # when she resigns (or the edit claims a win: the day ends)
        carol.post(f"/api/games/{game['id']}/resign/")
    with clock.frozen(NOON + dt.timedelta(days=1)):
        services.games_close_expired()

    # then nothing ranks, and admins can see why
    assert board() == []
    assert not Result.objects.filter(game_id=game["id"]).exists()
    if column != "status":
        assert VerificationFailure.objects.filter(game_id=game["id"]).exists()


def test_setting_verified_on_a_game_that_never_verified_ranks_nothing(join) -> None:
    # given Carol's game, refused at verification because its stored position was edited
    carol = join("Carol")
    with clock.frozen(NOON):
        game = carol.post("/api/games/", DAILY, "json").json()
        stored = Game.objects.get(pk=game["id"])
        stored.state["piles"][0]["cards"] = ["KS"]
        stored.save()
        carol.post(f"/api/games/{game['id']}/resign/")
    assert Game.objects.get(pk=game["id"]).verified is False
    assert VerificationFailure.objects.get(game_id=game["id"]).reason == "state"

    # when the flag is set by hand
    Game.objects.filter(pk=game["id"]).update(verified=True)

    # then the board still ranks nothing
    assert board() == []


def test_a_practice_game_switched_to_daily_never_ranks(join) -> None:
    # given a practice game played a little, then turned into a daily game of today's deal
    carol = join("Carol")
    with clock.frozen(NOON):
        deal_id = Game.objects.get(pk=carol.post("/api/games/", DAILY, "json").json()["id"]).deal_id
        Game.objects.filter(player__nickname="Carol").delete()
        practice = carol.post(
            "/api/games/", {"variant": "caprice", "mode": "practice", "seed": "easy"}, "json"
        ).json()
        play(carol, practice["id"], 3)
        Game.objects.filter(pk=practice["id"]).update(mode="daily", deal_id=deal_id)

        # when it is resigned as a daily game
        carol.post(f"/api/games/{practice['id']}/resign/")

    # then its seed is not the deal's: it never ranks
    assert board() == []
    assert VerificationFailure.objects.get(game_id=practice["id"]).reason == "seed"


def test_a_practice_log_copied_into_a_daily_row_never_ranks(join) -> None:
    # given Carol's daily game, and a practice game of hers played further
    carol = join("Carol")
    with clock.frozen(NOON):
        daily = Game.objects.get(pk=carol.post("/api/games/", DAILY, "json").json()["id"])
        practice = carol.post(
            "/api/games/", {"variant": "caprice", "mode": "practice", "seed": "easy"}, "json"
        ).json()
        play(carol, practice["id"], 4)
        source = Game.objects.get(pk=practice["id"])

        # when its seed, log and state are copied into the daily row
        Game.objects.filter(pk=daily.pk).update(
            seed=source.seed,
            state=source.state,
            ply=source.ply,
            foundation_cards=source.foundation_cards,
        )
        Move.objects.bulk_create(
            Move(game=daily, ply=row.ply, move=row.move, at=row.at, seal=row.seal)
            for row in Move.objects.filter(game=source)
        )
        carol.post(f"/api/games/{daily.pk}/resign/")

    # then it never ranks
    assert board() == []
    assert VerificationFailure.objects.filter(game_id=daily.pk).exists()


def test_a_move_row_edited_in_the_database_fails_verification(join) -> None:
    carol = join("Carol")
    with clock.frozen(NOON):
        game = carol.post("/api/games/", DAILY, "json").json()
        play(carol, game["id"], 2)
        first = Move.objects.get(game_id=game["id"], ply=0)
        Move.objects.filter(pk=first.pk).update(at=first.at - dt.timedelta(hours=1))
        carol.post(f"/api/games/{game['id']}/resign/")

    assert board() == []
    assert VerificationFailure.objects.get(game_id=game["id"]).reason == "move_seal"


# --- property: tampering any single stored column never ranks a different result ------------
#
# The edits are made to a game still in play (or, for a result's columns, to the result its
# game just wrote): an edit to a finished game's row or log changes nothing that ranks, since
# its sealed result is already written, so each edit here meets verification.

GAME_EDITS = {
    "status": lambda g: "won",
    "foundation_cards": lambda g: g.foundation_cards + 30,
    "ply": lambda g: 1,
    "verified": lambda g: not g.verified,
    "deal_id": lambda g: (
        services.deal_get_or_create(variant=g.variant, date=g.deal.date + dt.timedelta(days=1)).pk
    ),
    "player_id": lambda g: Player.objects.create_user("Mallory", None).pk,
    "seed": lambda g: "0" * 64,
    "rules": lambda g: {  # kinder rules: build on any suit
        **g.rules,
        "tableau": {**g.rules["tableau"], "build": {**g.rules["tableau"]["build"], "suit": "any"}},
    },
    "state": lambda g: {**g.state, "redeals_left": 7},
    "first_move_at": lambda g: g.started_at - dt.timedelta(days=1),
    "last_move_at": lambda g: g.started_at,
    "finished_at": lambda g: g.started_at,
    "assisted": lambda g: not g.assisted,
}
RESULT_EDITS = {
    "status": lambda r: "won",
    "foundation_cards": lambda r: r.foundation_cards + 30,
    "moves": lambda r: 1,
    "duration_ms": lambda r: 1,
    "finished_at": lambda r: r.finished_at - dt.timedelta(hours=1),
    "assisted": lambda r: not r.assisted,
    "seal": lambda r: r.seal[::-1],
    "verified_at": lambda r: r.verified_at - dt.timedelta(days=3),
}
MOVE_EDITS = {
    "move": lambda m: {"type": "deal"},
    "at": lambda m: m.at - dt.timedelta(hours=1),
    "seal": lambda m: m.seal[::-1],
}
EDITS = (
    [("game", name) for name in GAME_EDITS]
    + [("result", name) for name in RESULT_EDITS]
    + [("move", name) for name in MOVE_EDITS]
)
# An honest game is never assisted here, so the edit of its ``assisted`` column marks it
# assisted: the flag is the server's word (docs/deals.md), and that edit may only rank it lower.
SELF_HARM = {("game", "assisted")}


def _tamper(table: str, column: str, game_id: str, ply: int) -> None:
    if table == "game":
        game = Game.objects.get(pk=game_id)
        Game.objects.filter(pk=game_id).update(**{column: GAME_EDITS[column](game)})
    elif table == "result":
        result = Result.objects.get(pk=game_id)
        Result.objects.filter(pk=game_id).update(**{column: RESULT_EDITS[column](result)})
    else:
        row = Move.objects.get(game_id=game_id, ply=ply)
        Move.objects.filter(pk=row.pk).update(**{column: MOVE_EDITS[column](row)})


@pytest.fixture
def in_play(join) -> dict[str, Any]:
    """Alice and Bob each played three moves of today's Caprice, and play on."""
    clients = {"Alice": join("Alice"), "Bob": join("Bob")}
    games = {}
    with clock.frozen(NOON):
        for name, client in clients.items():
            game = client.post("/api/games/", DAILY, "json").json()
            play(client, game["id"], 3)
            games[name] = game["id"]
    return {"clients": clients, "games": games, "honest": {}}


def _finish(in_play: dict[str, Any], extra: dict[str, Any] | None, edit=None) -> list:
    """Make the ``extra`` move of the edited game (if any), resign both games, apply a result's
    edit, and return the board; every answer on the way is one the API documents."""
    with clock.frozen(NOON):
        if extra is not None:
            client, game_id = in_play["clients"][extra["whose"]], in_play["games"][extra["whose"]]
            body = {"ply": 3, "move": extra["move"]}
            answer = client.post(f"/api/games/{game_id}/moves/", body, "json")
            assert answer.status_code in (200, 403, 409, 422), answer.json()
        for name, client in in_play["clients"].items():
            answer = client.post(f"/api/games/{in_play['games'][name]}/resign/")
            assert answer.status_code in (200, 403, 409), answer.json()
    if edit is not None:
        edit()
    return board()


@pytest.mark.parametrize("edit", EDITS, ids=[f"{table}.{column}" for table, column in EDITS])
@settings(
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    whose=st.sampled_from(["Alice", "Bob"]),
    row=st.integers(min_value=0, max_value=2),
    moves_on=st.booleans(),
)
def test_tampering_any_single_column_of_a_game_in_play_never_ranks_a_different_result(
    in_play, edit: tuple[str, str], whose: str, row: int, moves_on: bool
) -> None:
    table, column = edit
    game_id = in_play["games"][whose]
    extra = None
    if moves_on:  # the player makes one more move after the edit, as she would have before
        extra = {"whose": whose, "move": a_legal_move(game_id)}

    # given the board that the two games give when both are finished honestly
    key = (whose, moves_on)
    if key not in in_play["honest"]:
        with transaction.atomic():
            in_play["honest"][key] = {e["player"]: e for e in _finish(in_play, extra)}
            transaction.set_rollback(True)
    honest = in_play["honest"][key]
    assert set(honest) == {"Alice", "Bob"}

    with transaction.atomic():
        # when one stored column of one game in play (or a move of its log) is edited, then
        # the game is finished (and, for a result's column, its new result is edited)
        if table == "result":
            after = _finish(in_play, extra, lambda: _tamper(table, column, game_id, row))
        else:
            _tamper(table, column, game_id, row)
            after = _finish(in_play, extra)
        transaction.set_rollback(True)

    # then the board ranks the other game as it was, and the edited one as it was or nowhere
    entries = {entry["player"]: entry for entry in after}
    other = "Bob" if whose == "Alice" else "Alice"
    assert entries.get(other, {}) | {"rank": None} == honest[other] | {"rank": None}, after
    if whose in entries:
        changed = {k for k in honest[whose] if entries[whose][k] != honest[whose][k]} - {"rank"}
        allowed = {"assisted"} if edit in SELF_HARM else set()
        assert changed <= allowed, (edit, entries[whose], honest[whose])
        if changed:
            assert entries[whose]["rank"] >= honest[whose]["rank"]


def a_legal_move(game_id: str) -> dict[str, Any]:
    state = services.engine_state(Game.objects.get(pk=game_id))
    return next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")
