"""Index ``games_result`` in the boards' order, game ids compared byte by byte as Redis does.

``games.Result``'s own ``result_rank_order`` index ends on ``game_id`` in the database's
collation, which PostgreSQL cannot use for ``ORDER BY ... game_id COLLATE "C"``; this one can,
so a page read from PostgreSQL is an index scan, not a sort of the whole board.
"""

from django.db import migrations

NAME = "leaderboards_result_rank"


def create(apps, schema_editor):
    collate = ' COLLATE "C"' if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {NAME} ON games_result "
        "(deal_id, assisted, foundation_cards DESC, moves, duration_ms, finished_at, "
        f"game_id{collate})"
    )


def drop(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0001_stats_and_unranked"),
        ("games", "0003_moves_results_seals"),
    ]

    operations = [migrations.RunPython(create, drop, elidable=False)]
