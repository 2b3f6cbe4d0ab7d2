"""The admin runs the catalogue: rules validated on save, deals and games read-only."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from games import clock
from games.engine import builtin_rules
from games.models import Deal, Player, Variant
from games.services import deal_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    admin = Player.objects.create_superuser("root", "a-long-password-1")
    client.force_login(admin)
    return client


@pytest.fixture
def castile(db):
    return Variant.objects.create(
        slug="castile", name="Castile", rules=builtin_rules("castile"), display_order=1
    )


def _form(variant: Variant, rules: object) -> dict[str, str]:
    return {
        "name": variant.name,
        "slug": variant.slug,
        "description": variant.description,
        "enabled": "on",
        "daily": "on",
        "display_order": str(variant.display_order),
        "rules": json.dumps(rules),
    }


def test_a_valid_rules_edit_is_saved(staff_client, castile):
    # given a rules document where foundation cards may only go back to the tableau
    rules = builtin_rules("castile")
    rules["foundation_return"] = "tableau"
    # when an admin saves it
    response = staff_client.post(
        f"/admin/games/variant/{castile.pk}/change/", _form(castile, rules)
    )
    # then it is stored
    assert response.status_code == 302
    castile.refresh_from_db()
    assert castile.rules == rules


def test_an_admin_names_a_variant_in_spanish_and_spanish_readers_see_it(staff_client, castile):
    # given an admin's Spanish name and description
    form = _form(castile, builtin_rules("castile"))
    spanish = {"es": {"name": "Castilla la Vieja", "description": "Una baraja."}}
    # when they save them in the variant's translations
    response = staff_client.post(
        f"/admin/games/variant/{castile.pk}/change/", {**form, "translations": json.dumps(spanish)}
    )
    # then a Spanish reader gets them, an English one the English
    assert response.status_code == 302
    answer = staff_client.get("/api/variants/castile/", HTTP_ACCEPT_LANGUAGE="es").json()
    assert (answer["name"], answer["description"]) == ("Castilla la Vieja", "Una baraja.")
    assert staff_client.get("/api/variants/castile/").json()["name"] == "Castile"


def test_an_invalid_rules_document_is_refused_naming_the_field(staff_client, castile):
    # given a document whose tableau has no piles
    rules = builtin_rules("castile")
    rules["tableau"]["count"] = 0
    # when an admin saves it
    response = staff_client.post(
        f"/admin/games/variant/{castile.pk}/change/", _form(castile, rules)
    )
    # then the form says which field is wrong and nothing changes
    assert response.status_code == 200
    assert "tableau.count: must be between 1 and 40, got 0" in response.content.decode()
    castile.refresh_from_db()
    assert castile.rules == builtin_rules("castile")


def test_the_change_page_shows_a_sample_deal(staff_client, castile):
    response = staff_client.get(f"/admin/games/variant/{castile.pk}/change/")
    assert response.status_code == 200
    assert "reserve-3" in response.content.decode()


def test_a_deal_keeps_the_rules_it_was_dealt_with(staff_client, castile, settings):
    # given today's deal
    settings.DEAL_SECRET = "test-secret"
    deal = deal_get_or_create(variant=castile, date=clock.today())
    # when the admin then edits the variant
    rules = builtin_rules("castile")
    rules["foundation_return"] = "none"
    staff_client.post(f"/admin/games/variant/{castile.pk}/change/", _form(castile, rules))
    # then the deal still has the rules it was made with
    deal.refresh_from_db()
    assert deal.rules == builtin_rules("castile")


def test_a_deal_seed_stays_secret_in_the_admin_until_its_day_is_over(
    staff_client, castile, settings
):
    settings.DEAL_SECRET = "test-secret"
    with clock.frozen(dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)):
        deal = deal_get_or_create(variant=castile, date=dt.date(2026, 12, 1))
        page = staff_client.get(f"/admin/games/deal/{deal.pk}/change/").content.decode()
        assert deal.seed not in page
        assert "secret until the day is over" in page
    with clock.frozen(dt.datetime(2026, 12, 2, 0, 1, tzinfo=dt.UTC)):
        page = staff_client.get(f"/admin/games/deal/{deal.pk}/change/").content.decode()
        assert deal.seed in page
    assert Deal.objects.count() == 1


def test_admins_see_failed_verifications_and_whether_results_hold_their_seal(
    staff_client, join
) -> None:
    # given one honest result, one edited after sealing, and one game refused at verification
    from games.models import Game, Result, VerificationFailure

    honest, edited, refused = join("Honest"), join("Edited"), join("Refused")
    ids = {}
    for name, client in (("honest", honest), ("edited", edited), ("refused", refused)):
        ids[name] = client.post(
            "/api/games/", {"variant": "caprice", "mode": "daily"}, "json"
        ).json()["id"]
    Game.objects.filter(pk=ids["refused"]).update(foundation_cards=50)
    for name, client in (("honest", honest), ("edited", edited), ("refused", refused)):
        client.post(f"/api/games/{ids[name]}/resign/")
    Result.objects.filter(pk=ids["edited"]).update(moves=1)

    # when
    results = staff_client.get("/admin/games/result/")
    failures = staff_client.get("/admin/games/verificationfailure/")
    result_page = staff_client.get(f"/admin/games/result/{ids['honest']}/change/")

    # then
    assert results.status_code == failures.status_code == result_page.status_code == 200
    # two rows, neither assisted: one seal holds, one does not
    assert results.content.decode().count('alt="True"') == 1
    assert results.content.decode().count('alt="False"') == 3
    assert VerificationFailure.objects.get().reason == "figures"
    assert ids["refused"] in failures.content.decode()
    assert staff_client.post(f"/admin/games/result/{ids['honest']}/delete/").status_code == 403
