"""The home card of a daily deal made on demand: being checked, then certified once it is."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_a_deal_being_checked_shows_certified_on_the_home_card_once_it_is(new_page: Any) -> None:
    # given the home page while today's deals are being checked (no scheduler serves this
    # server), the page's clock in the test's hands
    # (the service worker blocked: once it controls the page, ``route`` may miss its requests)
    page = new_page(service_workers="block")
    page.clock.install()
    checked = {"done": False}

    def daily(route: Any) -> None:
        deals = route.fetch().json()
        if checked["done"]:
            for deal in deals:
                deal.update(checking=False, certified=True, difficulty=1)
        route.fulfill(json=deals)

    page.route("**/api/daily/", daily)
    page.goto("/")
    card = 'li.deal[data-variant="castile"] .certified dd'
    page.wait_for_selector(f'{card}[data-certified="checking"]')
    assert page.inner_text(card) == "Being checked by the solver"

    # when the scheduler has certified them and the page looks again
    checked["done"] = True
    page.clock.run_for(31_000)

    # then the card says the deal is proved winnable
    page.wait_for_selector(f'{card}[data-certified="yes"]')
    assert page.inner_text(card) == "✓ Proved winnable"
