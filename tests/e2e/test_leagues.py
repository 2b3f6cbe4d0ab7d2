"""Friends form a league by its invite link and watch its board change live on the home page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname

pytestmark = pytest.mark.browser

# A daily game started and resigned through the page's own session, as the table would.
RESIGN_TODAYS_GAME = """async (variant) => {
  const csrf = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1];
  const post = async (path, body) => {
    const answer = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
      body: JSON.stringify(body || {}),
    });
    if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return answer.json();
  };
  const game = await post("/api/games/", {variant, mode: "daily"});
  await post(`/api/games/${game.id}/resign/`);
}"""


def test_friends_join_by_the_link_and_see_the_league_board_update_live(new_page: Any) -> None:
    # given: Ann makes a league and reads its invite link
    owner, friend = new_page(), new_page()
    ann, bob = nickname("Ann"), nickname("Bob")
    join_as_guest(owner, ann)
    owner.goto("/#/leagues")
    owner.fill("#league-name", "Cousins")
    owner.click("#league-create button[type=submit]")
    link = owner.locator("#league-link")
    link.wait_for()
    invite = link.input_value()
    assert "/#/leagues/join/" in invite

    # when: Bob opens the link, picks a nickname, and is in
    friend.goto(invite)
    friend.wait_for_selector("#leagues-sign-in")
    friend.fill("#identity-nickname", bob)
    friend.click("#play-as-guest")
    friend.wait_for_selector(f"#league-members li[data-player='{bob}']")

    # then: on Ann's home page, the league's live board waits for its first result...
    owner.goto("/")
    board = owner.locator("#my-leagues .league-board-box").first
    board.locator("td.empty").wait_for()
    owner.wait_for_selector("#my-leagues .live-state[data-state='open']")
    variant = board.locator("select.league-variant").input_value()

    # ...and shows Bob's the moment he finishes that game (here: resigns at once)
    friend.evaluate(RESIGN_TODAYS_GAME, variant)
    row = board.locator(f"tr[data-player='{bob}']")
    row.wait_for(timeout=8000)
    assert row.locator("td.rank").inner_text() == "1"
