"""A guest keeps the account by setting a password, after a warning at logout; a guest who logs
out anyway is told why the nickname no longer logs in.

With ``SCREENSHOTS=1`` the warning is also written to ``docs/screenshots/``."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname
from tests.e2e.test_table import screenshot

pytestmark = pytest.mark.browser

WARNING = {
    "en": "You are playing as a guest, with no password",
    "fr": "Vous jouez en invité, sans mot de passe",
}
LOST = {"en": "is a guest account with no password", "fr": "est un compte invité sans mot de passe"}
CASES = {
    "en-1366": ("en", {"viewport": (1366, 768)}),
    "fr-390": (
        "fr",
        {"viewport": (390, 844), "has_touch": True, "is_mobile": True, "locale": "fr-FR"},
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_guest_sets_a_password_logs_out_and_logs_back_in(new_page: Any, case: str) -> None:
    language, options = CASES[case]
    # given a guest (a request still on its way when the session ends is answered 401, which
    # the browser logs; the page handles it)
    page = new_page(expected_console=("status of 401",), **options)
    name = nickname("Keeper")
    join_as_guest(page, name)

    # when the guest asks to log out, the page warns first, and nothing is lost on cancel
    page.click("#logout")
    assert WARNING[language] in page.inner_text("#guest-warning")
    if os.environ.get("SCREENSHOTS"):
        screenshot(page, f"guest-logout-{case}")
    page.click("#logout-cancel")
    assert page.locator("#guest-warning").count() == 0

    # when the guest sets a password, then logs out: no warning any more
    page.click("#logout")
    page.fill("#keep-password", "a long pass phrase")
    page.click("#keep-account")
    page.wait_for_selector("#logout-panel .message.note")
    page.click("#logout")
    page.wait_for_selector("#identity-form")

    # then the nickname and password log back in
    page.fill("#identity-nickname", name)
    page.fill("#identity-password", "a long pass phrase")
    page.click("#login")
    page.wait_for_selector(f"#nickname:has-text('{name}')")


def test_a_guest_who_logs_out_anyway_is_told_why_the_nickname_no_longer_logs_in(
    new_page: Any,
) -> None:
    # given a guest who logs out despite the warning
    page = new_page(expected_console=("status of 40[01]",))
    name = nickname("Leaver")
    join_as_guest(page, name)
    page.click("#logout")
    page.click("#logout-anyway")
    page.wait_for_selector("#identity-form")

    # when trying to log in with that nickname
    page.fill("#identity-nickname", name)
    page.fill("#identity-password", "anything at all")
    page.click("#login")

    # then the message says it was a guest account with no password, and so does "Play as guest"
    page.wait_for_selector("#identity-message .error")
    assert LOST["en"] in page.inner_text("#identity-message")
    page.click("#play-as-guest")
    page.wait_for_selector("#identity-message:has-text('taken by a guest account')")
