"""Load the variants shipped with the engine into the catalogue."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.services import variants_load


class Command(BaseCommand):
    help = (
        "Add the launch variants shipped with the engine (games/engine/variants/) to the "
        "catalogue. Variants already there are left as the admins edited them, unless --update."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all",
            action="store_true",
            help="also add the further shipped variants (disabled, not daily)",
        )
        parser.add_argument(
            "--update",
            action="store_true",
            help="overwrite name, description and rules of variants already there",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = variants_load(include_extras=options["all"], update=options["update"])
        for slug, outcome in report.items():
            self.stdout.write(f"{slug:<22} {outcome}")
