"""The variants shipped with the engine, one JSON file each in ``variants/``."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from .rules import Variant, compile_rules

VARIANTS_DIR = Path(__file__).with_name("variants")


@cache
def _entries() -> dict[str, dict[str, Any]]:
    entries = {}
    for path in VARIANTS_DIR.glob("*.json"):
        entry = json.loads(path.read_text(encoding="utf-8"))
        entries[entry["slug"]] = entry
    return dict(sorted(entries.items(), key=lambda item: item[1]["order"]))


def catalogue() -> list[dict[str, Any]]:
    """Return every shipped variant: slug, name, description, translations (of the name and
    description, by language code; optional), launch, daily (optional: offered as a daily by
    default though not a launch variant), order and rules."""
    return [json.loads(json.dumps(entry)) for entry in _entries().values()]


def launch_slugs() -> list[str]:
    """Return the slugs of the launch variants, in display order."""
    return [slug for slug, entry in _entries().items() if entry["launch"]]


def builtin_rules(slug: str) -> dict[str, Any]:
    """Return a copy of the rules document of a shipped variant; raise ``KeyError`` if unknown."""
    return json.loads(json.dumps(_entries()[slug]["rules"]))


def daily_slugs() -> list[str]:
    """Return the slugs of the variants offered as dailies by default (the launch variants and
    the classics marked ``daily``), in display order."""
    return [slug for slug, entry in _entries().items() if entry["launch"] or entry.get("daily")]


@cache
def builtin_variant(slug: str) -> Variant:
    """Return the compiled shipped variant ``slug``; raise ``KeyError`` if unknown."""
    return compile_rules(builtin_rules(slug))
