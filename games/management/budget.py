"""The solver's ``--seconds`` option, shared by the commands that certify deals."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser, OutputWrapper


def add_seconds_option(parser: CommandParser) -> None:
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="the solver's budget per attempt (default DEAL_CERTIFY_SECONDS)",
    )


def checked_seconds(options: dict[str, Any], stderr: OutputWrapper) -> float | None:
    """Return ``--seconds``; exit 2 with the reason unless it is more than 0 and at most 3600."""
    seconds = options["seconds"]
    if seconds is not None and not 0 < seconds <= 3600:
        stderr.write("--seconds must be more than 0 and at most 3600")
        raise SystemExit(2)
    return seconds
