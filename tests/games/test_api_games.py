"""Games through the REST API: start, read, move, resign, replay and their refusals."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import IntegrityError, connections, transaction
from rest_framework.test import APIClient

from games import clock, services
from games.engine import (
    builtin_rules,
    legal_moves,
    parse_seed,
    practice_seed,
    replay,
    state_to_json,
)
from games.models import Game, Player

DAILY = {"variant": "caprice", "mode": "daily"}
NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
NEXT_DAY = dt.datetime(2026, 12, 2, 0, 0, 1, tzinfo=dt.UTC)


def a_legal_move(game_id: str) -> dict:
    """Return a legal move of the game that is not undo (chosen on the server side)."""
    state = services.engine_state(Game.objects.get(pk=game_id))
    return next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")


def test_a_daily_game_is_created_once_then_found(join) -> None:
    # given
    alice = join("Alice")

    # when
    with clock.frozen(NOON):
        first = alice.post("/api/games/", DAILY, "json")
        again = alice.post("/api/games/", DAILY, "json")

    # then
    assert first.status_code == 201
    assert again.status_code == 200
    game = first.json()
    assert again.json() == game
    assert game == {
        "id": game["id"],
        "variant": "caprice",
        "mode": "daily",
        "date": "2026-12-01",
        "player": "Alice",
        "status": "playing",
        "stuck": False,
        "ply": 0,
        "started_at": "2026-12-01T12:00:00Z",
        "finished_at": None,
        "duration_ms": 0,
        "state": game["state"],
        "verified": False,
        "assisted": False,
        "can_undo": False,
        "foundation_cards": game["foundation_cards"],
        "seed_text": None,
        "voided": False,
        "void_reason": None,
    }
    assert [pile["id"] for pile in game["state"]["piles"]][:1] == ["foundation-0"]


def test_the_database_allows_one_daily_game_per_player_and_deal(join) -> None:
    # given
    alice = join("Alice")
    game = Game.objects.get(pk=alice.post("/api/games/", DAILY, "json").json()["id"])

    # when / then
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(
            id="another",
            player=game.player,
            variant=game.variant,
            mode="daily",
            deal=game.deal,
            seed=game.seed,
            rules=game.rules,
            state=game.state,
            started_at=game.started_at,
        )


def test_a_practice_game_is_dealt_from_its_seed_text(join) -> None:
    # given
    alice, bob = join("Alice"), join("Bob")
    practice = {"variant": "castile", "mode": "practice", "seed": "hello"}

    # when
    mine = alice.post("/api/games/", practice, "json")
    theirs = bob.post("/api/games/", practice, "json")
    random = alice.post("/api/games/", {"variant": "castile", "mode": "practice"}, "json")

    # then
    assert mine.status_code == theirs.status_code == random.status_code == 201
    assert mine.json()["mode"] == "practice"
    assert mine.json()["date"] is None
    assert mine.json()["seed_text"] == "hello"
    assert mine.json()["state"] == theirs.json()["state"]
    assert mine.json()["id"] != theirs.json()["id"]
    # a seed text the server chose stays hidden while the game is played, then shows
    assert random.json()["seed_text"] is None
    resigned = alice.post(f"/api/games/{random.json()['id']}/resign/")
    assert resigned.json()["seed_text"]
    assert (
        practice_seed(resigned.json()["seed_text"]).hex()
        == Game.objects.get(pk=random.json()["id"]).seed
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "nope", "mode": "daily"}, "variant"),
        ({"variant": 3, "mode": "daily"}, "variant"),
        ({"variant": "capr\x00ice", "mode": "daily"}, "variant"),
        ({"variant": "caprice", "mode": "ranked"}, "mode"),
        ({"variant": "caprice", "mode": "daily", "seed": "x"}, "seed"),
        ({"variant": "caprice", "mode": "practice", "seed": 12}, "seed"),
        ({"variant": "caprice", "mode": "practice", "seed": "x" * 201}, "seed"),
        ({"variant": "caprice", "mode": "practice", "seed": "a\x00b"}, "seed"),
    ],
)
def test_a_bad_new_game_is_invalid(join, body: dict, field: str) -> None:
    answer = join("Alice").post("/api/games/", body, "json")

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"
    assert answer.json()["field"] == field


def test_a_move_advances_the_ply_and_a_retry_is_stale(join) -> None:
    # given
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    move = a_legal_move(game["id"])

    # when
    played = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 0, "move": move}, "json")
    retried = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 0, "move": move}, "json")

    # then
    assert played.status_code == 200
    assert played.json()["ply"] == 1
    assert retried.status_code == 409
    assert retried.json() == {
        "error": "stale_ply",
        "detail": "The game is at ply 1, not 0.",
        "ply": 1,
    }
    assert Game.objects.get(pk=game["id"]).moves == [move]


def test_the_game_carries_the_server_measured_time_from_first_to_last_move(join) -> None:
    # given a practice game whose first move is made at noon
    alice = join("Alice")
    with clock.frozen(NOON):
        game = alice.post("/api/games/", {**DAILY, "mode": "practice", "seed": "t"}, "json").json()
        url = f"/api/games/{game['id']}/moves/"
        first = alice.post(url, {"ply": 0, "move": a_legal_move(game["id"])}, "json").json()

    # when the second move comes 83.5 seconds later
    with clock.frozen(NOON + dt.timedelta(seconds=83.5)):
        second = alice.post(url, {"ply": 1, "move": a_legal_move(game["id"])}, "json").json()

    # then the time counts from the first move, not from the game's start, to the last
    assert game["duration_ms"] == 0
    assert first["duration_ms"] == 0
    assert second["duration_ms"] == 83_500
    assert alice.get(f"/api/games/{game['id']}/").json()["duration_ms"] == 83_500


def test_an_illegal_move_is_422_and_changes_nothing(join) -> None:
    # given
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    before = Game.objects.get(pk=game["id"])

    # when
    answer = alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": {"type": "undo"}}, "json"
    )

    # then
    assert answer.status_code == 422
    body = answer.json()
    assert body["error"] == "illegal_move"
    assert body["ply"] == 0
    assert isinstance(body["detail"], str) and body["detail"]
    after = Game.objects.get(pk=game["id"])
    assert (after.ply, after.moves, after.state) == (before.ply, before.moves, before.state)
    assert alice.get(f"/api/games/{game['id']}/").json() == game


@pytest.mark.parametrize(
    "body",
    [
        {"ply": "0", "move": {"type": "deal"}},
        {"ply": -1, "move": {"type": "deal"}},
        {"ply": True, "move": {"type": "deal"}},
        {"ply": 0, "move": "deal"},
        {"ply": 0, "move": {"type": "move", "from": 1, "to": "foundation-0"}},
        {"ply": 0, "move": {"type": "move", "from": "a", "to": "b", "count": 0}},
        {"ply": 0, "move": {"type": "fly"}},
        {"ply": 0},
        {},
    ],
)
def test_a_malformed_move_is_invalid(join, body: dict) -> None:
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()

    answer = alice.post(f"/api/games/{game['id']}/moves/", body, "json")

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


def test_a_finished_game_is_game_over(join) -> None:
    # given
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()

    # when
    resigned = alice.post(f"/api/games/{game['id']}/resign/")
    move = alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": {"type": "deal"}}, "json"
    )
    again = alice.post(f"/api/games/{game['id']}/resign/")

    # then
    assert resigned.status_code == 200
    assert resigned.json()["status"] == "resigned"
    assert resigned.json()["verified"] is True
    assert move.status_code == 409
    assert move.json() == {"error": "game_over", "detail": "This game is over (resigned)."}
    assert again.status_code == 409
    assert again.json()["error"] == "game_over"


def test_another_player_may_not_play_or_read_a_game_of_today(join) -> None:
    # given
    alice, bob = join("Alice"), join("Bob")
    game = alice.post("/api/games/", DAILY, "json").json()
    url = f"/api/games/{game['id']}/"

    # when
    read = bob.get(url)
    replay_read = bob.get(url + "replay/")
    move = bob.post(url + "moves/", {"ply": 0, "move": {"type": "deal"}}, "json")
    resign = bob.post(url + "resign/")
    anonymous = APIClient().get(url)

    # then
    forbidden = {
        "error": "forbidden",
        "detail": "Only its player may see a game before its day ends.",
    }
    assert (read.status_code, read.json()) == (403, forbidden)
    assert (replay_read.status_code, replay_read.json()) == (403, forbidden)
    assert move.status_code == resign.status_code == 403
    assert move.json() == {"error": "forbidden", "detail": "Only the game's player may play it."}
    assert anonymous.status_code == 401
    assert anonymous.json()["error"] == "not_authenticated"


def test_unknown_games_are_404(join) -> None:
    alice = join("Alice")

    for answer in (
        alice.get("/api/games/nope/"),
        alice.get("/api/games/nope/replay/"),
        alice.post("/api/games/nope/resign/"),
        alice.post("/api/games/nope/moves/", {"ply": 0, "move": {"type": "deal"}}, "json"),
    ):
        assert answer.status_code == 404
        assert answer.json() == {"error": "not_found", "detail": "No such game."}


def test_game_writes_need_authentication(variants) -> None:
    client = APIClient()

    for answer in (
        client.post("/api/games/", DAILY, "json"),
        client.post("/api/games/x/moves/", {"ply": 0, "move": {"type": "deal"}}, "json"),
        client.post("/api/games/x/resign/"),
    ):
        assert answer.status_code == 401
        assert answer.json()["error"] == "not_authenticated"


def test_a_daily_replay_keeps_the_seed_secret_until_the_day_ends_then_rebuilds_it(join) -> None:
    # given a daily game with a few moves, resigned during its day
    alice, bob = join("Alice"), join("Bob")
    with clock.frozen(NOON):
        game = alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
        for ply in range(3):
            move = a_legal_move(game["id"])
            alice.post(f"/api/games/{game['id']}/moves/", {"ply": ply, "move": move}, "json")
        before_end = alice.get(f"/api/games/{game['id']}/replay/")
        alice.post(f"/api/games/{game['id']}/resign/")

        # when the player reads the replay during the day
        during = alice.get(f"/api/games/{game['id']}/replay/")
        other = bob.get(f"/api/games/{game['id']}/replay/")

    # then the log is there but the deal's seed is not, and others see nothing
    assert before_end.status_code == 403
    assert during.status_code == 200
    stored = Game.objects.get(pk=game["id"])
    assert during.json() == {"seed": None, "moves": stored.moves, "status": "resigned"}
    assert len(during.json()["moves"]) == 3
    assert stored.seed not in during.content.decode()
    assert other.status_code == 403

    # when the day is over, then anyone gets the seed and rebuilds the game from it
    with clock.frozen(NOON + dt.timedelta(days=1)):
        after = APIClient().get(f"/api/games/{game['id']}/replay/")
    body = after.json()
    assert body == {"seed": stored.deal.seed, "moves": stored.moves, "status": "resigned"}
    rebuilt = replay(builtin_rules("castile"), parse_seed(body["seed"]), body["moves"])
    assert state_to_json(rebuilt.state) == stored.state


def test_a_practice_replay_names_its_seed_text(join) -> None:
    alice = join("Alice")
    game = alice.post(
        "/api/games/", {"variant": "caprice", "mode": "practice", "seed": "x"}, "json"
    )
    alice.post(f"/api/games/{game.json()['id']}/resign/")

    answer = alice.get(f"/api/games/{game.json()['id']}/replay/")

    assert answer.json()["seed_text"] == "x"
    assert answer.json()["status"] == "resigned"


def test_after_its_day_a_playing_game_is_closed_and_open_to_everyone(join) -> None:
    # given Alice's daily game left playing after one move, and Bob
    alice, bob = join("Alice"), join("Bob")
    with clock.frozen(NOON):
        game = alice.post("/api/games/", DAILY, "json").json()
        move = a_legal_move(game["id"])
        alice.post(f"/api/games/{game['id']}/moves/", {"ply": 0, "move": move}, "json")
        before = bob.get(f"/api/games/{game['id']}/")

    # when
    with clock.frozen(NEXT_DAY):
        read = bob.get(f"/api/games/{game['id']}/")
        replayed = APIClient().get(f"/api/games/{game['id']}/replay/")
        late_move = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 1, "move": move}, "json")

    # then
    assert before.status_code == 403
    assert read.status_code == 200
    assert read.json()["status"] == "resigned"
    assert read.json()["verified"] is True
    assert read.json()["finished_at"] == "2026-12-02T00:00:00Z"
    assert replayed.status_code == 200
    assert replayed.json()["moves"] == [move]
    assert late_move.status_code == 409
    assert late_move.json()["error"] == "game_over"


@pytest.mark.django_db(transaction=True)
def test_two_connections_racing_the_same_ply_apply_it_once(settings) -> None:
    # given one player with two token clients
    settings.DEAL_SECRET = "race-secret"
    from tests.conftest import _launch_variants

    _launch_variants()
    player = Player.objects.create_user("Racer", None, is_guest=True)
    token = services.player_token(player=player)
    game, _ = services.game_start(player=player, variant="castile", mode="daily")
    body = {"ply": 0, "move": a_legal_move(game.id)}
    answers = []
    barrier = threading.Barrier(2)

    def post() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        try:
            barrier.wait()
            answers.append(client.post(f"/api/games/{game.id}/moves/", body, "json"))
        finally:
            connections.close_all()

    # when
    threads = [threading.Thread(target=post) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # then
    assert sorted(a.status_code for a in answers) == [200, 409]
    stale = next(a for a in answers if a.status_code == 409)
    assert stale.json() == {
        "error": "stale_ply",
        "detail": "The game is at ply 1, not 0.",
        "ply": 1,
    }
    assert len(Game.objects.get(pk=game.id).moves) == 1
