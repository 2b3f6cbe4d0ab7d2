"""The family of a rules document: which classic it is built like, read from the document itself.

A catalogue of many games is easier to browse by family (the home page filters by it). The family
is not a key of the document: it is read from the rules that make each classic what it is, so an
admin's copy of Klondike with two redeals is still a Klondike, and a document no family fits is
``"other"``. The tests are tried in this order, the first that fits wins:

- ``golf``: the goal is to clear the tableau (``"goal": "clear-tableau"``: Golf, TriPeaks,
  Pyramid);
- ``freecell``: its reserves are free cells (``reserves.free_cells``);
- ``spider``: a foundation takes only complete suit runs (``complete_runs``);
- ``yukon``: the tableau moves any face-up group (``tableau.moves`` is ``"any"``);
- ``canfield``: the tableau is refilled from a reserve (``tableau.refill_from``);
- ``klondike``: the stock turns to a waste and the tableau is dealt with cards face down;
- ``other``: anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FAMILIES = ("klondike", "freecell", "spider", "yukon", "canfield", "golf", "other")
"""Every family, in the order a list of them is shown."""


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def family(document: Mapping[str, Any]) -> str:
    """Return the family of a rules document (one of ``FAMILIES``)."""
    tableau = _mapping(document.get("tableau"))
    if document.get("goal") == "clear-tableau":
        return "golf"
    if _mapping(document.get("reserves")).get("free_cells"):
        return "freecell"
    if any(_mapping(pile).get("complete_runs") for pile in _list(document.get("foundations"))):
        return "spider"
    if tableau.get("moves") == "any":
        return "yukon"
    if tableau.get("refill_from"):
        return "canfield"
    steps = _list(_mapping(document.get("deal")).get("steps"))
    face_down = any(
        _mapping(step).get("to") == "tableau" and any(_list(_mapping(step).get("face_down")))
        for step in steps
    )
    if _mapping(document.get("stock")).get("deal_to") == "waste" and face_down:
        return "klondike"
    return "other"
