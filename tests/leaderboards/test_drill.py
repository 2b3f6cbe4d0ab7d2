"""``manage.py drill`` (``make drill``): a dump restored into a fresh database holds the same rows,
every result of every closed day re-verifies there, and every board is the original's."""

from __future__ import annotations

import datetime as dt
import io
import re
import shutil

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command

from games import clock, services
from games.engine import legal_moves
from games.models import Game, Result
from leaderboards.management.commands import drill
from tests.games.sockets import make_player

pytestmark = [
    pytest.mark.skipif(shutil.which("pg_dump") is None, reason="pg_dump is not installed"),
    pytest.mark.skipif(
        not django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="pg_dump needs PostgreSQL: set DATABASE_URL",
    ),
    pytest.mark.django_db(transaction=True),
]

PAST = dt.datetime(2026, 11, 30, 15, tzinfo=dt.UTC)  # a closed day
VARIANTS = ("box-kite", "caprice")


@pytest.fixture
def closed_days(ws_variants) -> list[Game]:  # type: ignore[no-untyped-def]
    """Two closed deals (a day of two variants), three players on each: each plays a few legal
    moves, then resigns (one leaves the game playing); a practice game beside them."""
    games = []
    for days_ago in (0,):
        with clock.frozen(PAST - dt.timedelta(days=days_ago)):
            for slug in VARIANTS:
                for index in range(3):
                    player, _ = make_player(f"Drill{days_ago}{slug[:3]}{index}")
                    game, _ = services.game_start(player=player, variant=slug, mode="daily")
                    for ply in range(index + 1):
                        moves = legal_moves(services.engine_state(game))
                        if not moves:
                            break
                        game = services.game_move(
                            game_id=game.pk, player=player, ply=ply, move=moves[0].to_json()
                        )
                    if index or slug == VARIANTS[0]:
                        game = services.game_resign(game_id=game.pk, player=player)
                    games.append(game)
    player, _ = make_player("DrillPractice")
    services.game_start(player=player, variant="caprice", mode="practice", seed="drill")
    return games


def figures(output: str) -> dict[str, str]:
    return dict(re.findall(r"^([A-Z][\w -]*): (.*)$", output, re.MULTILINE))


def test_the_drill_finds_a_restore_faithful_and_one_that_lost_a_result_not(
    closed_days, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    # given closed days with verified results
    assert Result.objects.count() >= 5

    # when the drill runs
    out = io.StringIO()
    call_command("drill", stdout=out)

    # then every figure agrees
    found = figures(out.getvalue())
    assert found["Mismatches"] == "0", out.getvalue()
    assert re.match(r"[\d,]+ restored of [\d,]+ in \d+ tables, 0 tables differ", found["Rows"])
    verified = re.match(
        r"(\d+) of 2 closed deals in [\d.]+ s, 0 failed", found["Results re-verified"]
    )
    assert verified and int(verified[1]) == Result.objects.count(), found
    assert found["Boards compared"] == "2, 0 differ"
    assert "(dropped)" in found["Restore"]

    # given then a restore that loses one result (and so its rank on a board)
    restore = drill._run

    def lossy(command: list[str], env: dict[str, str]) -> float:
        seconds = restore(command, env)
        if command[0] == "pg_restore":
            target = next(a.split("=", 1)[1] for a in command if a.startswith("--dbname="))
            with drill._using(target):
                lost = Result.objects.order_by("pk").first()
                assert lost is not None
                Result.objects.filter(pk=lost.pk).delete()
        return seconds

    monkeypatch.setattr(drill, "_run", lossy)
    out = io.StringIO()

    # when the drill runs again, then it fails and says what differs
    with pytest.raises(CommandError, match="differs from the original"):
        call_command("drill", stdout=out)
    found = figures(out.getvalue())
    assert "1 tables differ" in found["Rows"]
    assert found["Boards compared"].endswith("1 differ") or "failed" in found["Results re-verified"]
    assert found["Mismatches"] != "0"
