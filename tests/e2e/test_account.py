"""The account page: a guest sets a password, sees its API tokens and ends one, downloads its
data, and deletes the account after a wrong then a right confirmation; on a phone with touch in
French and on a laptop in English.

With ``SCREENSHOTS=1`` the page and its deletion form are also written to ``docs/screenshots/``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname
from tests.e2e.test_table import screenshot

pytestmark = pytest.mark.browser

CASES = {
    "en-1366x768": ("en", {"viewport": (1366, 768)}),
    "fr-390x844": (
        "fr",
        {"viewport": (390, 844), "has_touch": True, "is_mobile": True, "locale": "fr-FR"},
    ),
}
WORDS = {
    "en": {"title": "My account", "with": "(with a password)", "ended": "The token is ended."},
    "fr": {
        "title": "Mon compte",
        "with": "(avec un mot de passe)",
        "ended": "Le jeton a pris fin.",
    },
}


def small_targets(page: Any) -> list[str]:
    """Return the account page's buttons, fields and header link smaller than 44 px."""
    return page.eval_on_selector_all(
        ".account button:not([hidden]), .account input, #account-link",
        """els => els.filter(e => e.offsetParent !== null).filter(e => {
            const r = e.getBoundingClientRect();
            return r.height < 44 || r.width < 44;
        }).map(e => e.id || e.className || e.tagName)""",
    )


def no_sideways_scrolling(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width}px wide"


def make_token(page: Any) -> None:
    """Make one more API token of the page's player, as a program signing in would."""
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    answer = page.request.post("/api/me/tokens/", headers={"X-CSRFToken": csrf})
    assert answer.status == 201, answer.text()


@pytest.mark.parametrize("case", CASES)
def test_a_player_manages_and_deletes_the_account(new_page: Any, case: str, tmp_path: Path) -> None:
    language, options = CASES[case]
    words = WORDS[language]
    touch = options.get("has_touch", False)
    # (the refused password and deletion are 400s the browser logs)
    page = new_page(expected_console=("status of 400",), **options)
    name = nickname("Owner")
    join_as_guest(page, name)
    make_token(page)

    # given the account page, reached from the header next to the nickname
    page.click("#account-link")
    page.wait_for_selector("#view[data-ready='account']")
    assert page.inner_text(".account h1") == words["title"]
    assert page.inner_text("#account-nickname") == name
    # a guest sets a password with no current one
    assert page.locator("#current-password").count() == 0

    # when the password is too short, the server's sentence is shown in the form
    page.fill("#new-password", "12345678")
    page.click("#password-submit")
    page.wait_for_selector("#password-message .error")
    assert page.inner_text("#password-message").strip()

    # when a good password is set, the player is no longer a guest: a current password is asked
    page.fill("#new-password", "a long pass phrase")
    page.click("#password-submit")
    page.wait_for_selector("#account-note .note")
    assert page.inner_text("#account-kind") == words["with"]
    assert page.locator("#current-password").count() == 1

    # when changing it, a wrong current password is refused in the form
    page.fill("#current-password", "not the pass phrase")
    page.fill("#new-password", "another long phrase")
    page.click("#password-submit")
    page.wait_for_selector("#password-message .error")
    assert page.evaluate("document.activeElement.id") == "current-password"

    # then the tokens are listed, with their dates: the guest's sign-in's and the one made
    page.wait_for_selector("#token-list .token")
    assert page.locator("#token-list .token").count() == 2
    if touch:
        assert small_targets(page) == []
    no_sideways_scrolling(page)
    if os.environ.get("SCREENSHOTS"):
        screenshot(page, f"account-{case}")

    # when one token is ended, one is left
    page.click("#token-list .end-token >> nth=0")
    page.wait_for_selector(f"#tokens-message:has-text('{words['ended']}')")
    assert page.locator("#token-list .token").count() == 1

    # when the data is downloaded, it is a JSON file of the player
    with page.expect_download() as download_info:
        page.click("#export-data")
    download = download_info.value
    assert download.suggested_filename == f"daily-patience-{name}.json"
    path = tmp_path / "export.json"
    download.save_as(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["player"]["nickname"] == name
    assert data["player"]["guest"] is False
    assert len(data["tokens"]) == 1

    # when the deletion is confirmed with a wrong nickname, the server says so and nothing happens
    page.click("#delete-account")
    assert page.locator("#delete-password").count() == 1  # the player has a password now
    page.fill("#delete-confirm", name.lower())
    page.fill("#delete-password", "a long pass phrase")
    page.click("#delete-yes")
    page.wait_for_selector("#delete-message .error")
    if touch:
        assert small_targets(page) == []
    no_sideways_scrolling(page)
    if os.environ.get("SCREENSHOTS"):
        screenshot(page, f"account-delete-{case}")
    if touch:  # the narrowest phones too
        page.set_viewport_size({"width": 360, "height": 780})
        no_sideways_scrolling(page)
    assert page.request.get("/api/me/").ok

    # when it is confirmed with the nickname and the password, the player is signed out, at home
    page.fill("#delete-confirm", name)
    page.click("#delete-yes")
    page.wait_for_selector("#identity-form")
    page.wait_for_selector("#view[data-ready='home']")
    assert page.request.get("/api/me/").status == 401
    # and the nickname is free again
    join_as_guest(page, name)


def test_signing_out_everywhere_asks_first_then_ends_every_session_and_token(new_page: Any) -> None:
    # given a guest signed in, with one more token that a program uses elsewhere
    page = new_page(expected_console=("status of 401",))
    other = new_page(expected_console=("status of 401",))
    name = nickname("Roamer")
    join_as_guest(page, name)
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    answer = page.request.post("/api/me/tokens/", headers={"X-CSRFToken": csrf})
    token = answer.json()["token"]
    other.goto("/")
    assert other.request.get("/api/me/", headers={"Authorization": f"Token {token}"}).ok

    # when the player asks to sign out everywhere, then cancels: nothing happens
    page.click("#account-link")
    page.click("#sign-out-everywhere")
    assert "this one included" in page.inner_text("#everywhere-confirm")
    page.click("#everywhere-no")
    assert page.locator("#everywhere-confirm .warning").count() == 0
    assert page.request.get("/api/me/").ok

    # when confirmed, this browser is signed out and at home, and the token is refused
    page.click("#sign-out-everywhere")
    page.click("#everywhere-yes")
    page.wait_for_selector("#identity-form")
    page.wait_for_selector("#view[data-ready='home']")
    assert page.request.get("/api/me/").status == 401
    assert other.request.get("/api/me/", headers={"Authorization": f"Token {token}"}).status == 401
