"""Helpers shared by the browser tests: players, games and what the board shows."""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

_names = itertools.count(1)


def nickname(prefix: str) -> str:
    """Return a nickname no other test of the run uses."""
    return f"{prefix}{next(_names)}"


def join_as_guest(page: Any, name: str) -> None:
    """Open the home page and play as a new guest called ``name``."""
    page.goto("/")
    page.fill("#identity-nickname", name)
    page.click("#play-as-guest")
    page.wait_for_selector(f"#nickname:has-text('{name}')")


def click_move(page: Any, move: dict[str, Any], target: str = ":is(.card, .slot)") -> None:
    """Make ``move`` (the API's JSON of a move) on the table by clicks, as a player does: the
    source pile's top card, then the last of ``target`` in the pile it goes to (its top card or
    its empty slot); a deal or a redeal by its button."""
    if move["type"] == "move":
        page.locator(f'.pile[data-pile="{move["from"]}"] button.card').last.click()
        page.locator(f'.pile[data-pile="{move["to"]}"] {target}').last.click()
    else:
        page.click(f"#{move['type']}")


def fetch_game(page: Any, game_id: str) -> dict[str, Any]:
    """Return the game object the API gives the page's player."""
    response = page.request.get(f"/api/games/{game_id}/")
    assert response.ok
    return response.json()


def shown_piles(page: Any) -> dict[str, list[str | None]]:
    """Return, for every pile on the board, the cards drawn: their codes, None for a card back."""
    return page.eval_on_selector_all(
        ".board .pile",
        """piles => Object.fromEntries(piles.map(pile => [pile.dataset.pile,
            [...pile.querySelectorAll('.card[data-index]')].map(c => c.dataset.card || null)]))""",
    )


def start_practice(page: Any, variant: str, seed: str) -> dict[str, Any]:
    """Start a practice game of ``seed`` through the API as the page's player; open it on the
    table once its socket is open; return the game."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    answer = page.request.post(
        "/api/games/",
        data={"variant": variant, "mode": "practice", "seed": seed},
        headers={"X-CSRFToken": token},
    )
    assert answer.status == 201, answer.text()
    game = answer.json()
    page.goto(f"/#/play/{game['id']}")
    page.wait_for_selector(f".board[data-variant='{variant}'] .pile")
    page.wait_for_selector(".play[data-socket='open']")
    return game


@contextlib.contextmanager
def variants_offered(server_shell: Callable[[str], str], slugs: list[str]) -> Iterator[None]:
    """Offer the shipped variants ``slugs`` (for practice, as an admin does: not as dailies)
    while the block runs; then withdraw again those that were not offered before."""
    printed = server_shell(
        "import json\n"
        "from games.models import Variant\n"
        "from games.services import variants_load\n"
        "variants_load(include_extras=True)\n"
        f"rows = Variant.objects.filter(slug__in={sorted(slugs)!r}, enabled=False)\n"
        "print(json.dumps(sorted(rows.values_list('slug', flat=True))))\n"
        "rows.update(enabled=True)\n"
    )
    withdrawn = json.loads(printed.strip().splitlines()[-1])
    try:
        yield
    finally:
        server_shell(
            "from games.models import Variant\n"
            f"Variant.objects.filter(slug__in={withdrawn!r}).update(enabled=False)\n"
        )
