"""The league socket: its board pushed live as its members' results come, and a member who is
removed, or a closed league, losing access at once."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import clock, services
from games.models import Deal, Player
from games.signals import result_verified
from leaderboards import changes
from leagues import services as league_services
from leagues.models import League
from tests.games.sockets import close_code, make_player, receive
from tests.leaderboards.conftest import _game, _result

pytestmark = pytest.mark.django_db(transaction=True)

EMPTY = {"type": "leaderboard", "entries": [], "total": 0}


@pytest.fixture
def family(ws_variants: Any) -> Any:
    """Ann owns Family, Bob is in it, Eve is not; with their tokens and today's Box Kite deal."""

    def make() -> dict[str, Any]:
        people = {name: make_player(name) for name in ("ann", "bob", "eve")}
        league = league_services.league_create(owner=people["ann"][0], name="Family")
        league_services.league_join(player=people["bob"][0], code=league.code)
        deal = services.deal_get_or_create(variant=ws_variants["box-kite"], date=clock.today())
        return {"league": league, "deal": deal, **people}

    return make


def verified(player: Player, deal: Deal, cards: int) -> None:
    """Store a verified result of ``player`` and tell the boards, as the end of a game does."""
    game = _game(player, deal, player.pk)
    game.save()
    result = _result(game, {"cards": cards})
    result.save()
    Deal.objects.filter(pk=deal.pk).update(results_count=deal.results_count + 1)
    deal.refresh_from_db()
    result_verified.send(sender=type(result), result=result)
    changes.board_changed(deal.pk)


def path(world: dict[str, Any], token: str) -> str:
    return f"/ws/leagues/{world['league'].pk}/box-kite/{clock.today()}/?token={token}"


async def test_a_members_result_is_pushed_to_the_league_board_and_a_strangers_is_not(
    ws_connect: Any, family: Any
) -> None:
    # given: Ann watches her league's board
    world = await database_sync_to_async(family)()
    ann = await ws_connect(path(world, world["ann"][1]))
    assert await receive(ann) == EMPTY
    # when: a stranger then Bob finish today's deal
    await database_sync_to_async(verified)(world["eve"][0], world["deal"], 50)
    await database_sync_to_async(verified)(world["bob"][0], world["deal"], 20)
    # then: one board comes, with Bob alone, ranked first
    board = await receive(ann)
    assert board["total"] == 1
    assert [(e["rank"], e["player"], e["foundation_cards"]) for e in board["entries"]] == [
        (1, "bob", 20)
    ]
    await database_sync_to_async(verified)(world["ann"][0], world["deal"], 30)
    board = await receive(ann)
    assert [e["player"] for e in board["entries"]] == ["ann", "bob"]


async def test_a_removed_member_loses_the_league_socket_at_once(
    ws_connect: Any, family: Any
) -> None:
    world = await database_sync_to_async(family)()
    bob = await ws_connect(path(world, world["bob"][1]))
    ann = await ws_connect(path(world, world["ann"][1]))
    assert await receive(bob) == EMPTY
    assert await receive(ann) == EMPTY
    # when the owner removes Bob
    league = world["league"]
    await database_sync_to_async(league_services.member_remove)(league=league, nickname="bob")
    # then Bob's socket says why and closes 4403; Ann's stays open
    refusal = await receive(bob)
    assert refusal["error"] == "not_member"
    assert await close_code(bob) == 4403
    assert await ann.receive_nothing(timeout=0.2)
    # and Bob cannot come back on the socket
    again = await ws_connect(path(world, world["bob"][1]))
    assert (await receive(again))["error"] == "not_member"
    assert await close_code(again) == 4403


async def test_closing_a_league_ends_every_members_socket(ws_connect: Any, family: Any) -> None:
    world = await database_sync_to_async(family)()
    ann = await ws_connect(path(world, world["ann"][1]))
    assert await receive(ann) == EMPTY
    await database_sync_to_async(league_services.league_close)(league=world["league"])
    assert (await receive(ann))["error"] == "league_closed"
    assert await close_code(ann) == 4403


async def test_strangers_visitors_and_unknown_leagues_or_deals_are_refused(
    ws_connect: Any, family: Any
) -> None:
    world = await database_sync_to_async(family)()
    token, league, today = world["ann"][1], world["league"].pk, clock.today()
    for where, error, code in (
        (path(world, world["eve"][1]), "not_member", 4403),
        (path(world, ""), "not_authenticated", 4403),
        (f"/ws/leagues/{league + 1000}/box-kite/{today}/?token={token}", "not_found", 4404),
        (f"/ws/leagues/{league}/box-kite/2999-01-01/?token={token}", "not_found", 4404),
        (f"/ws/leagues/{league}/nothing/{today}/?token={token}", "not_found", 4404),
    ):
        socket = await ws_connect(where)
        assert (await receive(socket))["error"] == error, where
        assert await close_code(socket) == code
    assert await database_sync_to_async(League.objects.count)() == 1
