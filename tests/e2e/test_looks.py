"""The looks a player chooses: light theme, four-colour deck, larger cards, sounds, remembered.

Each case chooses them through the header's settings button on the widest table (Quadruple
Canfield), checks that the page never scrolls sideways, that the choices show and are remembered
after a reload, and that nothing moves under reduced motion. With ``SCREENSHOTS=1`` each case also
writes ``docs/screenshots/looks-<case>.png``.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname
from tests.e2e.test_table import ROOT, Table, new_practice, playable_seed

pytestmark = pytest.mark.browser

VARIANT = "quadruple-canfield"
PHONE = {"viewport": (390, 844), "has_touch": True, "is_mobile": True}
CASES = {
    "en-390": ("en", PHONE),
    "fr-390": ("fr", {**PHONE, "locale": "fr-FR", "reduced_motion": "reduce"}),
    "en-1366": ("en", {"viewport": (1366, 768), "color_scheme": "light"}),
}
if os.environ.get("SCREENSHOTS"):  # the fourth picture: the checks are the same as en-1366's
    CASES["fr-1366"] = ("fr", {"viewport": (1366, 768), "locale": "fr-FR"})
WORDS = {
    "en": {
        "settings": "Settings",
        "light": "Light",
        "four": "Four-colour deck",
        "large": "Larger cards",
    },
    "fr": {
        "settings": "Réglages",
        "light": "Clair",
        "four": "Jeu à quatre couleurs",
        "large": "Cartes plus grandes",
    },
}
# The pictures of docs/client-pages.md: a phone and a laptop, each in one language.
PICTURES = {"looks": {"en-390", "fr-1366"}, "settings": {"fr-390", "en-1366"}}
BLUE, GREEN, RED = "rgb(11, 95, 196)", "rgb(18, 117, 58)", "rgb(200, 16, 46)"


def sideways(page: Any) -> int:
    """Return how far the page scrolls sideways (0: not at all)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def card_width(page: Any) -> int:
    return page.evaluate(
        "parseInt(document.querySelector('.board').style.getPropertyValue('--card-w'))"
    )


def suit_colours(page: Any) -> dict[str, str]:
    """Return the ink of one face-up card of each suit on the board."""
    return page.evaluate(
        """() => Object.fromEntries(['S', 'H', 'D', 'C'].flatMap(suit => {
          const card = document.querySelector(`.board .card.face[data-card$="${suit}"]`);
          return card ? [[suit, getComputedStyle(card).color]] : [];
        }))"""
    )


@pytest.mark.parametrize("case", CASES)
def test_the_looks_are_chosen_in_the_settings_fit_a_phone_and_are_remembered(
    new_page: Any, case: str
) -> None:
    language, options = CASES[case]
    words = WORDS[language]
    # given a player at the widest table, in the system's theme and with the default looks
    page = new_page(**options)
    join_as_guest(page, nickname("Looks"))
    seed, state = playable_seed(VARIANT)
    table = Table(page, new_practice(page, VARIANT, seed), state)
    system = "light" if options.get("color_scheme") == "light" else "dark"
    assert page.get_attribute("html", "data-theme") == system
    before = card_width(page)
    assert sideways(page) <= 0

    # then a move makes no sound: sounds are off until the player turns them on
    move = table.pick(home=False)
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    table.top(move.source).click()
    table.spot(move.target).click()
    table.made(move)
    assert page.get_attribute("html", "data-last-sound") is None

    # when the player opens the settings and chooses light, four colours and larger cards
    assert page.inner_text("#settings-button").endswith(words["settings"])
    page.click("#settings-button")
    page.get_by_label(words["light"], exact=True).check()
    page.get_by_label(words["four"], exact=False).check()
    page.get_by_label(words["large"], exact=True).check()
    page.locator("#setting-sounds").check()

    if os.environ.get("SCREENSHOTS") and case in PICTURES["settings"]:
        page.screenshot(path=str(ROOT / "docs" / "screenshots" / f"settings-{case}.png"))

    # then the page is light, diamonds blue and clubs green, the cards larger, with no sideways
    # scrolling, and turning sounds on played one
    assert page.get_attribute("html", "data-theme") == "light"
    assert page.get_attribute("html", "data-last-sound") == "move"
    page.keyboard.press("Escape")
    page.wait_for_function(
        f"parseInt(document.querySelector('.board').style.getPropertyValue('--card-w')) > {before}"
    )
    larger = card_width(page)
    colours = suit_colours(page)
    assert colours.get("D", BLUE) == BLUE and colours.get("C", GREEN) == GREEN
    assert colours.get("H", RED) == RED and {"D", "C"} & colours.keys()
    assert sideways(page) <= 0
    if options.get("reduced_motion"):
        assert page.evaluate("document.getAnimations().length") == 0
    if os.environ.get("SCREENSHOTS") and case in PICTURES["looks"]:
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(ROOT / "docs" / "screenshots" / f"looks-{case}.png"))

    # when the page is loaded again, the choices hold
    page.reload()
    page.wait_for_selector(".board .pile")
    assert page.get_attribute("html", "data-theme") == "light"
    assert page.get_attribute("html", "data-deck") == "four"
    assert card_width(page) == larger
    assert sideways(page) <= 0
