"""A player's own account through the REST API: hashed, expiring, rotated and revoked tokens,
sign out everywhere, a guest's password, the export and the deletion, and their refusals."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from rest_framework.test import APIClient

from games import clock
from games.models import ApiToken, Game, Player
from tests.games.test_move_path import a_legal_move

pytestmark = pytest.mark.usefixtures("variants")


@pytest.fixture(autouse=True)
def _quick_hashes(settings):
    """Hash passwords quickly: these tests check who may do what, not the hasher."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def by_token(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    return client


def guest(nickname: str) -> tuple[APIClient, str]:
    """Return a browser (session) of a new guest and the token it was given."""
    client = APIClient()
    answer = client.post("/api/auth/guest/", {"nickname": nickname}, "json")
    assert answer.status_code == 201
    return client, answer.json()["token"]


# --- tokens -----------------------------------------------------------------------------------


def test_a_token_is_stored_as_its_hash_and_never_shown_again() -> None:
    # given
    _, secret = guest("Alice")

    # when
    listed = by_token(secret).get("/api/me/tokens/")

    # then the database holds only its SHA-256, and the list shows no secret
    token = ApiToken.objects.get()
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(list(ApiToken.objects.values_list()))
    assert listed.status_code == 200
    assert listed.json() == {
        "tokens": [
            {
                "id": token.pk,
                "created_at": listed.json()["tokens"][0]["created_at"],
                "expires_at": listed.json()["tokens"][0]["expires_at"],
                "last_used_at": listed.json()["tokens"][0]["last_used_at"],
                "current": True,
            }
        ]
    }
    assert secret not in listed.content.decode()


def test_an_expired_token_is_refused(settings) -> None:
    # given a token 90 days old
    _, secret = guest("Alice")
    later = clock.now() + dt.timedelta(days=settings.TOKEN_LIFETIME_DAYS, seconds=1)

    # when
    with clock.frozen(later):
        answer = by_token(secret).get("/api/me/")

    # then
    assert answer.status_code == 401
    assert answer.json() == {"error": "not_authenticated", "detail": "Invalid token."}


def test_rotation_gives_a_new_token_and_ends_the_one_it_came_with() -> None:
    # given
    _, old = guest("Alice")

    # when
    rotated = by_token(old).post("/api/me/tokens/")

    # then
    assert rotated.status_code == 201
    new = rotated.json()["token"]
    assert len(new) == 40 and new != old
    assert by_token(old).get("/api/me/").status_code == 401
    assert by_token(new).get("/api/me/").status_code == 200
    tokens = by_token(new).get("/api/me/tokens/").json()["tokens"]
    assert [(t["id"], t["current"]) for t in tokens] == [(rotated.json()["id"], True)]


def test_a_player_revokes_one_token_and_never_another_players() -> None:
    # given two players
    _, alice = guest("Alice")
    _, bob = guest("Bob")
    bobs = ApiToken.objects.get(player__nickname="Bob").pk

    # when
    theirs = by_token(alice).delete(f"/api/me/tokens/{bobs}/")
    huge = by_token(alice).delete(f"/api/me/tokens/{10**30}/")
    own = by_token(bob).delete(f"/api/me/tokens/{bobs}/")

    # then
    assert theirs.status_code == 404 and theirs.json()["error"] == "not_found"
    assert huge.status_code == 404
    assert own.status_code == 204
    assert by_token(bob).get("/api/me/").status_code == 401
    assert by_token(alice).get("/api/me/").status_code == 200


def test_past_the_limit_a_sign_in_ends_the_oldest_token(settings) -> None:
    # given a player with a password, two tokens at most
    settings.TOKEN_LIMIT = 2
    first = APIClient().post(
        "/api/auth/register/", {"nickname": "Bob", "password": "a long pass phrase"}, "json"
    )

    # when signing in twice more
    for _ in range(2):
        APIClient().post(
            "/api/auth/login/", {"nickname": "Bob", "password": "a long pass phrase"}, "json"
        )

    # then the first token is over, and two are left
    assert by_token(first.json()["token"]).get("/api/me/").status_code == 401
    assert ApiToken.objects.filter(player__nickname="Bob").count() == 2


def test_signing_out_everywhere_ends_every_session_and_token() -> None:
    # given one browser and one token of a player, and a second token
    browser, secret = guest("Alice")
    other = by_token(secret).post("/api/me/tokens/").json()["token"]
    browser.get("/api/auth/csrf/")
    csrf = browser.cookies["csrftoken"].value
    elsewhere = APIClient()
    elsewhere.cookies = browser.cookies  # the same session, on another machine
    # a second session of the player
    player = Player.objects.get(nickname="Alice")
    phone = APIClient()
    phone.force_login(player)

    # when
    answer = by_token(other).post("/api/auth/logout/", {"everywhere": True}, "json")

    # then nothing of the player's signs in any more
    assert answer.status_code == 204
    assert by_token(other).get("/api/me/").status_code == 401
    assert phone.get("/api/me/").status_code == 401
    assert browser.get("/api/me/", HTTP_X_CSRFTOKEN=csrf).status_code == 401
    assert ApiToken.objects.count() == 0


def test_signing_out_everywhere_wants_a_player_and_a_boolean() -> None:
    _, secret = guest("Alice")

    anonymous = APIClient().post("/api/auth/logout/", {"everywhere": True}, "json")
    bad = by_token(secret).post("/api/auth/logout/", {"everywhere": "yes"}, "json")

    assert anonymous.status_code == 401
    assert anonymous.json()["error"] == "not_authenticated"
    assert bad.status_code == 400
    assert bad.json()["field"] == "everywhere"
    assert by_token(secret).get("/api/me/").status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/me/tokens/"),
        ("post", "/api/me/tokens/"),
        ("delete", "/api/me/tokens/"),
        ("delete", "/api/me/tokens/1/"),
        ("post", "/api/me/password/"),
        ("get", "/api/me/export/"),
        ("delete", "/api/me/"),
    ],
)
def test_every_account_call_is_401_when_anonymous(method: str, path: str) -> None:
    answer = getattr(APIClient(), method)(path, {}, "json")

    assert answer.status_code == 401
    assert answer.json()["error"] == "not_authenticated"


# --- a guest's password -----------------------------------------------------------------------


def test_a_guest_who_sets_a_password_keeps_the_account() -> None:
    # given a guest, whose login without a password says why it cannot
    browser, _ = guest("Alice")
    before = APIClient().post(
        "/api/auth/login/", {"nickname": "alice", "password": "a long pass phrase"}, "json"
    )

    # when the guest sets a password, then logs out
    browser.get("/api/auth/csrf/")
    csrf = browser.cookies["csrftoken"].value
    answer = browser.post(
        "/api/me/password/", {"password": "a long pass phrase"}, "json", HTTP_X_CSRFTOKEN=csrf
    )
    still = browser.get("/api/me/")
    browser.post("/api/auth/logout/", {}, "json", HTTP_X_CSRFTOKEN=csrf)
    again = APIClient().post(
        "/api/auth/login/", {"nickname": "alice", "password": "a long pass phrase"}, "json"
    )

    # then
    assert before.status_code == 401
    assert "guest account with no password" in before.json()["detail"]
    assert answer.status_code == 200
    assert answer.json()["guest"] is False
    assert still.status_code == 200  # the session that set it goes on
    assert again.status_code == 200
    assert again.json()["player"]["nickname"] == "Alice"


def test_changing_a_password_wants_the_current_one() -> None:
    # given
    APIClient().post(
        "/api/auth/register/", {"nickname": "Bob", "password": "a long pass phrase"}, "json"
    )
    client = APIClient()
    login = client.post(
        "/api/auth/login/", {"nickname": "Bob", "password": "a long pass phrase"}, "json"
    )
    bob = by_token(login.json()["token"])

    # when
    missing = bob.post("/api/me/password/", {"password": "another pass phrase"}, "json")
    wrong = bob.post(
        "/api/me/password/",
        {"password": "another pass phrase", "current_password": "not it at all"},
        "json",
    )
    weak = bob.post(
        "/api/me/password/", {"password": "123", "current_password": "a long pass phrase"}, "json"
    )
    right = bob.post(
        "/api/me/password/",
        {"password": "another pass phrase", "current_password": "a long pass phrase"},
        "json",
    )

    # then
    assert (missing.status_code, missing.json()["field"]) == (400, "current_password")
    assert (wrong.status_code, wrong.json()["field"]) == (400, "current_password")
    assert (weak.status_code, weak.json()["field"]) == (400, "password")
    assert right.status_code == 200
    taken = APIClient().post("/api/auth/guest/", {"nickname": "BOB"}, "json").json()
    assert "If it is yours, log in with its password." in taken["detail"]


# --- export and deletion ----------------------------------------------------------------------


def test_the_export_holds_the_players_games_and_moves_but_no_secret() -> None:
    # given a daily game with a move
    _, secret = guest("Alice")
    alice = by_token(secret)
    game = alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
    moved = alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": a_legal_move(game["id"])}, "json"
    )
    assert moved.status_code == 200

    # when
    answer = alice.get("/api/me/export/")

    # then
    assert answer.status_code == 200
    body = answer.json()
    assert body["player"]["nickname"] == "Alice"
    assert [g["id"] for g in body["games"]] == [game["id"]]
    exported = body["games"][0]
    assert exported["seed"] is None  # today's daily seed stays secret
    assert exported["date"] == game["date"]
    assert secret not in answer.content.decode()
    assert Game.objects.get(pk=game["id"]).seed not in answer.content.decode()
    assert [m["ply"] for m in exported["moves"]] == [0]
    assert len(body["tokens"]) == 1 and set(body["tokens"][0]) >= {"id", "expires_at"}


def test_deletion_refuses_a_wrong_confirmation_or_password() -> None:
    # given
    login = APIClient().post(
        "/api/auth/register/", {"nickname": "Bob", "password": "a long pass phrase"}, "json"
    )
    bob = by_token(login.json()["token"])

    # when
    cases = {
        "no confirmation": bob.delete("/api/me/", {}, "json"),
        "wrong case": bob.delete("/api/me/", {"confirm": "bob"}, "json"),
        "not a text": bob.delete("/api/me/", {"confirm": ["Bob"]}, "json"),
        "no password": bob.delete("/api/me/", {"confirm": "Bob"}, "json"),
        "wrong password": bob.delete("/api/me/", {"confirm": "Bob", "password": "nope"}, "json"),
    }

    # then nothing was deleted
    fields = {name: (a.status_code, a.json()["field"]) for name, a in cases.items()}
    assert fields == {
        "no confirmation": (400, "confirm"),
        "wrong case": (400, "confirm"),
        "not a text": (400, "confirm"),
        "no password": (400, "password"),
        "wrong password": (400, "password"),
    }
    assert bob.get("/api/me/").status_code == 200


def test_a_deleted_account_is_gone_and_cannot_be_deleted_twice() -> None:
    # given a guest with a practice game, signed in by a session and a token
    browser, secret = guest("Alice")
    by_token(secret).post("/api/games/", {"variant": "castile", "mode": "practice"}, "json")
    browser.get("/api/auth/csrf/")
    csrf = browser.cookies["csrftoken"].value

    # when
    answer = browser.delete("/api/me/", {"confirm": "Alice"}, "json", HTTP_X_CSRFTOKEN=csrf)
    again = by_token(secret).delete("/api/me/", {"confirm": "Alice"}, "json")

    # then
    assert answer.status_code == 204
    assert again.status_code == 401
    assert browser.get("/api/me/").status_code == 401
    player = Player.objects.get()
    assert player.nickname.startswith("deleted-") and player.deleted_at is not None
    assert not player.has_usable_password() and not player.is_active
    assert not Game.objects.exists() and not ApiToken.objects.exists()
    assert APIClient().get("/api/players/Alice/").status_code == 404
    assert APIClient().get(f"/api/players/{player.nickname}/").status_code == 404
    # the name is free again, and the anonymous prefix is not for anyone
    assert APIClient().post("/api/auth/guest/", {"nickname": "Alice"}, "json").status_code == 201
    taken = APIClient().post("/api/auth/guest/", {"nickname": "Deleted-1"}, "json")
    assert taken.status_code == 400


def test_account_writes_are_rate_limited(settings) -> None:
    # given one account write an hour
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "account_player": "1/hour",
        },
    }
    _, secret = guest("Alice")
    alice = by_token(secret)

    # when
    first = alice.delete("/api/me/", {"confirm": "wrong"}, "json")
    second = alice.delete("/api/me/", {"confirm": "Alice"}, "json")

    # then
    assert first.status_code == 400
    assert second.status_code == 429
    assert second.json()["error"] == "rate_limited"
    assert alice.get("/api/me/tokens/").status_code == 200  # reading the list is not limited


def test_deletion_keeps_the_board_and_every_result_verifies_again(
    django_capture_on_commit_callbacks,
) -> None:
    # given two players who finished today's Castile (resigned: verified and ranked)
    from games.models import Result
    from games.services.moderation import game_reverify
    from games.verification.seals import seal_is_valid

    players = {}
    for nickname in ("Alice", "Bob"):
        _, secret = guest(nickname)
        client = by_token(secret)
        game = client.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
        assert client.post(f"/api/games/{game['id']}/resign/").status_code == 200
        players[nickname] = (client, game)
    board_url = f"/api/leaderboards/castile/{players['Alice'][1]['date']}/"
    before = APIClient().get(board_url).json()  # the board is built (in Redis)

    # when Alice deletes her account
    alice, _ = players["Alice"]
    with django_capture_on_commit_callbacks(execute=True):
        assert alice.delete("/api/me/", {"confirm": "Alice"}, "json").status_code == 204

    # then the board keeps its ranks, under her new name, and every result verifies again
    after = APIClient().get(board_url).json()
    anonymous = Player.objects.get(deleted_at__isnull=False).nickname
    assert after["total"] == before["total"] == 2
    assert [(e["rank"], e["game"]) for e in after["entries"]] == [
        (e["rank"], e["game"]) for e in before["entries"]
    ]
    names = {e["game"]: e["player"] for e in after["entries"]}
    assert names == {players["Alice"][1]["id"]: anonymous, players["Bob"][1]["id"]: "Bob"}
    for result in Result.objects.all():
        assert seal_is_valid(result)
        assert game_reverify(game=result.game).ok


# --- commitments ------------------------------------------------------------------------------


def test_a_commitment_once_published_is_never_regenerated_in_the_admin(variants, client) -> None:
    # given tomorrow's deals made, and their commitments shown by the API (the list's "next")
    from games import services
    from games.models import Deal

    client.force_login(Player.objects.create_superuser("Root", "the right pass phrase"))
    tomorrow = clock.today() + dt.timedelta(days=1)
    made = services.deal_get_or_create(variant=variants["caprice"], date=tomorrow)
    listed = APIClient().get("/api/daily/").json()
    shown = {e["variant"]: e["next"]["commitment"] for e in listed if e["next"]}

    # when an admin asks to regenerate it
    page = client.post(
        "/admin/games/deal/",
        {"action": "regenerate", "_selected_action": [made.pk]},
        follow=True,
    ).content.decode()

    # then it is refused with the reason, nothing is asked of the scheduler, the deal is as shown
    assert "has been published: the deal never changes" in page
    deal = Deal.objects.get(pk=made.pk)
    assert deal.published_at is not None and deal.regeneration_requested_at is None
    assert shown["caprice"] == deal.commitment == made.commitment


def test_the_scheduler_does_not_remake_a_deal_published_after_it_was_asked(variants) -> None:
    # given a regeneration asked before the commitment was shown
    from games import services
    from games.models import Deal

    tomorrow = clock.today() + dt.timedelta(days=1)
    deal = services.deal_get_or_create(variant=variants["caprice"], date=tomorrow)
    services.deal_request_regeneration(deal_id=deal.pk)
    APIClient().get("/api/daily/")

    # when the scheduler runs the requests
    done = services.deals_regenerate_requested(seconds=0.01)

    # then it refused, and the commitment stands
    assert [(d.pk, error is not None) for d, error in done] == [(deal.pk, True)]
    assert Deal.objects.get(pk=deal.pk).commitment == deal.commitment


# --- the admin and the upgrade ----------------------------------------------------------------


def test_the_admin_lists_tokens_without_a_secret_and_revokes_them(client) -> None:
    # given a guest's token and a superuser
    _, secret = guest("Alice")
    root = Player.objects.create_superuser("Root", "the right pass phrase")
    client.force_login(root)
    token = ApiToken.objects.get(player__nickname="Alice")

    # when
    listed = client.get("/admin/games/apitoken/")
    deleted = client.post(f"/admin/games/apitoken/{token.pk}/delete/", {"post": "yes"})

    # then
    assert listed.status_code == 200 and "Alice" in listed.content.decode()
    assert secret not in listed.content.decode() and token.digest not in listed.content.decode()
    assert deleted.status_code == 302
    assert by_token(secret).get("/api/me/").status_code == 401


def test_the_upgrade_hashes_every_clear_token_and_drops_their_table() -> None:
    # given the former table of clear tokens, with one token
    import importlib

    from django.apps import apps
    from django.db import connection

    upgrade = importlib.import_module("games.migrations.0012_accounts_tokens_commitments")
    player = Player.objects.create_user("Old")
    clear = "ab" * 20
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamptz, "
            "user_id bigint)"
        )
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, now(), %s)", [clear, player.pk])

    # when the upgrade runs
    with connection.schema_editor() as editor:
        upgrade.hash_clear_tokens(apps, editor)

    # then the token still signs in, stored as its hash only, and the clear table is gone
    assert by_token(clear).get("/api/me/").json()["nickname"] == "Old"
    assert ApiToken.objects.get().digest == hashlib.sha256(clear.encode()).hexdigest()
    assert "authtoken_token" not in connection.introspection.table_names()
