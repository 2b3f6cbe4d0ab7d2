"""Each classic's rules page in the browser, in English and French, at a phone's and a laptop's
size: its picture of the opening layout shows every pile of the deal, face-down cards as backs,
and the page never scrolls sideways (a wide layout scrolls inside its own picture).

With ``SCREENSHOTS=1`` the pictures of Spider (2 suits) on a phone and of FreeCell in French on
a laptop are written to ``docs/screenshots/``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from games.engine import builtin_variant, deal, practice_seed
from games.views import RULES_SEED_TEXT
from games.words.pictures import BACKS_DRAWN
from tests.e2e.helpers import variants_offered

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

CLASSICS = ["klondike-draw-3", "freecell", "spider-2-suits", "yukon"]
SHOWN = {("spider-2-suits", "en-GB"), ("freecell", "fr-FR")}
HEADINGS = {"en-GB": "The opening layout", "fr-FR": "La disposition de départ"}


@pytest.fixture(scope="module")
def classics_offered(server_shell: Callable[[str], str]) -> Iterator[None]:
    """Offer the classics, as an admin does (Yukon is not offered by default)."""
    with variants_offered(server_shell, CLASSICS):
        yield


@pytest.mark.parametrize(
    ("locale", "viewport"),
    [("en-GB", (390, 844)), ("fr-FR", (1366, 768))],
    ids=["en-phone", "fr-laptop"],
)
@pytest.mark.usefixtures("classics_offered")
def test_the_rules_pages_picture_the_classics_opening_layout(
    new_page: Any, locale: str, viewport: tuple[int, int]
) -> None:
    page = new_page(viewport=viewport, locale=locale, has_touch=viewport[0] < 600)
    for slug in CLASSICS:
        # given the deal the page pictures
        state = deal(builtin_variant(slug), practice_seed(RULES_SEED_TEXT))
        fans = [
            (pile, rule)
            for pile, rule in zip(state.piles, state.variant.piles, strict=True)
            if rule.kind.value in ("tableau", "reserve")
        ]

        # when the reader opens its rules page
        page.goto(f"/rules/{slug}/")

        # then the picture is there under its heading in the reader's language
        layout = page.locator(".rules-layout")
        assert layout.locator("h3").inner_text() == HEADINGS[locale]
        figure = layout.locator("figure.lp")
        assert figure.is_visible()
        assert figure.locator(".lp-pile").count() == len(state.piles)

        # and each fan shows its face-up cards and at most a few backs for its face-down ones
        piles = figure.locator(".lp-row.lp-tableau .lp-pile, .lp-row.lp-reserve .lp-pile")
        for n, (pile, _rule) in enumerate(fans):
            drawn = piles.nth(n)
            assert drawn.locator(".lp-back").count() == min(pile.hidden, BACKS_DRAWN)
            assert drawn.locator(".lp-face").count() == len(pile.cards) - pile.hidden

        # and neither the page nor the picture's row overflows the window
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0], slug
        box = figure.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport[0]
        if os.environ.get("SCREENSHOTS") and (slug, locale) in SHOWN:
            name = f"rules-layout-{slug}-{locale[:2]}-{viewport[0]}.png"
            figure.screenshot(path=str(ROOT / "docs" / "screenshots" / name))
