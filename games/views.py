"""Server-rendered pages of the games app: the rules of each offered variant."""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.errors import ErrorCode, ServiceError
from games import selectors
from games.documents import compiled
from games.engine import deal, practice_seed
from games.words.families import family_groups
from games.words.pictures import layout_picture
from games.words.rules import rules_sections

SLUG = re.compile(r"[-a-zA-Z0-9_]{1,40}")
RULES_SEED_TEXT = "rules"
"""The practice seed text of the opening layout pictured on every rules page."""


def rules_index(request: HttpRequest) -> HttpResponse:
    """List the offered variants by family, each linking to its rules page."""
    groups = family_groups(selectors.variant_list())
    return render(request, "games/rules_index.html", {"groups": groups})


def rules_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Show an offered variant's rules in words, with its opening layout (backs face down)."""
    try:
        if not SLUG.fullmatch(slug):  # never a query with what no slug can be (NUL included)
            raise ServiceError(ErrorCode.NOT_FOUND, "No such variant.")
        variant = selectors.access_variant(slug)
    except ServiceError:
        return render(request, "games/rules_not_found.html", {"slug": slug}, status=404)
    rules = compiled(variant.rules)
    context = {
        "variant": variant,
        "sections": rules_sections(rules),
        "picture": layout_picture(deal(rules, practice_seed(RULES_SEED_TEXT))),
        "seed_text": RULES_SEED_TEXT,
    }
    return render(request, "games/rules.html", context)
