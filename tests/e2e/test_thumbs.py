"""A table made for thumbs: controls a finger can hit, on one row above the board; count badges
that let a tap through to their pile; a tap just after a drag that picks a card up. With
``SCREENSHOTS=1`` the phone table is also written to ``docs/screenshots/``."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname, shown_piles
from tests.e2e.test_table import Table, new_practice, playable_seed, screenshot

pytestmark = pytest.mark.browser

PHONE = {"viewport": (390, 844), "has_touch": True, "is_mobile": True}
# A variant with a stock and a closed reserve, each with its count badge.
VARIANT = "quadruple-canfield"
# Where the board started on a phone when the controls wrapped onto three rows.
BOARD_TOP_BEFORE = 319

CONTROLS_JS = """() => [...document.querySelectorAll('.controls button, .controls .assist')]
  .map((el) => { const r = el.getBoundingClientRect();
    return {id: el.id || el.htmlFor, w: r.width, h: r.height, top: r.top}; })"""

# The rules link's size, and whether a tap at two corners and the middle of its box reaches it.
RULES_LINK_JS = """() => { const a = document.getElementById('rules-link');
  const r = a.getBoundingClientRect();
  const points = [[r.left + 2, r.top + 2], [r.right - 2, r.bottom - 2],
    [r.left + r.width / 2, r.top + r.height / 2]];
  return {w: r.width, h: r.height,
    hits: points.map(([x, y]) => a.contains(document.elementFromPoint(x, y)))}; }"""


def open_table(new_page: Any, variant: str = VARIANT, **options: Any) -> Table:
    seed, state = playable_seed(variant)
    page = new_page(**(options or PHONE))
    join_as_guest(page, nickname("Thumb"))
    return Table(page, new_practice(page, variant, seed), state)


def center(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_phone_controls_take_a_thumb_on_one_row_and_the_board_starts_high(new_page: Any) -> None:
    # given a practice game with a stock, on a touch phone
    page = open_table(new_page).page

    # then every control is 44 px each way at least, all on one row above the board
    controls = page.evaluate(CONTROLS_JS)
    assert {c["id"] for c in controls} >= {"deal", "undo", "hint", "resign", "one-click"}
    small = [c for c in controls if c["w"] < 44 or c["h"] < 44]
    assert small == [], f"controls smaller than 44×44 px: {small}"
    assert len({round(c["top"]) for c in controls}) == 1, f"controls on several rows: {controls}"
    # and the rules link takes a thumb too: a tap at its corners and its middle reaches it
    link = page.evaluate(RULES_LINK_JS)
    assert link["w"] >= 44 and link["h"] >= 44, f"the rules link is {link['w']}×{link['h']} px"
    assert link["hits"] == [True, True, True], "a tap on the rules link lands on another element"
    # and the board starts well above where the wrapped controls pushed it (the table's goal,
    # one folded line on a phone, came after that measure: its height is not the controls'),
    # the page not wider
    top = page.eval_on_selector(".board", "b => b.getBoundingClientRect().top")
    goal = page.eval_on_selector("#play-goal", "g => g.getBoundingClientRect().height")
    assert goal < 30, f"the goal takes {goal} px on a phone"
    assert top - goal < BOARD_TOP_BEFORE - 50, f"the board starts at y={top}"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if os.environ.get("SCREENSHOTS"):
        screenshot(page, "table-thumbs-390")


def test_a_tap_on_a_count_badge_reaches_its_pile(new_page: Any) -> None:
    # given a phone table with one-click moves off
    table = open_table(new_page)
    page = table.page
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")

    # when a finger taps the reserve's count badge
    badge = page.locator('.pile[data-pile^="reserve"] .badge').first
    page.touchscreen.tap(*center(badge.bounding_box()))

    # then the reserve's top card is picked up
    page.wait_for_selector('.pile[data-pile^="reserve"] .card.selected')

    # when it taps the stock's count badge (the card put back first)
    page.touchscreen.tap(*center(badge.bounding_box()))
    page.wait_for_selector(".board .card.selected", state="detached")
    page.touchscreen.tap(*center(page.locator('.pile[data-pile="stock"] .badge').bounding_box()))

    # then the stock deals
    page.wait_for_selector(f"#ply:text-is('{table.game['ply'] + 1}')")


def test_a_tap_just_after_a_drag_picks_a_card_up(new_page: Any) -> None:
    # given a phone table with one-click moves off
    table = open_table(new_page, "box-kite")
    page = table.page
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")

    # when a finger drags a card onto a pile that takes it, and at once taps another card
    move = table.pick(home=False)
    x0, y0 = center(table.top(move.source).bounding_box())
    x1, y1 = center(table.spot(move.target).bounding_box())
    other = next(
        pile
        for pile, cards in shown_piles(page).items()
        if pile.startswith("tableau") and pile not in (move.source, move.target) and cards
    )
    x2, y2 = center(table.top(other).bounding_box())
    touch = page.context.new_cdp_session(page)

    def send(kind: str, points: list[dict[str, float]]) -> None:
        touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    send("touchStart", [{"x": x0, "y": y0}])
    for step in range(1, 7):
        send("touchMove", [{"x": x0 + (x1 - x0) * step / 6, "y": y0 + (y1 - y0) * step / 6}])
    send("touchEnd", [])
    send("touchStart", [{"x": x2, "y": y2}])
    # the drag's move is answered, and the board drawn again, while the finger is down
    page.wait_for_selector(f"#ply:text-is('{table.game['ply'] + 1}')")
    send("touchEnd", [])

    # then the tapped card is picked up
    page.wait_for_selector(f'.pile[data-pile="{other}"] .card.selected')
    assert "Picked up" in page.inner_text("#play-message")
