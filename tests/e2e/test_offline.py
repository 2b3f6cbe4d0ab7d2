"""Offline: a move made without a network says so at once, and is applied once when it is back.

With ``SCREENSHOTS=1`` the notice is also written to ``docs/screenshots/``."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from tests.e2e.helpers import fetch_game, join_as_guest, nickname
from tests.e2e.test_table import Table, drag, new_practice, playable_seed, screenshot

pytestmark = pytest.mark.browser

NOTICE = {
    "en": "You are offline; your move will be sent when you reconnect.",
    "fr": "Vous êtes hors ligne\u202f; votre coup sera envoyé dès la reconnexion.",
}
CASES = {
    "en-390": ("en", {"viewport": (390, 844), "has_touch": True, "is_mobile": True}),
    "fr-390": (
        "fr",
        {"viewport": (390, 844), "has_touch": True, "is_mobile": True, "locale": "fr-FR"},
    ),
    "en-1366": ("en", {"viewport": (1366, 768)}),
}


@pytest.mark.parametrize("case", CASES)
def test_a_move_made_offline_says_so_at_once_and_is_applied_once_back_online(
    new_page: Any, case: str
) -> None:
    language, options = CASES[case]
    # given a practice game on the table
    seed, state = playable_seed("castile")
    page = new_page(**options)
    join_as_guest(page, nickname("Offline"))
    table = Table(page, new_practice(page, "castile", seed), state)
    ply = table.game["ply"]

    # when the network goes and the player drags a card onto a pile that takes it
    page.context.set_offline(True)
    move = table.pick(home=False)
    start = time.monotonic()
    drag(page, table.top(move.source), table.spot(move.target))

    # then the table says at once that the move waits for the network
    page.wait_for_selector("#play-offline", state="visible", timeout=1000)
    assert time.monotonic() - start < 1
    assert page.inner_text("#play-offline") == NOTICE[language]
    if os.environ.get("SCREENSHOTS"):
        screenshot(page, f"table-offline-{case}")

    # when the network comes back, the move is sent, applied once, and the notice goes
    page.context.set_offline(False)
    table.made(move)
    page.wait_for_selector("#play-offline", state="hidden")
    page.wait_for_selector(".play[data-socket='open']")
    page.wait_for_timeout(300)
    assert fetch_game(page, table.game["id"])["ply"] == ply + 1
    assert page.inner_text("#ply") == str(ply + 1)
    assert page.inner_text("#play-message") == ""
