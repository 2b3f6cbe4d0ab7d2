"""The table names FreeCell's reserves as the free cells they are, in English, French and Spanish:
in what a move did, in a refusal, and in the replay's list of moves."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname, start_practice

pytestmark = pytest.mark.browser


def top_card(page: Any, pile: str) -> Any:
    return page.locator(f'.pile[data-pile="{pile}"] button.card').last


@pytest.mark.parametrize(
    ("locale", "moved", "refused", "replayed"),
    [
        (
            "en-GB",
            " to Free cell 1.",
            "Free cell 1 already holds a card.",
            "Tableau 1 → Free cell 1",
        ),
        (
            "fr-FR",
            " vers Cellule libre 1.",
            "Cellule libre 1 contient déjà une carte.",
            "Tableau 1 → Cellule libre 1",
        ),
        (
            "es-ES",
            " a Celda libre 1.",
            "Celda libre 1 ya tiene una carta.",
            "Columna 1 → Celda libre 1",
        ),
    ],
    ids=["en", "fr", "es"],
)
def test_a_free_cell_is_named_so_when_played_to_refused_and_replayed(
    new_page: Any, locale: str, moved: str, refused: str, replayed: str
) -> None:
    # given a practice FreeCell game, one click no longer making a move on its own
    page = new_page(viewport=(1366, 768), locale=locale)
    join_as_guest(page, nickname("Cells"))
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    page.evaluate("localStorage.setItem('daily-patience:auto-foundations', 'off')")
    game = start_practice(page, "freecell", "cells")

    # when the player moves the top card of the first pile to the first free cell
    top_card(page, "tableau-0").click()
    page.locator('.pile[data-pile="reserve-0"] .slot').click()

    # then the table says where it went, naming the free cell
    page.wait_for_selector("#ply:text-is('1')")
    assert page.inner_text("#play-announce").endswith(moved)

    # when they try to put another card in that cell
    top_card(page, "tableau-1").click()
    top_card(page, "reserve-0").click()

    # then the refusal names the free cell, never a reserve
    error = page.locator("#play-message .message.error")
    error.wait_for()
    assert error.inner_text() == refused

    # and, once the game is over, the replay names it so in its list of moves
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    answer = page.request.post(f"/api/games/{game['id']}/resign/", headers={"X-CSRFToken": token})
    assert answer.ok, answer.text()
    page.goto(f"/#/replay/{game['id']}")
    page.wait_for_selector(".replay-board .board.with-cells")
    assert page.locator("nav.moves button.move").nth(1).inner_text() == replayed
