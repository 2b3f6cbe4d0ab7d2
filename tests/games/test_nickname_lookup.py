"""A player is found by nickname whatever its case, through the unique index of nicknames."""

from __future__ import annotations

import pytest
from django.db import connection

from games.models import Player, same_nickname

pytestmark = pytest.mark.django_db


def test_a_nickname_finds_its_player_whatever_the_case() -> None:
    player = Player.objects.create_user("MixedCase")

    assert list(Player.objects.filter(same_nickname("mixedcase"))) == [player]
    assert list(Player.objects.filter(same_nickname("MIXEDCASE"))) == [player]
    assert Player.objects.get_by_natural_key("mixedCASE") == player
    assert not Player.objects.filter(same_nickname("MixedCas")).exists()


def test_the_lookup_can_use_the_index_of_nicknames() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the index plan is PostgreSQL's")
    Player.objects.create_user("Indexed")
    query, params = Player.objects.filter(same_nickname("indexed")).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {query}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())

    # Django's iexact (upper() of both sides) could only be answered by reading every player
    assert "player_nickname_ci_unique" in plan, plan
