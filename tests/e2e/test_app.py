"""The page as an app: installable, its shell offline, its sockets back when the page is shown.

Chromium says whether the page is installable (``Page.getInstallabilityErrors``); the service
worker's cache is read from the page, to check that it never holds an API answer.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname
from tests.e2e.test_table import Table, new_practice, playable_seed

pytestmark = pytest.mark.browser

# Wait (at most 10 s) for the service worker to control the page. (A string given to
# wait_for_function is evaluated, which the page's Content-Security-Policy forbids.)
CONTROLLED = """async () => {
  await navigator.serviceWorker.ready;
  for (let i = 0; i < 100 && !navigator.serviceWorker.controller; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return navigator.serviceWorker.controller !== null;
}"""
CACHED_URLS = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) urls.push(new URL(request.url).pathname);
  }
  return urls;
}"""


def test_the_app_installs_and_its_shell_loads_offline(new_page: Any) -> None:
    # given a player who opened the home page once, and played a game (API answers with cards)
    offline = ("net::ERR_INTERNET_DISCONNECTED", "net::ERR_FAILED")  # the API, asked offline
    page = new_page(viewport=(390, 844), has_touch=True, is_mobile=True, expected_console=offline)
    join_as_guest(page, nickname("App"))
    seed, _state = playable_seed("castile")
    new_practice(page, "castile", seed)

    # then the service worker is installed and controls the page, and Chromium finds the page
    # installable (a manifest with its icons, a worker)
    assert page.evaluate(CONTROLLED), "no service worker controls the page"
    session = page.context.new_cdp_session(page)
    parsed = session.send("Page.getAppManifest")
    assert parsed["url"].endswith("/manifest.webmanifest") and parsed["errors"] == [], parsed
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # A test's browser context is a private window, where Chromium installs nothing; nothing else
    # stands in the way.
    assert [e["errorId"] for e in errors if e["errorId"] != "in-incognito"] == [], errors
    manifest = page.request.get("/manifest.webmanifest").json()
    for icon in manifest["icons"]:
        assert page.request.get(icon["src"]).headers["content-type"] == "image/png"

    # then its cache holds the shell and the static files, and no API answer, no socket
    cached = page.evaluate(CACHED_URLS)
    # (the static files under their hashed names: app.<digest>.js, site.<digest>.css)
    plain = {re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", url) for url in cached}
    assert {"/", "/offline/", "/static/frontend/app.js", "/static/frontend/site.css"} <= plain
    assert not [url for url in cached if url.startswith(("/api/", "/ws/", "/admin/"))], cached

    # when the network goes and the player opens the home page again
    page.context.set_offline(True)
    page.goto("/")

    # then the shell loads from the cache: the header, and the client's script running
    page.wait_for_selector("h1:text-is('Daily Patience')")
    page.wait_for_selector("body[data-route='home']")

    # when they open a page the cache does not hold, the offline page says what works
    page.goto("/rules/castile/?from=offline")
    page.wait_for_selector("#offline-title:text-is('You are offline')")
    assert "rules pages you have opened" in page.inner_text("main")
    page.context.set_offline(False)


def test_a_socket_lost_while_the_page_is_hidden_comes_back_when_it_is_shown(new_page: Any) -> None:
    # given a game on the table whose socket the test can cut
    page = new_page()
    join_as_guest(page, nickname("Hidden"))
    sockets: list[Any] = []

    def relay(socket: Any) -> None:
        sockets.append(socket)
        socket.connect_to_server()

    page.route_web_socket(re.compile(r"/ws/games/"), relay)
    seed, state = playable_seed("castile")
    table = Table(page, new_practice(page, "castile", seed), state)
    assert len(sockets) == 1

    # when the page is hidden (a phone asleep) and its socket is lost
    page.evaluate(
        """() => {
          Object.defineProperty(
            document, 'visibilityState', {configurable: true, get: () => 'hidden'}
          );
          document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    sockets[0].close()

    # then it stays closed: no wait to open another is under way while the page is hidden
    page.wait_for_selector(".play[data-socket='closed']")
    assert page.get_attribute(".play", "data-retry-ms") is None
    assert len(sockets) == 1

    # when the page is shown again
    page.evaluate(
        """() => {
          delete document.visibilityState;
          document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )

    # then the socket opens at once, greeted, and the game goes on from its ply over it
    page.wait_for_selector(".play[data-socket='open']", timeout=3000)
    assert len(sockets) == 2
    move = table.pick(home=False)
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    table.top(move.source).click()
    table.spot(move.target).click()
    table.made(move)


def test_the_next_deal_is_announced_in_the_page_and_by_a_notification_once_out(
    new_page: Any,
) -> None:
    # given a player who allowed notifications, on a page open 0.3 s before a UTC midnight
    page = new_page()
    page.context.grant_permissions(["notifications"])
    page.goto("/")
    assert page.evaluate(CONTROLLED), "no service worker controls the page"
    page.evaluate("localStorage.setItem('daily-patience:notify', 'on')")
    page.evaluate(
        """async () => {
          const { watchNextDeal } = await import('/static/frontend/webapp.js');
          const start = Date.now();
          const now = () => Date.UTC(2030, 0, 2) - 300 + (Date.now() - start);
          window.asked = 0;
          const deals = async () => {
            window.asked += 1;
            return [{ variant: 'castile', date: '2030-01-02' }];
          };
          watchNextDeal(document.getElementById('site-notice'), { now, deals });
        }"""
    )

    # then nothing is said before the day turns and the server lists the day's deals
    assert page.locator("#next-deal-notice").count() == 0

    # then, once it does (2 s after midnight), the page says so with a link to them
    notice = page.wait_for_selector("#next-deal-notice", timeout=5000)
    assert notice.inner_text().startswith("Today's deals are ready.")
    assert page.get_attribute("#next-deal-link", "href") == "#/"
    assert page.evaluate("window.asked") == 1

    # and a notification is shown through the service worker
    shown = page.evaluate(
        """async () => {
          const registration = await navigator.serviceWorker.getRegistration();
          for (let i = 0; i < 30; i += 1) {
            const shown = await registration.getNotifications({ tag: 'next-deal' });
            if (shown.length) return shown.map((n) => n.body);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          return [];
        }"""
    )
    assert shown == ["Today's deals are ready."]

    # when the player dismisses the notice, it goes
    page.click("#next-deal-close")
    assert page.locator("#next-deal-notice").count() == 0
