"""Cards: codes, ranks, suits and colours.

A card is a small integer, ``suit * 13 + rank - 1``, so a one-deck fresh pack is ``range(52)``.
With several decks identical cards share one integer: no deck index exists.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = ("Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King")
SUIT_NAMES = ("Clubs", "Diamonds", "Hearts", "Spades")

ACE = 1
KING = 13
CARDS_PER_SUIT = 13
CARDS_PER_DECK = 52

Card = int

_CODES = tuple(r + s for s in SUITS for r in RANKS)
_BY_CODE = {code: i for i, code in enumerate(_CODES)}
RANK_OF = tuple(i % 13 + 1 for i in range(CARDS_PER_DECK))
SUIT_OF = tuple(i // 13 for i in range(CARDS_PER_DECK))
RED = tuple(SUIT_OF[i] in (1, 2) for i in range(CARDS_PER_DECK))


def make_card(rank: int, suit: int) -> Card:
    """Return the card of ``rank`` (1 = Ace … 13 = King) and ``suit`` (index in ``SUITS``)."""
    return suit * 13 + rank - 1


def card_code(card: Card) -> str:
    """Return the two-letter code of a card, e.g. ``"TD"``."""
    return _CODES[card]


def parse_card(code: str) -> Card:
    """Return the card written ``code`` (``"AC"`` … ``"KS"``); raise ``ValueError`` otherwise."""
    try:
        return _BY_CODE[code]
    except (KeyError, TypeError):
        raise ValueError(f"{code!r} is not a card: write rank then suit, e.g. 'TD'") from None


def parse_rank(letter: str) -> int:
    """Return the rank (1–13) written by one of ``A23456789TJQK``."""
    index = RANKS.find(letter) if isinstance(letter, str) and len(letter) == 1 else -1
    if index < 0:
        raise ValueError(f"{letter!r} is not a rank: use one of {RANKS}")
    return index + 1


def parse_suit(letter: str) -> int:
    """Return the suit index written by one of ``CDHS``."""
    index = SUITS.find(letter) if isinstance(letter, str) and len(letter) == 1 else -1
    if index < 0:
        raise ValueError(f"{letter!r} is not a suit: use one of {SUITS}")
    return index


def card_label(card: Card) -> str:
    """Return a card as people read it, e.g. ``"10♥"``."""
    rank = RANK_OF[card]
    text = "10" if rank == 10 else RANKS[rank - 1]
    return text + SUIT_SYMBOLS[SUIT_OF[card]]


def rank_label(rank: int) -> str:
    """Return the name of a rank, e.g. ``"King"``."""
    return RANK_NAMES[rank - 1]


def fresh_pack(decks: int, suits: tuple[int, ...] = (0, 1, 2, 3)) -> list[Card]:
    """Return the fresh pack of ``decks`` decks in the order of docs/deals.md.

    Each deck is four runs Ace to King, the i-th of suit ``suits[i % len(suits)]``: with the
    four suits, clubs, diamonds, hearts and spades.
    """
    deck = [suits[i % len(suits)] * 13 + r for i in range(4) for r in range(13)]
    return deck * decks
