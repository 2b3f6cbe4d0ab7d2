"""The API in English, French and Spanish: error details, illegal moves, variants, sockets.

The language is the ``django_language`` cookie's, else the ``Accept-Language`` header's, else
English; the error codes never change with it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from games.models import Game, Player, Variant
from tests.games.sockets import receive

FRENCH = {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9,en;q=0.5"}
SAME_PILE = {"type": "move", "from": "tableau-0", "to": "tableau-0", "count": 1}


def test_an_error_detail_is_spanish_for_a_spanish_browser(variants) -> None:
    answer = APIClient().get("/api/variants/nope/", HTTP_ACCEPT_LANGUAGE="es-AR,es")

    assert answer.json() == {
        "error": "not_found",
        "detail": "No se ofrece ninguna variante 'nope'.",
    }
    assert answer["Content-Language"] == "es"


def test_an_error_detail_is_french_for_a_french_browser(variants) -> None:
    # when
    answer = APIClient().get("/api/variants/nope/", **FRENCH)

    # then
    assert answer.status_code == 404
    assert answer.json() == {
        "error": "not_found",
        "detail": "Aucune variante «\u00a0nope\u00a0» n’est proposée.",
    }
    assert answer["Content-Language"] == "fr"


def test_an_error_detail_is_english_by_default_and_for_other_languages(variants) -> None:
    plain = APIClient().get("/api/variants/nope/")
    german = APIClient().get("/api/variants/nope/", HTTP_ACCEPT_LANGUAGE="de-DE,de")

    for answer in (plain, german):
        assert answer.json() == {"error": "not_found", "detail": "No variant 'nope' is offered."}
        assert answer["Content-Language"] == "en"


def test_the_language_cookie_wins_over_the_browser_language(variants) -> None:
    # given: an English browser whose player chose French, and the other way round
    french = APIClient()
    french.cookies["django_language"] = "fr"
    english = APIClient()
    english.cookies["django_language"] = "en"

    # when
    in_french = french.post("/api/auth/login/", {"nickname": "x"}, "json")
    in_english = english.post("/api/auth/login/", {"nickname": "x"}, "json", **FRENCH)

    # then
    assert in_french.json() == {
        "error": "invalid",
        "detail": "Donnez un pseudo et un mot de passe.",
    }
    assert in_english.json() == {"error": "invalid", "detail": "Give a nickname and a password."}


@pytest.mark.parametrize("cookie", ["xx", "", "fr\x00", "f" * 500, "../../etc"])
def test_a_forged_language_cookie_falls_back_to_the_header(variants, cookie: str) -> None:
    client = APIClient()
    client.cookies["django_language"] = cookie

    answer = client.get("/api/variants/nope/", **FRENCH)

    assert answer.status_code == 404
    assert answer.json()["detail"].startswith("Aucune variante")


@pytest.mark.parametrize("header", ["*", "fr;q=abc", ";;;", "x" * 2000, "fr-FR-" * 50, "é"])
def test_a_malformed_accept_language_never_fails(variants, header: str) -> None:
    answer = APIClient().get("/api/variants/nope/", HTTP_ACCEPT_LANGUAGE=header)

    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"


def test_drf_and_django_refusals_are_french_too(join) -> None:
    alice = join("Alice")

    unknown = alice.get("/api/nowhere/", **FRENCH)
    method = alice.delete("/api/variants/", **FRENCH)
    token = APIClient().get("/api/me/", HTTP_AUTHORIZATION="Token nope", **FRENCH)

    assert (unknown.status_code, unknown.json()["error"]) == (404, "not_found")
    assert unknown.json()["detail"] == "Aucun point d’accès de l’API à l’adresse /api/nowhere/."
    assert (method.status_code, method.json()["error"]) == (405, "method_not_allowed")
    assert "DELETE" in method.json()["detail"] and "non autorisée" in method.json()["detail"]
    assert (token.status_code, token.json()) == (
        401,
        {"error": "not_authenticated", "detail": "Jeton invalide."},
    )


def test_an_illegal_move_is_refused_in_french_with_the_same_codes(join) -> None:
    # given
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()

    # when
    french = alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": SAME_PILE}, "json", **FRENCH
    )
    english = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 0, "move": SAME_PILE}, "json")

    # then
    assert french.status_code == english.status_code == 422
    assert french.json() == {
        "error": "illegal_move",
        "reason": "same_pile",
        "ply": 0,
        "detail": "Une carte ne peut pas être déplacée sur sa propre pile.",
    }
    assert english.json() == {
        **french.json(),
        "detail": "A card cannot be moved onto its own pile.",
    }


def test_a_malformed_move_and_a_stale_ply_are_told_in_french(join) -> None:
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
    moves = f"/api/games/{game['id']}/moves/"

    malformed = alice.post(moves, {"ply": 0, "move": {"type": "fly"}}, "json", **FRENCH)
    stale = alice.post(moves, {"ply": 3, "move": {"type": "deal"}}, "json", **FRENCH)

    assert malformed.json() == {
        "error": "invalid",
        "field": "move",
        "detail": "Coup mal formé\u00a0: le type d’un coup est 'move', 'deal', 'redeal' ou 'undo'.",
    }
    assert stale.json() == {
        "error": "stale_ply",
        "ply": 0,
        "detail": "La partie en est au coup 0, pas au coup 3.",
    }


def test_a_finished_game_says_how_it_ended_in_french(join) -> None:
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
    alice.post(f"/api/games/{game['id']}/resign/")

    answer = alice.post(f"/api/games/{game['id']}/resign/", **FRENCH)

    assert answer.json() == {
        "error": "game_over",
        "detail": "Cette partie est terminée (abandonnée).",
    }


# --- variants ------------------------------------------------------------------------------


def test_the_variants_are_named_and_described_in_french(variants) -> None:
    # when
    french = APIClient().get("/api/variants/", **FRENCH).json()
    english = APIClient().get("/api/variants/").json()

    # then
    assert [v["name"] for v in french] == [
        "Caprice",
        "Castille",
        "Canfield quadruple",
        "Cerf-volant",
        "Capricieuse",
        "Klondike (trois cartes)",
        "FreeCell",
        "Araignée (2 couleurs)",
    ]
    assert [v["name"] for v in english] == [
        "Caprice",
        "Castile",
        "Quadruple Canfield",
        "Box Kite",
        "Capricieuse",
        "Klondike (draw 3)",
        "FreeCell",
        "Spider (2 suits)",
    ]
    assert french[1]["description"].startswith("Un jeu, toutes les cartes visibles.")
    assert [{**v, "name": "", "description": ""} for v in french] == [
        {**v, "name": "", "description": ""} for v in english
    ]
    detail = APIClient().get("/api/variants/box-kite/", **FRENCH).json()
    assert (detail["name"], detail["rules"]) == ("Cerf-volant", variants["box-kite"].rules)


def test_the_variants_are_named_and_described_in_spanish(variants) -> None:
    spanish = APIClient().get("/api/variants/", HTTP_ACCEPT_LANGUAGE="es-ES,es").json()

    assert [v["name"] for v in spanish] == [
        "Capricho",
        "Castilla",
        "Canfield cuádruple",
        "Cometa",
        "Caprichosa",
        "Klondike (tres cartas)",
        "FreeCell",
        "Araña (2 palos)",
    ]
    assert spanish[1]["description"].startswith("Una baraja, todas las cartas a la vista.")


def test_a_variant_without_a_french_translation_reads_in_english(variants) -> None:
    # given: an admin cleared the French name, kept the description
    castile = variants["castile"]
    castile.translations = {"fr": {"description": "Une description."}}
    castile.save()

    # when
    answer = APIClient().get("/api/variants/castile/", **FRENCH).json()

    # then
    assert (answer["name"], answer["description"]) == ("Castile", "Une description.")


def test_a_daily_refusal_names_the_variant_in_french(join, variants) -> None:
    Variant.objects.filter(slug="castile").update(daily=False)

    answer = join("Alice").post(
        "/api/games/", {"variant": "castile", "mode": "daily"}, "json", **FRENCH
    )

    assert answer.json() == {
        "error": "invalid",
        "field": "variant",
        "detail": "Castille n’a pas de donne du jour.",
    }


@pytest.mark.parametrize(
    "translations",
    [
        [],
        {"de": {"name": "Kastilien"}},
        {"en": {"name": "Castile"}},
        {"fr": "Castille"},
        {"fr": {"name": "Castille", "rules": {}}},
        {"fr": {"name": 3}},
        {"fr": {"name": "x" * 61}},
        {"fr": {"description": "nul\x00"}},
    ],
)
def test_malformed_translations_are_refused_with_the_field(variants, translations: Any) -> None:
    castile = variants["castile"]
    castile.translations = translations

    with pytest.raises(ValidationError) as refused:
        castile.full_clean()

    assert set(refused.value.message_dict) == {"translations"}


def test_loadvariants_gives_translations_to_variants_that_have_none(variants) -> None:
    from games.services import variants_load

    # given: a catalogue loaded before translations existed, and one an admin translated
    Variant.objects.filter(slug="castile").update(translations={})
    Variant.objects.filter(slug="caprice").update(translations={"fr": {"name": "Mon Caprice"}})

    # when
    report = variants_load()

    # then: the missing languages are added, the admin's French is kept
    assert report["castile"] == "kept (translations added)"
    assert report["caprice"] == "kept (translations added)"
    assert Variant.objects.get(slug="castile").translated("name", "fr") == "Castille"
    assert Variant.objects.get(slug="castile").translated("name", "es") == "Castilla"
    assert Variant.objects.get(slug="caprice").translated("name", "fr") == "Mon Caprice"
    assert Variant.objects.get(slug="caprice").translated("name", "es") == "Capricho"
    assert variants_load()["caprice"] == "kept"


def test_the_schema_documents_the_language_of_the_variants(variants) -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()

    parameters = schema["paths"]["/api/variants/"]["get"]["parameters"]
    assert [p["name"] for p in parameters if p["in"] == "header"] == ["Accept-Language"]


# --- the game socket -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_the_game_socket_refuses_in_the_language_of_its_handshake(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    # given
    path = f"/ws/games/{game.pk}/?token={alice[1]}"
    french = await ws_connect(path, headers=((b"accept-language", b"fr-FR,fr"),))
    chosen = await ws_connect(path, headers=((b"cookie", b"django_language=fr"),))
    english = await ws_connect(path)
    for socket in (french, chosen, english):
        await receive(socket)

    # when
    answers = []
    for socket in (french, chosen, english):
        await socket.send_json_to({"ply": 0, "move": SAME_PILE})
        answers.append(await receive(socket))

    # then
    assert [(a["type"], a["error"], a["reason"]) for a in answers] == [
        ("error", "illegal_move", "same_pile")
    ] * 3
    assert [a["detail"] for a in answers] == [
        "Une carte ne peut pas être déplacée sur sa propre pile.",
        "Une carte ne peut pas être déplacée sur sa propre pile.",
        "A card cannot be moved onto its own pile.",
    ]
