"""Honest states wherever a result is shown: a result a moderator voided, a banned player, and a
result helped by hints, on a phone (touch, French) and on a laptop (English).

One player resigns two of today's deals: one after a hint was taken (assisted), one that a
moderator then voids; a second player is banned. Then the end panels, the home cards, the boards
and the player's history each say so, in the page's language.

With ``SCREENSHOTS=1`` each place also writes ``docs/screenshots/<state>-<size>.png``.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname
from tests.e2e.test_pages import call
from tests.e2e.test_table import screenshot

pytestmark = pytest.mark.browser

# Daily variants no other browser test plays, so their boards hold only this test's results.
ASSISTED, VOIDED, REFUSED = "capricieuse", "caprice", "castile"
REASON = "Played with a solver open"

RESIGNED_FR = r"Abandonnée avec \d+ cartes? aux fondations"
# What a hint given does to a game (games.services.hints), whatever the solver finds.
MARK_ASSISTED = """
from games.models import Game
Game.objects.filter(pk={game!r}).update(assisted=True)
"""
# What a moderator does in the admin: void a result (once verification has written it), ban.
VOID_AND_BAN = """
import time
from games.models import Player, Result
from games.services import moderation
moderator, _ = Player.objects.get_or_create(nickname="Moderator", defaults={{"is_staff": True}})
for _ in range(100):
    result = Result.objects.filter(game_id={game!r}).first()
    if result:
        break
    time.sleep(0.1)
moderation.result_void(result=result, reason={reason!r}, by=moderator)
banned = Player.objects.get(nickname={banned!r})
moderation.player_ban(player=banned, reason="Cheating", by=moderator)
"""
WORDS = {
    "en": {
        "voided title": "Result voided",
        "voided rank": "none: the result is voided",
        "voided message": f"A moderator voided this result: it is off the leaderboard and your "
        f"stats ({REASON}).",
        "voided home": r"Resigned with \d+ cards? home · voided by a moderator",
        "assisted": "assisted",
        "assisted home": r"Resigned with \d+ cards? home · assisted · rank \d+ of \d+",
        "assisted share": "💡 Assisted: hints were taken",
        "empty board": "No finished game yet.",
        "banned": "This account is banned from the daily challenges; practice games are still "
        "open to it.",
    },
    "fr": {
        "voided title": "Résultat annulé",
        "voided rank": "aucun\u00a0: le résultat est annulé",
        "voided message": "Un modérateur a annulé ce résultat\u00a0: il ne figure plus au "
        f"classement ni dans vos statistiques ({REASON}).",
        "voided home": rf"{RESIGNED_FR} · annulée par un modérateur",
        "assisted": "assistée",
        "assisted home": rf"{RESIGNED_FR} · assistée · rang \d+ sur \d+",
        "assisted share": "💡 Assistée\u00a0: des indices ont été pris",
        "empty board": "Aucune partie terminée pour l’instant.",
        "banned": "Ce compte est exclu des défis quotidiens\u202f; les parties d’entraînement lui "
        "restent ouvertes.",
    },
}
SIZES = [
    pytest.param((390, 844), "fr", {"has_touch": True, "is_mobile": True}, id="390x844-touch-fr"),
    pytest.param((1366, 768), "en", {}, id="1366x768-en"),
]


def shot(page: Any, name: str, viewport: tuple[int, int], *, end: str | None = None) -> None:
    """With ``SCREENSHOTS=1``, write the page as shown, scrolled to the element ``end`` if given."""
    if os.environ.get("SCREENSHOTS"):
        if end:
            page.eval_on_selector(end, "el => el.scrollIntoView({block: 'end'})")
        screenshot(page, f"{name}-{viewport[0]}x{viewport[1]}")


@pytest.mark.parametrize(("viewport", "language", "options"), SIZES)
def test_voided_banned_and_assisted_results_are_shown_honestly(
    new_page: Any,
    server_shell: Any,
    viewport: tuple[int, int],
    language: str,
    options: dict[str, Any],
) -> None:
    words = WORDS[language]
    locale = {"fr": "fr-FR", "en": "en-GB"}[language]

    # given a player who takes a hint in one of today's deals and resigns it, and resigns
    # another that a moderator then voids; and a second player, banned
    page = new_page(viewport=viewport, locale=locale, **options)
    name = nickname("Honest")
    join_as_guest(page, name)
    helped = call(page, "POST", "/api/games/", {"variant": ASSISTED, "mode": "daily"})
    voided = call(page, "POST", "/api/games/", {"variant": VOIDED, "mode": "daily"})
    server_shell(MARK_ASSISTED.format(game=helped["id"]))
    call(page, "POST", f"/api/games/{helped['id']}/resign/")
    call(page, "POST", f"/api/games/{voided['id']}/resign/")
    banned_page = new_page(
        viewport=viewport, locale=locale, expected_console=("status of 403",), **options
    )
    banned = nickname("Banned")
    join_as_guest(banned_page, banned)
    server_shell(VOID_AND_BAN.format(game=voided["id"], reason=REASON, banned=banned))

    # when the banned player presses "Play today's deal"
    banned_page.reload()
    play = banned_page.locator(f'li.deal[data-variant="{REFUSED}"] button.play')
    play.click()

    # then the server's reason shows beside the button, where the player is looking
    refusal = banned_page.locator(f'li.deal[data-variant="{REFUSED}"] .deal-message .message.error')
    refusal.wait_for()
    assert refusal.inner_text() == words["banned"]
    assert refusal.is_visible()
    assert play.is_enabled()
    shot(banned_page, "banned-player", viewport)

    # when the player opens the voided game
    page.goto(f"/#/play/{voided['id']}")
    panel = page.locator("#result-panel")
    panel.wait_for()

    # then the banner and the panel both say voided, and nothing offers to share it
    page.wait_for_selector("#void-banner")
    assert panel.get_attribute("data-voided") == "yes"
    assert page.inner_text("#result-title") == words["voided title"]
    assert page.locator("#result-voided").is_visible()
    assert page.inner_text("#result-rank") == words["voided rank"]
    assert page.inner_text("#result-message") == words["voided message"]
    page.wait_for_timeout(1500)  # a board asked for the rank would answer by now
    assert page.locator("#share-text, #result-share h3").count() == 0
    assert page.inner_text("#result-rank") == words["voided rank"]
    shot(page, "result-voided", viewport, end="#result-panel")

    # when they open the game taken with hints, then the panel and the share text say so
    page.goto(f"/#/play/{helped['id']}")
    page.wait_for_selector("#share-text")
    assert page.get_attribute("#result-panel", "data-voided") == "no"
    assert page.inner_text("#result-assisted") == words["assisted"]
    share = page.input_value("#share-text").split("\n")
    assert share[3] == words["assisted share"], share
    # the rank, and the place among the day's players once more than one ranks ("top 50%")
    assert re.fullmatch(r"🏅 \S+ \d+ \S+ \d+(?: · \S+ \d+\s?%)?", share[4]), share
    shot(page, "result-assisted", viewport, end="#result-panel")

    # when they go home, then each card says what became of the result
    page.goto("/")
    voided_status = page.locator(f'li.deal[data-variant="{VOIDED}"] .my-status')
    voided_status.wait_for()
    assert re.fullmatch(words["voided home"], voided_status.inner_text())
    helped_status = page.locator(f'li.deal[data-variant="{ASSISTED}"] .my-status')
    assert re.fullmatch(words["assisted home"], helped_status.inner_text())
    voided_status.scroll_into_view_if_needed()
    shot(page, "home-voided-assisted", viewport)

    # when they open the voided deal's board, then its head counts no finished game
    page.goto(f"/#/daily/{VOIDED}/{voided['date']}")
    page.wait_for_selector("#leaderboard-rows tr")
    page.wait_for_selector("#deal-proof dd")
    rows = page.locator("#leaderboard-rows tr[data-player]").count()
    finished = page.locator("#deal-proof dl > div:nth-child(2) dd").inner_text()
    assert finished == str(rows), f"the head counts {finished} finished games over {rows} rows"
    assert page.locator(f'#leaderboard-rows tr[data-player="{name}"]').count() == 0
    if not rows:
        assert page.inner_text("#leaderboard-rows") == words["empty board"]
    shot(page, "board-voided", viewport)

    # when they open the assisted deal's board, then their row is marked assisted
    page.goto(f"/#/daily/{ASSISTED}/{helped['date']}")
    mark = page.locator(f'#leaderboard-rows tr[data-player="{name}"] .assisted-mark')
    mark.wait_for()
    assert mark.inner_text() == words["assisted"]
    assert mark.is_visible()
    shot(page, "board-assisted", viewport)

    # when they open their page, then the history marks the assisted result, and leaves out
    # the voided one
    page.goto(f"/#/players/{name}")
    row = page.locator(f'#history-rows tr[data-variant="{ASSISTED}"]')
    row.wait_for()
    assert row.locator(".assisted-mark").inner_text() == words["assisted"]
    assert page.locator(f'#history-rows tr[data-variant="{VOIDED}"]').count() == 0
    row.scroll_into_view_if_needed()
    shot(page, "history-assisted", viewport)
