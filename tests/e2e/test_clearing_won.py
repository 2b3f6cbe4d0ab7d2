"""Golf, TriPeaks and Pyramid played to a win on the table, on the solver's line, by clicks alone.

An admin offers them (``loadvariants --all`` adds them disabled; the test turns them on, and off
again after). A card goes onto Golf's waste by picking it and then the waste, a Pyramid pair by
picking one card and then its partner, a King by picking it and then the discard pile; a deal by
the deal button. The table stays inside the screen all the way, at phone and laptop size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games.engine import builtin_variant, deal, practice_seed, solve
from tests.e2e.helpers import click_move, join_as_guest, nickname
from tests.e2e.test_table import SIZES, check_layout, new_practice

pytestmark = pytest.mark.browser

SLUGS = ["golf", "tripeaks", "pyramid"]


@pytest.fixture(scope="module")
def offered(server_shell: Callable[[str], str]) -> Iterator[None]:
    """Offer the clearing games for practice, as an admin does, and withdraw them after."""
    switch = (
        "from django.core.management import call_command\n"
        "from games.models import Variant\n"
        "call_command('loadvariants', '--all')\n"
        f"Variant.objects.filter(slug__in={SLUGS!r}).update(enabled={{on}})\n"
    )
    server_shell(switch.replace("{on}", "True"))
    yield
    server_shell(switch.replace("{on}", "False"))


def won_seed(slug: str) -> tuple[str, list[dict[str, Any]]]:
    """Return a practice seed the solver wins quickly, and its winning line as MOVE objects."""
    variant = builtin_variant(slug)
    for n in range(40):
        text = f"table-win-{n}"
        result = solve(deal(variant, practice_seed(text)), budget_seconds=5)
        if result.outcome == "won" and result.line:
            return text, [move.to_json() for move in result.line]
    raise AssertionError(f"no deal of {slug} won")


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("slug", SLUGS)
def test_a_clearing_game_is_won_on_the_table_by_clicks(
    new_page: Any, offered: None, slug: str, size: str
) -> None:
    # given a practice deal of the game and the solver's line for it
    seed, line = won_seed(slug)
    page = new_page(viewport=SIZES[size])
    join_as_guest(page, nickname("Peaks"))
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    page.evaluate("localStorage.setItem('daily-patience:auto-finish', 'off')")
    new_practice(page, slug, seed)
    check_layout(page)

    # when the player plays the line: a card picked, then the pile it goes to
    for ply, data in enumerate(line):
        click_move(page, data, ":is(button.card, .slot)")
        page.wait_for_selector(f"#ply:text-is('{ply + 1}')")

    # then the game is won, and the board never left the screen
    page.wait_for_selector("#won-banner")
    assert page.inner_text("#status") == "won"
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size][0]
