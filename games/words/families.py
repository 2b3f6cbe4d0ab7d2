"""The families of the catalogue in words: how the rules index names each group of games."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.engine.families import FAMILIES, family


class HasRules(Protocol):
    """What a catalogue entry needs to be grouped (a ``Variant`` row, say): its rules document."""

    rules: Any


def family_name(code: str) -> str:
    """Return the name of a family of ``games.engine.families`` in the active language."""
    names = {
        "klondike": pgettext("family of games", "Klondike"),
        "freecell": pgettext("family of games", "FreeCell"),
        "spider": pgettext("family of games", "Spider"),
        "yukon": pgettext("family of games", "Yukon"),
        "canfield": pgettext("family of games", "Canfield"),
        "golf": pgettext("family of games", "Golf and Pyramid"),
        "other": _("Other games"),
    }
    return names.get(code, code)


@dataclass(frozen=True)
class FamilyGroup:
    """The variants of one family, in display order."""

    code: str
    name: str
    variants: tuple[Any, ...]


def family_groups(variants: Iterable[HasRules]) -> list[FamilyGroup]:
    """Return the variants grouped by family, the families in the order of ``FAMILIES``; a
    family with no variant is left out."""
    by_family: dict[str, list[HasRules]] = {code: [] for code in FAMILIES}
    for variant in variants:
        rules = variant.rules if isinstance(variant.rules, dict) else {}
        by_family[family(rules)].append(variant)
    return [
        FamilyGroup(code=code, name=family_name(code), variants=tuple(members))
        for code, members in by_family.items()
        if members
    ]
