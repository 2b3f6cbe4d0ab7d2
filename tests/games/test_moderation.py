"""Moderation in the admin: game filters, re-verify, void a result, ban a player, the log."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission
from django.test import Client

from games import services
from games.engine import legal_moves
from games.models import Game, Move, Player, Result, VerificationFailure
from games.services import moderation
from games.services.games import BANNED_DETAIL
from tests.games.sockets import a_legal_move, receive

GAMES = "/admin/games/game/"
PLAYERS = "/admin/games/player/"


# --- helpers ------------------------------------------------------------------------------


@pytest.fixture
def root(db) -> Player:
    return Player.objects.create_superuser("root", "a-long-password-1")


@pytest.fixture
def staff_client(client: Client, root: Player) -> Client:
    client.force_login(root)
    return client


def daily(player_client: Any, *, moves: int = 0, finish: bool = True) -> str:
    """Start the player's daily Caprice game, play ``moves`` legal moves, resign; return its id."""
    game_id = player_client.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json")
    game_id = game_id.json()["id"]
    for ply in range(moves):
        move = legal_moves(services.engine_state(Game.objects.get(pk=game_id)))[0].to_json()
        answer = player_client.post(
            f"/api/games/{game_id}/moves/", {"ply": ply, "move": move}, "json"
        )
        assert answer.status_code == 200, answer.json()
    if finish:
        assert player_client.post(f"/api/games/{game_id}/resign/").status_code == 200
    return game_id


def act(client: Client, url: str, action: str, ids: list[Any], **form: str) -> Any:
    """Post an admin action on ``ids`` as its intermediate page does (``apply`` when a reason
    is given), following the redirect to the list with its messages."""
    data: dict[str, Any] = {"action": action, "_selected_action": [str(i) for i in ids], **form}
    if "reason" in form:
        data["apply"] = "yes"
    else:
        data["index"] = "0"
    return client.post(url, data, follow=True)


def said(response: Any) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def logged(obj: Any) -> list[str]:
    return list(
        LogEntry.objects.filter(object_id=str(obj.pk), action_flag=CHANGE)
        .order_by("pk")
        .values_list("change_message", flat=True)
    )


# --- who may moderate ---------------------------------------------------------------------


@pytest.mark.parametrize("url", [GAMES, PLAYERS, "/admin/games/result/"])
def test_the_pages_refuse_anonymous_and_non_staff_visitors(join, client, url) -> None:
    # given a logged-in player who is not staff
    player = Player.objects.create_user("Plain", "a-long-password-1")
    member = Client()
    member.force_login(player)
    # when either asks, then both are sent to the login page
    for visitor in (client, member):
        answer = visitor.get(url)
        assert answer.status_code == 302 and answer["Location"].startswith("/admin/login/")


def test_staff_who_may_only_view_games_see_them_but_get_no_actions(join) -> None:
    # given a staff member allowed to view games only, and a finished game
    game_id = daily(join("Alice"))
    viewer = Player.objects.create_user("Viewer", "a-long-password-1", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_game"))
    client = Client()
    client.force_login(viewer)
    # when they list games, then try to void one
    page = client.get(GAMES)
    answer = act(client, GAMES, "void_results", [game_id], reason="Because")
    # then they see the list without the moderation actions, and nothing is voided
    assert page.status_code == 200
    assert "void_results" not in page.content.decode()
    assert "reverify" not in page.content.decode()
    assert answer.status_code == 200 and said(answer) == []
    assert Result.objects.get(pk=game_id).voided_at is None
    assert client.get(PLAYERS).status_code == 403


@pytest.mark.parametrize(
    ("url", "action", "value"),
    [
        (PLAYERS, "ban_players", "abc"),
        (GAMES, "void_results", "a\x00b"),
        (PLAYERS, "unban_players", "1.5"),
    ],
)
def test_a_forged_selection_is_refused_with_a_message(staff_client, url, action, value) -> None:
    answer = staff_client.post(
        url, {"action": action, "_selected_action": [value], "index": "0"}, follow=True
    )

    assert answer.status_code == 200
    assert said(answer) == ["The selection names no such object."]


# --- filters and secrecy ------------------------------------------------------------------


def test_games_filter_by_variant_day_status_verified_and_assisted(staff_client, join) -> None:
    # given a finished daily Caprice game, one in play, and a practice game of Castile
    finished = daily(join("Alice"))
    playing = daily(join("Bob"), finish=False)
    practice = join("Cyd").post("/api/games/", {"variant": "castile", "mode": "practice"}, "json")
    practice_id = practice.json()["id"]
    caprice = Game.objects.get(pk=finished).variant_id
    today = Game.objects.get(pk=finished).deal.date
    tomorrow = today + dt.timedelta(days=1)

    def listed(query: str) -> set[str]:
        answer = staff_client.get(GAMES + query)
        assert answer.status_code == 200
        return {game.pk for game in answer.context["cl"].result_list}

    # when / then
    assert listed("") == {finished, playing, practice_id}
    assert listed(f"?variant__id__exact={caprice}") == {finished, playing}
    assert listed(f"?deal__date__gte={today}&deal__date__lt={tomorrow}") == {finished, playing}
    assert listed(f"?deal__date__year={today.year}&deal__date__month={today.month}") == {
        finished,
        playing,
    }
    assert listed("?status__exact=resigned") == {finished}
    assert listed("?verified__exact=1") == {finished}
    assert listed("?assisted__exact=0&mode__exact=daily") == {finished, playing}
    assert listed("?assisted__exact=1") == set()


def test_the_seed_and_position_of_a_game_on_an_open_day_never_appear(staff_client, join) -> None:
    # given a daily game of today (the day is not over) with a move played
    game_id = daily(join("Alice"), moves=1, finish=False)
    game = Game.objects.select_related("deal").get(pk=game_id)
    # when staff open its page, the list, and re-verify it
    pages = [
        staff_client.get(f"{GAMES}{game_id}/change/"),
        staff_client.get(GAMES),
        act(staff_client, GAMES, "reverify", [game_id]),
    ]
    # then neither the seed nor the stored position shows anywhere
    for page in pages:
        text = page.content.decode()
        assert page.status_code == 200
        assert game.seed not in text and game.deal.seed not in text
        assert '"piles"' not in text


# --- re-verify ----------------------------------------------------------------------------


def test_reverify_passes_an_honest_game_and_fails_tampered_ones_keeping_the_failure(
    staff_client, join
) -> None:
    # given three finished games: honest, one with a move row edited, one with its result edited
    honest = daily(join("Honest"), moves=2)
    moved = daily(join("Moved"), moves=2)
    edited = daily(join("Edited"), moves=1)
    Move.objects.filter(game_id=moved, ply=1).update(at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    Result.objects.filter(pk=edited).update(moves=1_000)
    # when staff re-verify all three
    answer = act(staff_client, GAMES, "reverify", [honest, moved, edited])
    # then each is reported, failures are kept, and each game's log says what happened
    assert answer.status_code == 200
    messages = said(answer)
    assert f"Game {honest}: Re-verified: OK." in messages
    assert (
        f"Game {moved}: Re-verification failed (move_seal): "
        "move 1 does not carry the server's seal. "
        "Its result still holds its seal: void it to take it off the board." in messages
    )
    assert (
        f"Game {edited}: Re-verification failed (result_seal): "
        "the result does not carry the server's seal." in messages
    )
    failures = dict(VerificationFailure.objects.values_list("game_id", "reason"))
    assert failures == {moved: "move_seal", edited: "result_seal"}
    assert logged(Game.objects.get(pk=honest)) == ["Re-verified: OK."]
    assert logged(Game.objects.get(pk=moved))[0].startswith("Re-verification failed (move_seal)")


def test_reverify_notices_a_stored_position_the_log_does_not_reach(staff_client, join) -> None:
    # given a practice game whose stored position was edited
    client = join("Alice")
    game_id = client.post("/api/games/", {"variant": "caprice", "mode": "practice"}, "json")
    game_id = game_id.json()["id"]
    game = Game.objects.get(pk=game_id)
    state = game.state
    state["piles"] = list(reversed(state["piles"]))
    Game.objects.filter(pk=game_id).update(state=state)
    # when staff re-verify it, then it fails and is kept
    messages = said(act(staff_client, GAMES, "reverify", [game_id]))
    assert messages == [
        f"Game {game_id}: Re-verification failed (state): "
        "the stored position is not the one the log reaches."
    ]
    assert VerificationFailure.objects.get().reason == "state"


# --- void ---------------------------------------------------------------------------------


def test_void_asks_a_reason_then_voids_shows_it_on_the_game_and_logs_it(
    staff_client, join, django_capture_on_commit_callbacks
) -> None:
    # given Alice's finished game and Bob's game in play (no result)
    alice = join("Alice")
    voided, unfinished = daily(alice), daily(join("Bob"), finish=False)
    # when staff choose the action, the page asks the reason
    form = act(staff_client, GAMES, "void_results", [voided, unfinished])
    assert form.status_code == 200
    assert 'name="reason"' in form.content.decode() and "Void results" in form.content.decode()
    # and a missing or overlong reason is refused on that page, voiding nothing
    for reason in ("", "   ", "x" * 501, "nul\x00byte"):
        again = act(staff_client, GAMES, "void_results", [voided], reason=reason)
        assert again.status_code == 200 and 'name="reason"' in again.content.decode()
    assert Result.objects.get(pk=voided).voided_at is None
    # when a reason is given
    with django_capture_on_commit_callbacks(execute=True):
        done = act(staff_client, GAMES, "void_results", [voided, unfinished], reason="Shared it")
    # then the result is voided by root, the game without a result is skipped, all is logged
    assert said(done) == [f"Game {unfinished} has no result: skipped.", "1 result voided."]
    result = Result.objects.get(pk=voided)
    assert (result.void_reason, result.voided_by.nickname) == ("Shared it", "root")
    assert logged(result.game) == ["Result voided: Shared it"]
    assert logged(Game.objects.get(pk=unfinished)) == []
    game = alice.get(f"/api/games/{voided}/").json()
    assert (game["voided"], game["void_reason"]) == (True, "Shared it")
    # and voiding it again changes nothing and says why
    twice = act(staff_client, GAMES, "void_results", [voided], reason="Again")
    assert f"result of game {voided}: This result is already voided." in said(twice)
    assert Result.objects.get(pk=voided).void_reason == "Shared it"


def test_a_french_speaking_moderator_voids_in_french_while_the_log_stays_english(
    staff_client, join
) -> None:
    # given a moderator who reads French, Alice's finished game and Bob's game in play
    staff_client.cookies["django_language"] = "fr"
    voided, unfinished = daily(join("Alice")), daily(join("Bob"), finish=False)
    # when they open the list of games, then its actions speak French
    assert (
        "Annuler le résultat des parties sélectionnées" in staff_client.get(GAMES).content.decode()
    )
    # when they choose to void, then the page asks the reason in French
    form = act(staff_client, GAMES, "void_results", [voided, unfinished]).content.decode()
    assert "<title>Annuler des résultats" in form and "Chaque résultat quitte" in form
    assert f"<li>Partie {unfinished} de Bob</li>" in form and "Void" not in form
    assert "Motif" in form and "Obligatoire\u202f; au plus 500 caractères." in form
    assert 'value="Annuler les résultats"' in form
    # when they give a reason, twice
    done = act(staff_client, GAMES, "void_results", [voided, unfinished], reason="Triche")
    twice = act(staff_client, GAMES, "void_results", [voided], reason="Encore")
    # then they are told in French
    assert said(done) == [
        f"La partie {unfinished} n’a pas de résultat\u00a0: laissée de côté.",
        "1 résultat annulé.",
    ]
    assert said(twice) == [
        f"résultat de la partie {voided}\u00a0: Ce résultat est déjà annulé.",
        "0 résultat annulé.",
    ]
    # and the log, read later by anyone, stays in English
    assert logged(Game.objects.get(pk=voided)) == ["Result voided: Triche"]


def test_a_void_survives_no_edit_of_its_reason(staff_client, join) -> None:
    # given a voided result
    game_id = daily(join("Alice"))
    act(staff_client, GAMES, "void_results", [game_id], reason="Cheated")
    # when its reason is edited in the database, then its seal no longer holds
    from games.verification.seals import seal_is_valid

    assert seal_is_valid(Result.objects.get(pk=game_id))
    Result.objects.filter(pk=game_id).update(void_reason="Nothing")
    assert not seal_is_valid(Result.objects.get(pk=game_id))
    page = staff_client.get("/admin/games/result/").content.decode()
    assert 'alt="False"' in page


# --- ban ----------------------------------------------------------------------------------


def test_a_ban_asks_a_reason_blocks_dailies_but_not_practice_and_is_logged(
    staff_client, join, root
) -> None:
    # given Alice with a daily game in play
    alice = join("Alice")
    game_id = daily(alice, finish=False)
    player = Player.objects.get(nickname="Alice")
    # when staff choose the action, the page asks the reason; then give one
    form = act(staff_client, PLAYERS, "ban_players", [player.pk])
    assert form.status_code == 200 and 'name="reason"' in form.content.decode()
    done = act(staff_client, PLAYERS, "ban_players", [player.pk, root.pk], reason="Bot play")
    # then she is banned (a moderator cannot ban themselves), and it is logged
    assert said(done) == ["root: A moderator cannot ban their own account.", "1 player banned."]
    player.refresh_from_db()
    assert (player.ban_reason, player.banned_at is not None) == ("Bot play", True)
    assert logged(player) == ["Banned from the dailies: Bot play"]
    # and every daily action is refused with a clear reason, while practice still works
    move = legal_moves(services.engine_state(Game.objects.get(pk=game_id)))[0].to_json()
    refused = [
        alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json"),
        alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json"),
        alice.post(f"/api/games/{game_id}/moves/", {"ply": 0, "move": move}, "json"),
        alice.post(f"/api/games/{game_id}/resign/"),
        alice.get(f"/api/games/{game_id}/hint/"),
    ]
    for answer in refused:
        assert answer.status_code == 403
        assert answer.json() == {"error": "forbidden", "detail": BANNED_DETAIL}
    assert Game.objects.get(pk=game_id).ply == 0
    practice = alice.post("/api/games/", {"variant": "caprice", "mode": "practice"}, "json")
    assert practice.status_code == 201
    assert alice.get(f"/api/games/{game_id}/").status_code == 200  # still hers to look at
    # when the ban is lifted, she plays her daily again
    lifted = act(staff_client, PLAYERS, "unban_players", [player.pk])
    assert said(lifted) == ["1 ban lifted."]
    assert logged(player) == ["Banned from the dailies: Bot play", "Ban lifted."]
    answer = alice.post(f"/api/games/{game_id}/moves/", {"ply": 0, "move": move}, "json")
    assert answer.status_code == 200


def test_the_admin_counts_in_words_and_each_reason_form_says_where_its_reason_goes(
    staff_client, join
) -> None:
    # given two finished games of two players
    games = [daily(join("Alice")), daily(join("Bob"))]
    players = [p.pk for p in Player.objects.filter(nickname__in=["Alice", "Bob"])]
    # when staff open each action's reason page
    void_form = act(staff_client, GAMES, "void_results", games).content.decode()
    ban_form = act(staff_client, PLAYERS, "ban_players", players).content.decode()
    # then each says where its own reason goes
    assert "Logged, and shown on the game." in void_form
    assert "shown on the game" not in ban_form
    assert "page of this admin; the player is not shown it." in ban_form
    # when they void both results, ban both players and lift both bans
    voided = said(act(staff_client, GAMES, "void_results", games, reason="Shared"))
    banned = said(act(staff_client, PLAYERS, "ban_players", players, reason="Bots"))
    lifted = said(act(staff_client, PLAYERS, "unban_players", players))
    # then every count reads as a sentence, in English and in French
    assert (voided, banned, lifted) == (
        ["2 results voided."],
        ["2 players banned."],
        ["2 bans lifted."],
    )
    staff_client.cookies["django_language"] = "fr"
    banned = said(act(staff_client, PLAYERS, "ban_players", players, reason="Robots"))
    lifted = said(act(staff_client, PLAYERS, "unban_players", players[:1]))
    assert (banned, lifted) == (["2 joueurs bannis."], ["1 bannissement levé."])


def test_the_player_list_filters_banned_players_and_shows_the_reason(staff_client, root) -> None:
    banned = Player.objects.create_user("Banned", None, is_guest=True)
    moderation.player_ban(player=banned, reason="Abusive nickname", by=root)
    Player.objects.create_user("Fine", None, is_guest=True)

    listed = staff_client.get(PLAYERS + "?banned_at__isempty=0")
    page = staff_client.get(f"{PLAYERS}{banned.pk}/change/")

    assert [p.nickname for p in listed.context["cl"].result_list] == ["Banned"]
    assert "Abusive nickname" in page.content.decode()


@pytest.mark.django_db(transaction=True)
async def test_a_banned_players_moves_over_the_socket_are_refused_and_it_stays_open(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    # given Alice's socket on her daily game, then her ban
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    await receive(communicator)
    root = await database_sync_to_async(Player.objects.create_superuser)("root", "a-long-pw-1")
    await database_sync_to_async(moderation.player_ban)(player=alice[0], reason="Bot", by=root)
    # when she sends a legal move, then resigns
    await communicator.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    move_answer = await receive(communicator)
    await communicator.send_json_to({"type": "resign"})
    resign_answer = await receive(communicator)
    # then both are refused; the socket stays open and the game unchanged
    for answer in (move_answer, resign_answer):
        assert answer["type"] == "error" and answer["error"] == "forbidden"
        assert answer["detail"] == BANNED_DETAIL
    assert move_answer["ply"] == 0
    assert await communicator.receive_nothing(timeout=0.2)
    fresh = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert (fresh.ply, fresh.status) == (0, "playing")
