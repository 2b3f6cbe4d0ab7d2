"""The playing table in a real browser: every variant at a phone's and a laptop's size.

One page per variant and size checks the layout (no sideways scrolling, every pile on the
screen, overlapped cards that still show their rank and suit), then makes a legal move by drag,
by click, by double-click and by keyboard, and tries an illegal one. The test keeps the deal's
whole position in-process (the engine deals the same practice seed as the server), so it knows
every legal move without the board having to show a face-down card.

With ``SCREENSHOTS=1`` each page also writes ``docs/screenshots/<variant>-<size>.png``.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from games.engine import (
    Deal,
    Move,
    State,
    Undo,
    apply_move,
    builtin_rules,
    builtin_variant,
    deal,
    legal_moves,
    parse_move,
    player_view,
    practice_seed,
    solve,
)
from tests.e2e.helpers import click_move, fetch_game, join_as_guest, nickname, shown_piles

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = ["caprice", "castile", "quadruple-canfield", "box-kite", "capricieuse"]
CLASSICS = [
    "klondike-draw-1",
    "klondike-draw-3",
    "freecell",
    "spider-1-suit",
    "spider-2-suits",
    "spider-4-suits",
    "yukon",
]
CLEARING = ["golf", "golf-wrap", "tripeaks", "pyramid"]
SIZES = {"390x844": (390, 844), "1366x768": (1366, 768)}
WIN_VARIANT, WIN_SEED = "capricieuse", "win-14"


def pile_title(pile_id: str) -> str:
    """Return the table's name of a pile, as a player reads it: "Tableau 3" for tableau-2."""
    kind, _, index = pile_id.partition("-")
    name = kind.capitalize()
    return f"{name} {int(index) + 1}" if index else name


def playable_seed(slug: str) -> tuple[str, State]:
    """Return a practice seed whose deal offers both a move to a foundation and another move."""
    variant = builtin_variant(slug)
    for n in range(100):
        text = f"table-{n}"
        state = deal(variant, practice_seed(text))
        moves = single_moves(state)
        if any(is_home(m) for m in moves) and any(not is_home(m) for m in moves):
            return text, state
    raise AssertionError(f"no practice seed of {slug} offers both kinds of move")


def single_moves(state: State) -> list[Move]:
    return [m for m in legal_moves(state) if isinstance(m, Move) and m.count == 1]


def is_home(move: Move) -> bool:
    return move.target.startswith("foundation") and not move.source.startswith("foundation")


def post_game(page: Any, body: dict[str, str]) -> Any:
    """``POST /api/games/`` as the page's player (its session and CSRF cookie)."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return page.request.post("/api/games/", data=body, headers={"X-CSRFToken": token})


def new_practice(page: Any, variant: str, seed: str) -> dict[str, Any]:
    """Start a practice game through the API as the page's player and open it on the table."""
    response = post_game(page, {"variant": variant, "mode": "practice", "seed": seed})
    assert response.status == 201, response.text()
    game = response.json()
    page.goto(f"/#/play/{game['id']}")
    page.wait_for_selector(f".board[data-variant='{variant}'] .pile")
    page.wait_for_selector(".play[data-socket='open']")
    return game


class Table:
    """The page of one game and the engine's full position of the same game, kept in step."""

    def __init__(self, page: Any, game: dict[str, Any], state: State) -> None:
        self.page = page
        self.game = game
        self.state = state

    def card(self, pile_id: str) -> str | None:
        return self.game_pile(pile_id)[-1]

    def game_pile(self, pile_id: str) -> list[str | None]:
        return next(p["cards"] for p in self.game["state"]["piles"] if p["id"] == pile_id)

    def top(self, pile_id: str) -> Any:
        cards = self.game_pile(pile_id)
        return self.page.locator(
            f'.pile[data-pile="{pile_id}"] button.card[data-index="{len(cards) - 1}"]'
        )

    def spot(self, pile_id: str) -> Any:
        """Return where a card is dropped on a pile: its top card, or its empty slot."""
        return self.page.locator(f'.pile[data-pile="{pile_id}"] :is(.card, .slot)').last

    def made(self, move: Move) -> None:
        """Wait for the table to show the move applied, and step the engine's position."""
        ply = self.game["ply"] + 1
        self.page.wait_for_selector(f"#ply:text-is('{ply}')")
        self.state = apply_move(self.state, move)
        self.game = fetch_game(self.page, self.game["id"])
        assert self.game["ply"] == ply

    def pick(self, *, home: bool) -> Move:
        """Return a legal single-card move, to a foundation or not, of a card the player sees."""
        return next(
            m
            for m in single_moves(self.state)
            if is_home(m) == home
            and self.card(m.source) is not None
            and not m.source.startswith("foundation")
        )

    def destinations(self, source: str) -> set[str]:
        return {m.target for m in single_moves(self.state) if m.source == source}


def check_layout(page: Any, *, first_screen: bool = True) -> None:
    """Assert no sideways scrolling, every pile on the (first) screen, and readable overlaps."""
    page.wait_for_function("document.querySelector('.board').style.getPropertyValue('--card-w')")
    report = page.evaluate(
        """(firstScreen) => {
        const width = window.innerWidth, height = window.innerHeight;
        const out = {overflow: document.documentElement.scrollWidth - width, off: [], hidden: []};
        for (const pile of document.querySelectorAll('.board .pile')) {
          const r = pile.getBoundingClientRect();
          const below = firstScreen && r.top >= height;
          if (r.left < 0 || r.right > width + 0.5 || below || r.height === 0) {
            out.off.push(pile.dataset.pile);
          }
          const cards = [...pile.querySelectorAll('.card.face[data-index]')];
          for (const [i, card] of cards.entries()) {
            const next = cards[i + 1];
            if (!next) continue;
            const c = card.getBoundingClientRect(), n = next.getBoundingClientRect();
            const corner = card.querySelector('.corner').getBoundingClientRect();
            const sideways = pile.classList.contains('row-fan');
            const shown = sideways ? n.left - c.left : n.top - c.top;
            const needed = sideways ? corner.right - c.left : corner.bottom - c.top;
            if (shown < needed - 0.5) out.hidden.push(`${pile.dataset.pile}:${card.dataset.card}`);
          }
        }
        out.cut = [...document.querySelectorAll('.board .pile-name')]
          .filter((name) => name.scrollWidth > name.clientWidth + 0.5)
          .map((name) => name.textContent);
        return out;
      }""",
        first_screen,
    )
    assert report["overflow"] <= 0, f"the page scrolls sideways by {report['overflow']} px"
    assert report["off"] == [], f"piles off the screen: {report['off']}"
    assert report["hidden"] == [], f"cards whose rank and suit are covered: {report['hidden']}"
    assert report["cut"] == [], f"pile names cut short: {report['cut']}"
    touch = page.eval_on_selector(".board button.card", "el => getComputedStyle(el).touchAction")
    assert touch == "none", "a card must take touch gestures for dragging"
    assert page.evaluate("getComputedStyle(document.body).touchAction") == "auto"


def screenshot(page: Any, name: str) -> None:
    """Write ``docs/screenshots/<name>.png`` on plain felt (a gradient makes a PNG far larger)."""
    page.evaluate("document.body.style.background = '#0b5d3b'")
    page.screenshot(path=str(ROOT / "docs" / "screenshots" / f"{name}.png"))
    page.evaluate("document.body.style.background = ''")


def drag(page: Any, source: Any, target: Any, *, lit: set[str] | None = None) -> None:
    """Drag with the mouse from ``source`` to ``target``; before the drop, check that exactly the
    piles ``lit`` are shown as taking the card."""
    start, end = source.bounding_box(), target.bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=6)
    if lit is not None:
        shown = page.eval_on_selector_all(
            ".board .pile.target", "ps => ps.map(p => p.dataset.pile)"
        )
        assert set(shown) == lit
        assert page.locator(".drag-ghost .card").count() >= 1
    page.mouse.up()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("variant", LAUNCH)
def test_every_variant_fits_and_plays_by_drag_click_double_click_and_keyboard(
    new_page: Any, variant: str, size: str
) -> None:
    # given a player on a practice deal of the variant, at the screen's size
    seed, state = playable_seed(variant)
    page = new_page(viewport=SIZES[size])
    join_as_guest(page, nickname("Table"))
    table = Table(page, new_practice(page, variant, seed), state)

    # then the table fits the screen, and says what it counts
    check_layout(page)
    assert page.inner_text(".stat-ply dt").lower() == "moves"
    assert page.inner_text("#clock") == "0:00"
    assert page.is_disabled("#undo")
    if os.environ.get("SCREENSHOTS"):
        screenshot(page, f"{variant}-{size}")

    # when the player drags a card onto a pile that takes it
    move = table.pick(home=False)
    card = table.card(move.source)
    lit = table.destinations(move.source)
    drag(page, table.top(move.source), table.spot(move.target), lit=lit)

    # then the piles that take it lit up while it was held, and it lies there
    table.made(move)
    assert shown_piles(page)[move.target][-1] == card

    # when the player clicks a card (and then, if it has a choice, the pile to put it on)
    move = table.pick(home=False)
    choices = table.destinations(move.source)
    table.top(move.source).click()
    if len(choices) > 1:
        page.wait_for_selector(f'.pile[data-pile="{move.target}"].target')
        table.spot(move.target).click()
    else:
        move = Move(move.source, next(iter(choices)), 1)

    # then the card moves
    card = table.card(move.source)
    table.made(move)
    assert shown_piles(page)[move.target][-1] == card

    # when the player double-clicks a card that a foundation takes
    home = table.pick(home=True)
    card = table.card(home.source)
    table.top(home.source).dblclick()

    # then it goes to a foundation
    page.wait_for_selector(f"#ply:text-is('{table.game['ply'] + 1}')")
    landed = [pile for pile, cards in shown_piles(page).items() if cards[-1:] == [card]]
    target = next(pile for pile in landed if pile.startswith("foundation"))
    table.made(Move(home.source, target, 1))

    # when the player picks a card up with Enter and walks to a pile with the arrow keys
    move = table.pick(home=False)
    card = table.card(move.source)
    choices = table.destinations(move.source)
    table.top(move.source).focus()
    page.keyboard.press("Enter")
    if len(choices) > 1:
        page.wait_for_selector(f'.pile[data-pile="{move.source}"] .card.selected')
        for _ in range(60):
            here = page.evaluate("document.activeElement.closest('.pile')?.dataset.pile")
            if here == move.target:
                break
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
    else:
        move = Move(move.source, next(iter(choices)), 1)

    # then the card moves there, and the focus stays on the board
    table.made(move)
    assert shown_piles(page)[move.target][-1] == card
    assert page.evaluate("!!document.activeElement.closest('.board')")
    assert page.locator(".board button[tabindex='0']").count() == 1, "one Tab stop on the board"

    # when the player presses U, if the game allows an undo, and D, if it has a stock
    if table.game["can_undo"]:
        before = shown_piles(page)
        page.keyboard.press("u")
        table.made(Undo())
        assert shown_piles(page)[move.source][-1] == card
        assert before != shown_piles(page)
    if any(p["id"] == "stock" for p in table.game["state"]["piles"]):
        page.keyboard.press("d")
        table.made(Deal())

    # when the player drops a card on a pile that does not take it
    legal = {(m.source, m.target) for m in single_moves(table.state)}
    faces = [
        p["id"]
        for p in table.game["state"]["piles"]
        if p["id"].startswith("tableau") and p["cards"] and p["cards"][-1]
    ]
    source, target = next((a, b) for a in faces for b in faces if a != b and (a, b) not in legal)
    before = shown_piles(page)
    drag(page, table.top(source), table.spot(target))

    # then the table refuses it in its own words, and nothing changes
    error = page.locator("#play-message .message.error")
    error.wait_for()
    text = error.inner_text()
    assert pile_title(target) in text, text
    assert not re.search(r"(tableau|foundation|reserve)-\d", text), text
    assert shown_piles(page) == before
    assert fetch_game(page, table.game["id"])["ply"] == table.game["ply"]
    assert page.is_disabled("#undo") == (not table.game["can_undo"])
    check_layout(page)


def test_a_practice_game_is_won_through_the_table(new_page: Any) -> None:
    # given a practice deal and the solver's winning line for it
    variant = builtin_variant(WIN_VARIANT)
    result = solve(deal(variant, practice_seed(WIN_SEED)), budget_seconds=5)
    assert result.outcome == "won" and result.line
    page = new_page(viewport=(1366, 768))
    page.add_init_script(
        "document.addEventListener('game-over',"
        " e => (window.gameOvers = window.gameOvers || []).push(e.detail.game.status))"
    )
    join_as_guest(page, nickname("Winner"))
    new_practice(page, WIN_VARIANT, WIN_SEED)
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    # (the table would finish the game by itself once only moves home are left)
    page.evaluate("localStorage.setItem('daily-patience:auto-finish', 'off')")

    # when the player plays the line on the table: clicks for moves, the buttons for the rest,
    # and a double-click that sends the last card home
    *line, last = result.line
    for ply, move in enumerate(line):
        data = move.to_json()
        click_move(page, data)
        page.wait_for_selector(f"#ply:text-is('{ply + 1}')")
        assert parse_move(data) == move
    data = last.to_json()
    assert data["type"] == "move" and data["to"].startswith("foundation")
    page.locator(f'.pile[data-pile="{data["from"]}"] button.card').last.dblclick()

    # then the game is won, celebrated, announced to the page, and timed by the server; no
    # word is left of the card the double-click's first press picked up
    page.wait_for_selector("#won-banner")
    assert page.inner_text("#play-message") == ""
    if os.environ.get("SCREENSHOTS"):
        screenshot(page, "won-by-double-click-1366x768")
    assert page.locator(".board.won").count() == 1
    assert page.inner_text("#status") == "won"
    assert page.evaluate("window.gameOvers") == ["won"]
    motion = "getComputedStyle(document.querySelector('#won-banner')).animationName"
    assert page.evaluate(motion) == "celebrate"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(motion) == "none", "the celebration must respect reduced motion"
    game = page.request.get(page.url.replace("/#/play/", "/api/games/") + "/").json()
    assert game["status"] == "won" and game["duration_ms"] >= 0
    assert page.locator(".board button.card").count() == 0

    # when the finished game is opened again, the page hears that it is over
    page.reload()
    page.wait_for_selector("#won-banner")
    assert page.evaluate("window.gameOvers") == ["won"]


def test_every_variant_fits_the_smallest_phone_and_follows_the_window(new_page: Any) -> None:
    # given a player on a 360 px phone
    page = new_page(viewport=(360, 640))
    join_as_guest(page, nickname("Small"))
    for variant in LAUNCH:
        # when they open a deal of each variant
        new_practice(page, variant, "small")

        # then it fits; and when the phone turns sideways or the window grows, it fits again
        check_layout(page)
        resize(page, 640, 360)
        check_layout(page, first_screen=False)
        resize(page, 1920, 1080)
        check_layout(page)
        width = page.eval_on_selector(".board .card.face", "el => el.offsetWidth")
        assert width >= 60, f"{variant}: cards stay small on a wide screen"
        resize(page, 360, 640)


def resize(page: Any, width: int, height: int) -> None:
    """Give the window a new size and wait until the page has handled its resize event (the
    table fits the board again then): the event comes a frame after the size changes."""
    page.evaluate(
        "() => { window.resized = false;"
        " addEventListener('resize', () => { window.resized = true; }, {once: true}); }"
    )
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("() => window.resized")


def test_automatic_moves_send_home_only_the_cards_no_other_card_needs(new_page: Any) -> None:
    # given a Castile deal with Aces on top of some piles
    seed, state = playable_seed("castile")
    page = new_page()
    join_as_guest(page, nickname("Auto"))
    table = Table(page, new_practice(page, "castile", seed), state)
    tops = {pid: cards[-1] for pid, cards in shown_piles(page).items() if cards}
    aces = sum(1 for card in tops.values() if card and card[0] == "A")
    assert aces, "the deal shows no Ace on top of a pile"

    # when the player turns the automatic moves on
    page.check("#auto-foundations")

    # then every Ace in sight goes home by itself, and nothing but Aces and 2s on them
    page.wait_for_function(
        """() => ![...document.querySelectorAll('.board .pile:not(.foundation)')].some(
             p => [...p.querySelectorAll('.card[data-card]')].at(-1)?.dataset.card[0] === 'A')"""
    )
    page.wait_for_load_state("networkidle")
    game = fetch_game(page, table.game["id"])
    homed = [
        c for p in game["state"]["piles"] if p["id"].startswith("foundation") for c in p["cards"]
    ]
    assert len(homed) == game["ply"]
    assert sum(1 for card in homed if card[0] == "A") >= aces
    assert all(card[0] in "A2" for card in homed), homed
    assert page.is_checked("#auto-foundations")


def test_a_finger_drags_a_card_without_scrolling_the_page_and_double_taps_one_home(
    new_page: Any,
) -> None:
    # given a player on a touch phone, the page scrolled a little
    seed, state = playable_seed("box-kite")
    page = new_page(viewport=(390, 640), has_touch=True, is_mobile=True)
    join_as_guest(page, nickname("Finger"))
    table = Table(page, new_practice(page, "box-kite", seed), state)
    page.evaluate("window.scrollTo(0, 12)")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 0, "the page should be taller than the phone's screen"

    # when a finger drags a card onto a pile that takes it
    move = table.pick(home=False)
    card = table.card(move.source)
    start, end = table.top(move.source).bounding_box(), table.spot(move.target).bounding_box()
    touch = page.context.new_cdp_session(page)
    x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    x1, y1 = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    touch.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
    )
    for step in range(1, 9):
        x, y = x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8
        touch.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    # then the card moves and the page stays where it was
    table.made(move)
    assert shown_piles(page)[move.target][-1] == card
    assert page.evaluate("window.scrollY") == scrolled

    # when the finger taps twice on a card that a foundation takes (the first tap picks it up)
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    home = table.pick(home=True)
    card = table.card(home.source)
    box = table.top(home.source).bounding_box()
    page.wait_for_timeout(400)  # a tap just after a drag is a matter of its own
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    # then it goes home, and the note of the card picked up goes with it
    page.wait_for_selector(f"#ply:text-is('{table.game['ply'] + 1}')")
    homes = [p for p, cards in shown_piles(page).items() if p.startswith("foundation")]
    assert any(shown_piles(page)[p][-1:] == [card] for p in homes)
    assert page.inner_text("#play-message") == ""


AGREEMENT_JS = """async (cases) => {
  const { TableRules } = await import('/static/frontend/rules.js');
  return cases.map(({ rules, views }) => {
    const table = new TableRules(rules);
    return views.map((state) => {
      const game = { state };
      const moves = [];
      for (const pile of state.piles) {
        for (let count = 1; count <= pile.cards.length; count += 1) {
          if (table.liftable(game, pile, pile.cards.length - count) !== count) continue;
          const targets = table.destinations(game, pile.id, count);
          for (const to of targets) moves.push([pile.id, to, count]);
        }
      }
      return moves.sort();
    });
  });
}"""


def test_the_tables_reading_of_the_rules_agrees_with_the_engine(new_page: Any) -> None:
    # given positions along random games of every variant, and the engine's moves in each
    chance = random.Random(11)
    cases, expected = [], []
    for slug in LAUNCH + CLASSICS + CLEARING:
        state = deal(builtin_variant(slug), practice_seed(f"agree-{slug}"))
        views, moves = [], []
        for _ in range(60):
            legal = [m for m in legal_moves(state) if isinstance(m, Move)]
            views.append(player_view(state))
            moves.append(sorted([m.source, m.target, m.count] for m in legal))
            others = [m for m in legal_moves(state) if not isinstance(m, Undo)]
            if not others:
                break
            state = apply_move(state, chance.choice(others))
        cases.append({"rules": builtin_rules(slug), "views": views})
        expected.append(moves)
    page = new_page()
    page.goto("/")

    # when the table's rules module lists the moves it would offer in each position
    offered = page.evaluate(AGREEMENT_JS, cases)

    # then it offers exactly the engine's moves, position after position
    for slug, theirs, ours in zip(LAUNCH + CLASSICS + CLEARING, offered, expected, strict=True):
        for ply, (got, want) in enumerate(zip(theirs, ours, strict=True)):
            assert got == want, f"{slug}, position {ply}"


LAYERED_JS = """async ({ rules, state, variant }) => {
  const { buildBoard, fitBoard } = await import('/static/frontend/board.js');
  const { TableRules } = await import('/static/frontend/rules.js');
  const table = new TableRules(rules);
  const host = document.querySelector('main') || document.body;
  host.replaceChildren();
  const layout = table.layout;
  const board = buildBoard({ variant, state }, null, { interactive: false, layout });
  host.append(board);
  fitBoard(board);
  const spots = [...board.querySelectorAll('.pile.spot')].map((pile) => {
    const box = pile.getBoundingClientRect();
    const { left, right, top, bottom } = box;
    return { id: pile.dataset.pile, left, right, top, bottom };
  });
  return { scroll: document.documentElement.scrollWidth, width: window.innerWidth, spots };
}"""


@pytest.mark.parametrize("slug", ["tripeaks", "pyramid"])
def test_peaks_and_pyramids_fit_the_smallest_phone_row_under_row(new_page: Any, slug: str) -> None:
    # given a 360 px phone and the opening layout of the variant
    page = new_page(viewport=(360, 640))
    page.goto("/")
    variant = builtin_variant(slug)
    view = player_view(deal(variant, practice_seed("small")))

    # when the table draws it
    report = page.evaluate(
        LAYERED_JS, {"rules": builtin_rules(slug), "state": view, "variant": slug}
    )

    # then nothing scrolls sideways, every card is on the screen, and each card lies half
    # under the cards that cover it, between them
    assert report["scroll"] <= report["width"] == 360
    spots = {spot["id"]: spot for spot in report["spots"]}
    assert len(spots) == 28
    assert all(spot["left"] >= 0 and spot["right"] <= 360 for spot in spots.values())
    for pile in variant.tableau:
        spot = spots[variant.ids[pile]]
        for over in variant.piles[pile].covered_by:
            cover = spots[variant.ids[over]]
            assert spot["top"] < cover["top"] < spot["bottom"]
            assert cover["left"] < spot["right"] and spot["left"] < cover["right"]


def test_a_hint_shows_a_move_on_the_table_and_marks_the_game_assisted(new_page: Any) -> None:
    # given a practice game the solver wins quickly, and a daily game
    page = new_page()
    join_as_guest(page, nickname("Hinted"))
    game = new_practice(page, WIN_VARIANT, WIN_SEED)
    assert page.get_attribute("#rules-link", "href") == f"/rules/{WIN_VARIANT}/"
    assert page.locator("#assisted-mark").count() == 0

    # when the player asks for a hint
    page.click("#hint")

    # then the table names the move in its own words, marks it, and the game is assisted
    page.wait_for_selector("#assisted-mark")
    text = page.inner_text("#play-message")
    assert text.startswith("Hint:"), text
    assert not re.search(r"(tableau|foundation|reserve)-\d", text), text
    assert page.locator(".card.hinted, .pile.stock.hinted").count() >= 1
    assert fetch_game(page, game["id"])["assisted"] is True

    # when a daily game's player asks, the table first says what a hint costs; "No hint" keeps it
    daily = post_game(page, {"variant": "castile", "mode": "daily"}).json()
    page.goto(f"/#/play/{daily['id']}")
    page.wait_for_selector(".board[data-variant='castile'] .pile")
    page.click("#hint")
    page.wait_for_selector("[role='alertdialog'] #confirm-hint")
    page.click("#cancel-hint")
    page.wait_for_selector("#hint")
    assert fetch_game(page, daily["id"])["assisted"] is False
