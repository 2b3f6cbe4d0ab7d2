"""A game's positions ply by ply (the replay viewer's source): access, redaction, paging."""

from __future__ import annotations

import datetime as dt

from rest_framework.test import APIClient

from games import clock, services
from games.engine import legal_moves, player_view
from games.models import Game

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
NEXT_DAY = dt.datetime(2026, 12, 2, 0, 0, 1, tzinfo=dt.UTC)


def play(client: APIClient, game_id: str, plies: int) -> None:
    """Make ``plies`` legal moves (none an undo), chosen on the server side."""
    for ply in range(plies):
        state = services.engine_state(Game.objects.get(pk=game_id))
        move = next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")
        answer = client.post(f"/api/games/{game_id}/moves/", {"ply": ply, "move": move}, "json")
        assert answer.status_code == 200, answer.json()


def test_positions_open_to_the_player_once_over_and_to_anyone_after_the_day(join) -> None:
    # given Alice's daily Box Kite game (face-down cards) with three moves, still playing
    alice, bob = join("Alice"), join("Bob")
    with clock.frozen(NOON):
        game = alice.post("/api/games/", {"variant": "box-kite", "mode": "daily"}, "json").json()
        play(alice, game["id"], 3)
        path = f"/api/games/{game['id']}/replay/positions/"

        # when anyone, Bob and Alice ask while it is being played
        early = [APIClient().get(path), bob.get(path), alice.get(path)]
        # when Alice resigns and asks again, and Bob asks again
        alice.post(f"/api/games/{game['id']}/resign/")
        mine = alice.get(path)
        bobs = bob.get(path)

    # then nobody sees positions of a game in play, and only Alice sees them once it is over
    assert [answer.status_code for answer in early] == [401, 403, 403]
    assert early[1].json()["error"] == "forbidden"
    assert mine.status_code == 200
    assert bobs.status_code == 403

    # then the positions are the deal and each move's, as the game object showed them
    stored = Game.objects.get(pk=game["id"])
    body = mine.json()
    assert body["total"] == 4
    assert body["status"] == "resigned"
    assert [p["ply"] for p in body["positions"]] == [0, 1, 2, 3]
    assert [p["move"] for p in body["positions"]] == [None, *stored.moves]
    assert body["positions"][0]["state"] == game["state"]
    assert body["positions"][-1]["state"] == player_view(services.engine_state(stored))
    assert body["positions"][-1]["foundation_cards"] == stored.foundation_cards

    # then face-down cards stay null at every ply: seven of every tableau pile at the deal
    tableau = [p for p in body["positions"][0]["state"]["piles"] if p["id"].startswith("tableau")]
    assert all(pile["cards"][:7] == [None] * 7 for pile in tableau)
    assert stored.seed not in mine.content.decode()

    # when the day is over, then anyone may read them
    with clock.frozen(NEXT_DAY):
        later = APIClient().get(path)
    assert later.status_code == 200
    assert later.json()["positions"] == body["positions"]


def test_positions_of_a_game_left_playing_open_after_its_day(join) -> None:
    # given Bob's daily game left playing after two moves
    bob = join("Bob")
    with clock.frozen(NOON):
        game = bob.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
        play(bob, game["id"], 2)

    # when someone reads its positions the next day
    with clock.frozen(NEXT_DAY):
        answer = APIClient().get(f"/api/games/{game['id']}/replay/positions/")

    # then the game is closed and its three positions are there
    assert answer.status_code == 200
    assert answer.json()["status"] == "resigned"
    assert len(answer.json()["positions"]) == 3


def test_positions_page_through_a_long_game(join) -> None:
    # given a practice game of Caprice with five moves, over
    alice = join("Alice")
    game = alice.post(
        "/api/games/", {"variant": "caprice", "mode": "practice", "seed": "pages"}, "json"
    ).json()
    play(alice, game["id"], 5)
    alice.post(f"/api/games/{game['id']}/resign/")
    path = f"/api/games/{game['id']}/replay/positions/"

    # when the whole game and then pages of it are read
    whole = alice.get(path).json()["positions"]
    middle = alice.get(path, {"offset": 2, "limit": 3}).json()
    tail = alice.get(path, {"offset": 5, "limit": 100}).json()
    beyond = alice.get(path, {"offset": 50}).json()

    # then each page is the same slice of the whole
    assert len(whole) == 6
    assert middle["positions"] == whole[2:5]
    assert (middle["offset"], middle["limit"], middle["total"]) == (2, 3, 6)
    assert tail["positions"] == whole[5:]
    assert beyond["positions"] == []


def test_positions_refuse_bad_pages_and_unknown_games(join) -> None:
    # given a finished practice game
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "castile", "mode": "practice"}, "json").json()
    alice.post(f"/api/games/{game['id']}/resign/")
    path = f"/api/games/{game['id']}/replay/positions/"

    # when the page parameters are malformed, or the game does not exist
    answers = [
        alice.get(path, {"limit": 0}),
        alice.get(path, {"limit": 101}),
        alice.get(path, {"offset": "-1"}),
        alice.get(path, {"offset": "1e3"}),
        alice.get(path, {"limit": "\x00"}),
    ]
    missing = alice.get("/api/games/nosuchgame/replay/positions/")

    # then each is a clear 400 naming the field, or a 404
    assert [answer.status_code for answer in answers] == [400] * 5
    assert [answer.json()["field"] for answer in answers] == [
        "limit",
        "limit",
        "offset",
        "offset",
        "limit",
    ]
    assert missing.status_code == 404
    assert missing.json()["error"] == "not_found"


def test_positions_are_not_served_for_a_forged_game_id(join) -> None:
    # given a signed-in player
    alice = join("Alice")

    # when they ask for ids that cannot be games
    answers = [
        alice.get("/api/games/" + "x" * 64 + "/replay/positions/"),
        alice.get("/api/games/a%00b/replay/positions/"),
        alice.get("/api/games/../replay/positions/"),
    ]

    # then each is a JSON 404, never a 500
    assert [answer.status_code for answer in answers] == [404, 404, 404]
    assert all(answer.json()["error"] == "not_found" for answer in answers)
