"""Daily leaderboards through the REST API: ranking, ?player=, verification, closed days."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from games import clock, services
from games.engine import legal_moves
from games.models import Game, Player, Result
from games.services.games import result_write
from games.verification.figures import Figures

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
NEXT_DAY = dt.datetime(2026, 12, 2, 0, 0, 1, tzinfo=dt.UTC)
URL = "/api/leaderboards/caprice/2026-12-01/"


def finished(nickname: str, *, cards: int, ply: int, seconds: int, finish_minute: int) -> Game:
    """Store a finished daily game of caprice on 2026-12-01 with these sealed results."""
    player = Player.objects.create_user(nickname, None, is_guest=True)
    with clock.frozen(NOON):
        game, _ = services.game_start(player=player, variant="caprice", mode="daily")
    start = NOON + dt.timedelta(minutes=1)
    Game.objects.filter(pk=game.pk).update(
        status="resigned",
        verified=True,
        foundation_cards=cards,
        ply=ply,
        first_move_at=start,
        last_move_at=start + dt.timedelta(seconds=seconds),
        finished_at=NOON + dt.timedelta(minutes=finish_minute),
    )
    game = Game.objects.get(pk=game.pk)
    seal_result(game)
    return game


def seal_result(game: Game) -> Result:
    """Write the sealed result of ``game``'s stored figures, as verification would."""
    return result_write(
        game_id=game.pk,
        deal_id=game.deal_id,
        player_id=game.player_id,
        figures=Figures(
            status=game.status,
            foundation_cards=game.foundation_cards,
            moves=game.ply,
            duration_ms=game.duration_ms,
            finished_at=game.finished_at,
            assisted=game.assisted,
        ),
    )


def entry(rank: int, game: Game) -> dict:
    return {
        "rank": rank,
        "player": game.player.nickname,
        "status": game.status,
        "foundation_cards": game.foundation_cards,
        "moves": game.ply,
        "duration_ms": game.duration_ms,
        "game": game.pk,
        "finished_at": clock_iso(game.finished_at),
        "assisted": False,
    }


def clock_iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


@pytest.fixture
def ranked(variants) -> dict[str, Game]:
    return {
        "most_cards": finished("Most", cards=20, ply=90, seconds=90, finish_minute=50),
        "fewer_plies": finished("Fewer", cards=10, ply=30, seconds=90, finish_minute=40),
        "more_plies": finished("More", cards=10, ply=40, seconds=10, finish_minute=10),
        "shorter": finished("Short", cards=5, ply=30, seconds=10, finish_minute=30),
        "earlier": finished("Early", cards=5, ply=30, seconds=20, finish_minute=5),
        "later": finished("Late", cards=5, ply=30, seconds=20, finish_minute=20),
    }


def test_entries_rank_cards_then_plies_then_duration_then_finish(ranked) -> None:
    # when
    with clock.frozen(NOON):
        answer = APIClient().get(URL)

    # then
    assert answer.status_code == 200
    order = ["most_cards", "fewer_plies", "more_plies", "shorter", "earlier", "later"]
    assert answer.json() == {
        "variant": "caprice",
        "date": "2026-12-01",
        "total": 6,
        "entries": [entry(rank, ranked[key]) for rank, key in enumerate(order, start=1)],
    }


def test_player_adds_that_players_entry_even_beyond_the_top(ranked, monkeypatch) -> None:
    # given a leaderboard cut at the top 2
    from leaderboards import selectors

    monkeypatch.setattr(selectors, "REST_ENTRIES", 2)

    # when
    with clock.frozen(NOON):
        answer = APIClient().get(URL + "?player=late")
        nobody = APIClient().get(URL + "?player=Nobody")

    # then
    body = answer.json()
    assert [e["player"] for e in body["entries"]] == ["Most", "Fewer", "Late"]
    assert body["player_entry"] == entry(6, ranked["later"])
    assert nobody.json()["player_entry"] is None
    assert len(nobody.json()["entries"]) == 2


def test_only_over_and_verified_games_are_ranked(join) -> None:
    # given Alice resigned honestly, Bob still plays, Carol tampered with her stored state
    alice, bob, carol = join("Alice"), join("Bob"), join("Carol")
    with clock.frozen(NOON):
        games = {
            name: client.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()
            for name, client in (("alice", alice), ("bob", bob), ("carol", carol))
        }
        alice.post(f"/api/games/{games['alice']['id']}/resign/")
        tampered = Game.objects.get(pk=games["carol"]["id"])
        tampered.state["piles"][0]["cards"] = ["KS"]
        tampered.save()
        carol.post(f"/api/games/{games['carol']['id']}/resign/")

        # when
        answer = APIClient().get(URL)

    # then
    assert [e["player"] for e in answer.json()["entries"]] == ["Alice"]
    assert Game.objects.get(pk=games["carol"]["id"]).verified is False


def test_after_the_day_a_playing_game_is_closed_verified_and_ranked(join) -> None:
    # given Alice's game left playing after a few moves
    alice = join("Alice")
    with clock.frozen(NOON):
        game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()
        for ply in range(2):
            state = services.engine_state(Game.objects.get(pk=game["id"]))
            move = next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")
            alice.post(f"/api/games/{game['id']}/moves/", {"ply": ply, "move": move}, "json")

    # when
    with clock.frozen(NEXT_DAY):
        answer = APIClient().get(URL + "?player=Alice")

    # then
    closed = Game.objects.get(pk=game["id"])
    assert (closed.status, closed.verified) == ("resigned", True)
    assert answer.json()["entries"] == [entry(1, closed)]
    assert answer.json()["player_entry"] == entry(1, closed)
    assert answer.json()["entries"][0]["moves"] == 2


@pytest.mark.parametrize(
    "url",
    [
        "/api/leaderboards/caprice/2026-12-02/",
        "/api/leaderboards/caprice/2026-11-30/",
        "/api/leaderboards/caprice/2026-12-40/",
        "/api/leaderboards/nope/2026-12-01/",
    ],
)
def test_future_unknown_or_never_dealt_days_are_404(variants, url: str) -> None:
    with clock.frozen(NOON):
        answer = APIClient().get(url)

    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"


def test_todays_leaderboard_is_empty_before_anyone_finishes(variants) -> None:
    with clock.frozen(NOON):
        answer = APIClient().get(URL)

    assert answer.json() == {"variant": "caprice", "date": "2026-12-01", "total": 0, "entries": []}
