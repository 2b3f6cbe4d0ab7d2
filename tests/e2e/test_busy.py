"""A busy server: the client waits as asked, with jitter, says so, and loses no move.

A busy worker refuses a new socket with ``{"type": "error", "error": "unavailable",
"retry_after": s}`` and a 1011 close (before any greeting), and a game start with 503
``unavailable``, ``retry_after`` and ``Retry-After``. Playwright stands in for the busy server: it
answers the first socket or request itself (``route_web_socket``, ``route``) and lets the next ones
through to the real one. Times are measured where the refusal and the next try arrive.
The pages block the service worker: once it controls a page, Playwright's ``route`` may no
longer see the page's requests, and the first start would reach the server unrefused.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from typing import Any

import pytest

from games.engine import Move, builtin_variant, legal_moves, state_from_json
from tests.e2e.helpers import fetch_game, join_as_guest, nickname, shown_piles
from tests.e2e.test_table import new_practice, post_game

pytestmark = pytest.mark.browser

SIZES = {
    "390x844-touch": {"viewport": (390, 844), "has_touch": True, "is_mobile": True},
    "1366x768": {"viewport": (1366, 768)},
}
VARIANT = "castile"  # every card face up: the test knows each legal move from what the page shows
DETAIL = "The service is busy: try again in a moment."
# The browser logs a 503 it was answered, as any failed load: expected where a test provokes one.
LOGGED_503 = (r"Failed to load resource: .* 503",)
# Where the home says a start waits, and why it gave up: beside the deal's buttons.
START_NOTICE = f'li.deal[data-variant="{VARIANT}"] .retry-notice'
START_ERROR = f'li.deal[data-variant="{VARIANT}"] .deal-message .error'


def busy(retry_after: float) -> dict[str, Any]:
    return {"type": "error", "error": "unavailable", "detail": DETAIL, "retry_after": retry_after}


class Sockets:
    """Route a page's game or daily sockets: refuse the first ``refused`` as a busy server does,
    pass the others through to the server, and note when each came and what the page sent."""

    def __init__(self, retry_after: float, *, refused: int = 1) -> None:
        self.retry_after = retry_after
        self.refused = refused
        self.opened: list[float] = []  # time.monotonic() of each socket the page opened
        self.sent: list[list[dict[str, Any]]] = []  # frames the page sent, per socket
        self.routes: list[Any] = []

    def __call__(self, ws: Any) -> None:
        self.opened.append(time.monotonic())
        self.sent.append([])
        self.routes.append(ws)
        frames = self.sent[-1]
        ws.on_message(lambda message: frames.append(json.loads(message)))
        if len(self.opened) <= self.refused:
            ws.send(json.dumps(busy(self.retry_after)))
            ws.close(code=1011, reason="unavailable")
            return
        self.pass_through(ws, frames)

    def pass_through(self, ws: Any, frames: list[dict[str, Any]]) -> None:
        server = ws.connect_to_server()

        def from_page(message: Any) -> None:
            frames.append(json.loads(message))
            server.send(message)

        ws.on_message(from_page)
        server.on_message(lambda message: ws.send(message))


def refuse_first_start(page: Any, retry_after: float, *, refused: int = 1) -> list[float]:
    """Answer the page's first ``refused`` ``POST /api/games/`` 503 ``unavailable``; return when
    each came."""
    starts: list[float] = []

    def handle(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        starts.append(time.monotonic())
        if len(starts) > refused:
            route.continue_()
            return
        route.fulfill(
            status=503,
            headers={"Retry-After": str(retry_after)},
            content_type="application/json",
            body=json.dumps({"error": "unavailable", "detail": DETAIL, "retry_after": retry_after}),
        )

    page.route(re.compile(r"/api/games/$"), handle)
    return starts


def a_move(page: Any, game_id: str) -> tuple[Move, str]:
    """Return a legal single-card move of the game as the server has it, and the card it moves."""
    game = fetch_game(page, game_id)
    state = state_from_json(builtin_variant(game["variant"]), game["state"])
    move = next(m for m in legal_moves(state) if isinstance(m, Move) and m.count == 1)
    card = next(p for p in game["state"]["piles"] if p["id"] == move.source)["cards"][-1]
    return move, card


def click_move(page: Any, move: Move) -> None:
    """Move a card click by click: the card, then the pile it goes to."""
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    page.locator(f'.pile[data-pile="{move.source}"] button.card').last.click()
    page.wait_for_selector(f'.pile[data-pile="{move.target}"].target')
    page.locator(f'.pile[data-pile="{move.target}"] button').last.click()


def retry_ms(page: Any, selector: str) -> int:
    return int(page.get_attribute(selector, "data-retry-ms"))


@pytest.mark.parametrize("size", list(SIZES))
def test_a_busy_server_delays_the_start_and_the_socket_and_the_game_then_plays(
    new_page: Any, size: str
) -> None:
    # given a player at the home page of a server that refuses the first game start (503,
    # retry_after 1 s) and the table's first socket (unavailable, retry_after 2 s)
    page = new_page(service_workers="block", **SIZES[size], expected_console=LOGGED_503)
    join_as_guest(page, nickname("Busy"))
    starts = refuse_first_start(page, 1)
    sockets = Sockets(2)
    page.route_web_socket(re.compile(r"/ws/games/"), sockets)

    # when the player starts a practice game
    page.click(f'li.deal[data-variant="{VARIANT}"] button.practice')

    # then the home says the service is busy, and tries again after 1 to 2 s
    notice = page.wait_for_selector(START_NOTICE)
    assert re.fullmatch(r"The service is busy; retrying in [12] s…", notice.inner_text())
    assert 1000 <= retry_ms(page, START_NOTICE) <= 2000
    page.wait_for_selector(".board .pile")
    assert len(starts) == 2
    assert starts[1] - starts[0] >= 1.0

    # then the table's first socket is refused: the table says so, counting down, and waits
    notice = page.wait_for_selector("#play-retry")
    assert re.fullmatch(r"The service is busy; retrying in [1-4] s…", notice.inner_text())
    waited = retry_ms(page, "#play-retry")
    assert 2000 <= waited <= 4000
    assert page.get_attribute(".play", "data-socket") == "waiting"
    assert page.get_attribute(".play", "data-retry-ms") == str(waited)

    # then it opens a socket again no sooner than asked, takes its greeting, and clears the notice
    page.wait_for_selector(".play[data-socket='open']", timeout=8000)
    assert len(sockets.opened) == 2
    assert sockets.opened[1] - sockets.opened[0] >= 2.0
    assert page.locator("#play-retry").count() == 0
    assert sockets.sent[0] == [], "nothing is sent on a refused socket"

    # when the player makes a move
    game_id = page.url.rsplit("/", 1)[-1]
    move, card = a_move(page, game_id)
    click_move(page, move)

    # then it goes over the new socket and is answered
    page.wait_for_selector("#ply:text-is('1')")
    assert shown_piles(page)[move.target][-1] == card
    assert [f["move"]["to"] for f in sockets.sent[1] if "move" in f] == [move.target]
    assert fetch_game(page, game_id)["ply"] == 1


def test_a_french_player_reads_the_busy_notice_in_french(new_page: Any) -> None:
    # given a French player whose game start the server refuses once, as busy
    page = new_page(
        service_workers="block", viewport=(390, 844), locale="fr-FR", expected_console=LOGGED_503
    )
    join_as_guest(page, nickname("Occupe"))
    refuse_first_start(page, 1)

    # when they start a practice game
    page.click(f'li.deal[data-variant="{VARIANT}"] button.practice')

    # then the notice speaks French, with French spaces
    notice = page.wait_for_selector(START_NOTICE)
    assert re.fullmatch(
        "Le service est très sollicité\u202f; nouvel essai dans [12]\u00a0s…", notice.inner_text()
    )
    page.wait_for_selector(".board .pile", timeout=10_000)


def test_a_start_refused_again_and_again_gives_up_with_a_clear_error(new_page: Any) -> None:
    # given a player whose server refuses every game start as busy (retry_after 1 s)
    page = new_page(service_workers="block", expected_console=LOGGED_503)
    join_as_guest(page, nickname("Patient"))
    starts = refuse_first_start(page, 1, refused=99)

    # when they start a practice game
    page.click(f'li.deal[data-variant="{VARIANT}"] button.practice')

    # then the home tries three times more, each no sooner than asked, then says it gave up
    # (three waits of 1 to 2 s each; the timeout leaves room for a loaded machine's timers)
    error = page.wait_for_selector(START_ERROR, timeout=30_000)
    assert error.inner_text() == (
        "The service is too busy to start the game now: try again in a minute."
    )
    assert len(starts) == 4
    assert all(later - sooner >= 1.0 for sooner, later in itertools.pairwise(starts))
    assert page.locator(START_NOTICE).count() == 0
    assert page.is_enabled(f'li.deal[data-variant="{VARIANT}"] button.practice')


@pytest.mark.parametrize("lost", ["before the server", "with its answer"])
def test_a_move_in_flight_on_a_refused_socket_is_not_lost(new_page: Any, lost: str) -> None:
    # given a player at a table whose socket the server will drop as busy while a move is in
    # flight: before the server saw the move, or after it applied it but before its answer came
    # (the move sent again after its answer was lost is refused stale: the browser logs that 409)
    page = new_page(service_workers="block", expected_console=(r"Failed to load resource: .* 409",))
    join_as_guest(page, nickname("Flight"))
    first: list[Any] = []
    sockets = Sockets(1, refused=0)

    def handle(ws: Any) -> None:
        if first:
            sockets(ws)
            return
        first.append(ws)
        server = ws.connect_to_server()

        def refuse() -> None:
            ws.send(json.dumps(busy(1)))
            ws.close(code=1011, reason="unavailable")

        def from_page(message: Any) -> None:
            if lost == "before the server":
                refuse()
            else:
                server.send(message)

        def from_server(message: Any) -> None:
            if json.loads(message)["type"] == "game" and json.loads(message)["game"]["ply"] > 0:
                refuse()  # the answer to the move: dropped
            else:
                ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/games/"), handle)
    game = new_practice(page, VARIANT, "busy-flight")
    move, card = a_move(page, game["id"])

    # when the player makes the move
    click_move(page, move)

    # then the move is applied once, and the table shows it without a word of error
    page.wait_for_selector("#ply:text-is('1')")
    assert shown_piles(page)[move.target][-1] == card
    assert fetch_game(page, game["id"])["ply"] == 1
    assert page.locator("#play-message .error").count() == 0
    assert page.locator("#play-message").inner_text() == ""

    # and the table opens a socket again, which takes the next move
    page.wait_for_selector(".play[data-socket='open']", timeout=8000)
    move, _ = a_move(page, game["id"])
    click_move(page, move)
    page.wait_for_selector("#ply:text-is('2')")
    assert any("move" in f for f in sockets.sent[-1])


def test_two_players_refused_together_come_back_at_different_moments(new_page: Any) -> None:
    # given two players whose browsers draw different random numbers (fixed here: 0.1 and 0.7)
    pages, sockets = [], []
    for draw in (0.1, 0.7):
        page = new_page(service_workers="block")
        page.add_init_script(f"Math.random = () => {draw};")
        join_as_guest(page, nickname("Twin"))
        response = post_game(page, {"variant": VARIANT, "mode": "practice", "seed": "twins"})
        assert response.status == 201
        routed = Sockets(2)
        page.route_web_socket(re.compile(r"/ws/games/"), routed)
        pages.append((page, response.json()["id"]))
        sockets.append(routed)

    # when the server refuses both tables' sockets at once with the same retry_after of 2 s
    for page, game_id in pages:
        page.goto(f"/#/play/{game_id}")
    for page, _ in pages:
        page.wait_for_selector("#play-retry")

    # then each waits retry_after × (1 + its random draw): 2.2 s and 3.4 s, not the same moment
    assert [retry_ms(page, "#play-retry") for page, _ in pages] == [2200, 3400]
    for page, _ in pages:
        page.wait_for_selector(".play[data-socket='open']", timeout=8000)
    first, second = (s.opened[1] - s.opened[0] for s in sockets)
    assert first >= 2.2
    assert second >= 3.4


def test_the_delay_honours_retry_after_and_else_backs_off_with_jitter(new_page: Any) -> None:
    # given the client's module of waits, called with fixed random draws
    page = new_page(service_workers="block")
    page.goto("/")
    delays = page.evaluate(
        """async () => {
          const { retryDelay, CAP_MS } = await import('/static/frontend/backoff.js');
          const at = (r) => () => r;
          return {
            asked: [0, 0.5, 0.999].map((r) => retryDelay(1, 2, at(r))),
            askedLater: retryDelay(7, 2, at(0)),
            tooSoon: retryDelay(1, 0, at(0)),
            backoff: [1, 2, 3, 4].map((n) => [0, 0.999].map((r) => retryDelay(n, null, at(r)))),
            capped: retryDelay(30, null, at(0.999)) <= CAP_MS,
          };
        }"""
    )

    # then a server's retry_after is waited, and up to as long again
    assert delays["asked"] == [2000, 3000, pytest.approx(3998)]
    assert delays["askedLater"] == 2000
    # then retry_after 0 is no tight loop: a second at least
    assert delays["tooSoon"] == 1000
    # then without one, each wait is half a doubling step plus up to the other half, capped
    assert delays["backoff"] == [
        [500, pytest.approx(999.5)],
        [1000, pytest.approx(1999)],
        [2000, pytest.approx(3998)],
        [4000, pytest.approx(7996)],
    ]
    assert delays["capped"]


def test_the_live_board_waits_as_asked_and_says_so(new_page: Any) -> None:
    # given a watcher of today's board whose first socket the server refuses as busy (2 s)
    page = new_page(service_workers="block")
    page.goto("/")
    deal = page.evaluate("(async () => (await (await fetch('/api/daily/')).json())[0])()")
    sockets = Sockets(2)
    page.route_web_socket(re.compile(r"/ws/daily/"), sockets)

    # when they open the board
    page.goto(f"/#/daily/{deal['variant']}/{deal['date']}")

    # then the live column says the service is busy, and connects after 2 to 4 s
    notice = page.wait_for_selector("#live-retry")
    assert re.fullmatch(r"The service is busy; retrying in [1-4] s…", notice.inner_text())
    assert 2000 <= retry_ms(page, "#live-retry") <= 4000
    page.wait_for_selector("#live-state[data-state='open']", timeout=8000)
    assert sockets.opened[1] - sockets.opened[0] >= 2.0
    assert page.locator("#live-retry").count() == 0


def test_the_home_waits_out_a_busy_server_for_the_days_list(new_page: Any) -> None:
    # given a server whose first answer to today's list is 503 unavailable (retry_after 1 s)
    page = new_page(service_workers="block", expected_console=LOGGED_503)
    asked: list[float] = []

    def handle(route: Any) -> None:
        asked.append(time.monotonic())
        if len(asked) > 1:
            route.continue_()
            return
        route.fulfill(
            status=503,
            headers={"Retry-After": "1"},
            content_type="application/json",
            body=json.dumps({"error": "unavailable", "detail": DETAIL, "retry_after": 1}),
        )

    page.route(re.compile(r"/api/daily/$"), handle)

    # when a visitor opens the home page
    page.goto("/")

    # then it says the service is busy, asks again no sooner than told, and lists the deals
    notice = page.wait_for_selector("#home-retry")
    assert re.fullmatch(r"The service is busy; retrying in [12] s…", notice.inner_text())
    page.wait_for_selector("li.deal")
    assert len(asked) == 2
    assert asked[1] - asked[0] >= 1.0
    assert page.locator("#home-retry").count() == 0
    assert page.locator("#home-message").inner_text() == ""
