"""Rules documents compile, and every error names the field at fault."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games.engine import RulesError, builtin_rules, catalogue, compile_rules, launch_slugs

SLUGS = [entry["slug"] for entry in catalogue()]


def test_the_launch_variants_are_the_five_of_the_spec() -> None:
    assert launch_slugs() == ["caprice", "castile", "quadruple-canfield", "box-kite", "capricieuse"]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_shipped_document_compiles_to_the_right_number_of_cards(slug: str) -> None:
    document = builtin_rules(slug)

    variant = compile_rules(document)

    assert variant.total_cards == 52 * document["decks"]
    if variant.clears_tableau:  # won by clearing the tableau: a discard pile, or none at all
        assert len(variant.foundations) == (variant.discard_index is not None)
    else:
        assert len(variant.foundations) * 13 == variant.total_cards


def caprice(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    document = builtin_rules("caprice")
    change(document)
    return document


def castile(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    document = builtin_rules("castile")
    change(document)
    return document


BAD_DOCUMENTS = {
    "tableau.count": castile(lambda d: d["tableau"].update(count=0)),
    "foundations[1].suits[2]": caprice(lambda d: d["foundations"][1]["suits"].__setitem__(2, "X")),
    "foundations[0].suits": caprice(lambda d: d["foundations"][0]["suits"].pop()),
    "foundations[0].base": castile(lambda d: d["foundations"][0].update(base="1")),
    "foundations[0].build.direction": castile(
        lambda d: d["foundations"][0]["build"].update(direction="sideways")
    ),
    "deal.steps[0].to": castile(lambda d: d["deal"]["steps"][0].update(to="cellar")),
    "deal.steps[1].rounds": castile(lambda d: d["deal"]["steps"][1].update(rounds="3")),
    "stock.redeals": caprice(lambda d: d["stock"].update(redeals=1)),
    "stock.deal_to": caprice(lambda d: d["stock"].update(deal_to="floor")),
    "redeal.hook": caprice(lambda d: d.update(redeal={"hook": "shuffle-again", "limit": 1})),
    "colour": castile(lambda d: d.update(colour="red")),
    "tableau.moves": castile(lambda d: d["tableau"].update(moves="all")),
    "tableau.refill_from": castile(lambda d: d["tableau"].update(refill_from="tableau-1")),
    "foundation_return": castile(lambda d: d.update(foundation_return="sometimes")),
    "decks": castile(lambda d: d.update(decks=9)),
}


@pytest.mark.parametrize("field", list(BAD_DOCUMENTS))
def test_a_bad_field_is_named_by_the_error(field: str) -> None:
    with pytest.raises(RulesError) as error:
        compile_rules(BAD_DOCUMENTS[field])

    assert error.value.field == field
    assert str(error.value).startswith(f"{field}: ")


def test_foundations_that_do_not_hold_every_card_are_refused() -> None:
    document = castile(lambda d: d["foundations"][0].update(count=3))

    with pytest.raises(RulesError) as error:
        compile_rules(document)

    assert error.value.field == "foundations"
    assert "156 cards" not in error.value.message
    assert "39 cards" in error.value.message


def test_a_deal_that_deals_the_wrong_number_of_cards_is_refused() -> None:
    document = castile(lambda d: d["deal"]["steps"][1].update(rounds=2))

    with pytest.raises(RulesError) as error:
        compile_rules(document)

    assert error.value.field == "deal.steps"
    assert "44" in error.value.message


def test_a_stock_step_must_come_last() -> None:
    document = caprice(lambda d: d["deal"]["steps"].reverse())

    with pytest.raises(RulesError) as error:
        compile_rules(document)

    assert error.value.field == "deal.steps[0].to"


def test_a_redeal_hook_needs_a_deal_hook() -> None:
    document = castile(lambda d: d.update(redeal={"hook": "gather-and-redeal", "limit": 2}))

    with pytest.raises(RulesError) as error:
        compile_rules(document)

    assert error.value.field == "redeal.hook"


def test_a_missing_required_field_is_named() -> None:
    document = castile(lambda d: d["tableau"].pop("build"))

    with pytest.raises(RulesError) as error:
        compile_rules(document)

    assert error.value.field == "tableau.build"


def test_placing_more_copies_than_the_decks_hold_is_refused() -> None:
    document = castile(
        lambda d: d["foundations"][0].update(suits=["C", "C", "H", "S"], placed=True)
    )

    with pytest.raises(RulesError) as error:
        compile_rules(document)

    assert error.value.field == "foundations[0].suits"


def test_a_rules_document_must_be_an_object() -> None:
    with pytest.raises(RulesError) as error:
        compile_rules([])  # type: ignore[arg-type]

    assert error.value.field == "rules"
