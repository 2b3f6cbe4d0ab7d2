"""Writes of the games app, by entity: players, deals, games and the catalogue.

Every function takes keyword arguments, validates untrusted input (``check_*``), writes inside
a transaction and sends its notifications only after the commit. REST views and WebSocket
consumers call the same functions.
"""

from games.positions import position as engine_state
from games.services.accounts import player_delete, player_set_password
from games.services.batches import move_play
from games.services.catalogue import variants_load
from games.services.days import daily_list, deal_of_day
from games.services.deals import (
    daily_deals,
    deal_check,
    deal_get_or_create,
    deal_regenerate,
    deal_request_regeneration,
    deals_check,
    deals_prepare,
    deals_rate,
    deals_regenerate_requested,
)
from games.services.games import (
    check_move,
    check_ply,
    game_close_if_expired,
    game_move,
    game_resign,
    game_start,
    games_close_expired,
)
from games.services.hints import game_hint
from games.services.players import (
    check_nickname,
    is_nickname,
    player_create_guest,
    player_login,
    player_register,
    player_token,
)
from games.services.tokens import (
    player_sign_out_everywhere,
    token_revoke,
    token_rotate,
    tokens_revoke_all,
)

__all__ = [
    "check_move",
    "check_nickname",
    "check_ply",
    "daily_deals",
    "daily_list",
    "deal_check",
    "deal_get_or_create",
    "deal_of_day",
    "deal_regenerate",
    "deal_request_regeneration",
    "deals_check",
    "deals_prepare",
    "deals_rate",
    "deals_regenerate_requested",
    "engine_state",
    "game_close_if_expired",
    "game_hint",
    "game_move",
    "game_resign",
    "game_start",
    "games_close_expired",
    "is_nickname",
    "move_play",
    "player_create_guest",
    "player_delete",
    "player_login",
    "player_register",
    "player_set_password",
    "player_sign_out_everywhere",
    "player_token",
    "token_revoke",
    "token_rotate",
    "tokens_revoke_all",
    "variants_load",
]
