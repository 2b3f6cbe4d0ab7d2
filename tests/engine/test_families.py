"""The family of each shipped document, read from its rules, and of an admin's copy."""

from __future__ import annotations

import pytest

from games.engine import builtin_rules, catalogue
from games.engine.families import FAMILIES, family

EXPECTED = {
    "caprice": "other",
    "castile": "other",
    "quadruple-canfield": "canfield",
    "box-kite": "other",
    "capricieuse": "other",
    "klondike-draw-3": "klondike",
    "freecell": "freecell",
    "spider-2-suits": "spider",
    "canfield": "canfield",
    "double-canfield": "canfield",
    "bristol": "other",
    "beleaguered-castle": "other",
    "klondike-draw-1": "klondike",
    "spider-1-suit": "spider",
    "spider-4-suits": "spider",
    "yukon": "yukon",
    "golf": "golf",
    "golf-wrap": "golf",
    "tripeaks": "golf",
    "pyramid": "golf",
}


@pytest.mark.parametrize("slug", [entry["slug"] for entry in catalogue()])
def test_every_shipped_document_has_its_classics_family(slug: str) -> None:
    assert family(builtin_rules(slug)) == EXPECTED.get(slug, "other")
    assert family(builtin_rules(slug)) in FAMILIES


def test_a_klondike_with_two_redeals_is_still_a_klondike() -> None:
    # given an admin's copy of Klondike with another stock rule
    rules = builtin_rules("klondike-draw-1")
    rules["stock"] = {**rules["stock"], "redeals": 2}

    # then its family is read from what makes it a Klondike
    assert family(rules) == "klondike"


def test_a_klondike_dealt_face_up_is_no_longer_a_klondike() -> None:
    rules = builtin_rules("klondike-draw-1")
    rules["deal"]["steps"][0].pop("face_down")

    assert family(rules) == "other"


def test_a_document_of_the_wrong_shape_is_other() -> None:
    assert family({"tableau": "eight", "reserves": [], "deal": {"steps": "none"}}) == "other"
