"""Fixtures of the socket tests: Alice, with a token, and her daily Box Kite game."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Game, Player
from tests.games.sockets import make_player


@pytest.fixture
def alice(ws_variants: Any) -> tuple[Player, str]:
    return make_player("alice")


@pytest.fixture
def game(alice: tuple[Player, str]) -> Game:
    return services.game_start(player=alice[0], variant="box-kite", mode="daily")[0]
