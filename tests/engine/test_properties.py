"""Properties of random playouts over every shipped variant, moves drawn from ``legal_moves``."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    AnyMove,
    State,
    Undo,
    apply_move,
    builtin_rules,
    builtin_variant,
    card_code,
    catalogue,
    deal,
    legal_moves,
    parse,
    player_view,
    render,
    replay,
    verify,
)
from games.engine.cards import fresh_pack

SLUGS = [entry["slug"] for entry in catalogue()]
PLAYOUTS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
slugs = st.sampled_from(SLUGS)
seeds = st.binary(min_size=32, max_size=32)
choices = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=40)


def playout(slug: str, seed: bytes, picks: list[int]) -> tuple[list[State], list[AnyMove]]:
    """Return the positions and moves of a game whose moves are picked from the legal ones."""
    state = deal(builtin_variant(slug), seed)
    states, moves = [state], []
    for pick in picks:
        legal = legal_moves(state)
        if not legal:
            break
        move = legal[pick % len(legal)]
        state = apply_move(state, move)
        states.append(state)
        moves.append(move)
    return states, moves


@PLAYOUTS
@given(slugs, seeds, choices)
def test_cards_are_conserved(slug: str, seed: bytes, picks: list[int]) -> None:
    states, _ = playout(slug, seed, picks)
    variant = builtin_variant(slug)
    pack = Counter(fresh_pack(variant.decks, variant.pack_suits))

    for state in states:
        assert Counter(state.all_cards()) == pack


@PLAYOUTS
@given(slugs, seeds, choices)
def test_replay_is_deterministic(slug: str, seed: bytes, picks: list[int]) -> None:
    states, moves = playout(slug, seed, picks)
    log = [move.to_json() for move in moves]

    first = replay(builtin_rules(slug), seed, log)
    second = replay(builtin_variant(slug), seed, moves)

    assert first.state == second.state == states[-1]
    assert render(first.state) == render(states[-1])
    assert first.plies == len(moves)
    assert verify(builtin_rules(slug), seed, log, states[-1])


@PLAYOUTS
@given(slugs, seeds, choices)
def test_undo_after_an_undoable_move_restores_the_previous_position(
    slug: str, seed: bytes, picks: list[int]
) -> None:
    states, _ = playout(slug, seed, picks)

    for before, after in pairwise(states):
        if after.previous is not None:
            undone = apply_move(after, Undo())
            assert undone == before
            assert render(undone) == render(before)


@PLAYOUTS
@given(slugs, seeds, choices)
def test_the_players_view_never_shows_a_hidden_card(
    slug: str, seed: bytes, picks: list[int]
) -> None:
    states, _ = playout(slug, seed, picks)

    for state in states:
        view = player_view(state)
        face_up = 0
        for pile_id, pile, shown in zip(state.variant.ids, state.piles, view["piles"], strict=True):
            assert shown["id"] == pile_id
            hidden = len(pile.cards) if pile_id == "stock" else pile.hidden
            assert shown["cards"][:hidden] == [None] * hidden
            assert shown["cards"][hidden:] == [card_code(c) for c in pile.cards[hidden:]]
            face_up += len(pile.cards) - hidden
        visible = [c for pile in view["piles"] for c in pile["cards"] if c is not None]
        assert len(visible) == face_up
        assert "(" not in render(state, player=True)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slugs, seeds, choices)
def test_every_legal_move_is_listed_once_and_applies(
    slug: str, seed: bytes, picks: list[int]
) -> None:
    states, _ = playout(slug, seed, picks[:15])

    for state in states:
        legal = legal_moves(state)
        assert len(set(legal)) == len(legal)
        for move in legal:
            apply_move(state, move)


@PLAYOUTS
@given(slugs, seeds, choices)
def test_a_rendered_position_parses_back_to_itself(
    slug: str, seed: bytes, picks: list[int]
) -> None:
    states, _ = playout(slug, seed, picks)
    variant = builtin_variant(slug)

    for state in states:
        assert parse(variant, render(state)) == state


@PLAYOUTS
@given(slug=slugs, seed=seeds, picks=choices)
def test_stuck_means_no_legal_move_in_a_position_not_won(
    slug: str, seed: bytes, picks: list[int]
) -> None:
    from games.engine import is_stuck

    states, _ = playout(slug, seed, picks)
    for state in states:
        assert is_stuck(state) == (not state.won and not legal_moves(state))
