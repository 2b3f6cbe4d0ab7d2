"""The leagues API: making, joining, leaving and managing a league, and every refusal."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from rest_framework.test import APIClient

from leagues.models import League

pytestmark = pytest.mark.django_db


def error_of(answer) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]


# --- making and joining -----------------------------------------------------------------------


def test_a_player_creates_a_league_and_a_friend_joins_it_by_its_code(guest):
    # given
    ann, bob = guest("ann"), guest("bob")
    # when
    made = ann.post(
        "/api/leagues/", {"name": "Family", "description": "Sundays"}, format="json"
    ).json()
    joined = bob.post("/api/leagues/join/", {"code": made["code"].lower()}, format="json")
    # then
    assert joined.status_code == 201
    assert made["name"] == "Family" and made["owner"] == "ann" and made["members"] == 1
    assert made["invite_path"] == f"/#/leagues/join/{made['code']}"
    detail = bob.get(f"/api/leagues/{made['id']}/").json()
    assert [m["player"] for m in detail["member_list"]] == ["ann", "bob"]
    assert detail["description"] == "Sundays" and detail["members"] == 2
    assert [league["name"] for league in bob.get("/api/leagues/").json()] == ["Family"]


BAD_LEAGUES = [
    ({"name": "a b"}, "name"),
    ({"name": "ab"}, "name"),
    ({"name": "x" * 25}, "name"),
    ({"name": "ok_name\n"}, "name"),
    ({}, "name"),
    ({"name": 12}, "name"),
    ({"name": "Family", "description": "x" * 281}, "description"),
    ({"name": "Family", "description": "nul\x00"}, "description"),
]


def test_a_league_name_follows_the_nickname_rule(guest):
    ann = guest("ann")
    for body, field in BAD_LEAGUES:
        answer = ann.post("/api/leagues/", body, format="json")
        assert error_of(answer) == (400, "invalid"), body
        assert answer.json()["field"] == field
    assert not League.objects.exists()


def test_a_stranger_is_refused_everything_of_a_league(guest, league_of):
    ann, eve = guest("ann"), guest("eve")
    league = league_of(ann)
    base = f"/api/leagues/{league['id']}"
    assert error_of(eve.get(f"{base}/")) == (403, "not_member")
    assert error_of(eve.get(f"{base}/boards/caprice/2026-12-01/")) == (403, "not_member")
    assert error_of(eve.get(f"{base}/standings/caprice/")) == (403, "not_member")
    assert error_of(eve.post(f"{base}/leave/")) == (403, "not_member")
    assert error_of(eve.delete(f"{base}/")) == (403, "not_member")
    assert error_of(APIClient().get(f"{base}/")) == (401, "not_authenticated")
    assert error_of(APIClient().post("/api/leagues/join/", {"code": league["code"]})) == (
        401,
        "not_authenticated",
    )


def test_an_unknown_or_malformed_league_is_not_found(guest, league_of):
    ann = guest("ann")
    league_of(ann)
    for league_id in ["abc", "0", "9" * 30, "1\x00", "99999"]:
        assert error_of(ann.get(f"/api/leagues/{league_id}/")) == (404, "not_found"), league_id


def test_a_bad_code_is_refused(guest, league_of):
    league_of(guest("ann"))
    bob = guest("bob")
    for code in ["ZZZZZZZZ", "short", "", None, 42, "ABCD\x00EF", "é" * 8, "A" * 100]:
        answer = bob.post("/api/leagues/join/", {"code": code}, format="json")
        assert error_of(answer) == (404, "bad_code"), code


def test_joining_twice_is_refused(guest, league_of):
    ann, bob = guest("ann"), guest("bob")
    league = league_of(ann, "Family", bob)
    answer = bob.post("/api/leagues/join/", {"code": league["code"]}, format="json")
    assert error_of(answer) == (409, "already_member")
    assert answer.json()["league"] == league["id"]


def test_a_full_league_takes_no_one_more(guest, league_of, settings):
    settings.LEAGUE_MEMBERS = 2
    ann, bob, cid = guest("ann"), guest("bob"), guest("cid")
    league = league_of(ann, "Family", bob)
    answer = cid.post("/api/leagues/join/", {"code": league["code"]}, format="json")
    assert error_of(answer) == (409, "league_full")
    assert ann.get(f"/api/leagues/{league['id']}/").json()["members"] == 2


def test_a_player_is_in_at_most_so_many_leagues(guest, league_of, settings):
    settings.LEAGUES_PER_PLAYER = 1
    ann, bob = guest("ann"), guest("bob")
    league_of(ann, "First")
    other = league_of(bob, "Second")
    assert error_of(ann.post("/api/leagues/", {"name": "Third"}, format="json")) == (
        409,
        "too_many_leagues",
    )
    answer = ann.post("/api/leagues/join/", {"code": other["code"]}, format="json")
    assert error_of(answer) == (409, "too_many_leagues")


def test_joining_is_rate_limited(guest, league_of, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "leagues_join_player": "3/hour",
        },
    }
    ann, bob = guest("ann"), guest("bob")
    league = league_of(ann)
    for guess in ("AAAAAAAA", "BBBBBBBB", "CCCCCCCC"):
        answer = bob.post("/api/leagues/join/", {"code": guess}, format="json")
        assert error_of(answer) == (404, "bad_code")
    answer = bob.post("/api/leagues/join/", {"code": league["code"]}, format="json")
    assert error_of(answer) == (429, "rate_limited")
    assert answer.json()["retry_after"] >= 1


# --- the owner's powers -----------------------------------------------------------------------


def test_only_the_owner_renames_removes_regenerates_and_closes(guest, league_of):
    ann, bob, cid = guest("ann"), guest("bob"), guest("cid")
    league = league_of(ann, "Family", bob, cid)
    base = f"/api/leagues/{league['id']}"
    assert error_of(bob.patch(f"{base}/", {"name": "Mine"}, format="json")) == (403, "not_owner")
    assert error_of(bob.delete(f"{base}/members/cid/")) == (403, "not_owner")
    assert error_of(bob.post(f"{base}/code/")) == (403, "not_owner")
    assert error_of(bob.delete(f"{base}/")) == (403, "not_owner")
    assert ann.get(f"{base}/").json()["name"] == "Family"


def test_the_owner_renames_with_the_name_rule(guest, league_of):
    ann = guest("ann")
    base = f"/api/leagues/{league_of(ann)['id']}"
    renamed = ann.patch(f"{base}/", {"name": "Cousins", "description": "all"}, format="json")
    assert renamed.status_code == 200
    assert (renamed.json()["name"], renamed.json()["description"]) == ("Cousins", "all")
    answer = ann.patch(f"{base}/", {"name": "no spaces"}, format="json")
    assert error_of(answer) == (400, "invalid")


def test_the_owner_removes_a_member_who_then_loses_access(guest, league_of):
    ann, bob = guest("ann"), guest("bob")
    league = league_of(ann, "Family", bob)
    base = f"/api/leagues/{league['id']}"
    assert ann.delete(f"{base}/members/BOB/").status_code == 204
    assert error_of(bob.get(f"{base}/boards/caprice/2026-12-01/")) == (403, "not_member")
    assert error_of(ann.delete(f"{base}/members/bob/")) == (403, "not_member")
    assert error_of(ann.delete(f"{base}/members/ann/")) == (409, "owner_cannot_leave")
    # removed, bob may come back by the code
    answer = bob.post("/api/leagues/join/", {"code": league["code"]}, format="json")
    assert answer.status_code == 201


def test_a_member_leaves_and_the_owner_cannot(guest, league_of):
    ann, bob = guest("ann"), guest("bob")
    base = f"/api/leagues/{league_of(ann, 'Family', bob)['id']}"
    assert bob.post(f"{base}/leave/").status_code == 204
    assert error_of(bob.get(f"{base}/")) == (403, "not_member")
    assert error_of(ann.post(f"{base}/leave/")) == (409, "owner_cannot_leave")


def test_a_new_code_voids_the_old_one(guest, league_of):
    ann, bob = guest("ann"), guest("bob")
    league = league_of(ann)
    fresh = ann.post(f"/api/leagues/{league['id']}/code/").json()
    assert fresh["code"] != league["code"]
    old = bob.post("/api/leagues/join/", {"code": league["code"]}, format="json")
    assert error_of(old) == (404, "bad_code")
    assert bob.post("/api/leagues/join/", {"code": fresh["code"]}, format="json").status_code == 201


def test_a_closed_league_is_closed_to_everyone(guest, league_of):
    ann, bob, cid = guest("ann"), guest("bob"), guest("cid")
    league = league_of(ann, "Family", bob)
    base = f"/api/leagues/{league['id']}"
    assert ann.delete(f"{base}/").status_code == 204
    assert error_of(bob.get(f"{base}/")) == (410, "league_closed")
    assert error_of(ann.patch(f"{base}/", {"name": "Again"}, format="json")) == (
        410,
        "league_closed",
    )
    joined = cid.post("/api/leagues/join/", {"code": league["code"]}, format="json")
    assert error_of(joined) == (410, "league_closed")
    assert bob.get("/api/leagues/").json() == []


# --- the admin --------------------------------------------------------------------------------


def test_the_admin_renames_and_closes_a_league_with_a_log_entry(guest, league_of, client):
    from games.models import Player

    league = League.objects.get(pk=league_of(guest("ann"))["id"])
    Player.objects.create_superuser("boss", "a-long-password-1")
    client.login(nickname="boss", password="a-long-password-1")
    url = f"/admin/leagues/league/{league.pk}/change/"
    refused = client.post(url, {"name": "bad name", "description": ""})
    assert refused.status_code == 200  # the form again, with the rule
    answer = client.post(
        url,
        {
            "name": "Renamed",
            "description": "",
            "memberships-TOTAL_FORMS": "1",
            "memberships-INITIAL_FORMS": "1",
            "memberships-MIN_NUM_FORMS": "0",
            "memberships-MAX_NUM_FORMS": "1000",
            "memberships-0-id": str(league.memberships.get().pk),
            "memberships-0-league": str(league.pk),
        },
    )
    assert answer.status_code == 302, answer.content[:2000]
    closed = client.post(
        "/admin/leagues/league/", {"action": "close_leagues", "_selected_action": [league.pk]}
    )
    assert closed.status_code == 302
    league.refresh_from_db()
    assert league.name == "Renamed" and league.closed_at is not None
    messages = list(
        LogEntry.objects.filter(object_id=str(league.pk)).values_list("change_message", flat=True)
    )
    assert len(messages) == 2 and "Closed by a moderator." in messages


# --- concurrency ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_players_joining_at_once_never_overfill_a_league(settings):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from core.errors import ServiceError
    from games.services import player_create_guest
    from leagues import services

    # given: a league with room for two more, and six players at its door
    settings.LEAGUE_MEMBERS = 3
    owner = player_create_guest(nickname="owner")
    code = services.league_create(owner=owner, name="Busy").code
    players = [player_create_guest(nickname=f"racer{i}") for i in range(6)]

    def join(player) -> str:
        try:
            services.league_join(player=player, code=code)
            return "joined"
        except ServiceError as error:
            return error.code.value
        finally:
            connection.close()

    # when: they all join at the same moment
    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = sorted(pool.map(join, players))

    # then: two got in, the others were told the league is full
    assert outcomes == ["joined", "joined", *["league_full"] * 4]
    assert League.objects.get(code=code).memberships.count() == 3
