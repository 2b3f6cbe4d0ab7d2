"""The catalogue's admin: the rules editor, copies, previews and deals, for staff only."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.core.management import call_command

from core.errors import ServiceError
from games import clock
from games.engine import builtin_rules
from games.models import Deal, Game, Player, Variant
from games.services import deal_get_or_create, deal_regenerate, deal_request_regeneration, deals

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 12, 1)
NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
def staff(client, variants):
    admin = Player.objects.create_superuser("root")
    client.force_login(admin)
    client.admin = admin
    return client


def _form(variant: Variant, rules: object, **changes: str) -> dict[str, str]:
    form = {
        "name": variant.name,
        "slug": variant.slug,
        "description": variant.description,
        "enabled": "on",
        "daily": "on",
        "display_order": str(variant.display_order),
        "rules": rules if isinstance(rules, str) else json.dumps(rules),
    }
    form.update(changes)
    return {key: value for key, value in form.items() if value is not None}


def _pages(variant: Variant, deal: Deal) -> list[str]:
    base = "/admin/games/variant/"
    return [
        base,
        f"{base}add/",
        f"{base}add/?copy_from={variant.pk}",
        f"{base}{variant.pk}/change/",
        f"{base}{variant.pk}/preview/?seed=hello",
        "/admin/games/deal/",
        f"/admin/games/deal/{deal.pk}/change/",
    ]


def test_the_catalogue_pages_render_for_staff(staff, variants):
    # given
    deal = deal_get_or_create(variant=variants["castile"], date=clock.today())
    # when
    answers = {url: staff.get(url) for url in _pages(variants["castile"], deal)}
    # then
    assert {url: answer.status_code for url, answer in answers.items()} == dict.fromkeys(
        answers, 200
    )


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_the_catalogue_pages_send_others_to_the_login(client, variants, who):
    # given someone who is not staff
    deal = deal_get_or_create(variant=variants["castile"], date=clock.today())
    if who == "player":
        client.force_login(Player.objects.create_user("someone"))
    # when
    answers = [client.get(url) for url in _pages(variants["castile"], deal)]
    posted = client.post("/admin/games/variant/preview/", {"rules": "{}", "preview_seed": "x"})
    # then every page redirects to the login form
    for answer in [*answers, posted]:
        assert answer.status_code == 302
        assert answer["Location"].startswith("/admin/login/")


def test_staff_without_the_permission_is_refused(client, variants):
    # given a staff member with no permission on variants
    client.force_login(Player.objects.create_user("helper", is_staff=True))
    castile = variants["castile"]
    # when
    pages = [
        client.get(f"/admin/games/variant/{castile.pk}/change/"),
        client.get(f"/admin/games/variant/{castile.pk}/preview/"),
        client.post("/admin/games/variant/preview/", {"rules": "{}", "preview_seed": "x"}),
    ]
    # then
    assert [page.status_code for page in pages] == [403, 403, 403]


def test_the_rules_editor_shows_the_document_indented_in_a_stable_order(staff, variants):
    # when
    page = staff.get(f"/admin/games/variant/{variants['castile'].pk}/change/").content.decode()
    # then
    assert 'class="rules-editor"' in page
    assert "{\n  &quot;decks&quot;: 1,\n  &quot;foundations&quot;: [\n    {\n" in page
    assert page.index("&quot;foundation_return&quot;") < page.index("&quot;tableau&quot;")


@pytest.mark.parametrize(
    ("rules_text", "message"),
    [
        (
            lambda rules: json.dumps({**rules, "tableau": {**rules["tableau"], "empty": "Z"}}),
            "tableau.empty: 'Z' is not a rank",
        ),
        (
            lambda rules: json.dumps({**rules, "reserves": {"count": 4, "size": 7}}),
            "reserves.size: is not a known field",
        ),
        (lambda rules: '{"decks": 1,\n  "tableau": }', "not valid JSON: Expecting value (line 2"),
        (lambda rules: "[" * 20000 + "]" * 20000, "The document is nested too deeply."),
        (lambda rules: "[" * 30000, "The document is nested too deeply."),
        (lambda rules: "{}", "This field is required."),
        (
            lambda rules: json.dumps({**rules, "tableau": {**rules["tableau"], "empty": "\0"}}),
            r"tableau.empty: '\x00' is not a rank",
        ),
    ],
    ids=["bad-value", "unknown-key", "syntax", "deep-list", "deep-unclosed", "empty", "nul"],
)
def test_an_invalid_document_is_refused_with_its_fields_error(staff, variants, rules_text, message):
    # given
    castile = variants["castile"]
    text = rules_text(builtin_rules("castile"))
    # when
    response = staff.post(f"/admin/games/variant/{castile.pk}/change/", _form(castile, text))
    # then the rules field carries the error, and nothing changed
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["rules"]
    assert message in " ".join(errors["rules"])
    castile.refresh_from_db()
    assert castile.rules == builtin_rules("castile")


def test_a_copy_made_in_the_admin_is_playable_at_once(staff, variants, join):
    # given the add form filled from Castile
    castile = variants["castile"]
    form = staff.get(f"/admin/games/variant/add/?copy_from={castile.pk}")
    initial = form.context["adminform"].form.initial
    assert initial["rules"] == castile.rules
    assert (initial["enabled"], initial["daily"]) == (True, False)
    assert "name" not in initial and "slug" not in initial
    # when it is saved under a name of its own, with one rule changed
    rules = {**castile.rules, "foundation_return": "none"}
    copy_form = _form(castile, rules, name="Strict Castile", slug="strict-castile", daily=None)
    saved = staff.post(f"/admin/games/variant/add/?copy_from={castile.pk}", copy_form)
    # then it is played in practice at once, and daily once it is made daily
    assert saved.status_code == 302
    copy = Variant.objects.get(slug="strict-castile")
    assert (copy.rules, copy.enabled, copy.daily) == (rules, True, False)
    entry = LogEntry.objects.get(object_id=str(copy.pk), action_flag=ADDITION)
    assert entry.change_message == "Added as a copy of Castile (castile)."
    player = join("Tester")
    practice = player.post("/api/games/", {"variant": "strict-castile", "mode": "practice"}, "json")
    assert practice.status_code == 201
    assert Game.objects.get(pk=practice.json()["id"]).rules == rules
    assert (
        player.post(
            "/api/games/", {"variant": "strict-castile", "mode": "daily"}, "json"
        ).status_code
        == 400
    )
    staff.post(f"/admin/games/variant/{copy.pk}/change/", _form(copy, rules))
    daily = player.post("/api/games/", {"variant": "strict-castile", "mode": "daily"}, "json")
    assert daily.status_code == 201
    assert Deal.objects.get(variant=copy).rules == rules


def test_a_klondike_with_two_redeals_is_made_by_copy_and_edit_alone(staff, variants, join):
    # given Klondike (draw 3), a daily by default, copied and edited to two redeals
    klondike = variants["klondike-draw-3"]
    rules = {**klondike.rules, "stock": {**klondike.rules["stock"], "redeals": 2}}
    form = _form(klondike, rules, name="Klondike, two redeals", slug="klondike-two-redeals")

    # when the admin saves it, and a player starts it in practice and as a daily
    saved = staff.post(f"/admin/games/variant/add/?copy_from={klondike.pk}", form)
    player = join("Klondiker")
    practice = player.post(
        "/api/games/", {"variant": "klondike-two-redeals", "mode": "practice"}, "json"
    )
    daily = player.post("/api/games/", {"variant": "klondike-two-redeals", "mode": "daily"}, "json")

    # then both play by the copy's rules: two turns of the waste, no code changed
    assert saved.status_code == 302
    assert practice.status_code == 201, practice.json()
    assert practice.json()["state"]["redeals_left"] == 2
    assert daily.status_code == 201, daily.json()
    assert Game.objects.get(pk=daily.json()["id"]).rules == rules


@pytest.mark.parametrize(("name", "slug"), [("castile", "other-slug"), ("Other", "castile")])
def test_a_copy_needs_a_name_and_slug_of_its_own(staff, variants, name, slug):
    castile = variants["castile"]
    response = staff.post(
        f"/admin/games/variant/add/?copy_from={castile.pk}",
        _form(castile, castile.rules, name=name, slug=slug),
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == (["name"] if slug == "other-slug" else ["slug"])
    assert Variant.objects.count() == len(variants)


def test_the_copy_action_opens_the_add_form_for_one_variant(staff, variants):
    castile, caprice = variants["castile"], variants["caprice"]
    one = staff.post("/admin/games/variant/", {"action": "copy", "_selected_action": [castile.pk]})
    two = staff.post(
        "/admin/games/variant/",
        {"action": "copy", "_selected_action": [castile.pk, caprice.pk]},
        follow=True,
    )
    assert one.status_code == 302
    assert one["Location"] == f"/admin/games/variant/add/?copy_from={castile.pk}"
    assert "Select exactly one variant to copy." in two.content.decode()


def test_the_preview_draws_the_deal_of_a_seed_for_saved_and_unsaved_rules(staff, variants):
    # given Box Kite (face-down cards) and an edit of it not saved
    box_kite = variants["box-kite"]
    edited = {**box_kite.rules, "tableau": {**box_kite.rules["tableau"], "empty": "any"}}
    # when
    saved = staff.get(f"/admin/games/variant/{box_kite.pk}/preview/?seed=hello")
    unsaved = staff.post(
        "/admin/games/variant/preview/",
        {**_form(box_kite, edited), "preview_seed": "hello"},
    )
    invalid = staff.post(
        "/admin/games/variant/preview/",
        {"rules": json.dumps({**edited, "decks": 3}), "preview_seed": "hello"},
    )
    long_seed = staff.get(f"/admin/games/variant/{box_kite.pk}/preview/?seed={'x' * 201}")
    # then the deal is drawn face up, face-down cards marked, for the same seed both times
    assert saved.status_code == unsaved.status_code == invalid.status_code == 200
    saved_page, unsaved_page = saved.content.decode(), unsaved.content.decode()
    assert saved_page.count("lp-down") == 12 * 7
    assert (
        saved_page[saved_page.index("<figure") :] == unsaved_page[unsaved_page.index("<figure") :]
    )
    assert "The rules as edited in the form, not saved." in unsaved_page
    assert "The rules are invalid: foundations:" in invalid.content.decode()
    assert "A seed is a text of 1 to 200 characters." in long_seed.content.decode()
    box_kite.refresh_from_db()
    assert box_kite.rules == builtin_rules("box-kite")


def test_an_edit_never_changes_a_deal_made_nor_a_game_in_play(staff, variants, join):
    # given today's daily game and a practice game of Castile
    castile = variants["castile"]
    player = join("Player")
    daily = player.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
    practice = player.post(
        "/api/games/", {"variant": "castile", "mode": "practice", "seed": "x"}, "json"
    ).json()
    deal = Deal.objects.get(variant=castile)
    # when an admin changes the rules
    rules = {**builtin_rules("castile"), "foundation_return": "none"}
    assert (
        staff.post(f"/admin/games/variant/{castile.pk}/change/", _form(castile, rules)).status_code
        == 302
    )
    # then the deal and both games keep the rules and positions they had
    deal.refresh_from_db()
    assert deal.rules == builtin_rules("castile")
    for before in (daily, practice):
        after = player.get(f"/api/games/{before['id']}/").json()
        assert after == before
        assert Game.objects.get(pk=before["id"]).rules == builtin_rules("castile")
    # and a new practice game is played by the new rules
    new = player.post("/api/games/", {"variant": "castile", "mode": "practice"}, "json").json()
    assert Game.objects.get(pk=new["id"]).rules == rules


def test_offering_and_withdrawing_are_logged(staff, variants):
    castile = variants["castile"]
    staff.post("/admin/games/variant/", {"action": "withdraw", "_selected_action": [castile.pk]})
    castile.refresh_from_db()
    assert castile.enabled is False
    staff.post("/admin/games/variant/", {"action": "offer", "_selected_action": [castile.pk]})
    castile.refresh_from_db()
    assert castile.enabled is True
    messages = list(
        LogEntry.objects.filter(object_id=str(castile.pk), action_flag=CHANGE)
        .order_by("pk")
        .values_list("change_message", flat=True)
    )
    assert messages == [
        "Withdrawn (disabled) by the admin action.",
        "Offered (enabled) by the admin action.",
    ]


# --- deals ------------------------------------------------------------------------------------


@pytest.fixture
def quick_solver(settings, monkeypatch):
    """Certify with one attempt and a budget of positions, not of time: the same every run."""
    from games.engine import solve
    from games.services import deals

    settings.DEAL_ATTEMPTS = 1
    monkeypatch.setattr(deals, "solve", lambda state, **budget: solve(state, budget_nodes=2000))


def test_the_deal_list_counts_players_and_finished_games_and_hides_open_seeds(staff, join):
    # given two players of today's Castile, one of whom resigned
    with clock.frozen(NOON):
        first, second = join("First"), join("Second")
        game = first.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
        second.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json")
        first.post(f"/api/games/{game['id']}/resign/")
        deal = Deal.objects.get(variant__slug="castile")
        # when
        page = staff.get("/admin/games/deal/").content.decode()
        # then
        assert '<td class="field-players">2</td>' in page
        assert '<td class="field-finished">1</td>' in page
        assert deal.seed not in page
        assert deal.commitment in page
        # and the long values fit one line: the commitment cut, the secrets one word each
        assert f'<code title="{deal.commitment}">{deal.commitment[:12]}…</code>' in page
        assert '<span title="secret until the day is over">secret</span>' in page
        assert "secret until the day is over</td>" not in page
        assert staff.post(f"/admin/games/deal/{deal.pk}/delete/").status_code == 403


def test_regenerate_asks_only_for_unplayed_deals_of_future_days_and_the_solver_waits(
    staff, variants, join, quick_solver, monkeypatch
):
    castile = variants["castile"]
    with clock.frozen(NOON):
        # given deals of today, tomorrow, and the day after (on which a game was put)
        player = join("Player")
        game_id = player.post(
            "/api/games/", {"variant": "castile", "mode": "daily"}, "json"
        ).json()["id"]
        today = Deal.objects.get(variant=castile, date=DAY)
        tomorrow = deal_get_or_create(variant=castile, date=DAY + dt.timedelta(days=1))
        later = deal_get_or_create(variant=castile, date=DAY + dt.timedelta(days=2))
        Game.objects.filter(pk=game_id).update(deal=later)
        before = {deal.pk: (deal.seed, deal.rules) for deal in (today, tomorrow, later)}
        # and new rules, and a solver the request must not call
        rules = {**builtin_rules("castile"), "foundation_return": "tableau"}
        staff.post(f"/admin/games/variant/{castile.pk}/change/", _form(castile, rules))
        monkeypatch.setattr(deals, "solve", _no_solver_in_a_request)
        # when the three are regenerated
        response = staff.post(
            "/admin/games/deal/",
            {"action": "regenerate", "_selected_action": [today.pk, tomorrow.pk, later.pk]},
            follow=True,
        )
    # then tomorrow's is asked for, the others refused with the reason, and nothing remade yet
    page = response.content.decode()
    assert "is not in the future: it may have been served" in page
    assert "has games: it is kept" in page
    assert "will be regenerated by the scheduler" in page
    assert "pending since 2026-12-01 12:00 UTC" in page  # the list's Regeneration column
    for deal in (today, tomorrow, later):
        deal.refresh_from_db()
    assert [d.regeneration_requested_at for d in (today, tomorrow, later)] == [None, NOON, None]
    assert {d.pk: (d.seed, d.rules) for d in (today, tomorrow, later)} == before
    entries = LogEntry.objects.filter(content_type__model="deal")
    assert [(e.object_id, e.action_flag) for e in entries] == [(str(tomorrow.pk), CHANGE)]
    assert entries[0].change_message == "Regeneration by the current rules requested."


def _no_solver_in_a_request(state, **budget):  # type: ignore[no-untyped-def]
    raise AssertionError("a request ran the solver")


def test_regeneratedeals_remakes_the_deals_asked_for_and_drops_those_played_since(
    variants, join, quick_solver, capsys
):
    castile = variants["castile"]
    with clock.frozen(NOON):
        # given two future deals asked for, new rules, and a game put on the second since
        tomorrow = deal_get_or_create(variant=castile, date=DAY + dt.timedelta(days=1))
        later = deal_get_or_create(variant=castile, date=DAY + dt.timedelta(days=2))
        for deal in (tomorrow, later):
            deal_request_regeneration(deal_id=deal.pk)
        rules = {**builtin_rules("castile"), "foundation_return": "tableau"}
        Variant.objects.filter(pk=castile.pk).update(rules=rules)
        game = join("Player").post("/api/games/", {"variant": "castile", "mode": "daily"}, "json")
        Game.objects.filter(pk=game.json()["id"]).update(deal=later)
        # when the scheduler's command runs
        call_command("regeneratedeals")
    # then the first is remade by the new rules, the second kept, and both requests cleared
    tomorrow.refresh_from_db()
    later.refresh_from_db()
    assert tomorrow.rules == rules and tomorrow.regeneration_requested_at is None
    assert later.rules != rules and later.regeneration_requested_at is None
    out = capsys.readouterr().out
    assert f"{tomorrow} regenerated: attempt 0" in out
    assert f"{later} kept: The deal of {later.date.isoformat()} has games: it is kept." in out
    assert tomorrow.seed not in out


def test_a_request_made_while_the_solver_ran_stays_pending(variants, quick_solver, monkeypatch):
    # given tomorrow's deal asked for, and an admin asking again while the solver runs
    castile = variants["castile"]
    with clock.frozen(NOON):
        tomorrow = deal_get_or_create(variant=castile, date=DAY + dt.timedelta(days=1))
        deal_request_regeneration(deal_id=tomorrow.pk)
    solver = deals.solve
    later = NOON + dt.timedelta(minutes=1)

    def solve_while_asked_again(state, **budget):  # type: ignore[no-untyped-def]
        with clock.frozen(later):
            deal_request_regeneration(deal_id=tomorrow.pk)
        return solver(state, **budget)

    monkeypatch.setattr(deals, "solve", solve_while_asked_again)
    # when the scheduler's run regenerates it
    with clock.frozen(NOON):
        deals.deals_regenerate_requested()
    # then the later request waits for the next run
    tomorrow.refresh_from_db()
    assert tomorrow.regeneration_requested_at == later


@pytest.mark.parametrize("service", [deal_request_regeneration, deal_regenerate])
def test_a_past_or_missing_deal_is_neither_asked_for_nor_regenerated(
    variants, quick_solver, service
):
    deal = deal_get_or_create(
        variant=variants["castile"], date=clock.today() - dt.timedelta(days=1)
    )
    with pytest.raises(ServiceError) as refused:
        service(deal_id=deal.pk)
    assert refused.value.code.value == "invalid"
    with pytest.raises(ServiceError) as missing:
        service(deal_id=deal.pk + 1000)
    assert missing.value.code.value == "not_found"


def test_regenerating_again_by_the_same_rules_remakes_the_same_deal(variants, quick_solver):
    # given tomorrow's deal, regenerated once
    castile = variants["castile"]
    tomorrow = deal_get_or_create(variant=castile, date=clock.today() + dt.timedelta(days=1))
    first = deal_regenerate(deal_id=tomorrow.pk)
    # when the same regeneration is replayed
    second = deal_regenerate(deal_id=tomorrow.pk)
    # then nothing differs: a day's seeds never change
    fields = ("attempt", "seed", "commitment", "rules", "certified", "difficulty", "solution")
    assert [getattr(second, f) for f in fields] == [getattr(first, f) for f in fields]
    assert Deal.objects.filter(variant=castile).count() == 1


def test_the_preview_of_a_missing_variant_goes_back_to_the_list(staff):
    missing = staff.get("/admin/games/variant/999999/preview/")
    bare = staff.get("/admin/games/variant/preview/")
    assert missing.status_code == bare.status_code == 302
    assert bare["Location"] == "/admin/games/variant/"
