"""Writes of the catalogue: the engine's shipped variants put into the database."""

from __future__ import annotations

from games.engine import catalogue
from games.models import Variant


def variants_load(*, include_extras: bool = False, update: bool = False) -> dict[str, str]:
    """Put the engine's shipped variants in the catalogue; return what happened to each.

    Launch variants, and the classics shipped as dailies (``daily``), are enabled and daily; the
    further ones (``include_extras``) arrive disabled, for admins to offer when they choose.
    Existing rows keep admins' edits unless ``update``; each language of the document that a row
    does not translate yet is added to its translations (an admin's are kept).
    """
    report = {}
    for entry in catalogue():
        offered = bool(entry["launch"] or entry.get("daily"))
        if not offered and not include_extras:
            continue
        fields = {
            "name": entry["name"],
            "description": entry["description"],
            "rules": entry["rules"],
            "translations": entry.get("translations", {}),
        }
        variant = Variant.objects.filter(slug=entry["slug"]).first()
        if variant is None:
            Variant.objects.create(
                slug=entry["slug"],
                display_order=entry["order"],
                enabled=offered,
                daily=offered,
                **fields,
            )
            report[entry["slug"]] = "added"
        elif update:
            Variant.objects.filter(pk=variant.pk).update(**fields)
            report[entry["slug"]] = "updated"
        elif added := {
            code: words
            for code, words in fields["translations"].items()
            if code not in (variant.translations or {})
        }:
            translations = {**(variant.translations or {}), **added}
            Variant.objects.filter(pk=variant.pk).update(translations=translations)
            report[entry["slug"]] = "kept (translations added)"
        else:
            report[entry["slug"]] = "kept"
    return report
