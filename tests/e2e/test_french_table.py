"""A French phone plays at a table that speaks French and still fits the screen."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname
from tests.e2e.test_table import check_layout, new_practice

pytestmark = pytest.mark.browser

# The launch variant with the widest French words: a reserve, a stock, a waste, a deal button.
VARIANT = "quadruple-canfield"


def head_off_screen(page: Any) -> list[str]:
    """Return the texts of the table's head (title, counts, buttons) cut or off the screen; a
    control past the edge of the phone's controls bar, which scrolls sideways inside itself and
    fits the screen, is within reach."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.play-head *')].filter((el) => {
          const r = el.getBoundingClientRect();
          const bar = el.closest('.controls');
          const b = bar && bar.getBoundingClientRect();
          const scrolls = bar && getComputedStyle(bar).overflowX === 'auto'
            && b.left >= 0 && b.right <= window.innerWidth + 0.5;
          return r.width && (!scrolls && (r.left < 0 || r.right > window.innerWidth + 0.5)
            || el.scrollWidth > el.clientWidth + 1 && el.matches('button, label, dt, dd'));
        }).map((el) => el.textContent)"""
    )


def test_a_french_phone_plays_a_french_table_that_fits(new_page: Any) -> None:
    # given a French browser on a phone, at a practice game
    page = new_page(viewport=(390, 844), locale="fr-FR")
    join_as_guest(page, nickname("Fr"))
    new_practice(page, VARIANT, "french-table")

    # then the table speaks French, and its longer words fit
    assert page.get_attribute("html", "lang") == "fr"
    info = page.inner_text(".game-info")
    assert info.startswith("Partie d’entraînement · graine «\u00a0french-table\u00a0» · ")
    assert page.inner_text(".stat-ply dt").lower() == "coups"
    assert page.inner_text("#status") == "en cours"
    assert [page.inner_text(f"#{id}") for id in ("deal", "undo", "hint", "resign")] == [
        "Distribuer",
        "Annuler",
        "Indice",
        "Abandonner",
    ]
    assert page.get_attribute(".pile[data-pile='waste']", "aria-label") == "Défausse, 0 carte"
    assert page.inner_text(".pile[data-pile='waste'] .pile-name") == "Défausse"
    check_layout(page)
    assert head_off_screen(page) == []

    # when the player deals from the stock
    page.click("#deal")

    # then the screen reader hears it in French
    page.wait_for_selector("#ply:text-is('1')")
    assert page.inner_text("#play-announce") == "Cartes distribuées."

    # when the player resigns
    page.click("#resign")
    assert page.get_attribute(".confirm", "aria-label") == "Abandonner cette partie\u202f?"
    assert head_off_screen(page) == []
    page.click("#confirm-resign")

    # then the table says the game is over, in French
    banner = page.inner_text("#over-banner")
    assert banner.startswith("Partie terminée. Abandon avec ")
    assert banner.endswith(" sur les fondations.")
    assert page.inner_text("#status") == "abandonnée"
