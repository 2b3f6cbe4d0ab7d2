"""The coalescer of a deal's live pushes, driven with a fake clock (``leaderboards.live``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from core import redis_client
from games import clock, services
from games.models import Deal, Game
from leaderboards import changes, live
from leaderboards import services as board_services

pytestmark = pytest.mark.django_db(transaction=True)

T0 = 1_000_000.0


class FakeClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake_clock(monkeypatch: Any) -> FakeClock:
    faked = FakeClock()
    monkeypatch.setattr(changes, "now", faked)
    return faked


@pytest.fixture
async def watched(ws_variants: Any, fake_clock: FakeClock) -> Any:
    """Today's Box Kite deal, watched by a bare channel of the layer (no socket, no flush task)."""

    def make() -> Deal:
        deal = services.deal_get_or_create(variant=ws_variants["box-kite"], date=clock.today())
        return Deal.objects.select_related("variant").get(pk=deal.pk)

    await database_sync_to_async(live.reset)()
    deal = await database_sync_to_async(make)()
    watched = live.WatchedDeal(deal, f"daily.box-kite.{deal.date.isoformat()}")
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(watched.group, channel)
    watched.channel = channel
    yield watched
    await layer.group_discard(watched.group, channel)
    await database_sync_to_async(live.reset)()


def start(nickname: str) -> Game:
    player = services.player_create_guest(nickname=nickname)
    return services.game_start(player=player, variant="box-kite", mode="daily")[0]


def resigned(nickname: str) -> Game:
    """Return a daily game of a new player, resigned."""
    game = start(nickname)
    return services.game_resign(game_id=game.pk, player=game.player)


async def pushed(watched: Any) -> list[dict[str, Any]]:
    message = await asyncio.wait_for(get_channel_layer().receive(watched.channel), timeout=5)
    assert message["type"] == "daily.push"
    return message["messages"]


async def nothing_pushed(watched: Any) -> bool:
    """Tell whether nothing was pushed to the watcher: a marker sent to its channel now (which
    delivers in order) must be the next message."""
    layer = get_channel_layer()
    await layer.send(watched.channel, {"type": "test.marker"})
    message = await asyncio.wait_for(layer.receive(watched.channel), timeout=5)
    return message == {"type": "test.marker"}


async def test_fifty_moves_in_a_second_make_one_batch_of_the_latest_figures(
    watched: Any, fake_clock: FakeClock
) -> None:
    games = [await database_sync_to_async(start)(name) for name in ("alice", "bob")]
    for ply in range(1, 26):  # 25 changes each, all within the same second
        for game in games:
            game.ply, game.foundation_cards = ply, ply // 5
            changes.record_game(game=game)
        fake_clock.now += 0.01

    sent = await live.flush(now=fake_clock.now, watched=[watched])
    messages = await pushed(watched)

    assert sent == 1
    assert messages == [
        {
            "type": "progress",
            "players": [
                {"player": "alice", "foundation_cards": 5, "ply": 25, "status": "playing"},
                {"player": "bob", "foundation_cards": 5, "ply": 25, "status": "playing"},
            ],
        },
        {"type": "presence", "playing": 2},
    ]


async def test_a_deal_is_flushed_at_most_once_a_second_by_any_worker(
    watched: Any, fake_clock: FakeClock
) -> None:
    game = await database_sync_to_async(start)("alice")
    assert await live.flush(now=T0, watched=[watched]) == 1
    await pushed(watched)

    game.ply = 1
    changes.record_game(game=game)
    # another worker (the same store) half a second later: refused, nothing lost
    assert await live.flush(now=T0 + 0.5, watched=[watched]) == 0
    # nor one whose clock was read a little before the winner's but whose call came after
    assert await live.flush(now=T0 - 0.3, watched=[watched]) == 0
    game.ply = 2
    changes.record_game(game=game)
    assert await live.flush(now=T0 + 1.0, watched=[watched]) == 1
    messages = await pushed(watched)

    assert messages == [
        {
            "type": "progress",
            "players": [
                {
                    "player": "alice",
                    "foundation_cards": game.foundation_cards,
                    "ply": 2,
                    "status": "playing",
                }
            ],
        }
    ]
    assert await live.flush(now=T0 + 1.5, watched=[watched]) == 0
    assert await nothing_pushed(watched)


async def test_an_older_change_recorded_late_does_not_hide_a_newer_one(watched: Any) -> None:
    game = await database_sync_to_async(start)("alice")
    game.ply = 5
    changes.record_game(game=game)
    game.ply = 4
    changes.record_game(game=game)

    await live.flush(now=T0, watched=[watched])

    assert (await pushed(watched))[0]["players"][0]["ply"] == 5


async def test_presence_counts_players_who_moved_in_the_last_minute(
    watched: Any, fake_clock: FakeClock
) -> None:
    alice = await database_sync_to_async(start)("alice")
    changes.record_game(game=alice)
    fake_clock.now = T0 + 30
    bob = await database_sync_to_async(start)("bob")
    changes.record_game(game=bob)

    assert await live.flush(now=T0 + 30, watched=[watched]) == 1
    assert (await pushed(watched))[-1] == {"type": "presence", "playing": 2}
    assert await live.flush(now=T0 + 61, watched=[watched]) == 1  # alice's minute is over
    assert await pushed(watched) == [{"type": "presence", "playing": 1}]
    assert await live.flush(now=T0 + 62.5, watched=[watched]) == 0  # unchanged: not pushed
    assert await live.store_presence(watched, now=T0 + 62.5) == 1


async def test_a_finished_game_pushes_the_leaderboard_once_and_leaves_presence(
    watched: Any, fake_clock: FakeClock
) -> None:
    game = await database_sync_to_async(resigned)("alice")
    fake_clock.now = T0 + 1
    await live.flush(now=T0 + 1, watched=[watched])
    messages = await pushed(watched)

    kinds = [m["type"] for m in messages]
    assert kinds == ["progress", "leaderboard"]  # presence stayed 0: a finished game is not play
    board = messages[1]
    assert board["total"] == 1
    assert [(e["player"], e["game"]) for e in board["entries"]] == [("alice", game.pk)]


async def test_a_leaderboard_that_could_not_be_read_goes_with_the_next_batch(
    watched: Any, fake_clock: FakeClock, monkeypatch: Any
) -> None:
    # given: a finished game, and the database away while the batch that took it reads the board
    game = await database_sync_to_async(resigned)("alice")
    real = board_services.top_entries
    calls = []

    def away_once(deal: Deal) -> Any:
        calls.append(deal.pk)
        if len(calls) == 1:
            raise OSError("the database is away")
        return real(deal)

    monkeypatch.setattr(board_services, "top_entries", away_once)

    # when: that batch, then the next one due
    fake_clock.now = T0 + 1
    first = await live.flush(now=T0 + 1, watched=[watched])
    first_messages = await pushed(watched)
    fake_clock.now = T0 + 2
    second = await live.flush(now=T0 + 2, watched=[watched])

    # then: the progress went at once, the leaderboard with the next batch
    assert (first, second) == (1, 1)
    assert [m["type"] for m in first_messages] == ["progress"]
    board = (await pushed(watched))[-1]
    assert board["type"] == "leaderboard"
    assert [(e["player"], e["game"]) for e in board["entries"]] == [("alice", game.pk)]


async def test_a_leaderboard_that_could_not_be_sent_goes_with_the_next_batch(
    watched: Any, fake_clock: FakeClock, monkeypatch: Any
) -> None:
    # given: a finished game, and the channel layer failing the push of the batch that took it
    await database_sync_to_async(resigned)("alice")
    layer = get_channel_layer()
    real = layer.group_send
    failures = []

    async def fails_once(group: str, message: dict[str, Any]) -> None:
        if not failures:
            failures.append(group)
            raise RuntimeError("the push failed")
        await real(group, message)

    monkeypatch.setattr(layer, "group_send", fails_once)

    # when: that batch, then the next one due
    fake_clock.now = T0 + 1
    with pytest.raises(RuntimeError):
        await live.flush(now=T0 + 1, watched=[watched])
    fake_clock.now = T0 + 2
    sent = await live.flush(now=T0 + 2, watched=[watched])

    # then: the next batch carries the leaderboard
    assert sent == 1
    assert [m["type"] for m in await pushed(watched)] == ["leaderboard"]


async def test_a_finished_game_the_store_missed_reaches_the_board_once_it_answers(
    watched: Any, fake_clock: FakeClock, monkeypatch: Any
) -> None:
    # given: the store away while a game finishes, back by the next flush
    real = changes.store()
    away = [True]

    class Flaky:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def record(self, *args: Any, **kwargs: Any) -> None:
            if away[0]:
                raise redis_client.Unavailable("Redis is away")
            real.record(*args, **kwargs)

    monkeypatch.setattr(changes, "store", lambda: Flaky())
    game = await database_sync_to_async(resigned)("alice")
    away[0] = False

    # when
    fake_clock.now = T0 + 1
    sent = await live.flush(now=T0 + 1, watched=[watched])

    # then: the watchers get the leaderboard with the finished game
    assert sent == 1
    board = (await pushed(watched))[-1]
    assert board["type"] == "leaderboard"
    assert [(e["player"], e["game"]) for e in board["entries"]] == [("alice", game.pk)]


async def test_a_failing_store_never_raises_into_the_write(watched: Any, monkeypatch: Any) -> None:
    class Broken:
        def record(self, *args: Any, **kwargs: Any) -> None:
            raise OSError("Redis is down")

        def reset(self) -> None:
            pass

    monkeypatch.setattr(changes, "store", lambda: Broken())
    game = await database_sync_to_async(start)("alice")  # the signal's receiver fails inside

    changes.record_game(game=game)

    assert game.pk


async def test_the_flush_task_starts_with_the_first_watcher_and_ends_with_the_last(
    ws_connect: Any, ws_variants: Any
) -> None:
    communicator = await ws_connect(f"/ws/daily/box-kite/{clock.today().isoformat()}/")
    await communicator.receive_json_from(timeout=5)
    task = live._flusher.task
    assert task is not None and not task.done()

    await communicator.disconnect(timeout=5)
    await asyncio.wait_for(task, timeout=5)

    assert task.done() and not task.cancelled()


async def test_watchers_connecting_together_read_the_top_entries_once(
    ws_connect: Any, ws_variants: Any, monkeypatch: Any
) -> None:
    calls = []
    real = board_services.top_entries

    def counting(deal: Deal) -> Any:
        calls.append(deal.pk)
        return real(deal)

    monkeypatch.setattr(board_services, "top_entries", counting)
    monkeypatch.setattr(live, "SNAPSHOT_SECONDS", 60.0)  # a slow machine stays within it
    path = f"/ws/daily/box-kite/{clock.today().isoformat()}/"

    for _ in range(5):
        message = await (await ws_connect(path)).receive_json_from(timeout=5)
        assert message == {"type": "leaderboard", "entries": [], "total": 0}

    assert len(calls) == 1


async def test_a_slow_watcher_delays_only_itself() -> None:
    # given two watchers of a deal, one of which reads nothing for a while
    import asyncio

    from leaderboards.consumers import OUTBOX_LIMIT, DailyConsumer

    gate = asyncio.Event()
    sent: dict[str, list[str]] = {"fast": [], "slow": []}

    class Watcher(DailyConsumer):
        def __init__(self, name: str) -> None:  # no socket behind it
            self.name, self.watched, self.closing = name, object(), False
            self.outbox = []

        async def send(self, text_data=None, bytes_data=None, close=False) -> None:
            if self.name == "slow":
                await gate.wait()
            sent[self.name].append(text_data)

    fast, slow = Watcher("fast"), Watcher("slow")

    # when 30 pushes are handed to both
    for index in range(30):
        for watcher in (fast, slow):
            watcher.push([f"push {index}"])
        await asyncio.sleep(0)
    async with asyncio.timeout(5):  # the fast one has sent all it was handed
        while fast.sending is not None or fast.outbox:
            await asyncio.sleep(0.001)

    # then the fast one has every push while the slow one waits, keeping only the newest
    assert sent["fast"] == [f"push {index}" for index in range(30)]
    assert sent["slow"] == []
    sending = slow.sending
    assert sending is not None
    gate.set()
    await asyncio.wait_for(sending, timeout=5)
    assert not slow.outbox
    assert len(sent["slow"]) <= OUTBOX_LIMIT + 1
    assert sent["slow"][-1] == "push 29"


async def test_a_watcher_who_joins_while_the_last_one_leaves_still_gets_the_pushes(
    watched: Any, monkeypatch: Any
) -> None:
    # given: the process's hub, whose leaving of a group reaches the layer late (after a join)
    layer = get_channel_layer()
    hub = live._Hub()
    received: list[list[str]] = []

    class Watcher:
        def push(self, frames: list[str]) -> None:
            received.append(frames)

    first, second = Watcher(), Watcher()
    await hub.join(watched, first)
    joined = asyncio.Event()
    discard = layer.group_discard

    async def late_discard(group: str, channel: str) -> None:
        await joined.wait()
        await discard(group, channel)

    monkeypatch.setattr(layer, "group_discard", late_discard)

    # when: the last watcher leaves and another joins meanwhile
    leaving = asyncio.create_task(hub.leave(watched, first))
    await asyncio.sleep(0)
    await hub.join(watched, second)
    joined.set()
    await leaving

    # then: a push of the deal still reaches the one who joined
    push = {"type": "daily.push", "deal": watched.deal_id, "messages": [{"type": "presence"}]}
    await layer.group_send(watched.group, push)
    async with asyncio.timeout(5):
        while not received:
            await asyncio.sleep(0.01)
    assert received == [['{"type": "presence"}']]
    await hub.stop()
