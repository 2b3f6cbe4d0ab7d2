"""Deals are a pure function of rules and seed, reproduced exactly as docs/deals.md says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine import (
    builtin_variant,
    card_code,
    commitment,
    daily_seed,
    deal,
    parse_card,
    parse_seed,
    practice_seed,
    shuffle,
    shuffled_pack,
    state_from_json,
    state_to_json,
)
from games.engine.cards import fresh_pack

ROOT = Path(__file__).parent.parent.parent
DEALS_MD = ROOT / "docs/deals.md"
VECTORS = json.loads((ROOT / "docs" / "deals-vectors.json").read_text(encoding="utf-8"))
LAYOUTS = [(slug, text) for slug, by_seed in VECTORS.items() for text in by_seed]


def codes(text: str) -> list[int]:
    return [parse_card(code) for code in text.split()]


@pytest.mark.parametrize(
    ("text", "seed_hex"),
    [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("daily-patience", "bc3cebff7a3721fee36574c9aa2d386073fc696106b504a76ca77a367391ae99"),
        ("caprice-42", "5d7f356affe015b8be1ffc97daecbc6b649ee76fa726e84dc158bbba66cc82ee"),
    ],
)
def test_a_practice_seed_is_the_sha256_of_its_text(text: str, seed_hex: str) -> None:
    assert practice_seed(text).hex() == seed_hex


SHUFFLE_VECTORS = [
    ("", 1, "5D 7C QC 8H KH 5S 8C 5C 2H TC 9D 7D", "6C 4D 6S 3H"),
    ("daily-patience", 1, "2C 7C 2H 6D 5S 6H AC AH KH 8C 3S QD", "4S 9H AD 5C"),
    ("daily-patience", 2, "3H TH 9H 2C AS 5S QH 9S TD 7D 5H 6S", "QS KC 6S 5C"),
    ("caprice-42", 4, "3D 8S KD KH 4H TD 2D JH KC 4D 2C 7S", "4D 6S JH 7C"),
]


@pytest.mark.parametrize(("text", "decks", "first", "last"), SHUFFLE_VECTORS)
def test_the_shuffle_of_a_fresh_pack_matches_the_vectors(
    text: str, decks: int, first: str, last: str
) -> None:
    pack = list(shuffle(fresh_pack(decks), practice_seed(text)))

    assert len(pack) == 52 * decks
    assert pack[:12] == codes(first)
    assert pack[-4:] == codes(last)


def reference_implementation() -> dict[str, Any]:
    """Return what the Python block of docs/deals.md's "Reference implementation" defines."""
    section = DEALS_MD.read_text(encoding="utf-8").split("### Reference implementation", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    names: dict[str, Any] = {}
    exec(compile(code, str(DEALS_MD), "exec"), names)
    return names


@pytest.mark.parametrize(("text", "decks", "first", "last"), SHUFFLE_VECTORS)
def test_the_reference_implementation_of_the_docs_matches_the_vectors(
    text: str, decks: int, first: str, last: str
) -> None:
    # given: the code a third party reads in docs/deals.md
    reference = reference_implementation()

    # when
    seed = reference["practice_seed"](text)
    pack = reference["shuffled"](reference["fresh_pack"](decks), seed)

    # then
    assert seed == practice_seed(text)
    assert pack[:12] == first.split()
    assert pack[-4:] == last.split()
    assert pack == [card_code(card) for card in shuffle(fresh_pack(decks), seed)]


def test_the_fresh_pack_runs_clubs_diamonds_hearts_spades_ace_to_king() -> None:
    pack = [card_code(c) for c in fresh_pack(2)]

    assert pack[:3] == ["AC", "2C", "3C"]
    assert pack[13] == "AD"
    assert pack[50:54] == ["QS", "KS", "AC", "2C"]


def test_the_daily_seed_and_its_commitment_match_the_vector() -> None:
    seed = daily_seed("test-secret", "castile", "2026-12-01", 0)

    assert seed.hex() == "217dca17fd0e42e9d04a5361f431f5b491b898bf94d016831eea3dd06689be83"
    assert commitment(seed) == "d94bc6c116c7b7dd1cd4d5d7907d22aeef784ad9a2565a2d05fea798c281ef61"
    assert daily_seed(b"test-secret", "castile", "2026-12-01") == seed


def test_each_attempt_gives_another_daily_seed() -> None:
    seeds = {daily_seed("s", "castile", "2026-12-01", attempt) for attempt in range(3)}

    assert len(seeds) == 3


@pytest.mark.parametrize(("slug", "text"), LAYOUTS)
def test_every_layout_of_the_vectors_is_dealt_exactly(slug: str, text: str) -> None:
    state = deal(builtin_variant(slug), practice_seed(text))

    assert state_to_json(state) == VECTORS[slug][text]


@pytest.mark.parametrize(("slug", "text"), LAYOUTS)
def test_the_cli_deal_prints_the_vector_layouts(slug: str, text: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "games.engine", "deal", slug, "--seed-text", text],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert json.loads(result.stdout) == VECTORS[slug][text]


def test_the_cli_deal_takes_a_hex_seed_too() -> None:
    seed = practice_seed("daily-patience").hex()
    result = subprocess.run(
        [sys.executable, "-m", "games.engine", "deal", "castile", "--seed", seed],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert json.loads(result.stdout) == VECTORS["castile"]["daily-patience"]


def test_placed_cards_remove_the_copy_of_deck_one_before_the_shuffle() -> None:
    variant = builtin_variant("caprice")
    seed = practice_seed("daily-patience")
    placed = codes("AC AD AH AS KC KD KH KS")
    deck_one = [c for c in range(52) if c not in placed] + list(range(52))
    deck_two = list(range(52)) + [c for c in range(52) if c not in placed]

    pack = shuffled_pack(variant, seed)

    assert pack == list(shuffle(deck_one, seed))
    assert pack != list(shuffle(deck_two, seed))


def test_a_stock_is_dealt_from_the_front_of_the_pack_its_first_card_on_top() -> None:
    variant = builtin_variant("caprice")
    seed = practice_seed("caprice-42")
    pack = shuffled_pack(variant, seed)

    state = deal(variant, seed)

    assert [state.pile(f"tableau-{i}").cards[0] for i in range(12)] == pack[:12]
    assert state.pile("stock").cards == tuple(reversed(pack[12:]))
    assert state.pile("stock").hidden == 84


def test_quadruple_canfield_takes_its_base_rank_from_the_first_card() -> None:
    variant = builtin_variant("quadruple-canfield")
    seed = practice_seed("daily-patience")
    pack = shuffled_pack(variant, seed)

    state = deal(variant, seed)

    assert state.pile("foundation-0").cards == (pack[0],)
    assert state.base_rank == pack[0] % 13 + 1
    assert state.pile("reserve-0").cards == tuple(pack[1:40])
    assert state.pile("reserve-0").hidden == 38


@pytest.mark.parametrize(
    "text",
    [
        "",
        "e3b0",
        "zz" * 32,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85500",
    ],
)
def test_a_seed_that_is_not_64_hex_digits_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="seed is"):
        parse_seed(text)


def test_a_seed_of_64_hex_digits_is_its_32_bytes() -> None:
    assert parse_seed("00" * 31 + "ff") == bytes(31) + b"\xff"


@pytest.mark.parametrize("text", [" " + "ab" * 32, "ab" * 31, "zz" * 32, "ab" * 33])
def test_a_seed_is_exactly_64_hex_digits(text: str) -> None:
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        parse_seed(text)


def test_the_base_rank_survives_a_reload_after_the_first_base_card_moved_away() -> None:
    # given a Quadruple Canfield position whose foundation-0 is empty and foundation-3 holds 7C
    variant = builtin_variant("quadruple-canfield")
    data = state_to_json(deal(variant, practice_seed("reload")))
    for pile in data["piles"]:
        if pile["id"].startswith("foundation"):
            pile["cards"] = []
    data["piles"][3]["cards"] = ["7C"]
    # when it is read back without a base rank
    state = state_from_json(variant, data)
    # then the base rank comes from the other foundation
    assert state.base_rank == 7
