"""Third-party re-verification: ``python -m games.verification.reverify`` checks a past day."""

from __future__ import annotations

import datetime as dt
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import clock, services
from games.engine import legal_moves
from games.models import Game, Move
from games.verification import reverify

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
NEXT_DAY = dt.datetime(2026, 12, 2, 0, 0, 1, tzinfo=dt.UTC)
HOST = "http://testserver"
BOARD = "/api/leaderboards/caprice/2026-12-01/"
ROOT = Path(__file__).resolve().parents[2]


def client_fetch(client: APIClient):
    """Return a fetch function of the command that asks the Django test client."""

    def fetch(url: str) -> Any:
        assert url.startswith(HOST), url
        answer = client.get(url.removeprefix(HOST))
        if answer.status_code >= 400:
            raise reverify.FetchError(url, answer.status_code, f"HTTP {answer.status_code}")
        return answer.json()

    return fetch


def play(client: APIClient, game_id: str, plies: int) -> None:
    """Play ``plies`` legal moves (never undo), the first the engine lists at each position."""
    for ply in range(plies):
        state = services.engine_state(Game.objects.get(pk=game_id))
        move = next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")
        answer = client.post(f"/api/games/{game_id}/moves/", {"ply": ply, "move": move}, "json")
        assert answer.status_code == 200, answer.json()


@pytest.fixture
def played_day(join) -> dict[str, str]:
    """Play caprice on 2026-12-01: Alice resigns after 3 moves, Bob after 1, Carol leaves her
    game playing after 2 (closed at the day's end), Dan resigns at once. Return game ids."""
    games = {}
    with clock.frozen(NOON):
        for name, plies, resign in (("Alice", 3, True), ("Bob", 1, True), ("Carol", 2, False)):
            client = join(name)
            game = client.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json")
            games[name] = game.json()["id"]
            play(client, games[name], plies)
            if resign:
                assert client.post(f"/api/games/{games[name]}/resign/").status_code == 200
        dan = join("Dan")
        games["Dan"] = dan.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json")
        games["Dan"] = games["Dan"].json()["id"]
        dan.post(f"/api/games/{games['Dan']}/resign/")
    return games


def run(argv: list[str], client: APIClient) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = reverify.run(argv, fetch=client_fetch(client), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_a_whole_day_agrees_with_the_board_figure_for_figure(played_day) -> None:
    # given the day is over and its board as the server ranks it
    client = APIClient()
    with clock.frozen(NEXT_DAY):
        board = client.get(BOARD).json()["entries"]

        # when
        code, out, _ = run(["--json", HOST + BOARD], client)

    # then every entry is proved exactly as the board claims it
    assert code == 0, out
    report = json.loads(out)
    assert report["ok"] is True
    assert report["problems"] == []
    deal = Game.objects.get(pk=played_day["Alice"]).deal
    assert (report["seed"], report["commitment"]) == (deal.seed, deal.commitment)
    assert len(board) == 4
    assert [(e["rank"], e["player"], e["game"], e["proved"]) for e in report["entries"]] == [
        (
            e["rank"],
            e["player"],
            e["game"],
            {"status": e["status"], "foundation_cards": e["foundation_cards"], "moves": e["moves"]},
        )
        for e in board
    ]
    assert all(e["ok"] and e["claimed"] == e["proved"] for e in report["entries"])
    assert {e["player"]: e["proved"]["moves"] for e in report["entries"]} == {
        "Alice": 3,
        "Carol": 2,
        "Bob": 1,
        "Dan": 0,
    }
    assert [e["player"] for e in report["entries"]] == ["Dan", "Bob", "Carol", "Alice"]


def test_the_text_report_prints_each_entry_and_says_ok(played_day) -> None:
    with clock.frozen(NEXT_DAY):
        code, out, _ = run([HOST + BOARD], APIClient())

    assert code == 0
    lines = out.splitlines()
    for name in ("Dan", "Bob", "Carol", "Alice"):  # all at 8 cards: fewer moves first
        row = next(line for line in lines if f" {name} " in line)
        assert row.split()[1] == name
        assert row.endswith(" OK")
    assert [line.split()[1] for line in lines if line.endswith(" OK")] == [
        "Dan",
        "Bob",
        "Carol",
        "Alice",
    ]
    assert "frozen rules" not in out  # the deal publishes its own rules: no caveat
    assert lines[-1].startswith("OK: 4 checked, 0 mismatched")


def test_one_game_is_checked_against_its_game_object(played_day) -> None:
    with clock.frozen(NEXT_DAY):
        code, out, _ = run(["--json", f"{HOST}/api/games/{played_day['Carol']}/"], APIClient())

    assert code == 0, out
    (entry,) = json.loads(out)["entries"]
    assert entry["proved"] == {"status": "resigned", "foundation_cards": 8, "moves": 2}


def test_one_game_whose_stored_position_differs_from_its_log_is_a_mismatch(played_day) -> None:
    # given Carol's stored position is altered once her day is over
    with clock.frozen(NEXT_DAY):
        APIClient().get(BOARD)
        game = Game.objects.get(pk=played_day["Carol"])
        pile = next(p for p in game.state["piles"] if p["id"] == "tableau-0")
        pile["cards"] = [*pile["cards"], "KS"]
        game.save()

        # when
        code, out, _ = run([f"{HOST}/api/games/{played_day['Carol']}/"], APIClient())

    # then
    assert code == 1
    assert "its position is not the one its log reaches" in out


def test_a_tampered_log_is_a_mismatch_with_exit_1(played_day) -> None:
    # given the board is built, then Alice's stored log loses its last move
    client = APIClient()
    with clock.frozen(NEXT_DAY):
        client.get(BOARD)
        Move.objects.filter(game_id=played_day["Alice"]).order_by("-ply").first().delete()

        # when
        code, out, _ = run([HOST + BOARD], client)

    # then
    assert code == 1
    alice = next(line for line in out.splitlines() if " Alice " in line)
    assert alice.endswith("MISMATCH")
    assert "moves: the board says 3, the replay proves 2" in out
    assert out.splitlines()[-1].startswith("MISMATCH: 4 checked, 1 mismatched")


def test_an_illegal_log_and_a_wrong_seed_are_mismatches(played_day) -> None:
    client = APIClient()
    dan = played_day["Dan"]
    fetch = client_fetch(client)

    def lying(url: str) -> Any:  # a server that answers Dan's replay with another seed
        answer = fetch(url)
        return {**answer, "seed": "0" * 64} if url.endswith(f"/games/{dan}/replay/") else answer

    with clock.frozen(NEXT_DAY):
        client.get(BOARD)
        Move.objects.filter(game_id=played_day["Bob"], ply=0).update(move={"type": "redeal"})

        out = io.StringIO()
        code = reverify.run(["--json", HOST + BOARD], fetch=lying, out=out, err=io.StringIO())
        out = out.getvalue()

    assert code == 1
    problems = {e["player"]: e["problems"] for e in json.loads(out)["entries"]}
    assert problems["Bob"][0].startswith("the log does not replay: move 0")
    assert problems["Dan"][0] == f"its replay's seed {'0' * 64!r} is not the deal's"
    assert problems["Alice"] == problems["Carol"] == []


def test_a_board_out_of_order_is_a_mismatch() -> None:
    # given two proved entries, the second with more cards than the first
    def check(rank: int, cards: int) -> reverify.Check:
        figures = reverify.Outcome("resigned", cards, 10)
        return reverify.Check(rank, f"P{rank}", str(rank), figures, figures)

    # then
    assert reverify.order_problems([check(1, 9), check(2, 8)]) == []
    assert reverify.order_problems([check(1, 8), check(2, 9)]) == [
        "order: P2 (rank 2) should rank before P1 (rank 1)"
    ]
    assert reverify.order_problems([check(1, 9), check(3, 8)]) == ["rank 3 follows rank 1"]


def test_a_day_not_yet_over_or_a_bad_url_is_exit_2(played_day) -> None:
    with clock.frozen(NOON):
        code, _, err = run([HOST + BOARD], APIClient())
    assert code == 2
    assert "not revealed yet" in err

    assert run(["ftp://x/api/games/1/"], APIClient())[0] == 2
    assert run([HOST + "/api/leaderboards/caprice/tomorrow/"], APIClient())[0] == 2
    assert run([HOST + "/api/nothing/"], APIClient())[0] == 2
    with clock.frozen(NEXT_DAY):
        code, _, err = run([HOST + "/api/leaderboards/caprice/2026-11-01/"], APIClient())
    assert code == 2
    assert "HTTP 404" in err


def test_it_imports_no_django() -> None:
    script = (
        "import sys, games.verification.reverify; "
        "sys.exit(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", script], cwd=ROOT).returncode == 0


def test_through_a_real_http_server(played_day, live_server) -> None:
    # given the day is over
    with clock.frozen(NEXT_DAY):
        # when the command fetches over HTTP
        out, err = io.StringIO(), io.StringIO()
        code = reverify.run(["--json", "--limit", "3", live_server.url + BOARD], out=out, err=err)

    # then
    assert code == 0, (out.getvalue(), err.getvalue())
    assert [e["player"] for e in json.loads(out.getvalue())["entries"]] == ["Dan", "Bob", "Carol"]
