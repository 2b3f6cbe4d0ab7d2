"""A French browser gets the site in French, switches to English, and the choice stays."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.browser


@pytest.fixture
def french_page(browser: Any, server: str) -> Iterator[Any]:
    """A page of a browser whose language is French (it sends Accept-Language: fr-FR)."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, base_url=server, locale="fr-FR"
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def home(page: Any, *names: str) -> str:
    """Wait for the home page to show the variants ``names``; return the text of the page."""
    page.wait_for_selector("#view[data-ready='home']")
    page.wait_for_function(
        "names => names.every(name => document.getElementById('view').innerText.includes(name))",
        arg=list(names),
    )
    return page.inner_text("#view")


def test_a_french_browser_reads_french_then_switches_to_english_for_good(french_page) -> None:
    page = french_page

    # given: the home page of a French browser
    page.goto("/")
    text = home(page, "Castille", "Cerf-volant", "Canfield quadruple")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("header nav").split() == ["Les", "donnes", "du", "jour", "Ligues"]
    assert page.inner_text("#play-as-guest") == "Jouer en invité"
    assert page.get_attribute("#identity-nickname", "placeholder") == "Pseudo"
    assert "Box Kite" not in text
    # (no scheduler serves this server: today's deals are made on demand, the solver yet to
    # decide them)
    checked = 'li.deal[data-variant="castile"] .certified dd[data-certified="checking"]'
    assert page.inner_text(checked) == "En cours de vérification par le solveur"

    # when: the reader picks English with the keyboard
    page.focus("#language-switch button[value='en']")
    with page.expect_navigation():
        page.keyboard.press("Enter")

    # then: the page is English, and stays English on reload
    for _ in range(2):
        text = home(page, "Castile", "Box Kite", "Quadruple Canfield")
        assert page.get_attribute("html", "lang") == "en"
        assert page.inner_text("#play-as-guest") == "Play as guest"
        assert "Cerf-volant" not in text
        assert page.inner_text(checked) == "Being checked by the solver"
        assert page.get_attribute("#language-switch button[value='en']", "aria-current") == "true"
        page.reload()
