"""The daily deal socket ``ws/daily/<slug>/<date>/``: leaderboard, progress and presence.

Pushes are coalesced (``leaderboards.live``), so a test reads messages until the one it waits for;
the coalescing itself is tested with a fake clock in ``tests/leaderboards/test_ws_live.py``.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import clock, services
from games.engine import builtin_rules
from games.models import Deal, Game, Player, Variant
from leaderboards.services import top_entries as live_entries
from tests.games.sockets import a_legal_move, close_code, make_player, receive

pytestmark = pytest.mark.django_db(transaction=True)


def start(player: Player) -> Game:
    return services.game_start(player=player, variant="box-kite", mode="daily")[0]


@database_sync_to_async
def top_entries(deal_id: int) -> list[dict[str, Any]]:
    return live_entries(Deal.objects.select_related("variant").get(pk=deal_id))[0]


def board(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "leaderboard", "entries": entries, "total": len(entries)}


async def receive_until(communicator: Any, wanted: Any) -> tuple[dict[str, Any], list[Any]]:
    """Read messages until one satisfies ``wanted``; return it and those read before it."""
    before = []
    while True:
        message = await receive(communicator)
        if wanted(message):
            return message, before
        before.append(message)


def progress_of(message: dict[str, Any], nickname: str) -> dict[str, Any] | None:
    if message["type"] != "progress":
        return None
    return next((p for p in message["players"] if p["player"] == nickname), None)


@pytest.fixture
def today() -> str:
    return clock.today().isoformat()


@pytest.fixture
def deal(ws_variants: Any) -> Deal:
    return services.deal_get_or_create(variant=ws_variants["box-kite"], date=clock.today())


@pytest.fixture
async def watcher(ws_connect: Any, deal: Deal, today: str) -> Any:
    """An anonymous socket on today's Box Kite deal, its first leaderboard already read."""
    communicator = await ws_connect(f"/ws/daily/box-kite/{today}/")
    assert await receive(communicator) == board([])
    assert await receive(communicator) == {"type": "presence", "playing": 0}
    return communicator


async def test_anyone_gets_the_leaderboard_on_connect(
    ws_connect: Any, deal: Deal, today: str
) -> None:
    def finish_one() -> None:
        player, _ = make_player("bob")
        services.game_resign(game_id=start(player).pk, player=player)

    await database_sync_to_async(finish_one)()

    communicator = await ws_connect(f"/ws/daily/box-kite/{today}/")
    message = await receive(communicator)
    presence = await receive(communicator)

    assert message == board(await top_entries(deal.pk))
    assert [(e["rank"], e["player"], e["status"]) for e in message["entries"]] == [
        (1, "bob", "resigned")
    ]
    assert presence == {"type": "presence", "playing": 0}  # bob's game is over


async def test_a_move_is_pushed_as_progress(watcher: Any) -> None:
    alice, _ = await database_sync_to_async(make_player)("alice")
    game = await database_sync_to_async(start)(alice)
    move = await a_legal_move(game.pk)

    await database_sync_to_async(services.game_move)(
        game_id=game.pk, player=alice, ply=0, move=move
    )
    message, _ = await receive_until(
        watcher, lambda m: (progress_of(m, "alice") or {}).get("ply") == 1
    )

    stored = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert progress_of(message, "alice") == {
        "player": "alice",
        "foundation_cards": stored.foundation_cards,
        "ply": 1,
        "status": "playing",
    }
    presence, _ = await receive_until(watcher, lambda m: m["type"] == "presence")
    assert presence == {"type": "presence", "playing": 1}


async def test_a_move_over_the_game_socket_is_pushed_as_progress(
    ws_connect: Any, watcher: Any
) -> None:
    alice, token = await database_sync_to_async(make_player)("alice")
    game = await database_sync_to_async(start)(alice)
    player_socket = await ws_connect(f"/ws/games/{game.pk}/?token={token}")
    await receive(player_socket)

    await player_socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    answer = await receive(player_socket)
    message, _ = await receive_until(
        watcher, lambda m: (progress_of(m, "alice") or {}).get("ply") == 1
    )

    assert progress_of(message, "alice")["foundation_cards"] == answer["game"]["foundation_cards"]


async def test_a_finished_game_pushes_the_leaderboard(watcher: Any, deal: Deal) -> None:
    alice, _ = await database_sync_to_async(make_player)("alice")
    game = await database_sync_to_async(start)(alice)

    await database_sync_to_async(services.game_resign)(game_id=game.pk, player=alice)
    leaderboard, before = await receive_until(watcher, lambda m: m["type"] == "leaderboard")

    progress = [p for m in before for p in m.get("players", [])]
    assert progress[-1]["status"] == "resigned"
    assert leaderboard == board(await top_entries(deal.pk))
    assert [e["player"] for e in leaderboard["entries"]] == ["alice"]
    assert leaderboard["entries"][0]["game"] == game.pk


async def test_today_is_dealt_on_demand(ws_connect: Any, ws_variants: Any, today: str) -> None:
    communicator = await ws_connect(f"/ws/daily/caprice/{today}/")

    assert await receive(communicator) == board([])
    assert await database_sync_to_async(Deal.objects.filter(variant__slug="caprice").count)() == 1


async def test_what_a_watcher_sends_is_answered_invalid(watcher: Any) -> None:
    await watcher.send_json_to({"ply": 0, "move": {"type": "deal"}})
    await watcher.send_to(bytes_data=b"\xff")
    await watcher.send_to(text_data="not json")

    for _ in range(3):
        message = await receive(watcher)
        assert (message["type"], message["error"]) == ("error", "invalid")
    assert await watcher.receive_nothing()


@pytest.mark.parametrize(
    "path",
    [
        "/ws/daily/no-such-variant/{today}/",
        "/ws/daily/canfield/{today}/",  # not offered
        "/ws/daily/disabled/{today}/",
        "/ws/daily/not-daily/{today}/",
        "/ws/daily/box-kite/2026-13-01/",
        "/ws/daily/box-kite/yesterday/",
        "/ws/daily/box-kite/{tomorrow}/",
        "/ws/daily/caprice/2020-01-01/",  # never dealt
    ],
)
async def test_an_unknown_deal_is_closed_4404(
    ws_connect: Any, ws_variants: Any, today: str, path: str
) -> None:
    def more_variants() -> None:
        rules = builtin_rules("caprice")
        Variant.objects.create(slug="disabled", name="Off", rules=rules, enabled=False)
        Variant.objects.create(slug="not-daily", name="Free", rules=rules, daily=False)

    await database_sync_to_async(more_variants)()
    tomorrow = (clock.today() + dt.timedelta(days=1)).isoformat()

    communicator = await ws_connect(path.format(today=today, tomorrow=tomorrow))
    message = await receive(communicator)

    assert message["type"] == "error"
    assert message["error"] == "not_found"
    assert message["detail"]
    assert await close_code(communicator) == 4404


async def test_a_push_arriving_during_the_greeting_comes_after_it(
    ws_connect: Any, deal: Deal, today: str, monkeypatch: Any
) -> None:
    # given a push handed to the socket while its snapshot is being read
    from leaderboards import consumers, live

    real_snapshot = live.snapshot
    reads = []

    async def slow_snapshot(watched: Any) -> Any:
        messages = await real_snapshot(watched)
        if not reads:
            for member in list(live._hub.members.get(watched.deal_id, ())):
                progress = {"player": "alice", "foundation_cards": 8, "ply": 1, "status": "playing"}
                member.push([json.dumps({"type": "progress", "players": [progress]})])
                member.push(['{"type": "leaderboard", "entries": [], "total": 0}'])
        reads.append(watched)
        return messages

    monkeypatch.setattr(consumers.live, "snapshot", slow_snapshot)

    # when a watcher connects
    communicator = await ws_connect(f"/ws/daily/box-kite/{today}/")
    received = [await receive(communicator) for _ in range(5)]

    # then the snapshot comes first, the held pushes after it, and a fresh board last
    assert [message["type"] for message in received] == [
        "leaderboard",
        "presence",
        "progress",
        "leaderboard",
        "leaderboard",
    ]
    assert received[3] == {"type": "leaderboard", "entries": [], "total": 0}
    assert received[4] == received[0]
    assert len(reads) == 2
