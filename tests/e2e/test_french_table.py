"""A French or Spanish phone plays at a table that speaks its language and still fits the
screen."""

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


# The placeholders of the practice seed fields wider than their field's room for text.
PLACEHOLDERS_CUT = """() => [...document.querySelectorAll('.seed-text')].filter((input) => {
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return context.measureText(input.placeholder).width > room;
}).map((input) => input.placeholder)"""

# What the table says, in each language: its info line, its words and its sentences.
SAYS = {
    "fr": {
        "info": "Partie d’entraînement · graine «\u00a0table\u00a0» · ",
        "moves": "coups",
        "playing": "en cours",
        "buttons": ["Distribuer", "Annuler", "Indice", "Abandonner"],
        "waste": ("Défausse, 0 carte", "Défausse"),
        "dealt": "Cartes distribuées.",
        "resign?": "Abandonner cette partie\u202f?",
        "over": ("Partie terminée. Abandon avec ", " sur les fondations."),
        "resigned": "abandonnée",
    },
    "es": {
        "info": "Partida de práctica · semilla «table» · ",
        "moves": "jugadas",
        "playing": "en juego",
        "buttons": ["Repartir", "Deshacer", "Pista", "Abandonar"],
        "waste": ("Descarte, 0 cartas", "Descarte"),
        "dealt": "Cartas repartidas.",
        "resign?": "¿Abandonar esta partida?",
        "over": ("Fin de la partida. Abandonada con ", " en las fundaciones."),
        "resigned": "abandonada",
    },
}


@pytest.mark.parametrize("language", ["fr", "es"])
def test_a_phone_plays_a_table_in_its_language_that_fits(new_page: Any, language: str) -> None:
    says = SAYS[language]
    # given a French or Spanish browser on a phone, at a practice game
    page = new_page(viewport=(390, 844), locale={"fr": "fr-FR", "es": "es-ES"}[language])
    join_as_guest(page, nickname(language.title()))
    # and on the home page, every practice seed field shows its whole placeholder
    page.wait_for_selector("#view[data-ready='home'] .seed-text")
    assert page.evaluate(PLACEHOLDERS_CUT) == []
    new_practice(page, VARIANT, "table")

    # then the table speaks the browser's language, and its longer words fit
    assert page.get_attribute("html", "lang") == language
    info = page.inner_text(".game-info")
    assert info.startswith(says["info"])
    assert page.inner_text(".stat-ply dt").lower() == says["moves"]
    assert page.inner_text("#status") == says["playing"]
    buttons = [page.inner_text(f"#{id}") for id in ("deal", "undo", "hint", "resign")]
    assert buttons == says["buttons"]
    waste = says["waste"]
    assert page.get_attribute(".pile[data-pile='waste']", "aria-label") == waste[0]
    assert page.inner_text(".pile[data-pile='waste'] .pile-name") == waste[1]
    check_layout(page)
    assert head_off_screen(page) == []

    # when the player deals from the stock
    page.click("#deal")

    # then the screen reader hears it in that language
    page.wait_for_selector("#ply:text-is('1')")
    assert page.inner_text("#play-announce") == says["dealt"]

    # when the player resigns
    page.click("#resign")
    assert page.get_attribute(".confirm", "aria-label") == says["resign?"]
    assert head_off_screen(page) == []
    page.click("#confirm-resign")

    # then the table says the game is over, in that language
    banner = page.inner_text("#over-banner")
    assert banner.startswith(says["over"][0])
    assert banner.endswith(says["over"][1])
    assert page.inner_text("#status") == says["resigned"]
