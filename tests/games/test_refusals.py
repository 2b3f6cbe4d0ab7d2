"""The engine's refusals said in the reader's language, from their sentences and values."""

from __future__ import annotations

import itertools

import pytest
from django.utils import translation

from games.engine import IllegalCode
from games.engine.reasons import BaseWord, CardWord, RankWord, english
from games.engine.rules import Build, Direction, Kind, SuitRule
from games.words.refusals import say_refusal, say_word
from tests.engine.conftest import Table
from tests.engine.test_illegal_moves import CASES

WORDS = [
    *(CardWord(card) for card in range(52)),
    *(RankWord(rank) for rank in range(1, 14)),
    *(BaseWord(rank, suit) for rank in [None, *range(1, 14)] for suit in [None, 0, 1, 2, 3]),
    *(
        Build(direction, suit, wrap)
        for direction, suit, wrap in itertools.product(Direction, SuitRule, [False, True])
    ),
    *Kind,
    "tableau-3",
    7,
]


def refusal(code: IllegalCode):
    slug, board, moves = CASES[code]
    return Table(slug).refusal(board, *moves)


def test_in_english_every_word_reads_as_the_engine_says_it() -> None:
    with translation.override("en"):
        said = [say_word(word) for word in WORDS]

    assert said == [english(word) for word in WORDS]


@pytest.mark.parametrize("code", list(IllegalCode))
def test_in_english_a_refusal_reads_as_the_engine_says_it(code: IllegalCode) -> None:
    refused = refusal(code)

    with translation.override("en"):
        sentence = say_refusal(refused.reason)

    assert sentence == refused.detail


@pytest.mark.parametrize("language", ["fr", "es"])
@pytest.mark.parametrize("code", list(IllegalCode))
def test_in_french_and_spanish_every_refusal_has_its_own_sentence(
    code: IllegalCode, language: str
) -> None:
    refused = refusal(code)

    with translation.override(language):
        sentence = say_refusal(refused.reason)

    assert sentence != refused.detail
    assert "{" not in sentence and "}" not in sentence
    assert sentence.endswith((".", "»."))


def test_in_french_cards_rules_and_bases_are_french() -> None:
    # given: the Queen of spades on the Jack of hearts, down in alternating colours, wrapping
    queen, jack = CardWord(11 + 3 * 13), CardWord(10 + 2 * 13)
    build = Build(Direction.DOWN, SuitRule.ALTERNATE, True)

    # when
    with translation.override("fr"):
        words = [say_word(word) for word in (queen, jack, build, BaseWord(1, 2), BaseWord(12, 0))]

    # then
    assert words == [
        "D♠",
        "V♥",
        "en ordre décroissant en alternant rouge et noir, le Roi et l’As se suivant",
        "l’As de cœur",
        "la Dame de trèfle",
    ]


def test_in_spanish_cards_rules_and_bases_are_spanish() -> None:
    # given: the Queen of spades on the Jack of hearts, down in alternating colours, wrapping
    queen, jack = CardWord(11 + 3 * 13), CardWord(10 + 2 * 13)
    build = Build(Direction.DOWN, SuitRule.ALTERNATE, True)

    # when
    with translation.override("es"):
        words = [say_word(word) for word in (queen, jack, build, BaseWord(1, 2), BaseWord(12, 0))]

    # then: the corners keep the letters printed on Spanish-language French-suited decks
    assert words == [
        "Q♠",
        "J♥",
        "en orden descendente alternando rojo y negro, con el Rey y el As seguidos",
        "el As de corazones",
        "la Reina de tréboles",
    ]


def test_a_malformed_move_is_said_in_french_too() -> None:
    from games.engine import MalformedMove, parse_move

    with pytest.raises(MalformedMove) as malformed:
        parse_move({"type": "move", "from": "tableau-0", "to": "tableau-1", "count": 0})

    with translation.override("fr"):
        sentence = say_refusal(malformed.value.reason)

    assert str(malformed.value) == "'count' must be an integer from 1 to 1000"
    assert sentence == "'count' doit être un entier de 1 à 1000"
