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
    owner, friend, cousin = new_page(), new_page(), new_page()
    ann, bob, cid = nickname("Ann"), nickname("Bob"), nickname("Cid")
    join_as_guest(owner, ann)
    owner.goto("/#/leagues")
    owner.fill("#league-name", "Cousins")
    owner.click("#league-create button[type=submit]")
    link = owner.locator("#league-link")
    link.wait_for()
    invite = link.input_value()
    assert "/#/leagues/join/" in invite

    # when: Bob and Cid open the link, pick a nickname, and are in
    for page, name in ((friend, bob), (cousin, cid)):
        page.goto(invite)
        page.wait_for_selector("#leagues-sign-in")
        page.fill("#identity-nickname", name)
        page.click("#play-as-guest")
        page.wait_for_selector(f"#league-members li[data-player='{name}']")

    # then: on Ann's and Cid's home pages, the league's live board waits for its first result...
    boards = []
    for page in (owner, cousin):
        page.goto("/")
        boards.append(page.locator("#my-leagues .league-board-box").first)
        boards[-1].locator("td.empty").wait_for()
        page.wait_for_selector("#my-leagues .live-state[data-state='open']")
    variant = boards[0].locator("select.league-variant").input_value()

    # ...and shows Bob's the moment he finishes that game (here: resigns at once)
    friend.evaluate(RESIGN_TODAYS_GAME, variant)
    for board in boards:
        row = board.locator(f"tr[data-player='{bob}']")
        # (verified, then pushed within the deal's next second: a loaded machine takes longer)
        row.wait_for(timeout=30_000)
        assert row.locator("td.rank").inner_text() == "1"

    # and the week's standings give him a first place's points
    owner.goto("/#/leagues")
    owner.click("#league-list a")
    owner.wait_for_selector(f"#standings-rows tr[data-player='{bob}'] td.points:has-text('10')")

    # when Ann removes Cid, Cid's board says so at once and stays shut
    owner.click(f"button.remove-member[data-player='{cid}']")
    owner.wait_for_selector(f"#league-members li[data-player='{cid}']", state="detached")
    cousin.wait_for_selector("#my-leagues .live-state[data-state='closed']")
    assert "no longer a member" in boards[1].locator(".messages").inner_text()
