"""The league socket ``ws/leagues/<id>/<slug>/<date>/``: a league's live board of a deal.

For members only (a token or a session). On connect it sends
``{"type": "leaderboard", "entries": [ENTRY], "total": int}``: the day's verified results of
the league's members, ranked from 1 in the order of every board. Then the same message whenever
that board changes, at most once a second: it is read again on the deal's coalesced leaderboard
pushes (``leaderboards.live``) and when the league's members change. A member who leaves or is
removed is sent ``not_member`` and closed 4403 at once; every member is sent ``league_closed``
(4403) when the league is closed. Refused: no player (``not_authenticated``), not a member
(``not_member``), a closed league (``league_closed``), no such league or deal (``not_found``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games.ws.base import PatienceConsumer, in_thread
from leaderboards import live as deal_live
from leagues import announce, live, selectors

logger = logging.getLogger(__name__)

# How a deal's leaderboard push begins (``leaderboards.live.leaderboard_message``, encoded once
# by the hub): told apart without decoding every frame.
LEADERBOARD_FRAME = '{"type": "leaderboard"'
# A board whose read failed (the database busy for a moment) is read again this many times.
READ_ATTEMPTS = 3
RETRY_SECONDS = 1.0


def _access(league_id: str, player: Any) -> int:
    return selectors.access_league_of_member(league_id, player=player).pk


class LeagueConsumer(PatienceConsumer):
    """The socket of a league's board of one deal."""

    kind = "league"
    league_id: int | None = None
    player_id: int | None = None
    watched: deal_live.WatchedDeal | None = None
    refreshing: asyncio.Task[None] | None = None
    again: object | None = None
    last: str | None = None

    async def open(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            raise ServiceError(ErrorCode.NOT_AUTHENTICATED, gettext("Log in to see a league."))
        kwargs = self.scope["url_route"]["kwargs"]
        self.league_id = await in_thread(_access)(kwargs["league"], user)
        self.player_id = user.pk
        watched = await deal_live.find_deal(kwargs["slug"], kwargs["date"])
        await self.join(announce.league_group(self.league_id))
        await deal_live.join(watched, self)
        deal_live.watch(watched)
        self.watched = watched
        # The first board is read as any later one: a push meanwhile waits for it (``again``), so
        # an older read is never sent after a newer one.
        self.refreshing = asyncio.current_task()
        try:
            await self.refresh(cause=object())
        finally:
            self.refreshing = None
        waiting, self.again = self.again, None
        if waiting is not None:
            self.refresh_soon(cause=waiting)

    async def disconnect(self, code: int) -> None:
        watched, self.watched = self.watched, None
        if watched is not None:
            deal_live.unwatch(watched.deal_id)
            await deal_live.leave(watched, self)
        if self.refreshing is not None and self.refreshing is not asyncio.current_task():
            self.refreshing.cancel()
        await super().disconnect(code)

    # --- what changes the board ------------------------------------------------------------

    def push(self, frames: list[str]) -> None:
        """Hear of a coalesced push of the deal (from the process's live hub): a leaderboard in
        it means the league's board may have changed."""
        if self.closing or self.watched is None:
            return
        if any(frame.startswith(LEADERBOARD_FRAME) for frame in frames):
            self.refresh_soon(cause=frames)

    async def league_members(self, message: dict[str, Any]) -> None:
        """The league's members changed (``leagues.announce``)."""
        if message.get("closed"):
            await self.refuse(
                ServiceError(ErrorCode.LEAGUE_CLOSED, gettext("This league is closed."))
            )
        elif message.get("removed") == self.player_id:
            await self.lose_access()
        elif self.watched is not None:
            self.refresh_soon(cause=message)

    async def lose_access(self) -> None:
        await self.refuse(
            ServiceError(
                ErrorCode.NOT_MEMBER, gettext("You are no longer a member of this league.")
            )
        )

    # --- reading and sending the board -----------------------------------------------------

    def refresh_soon(self, *, cause: object) -> None:
        """Read the board again in a task; one read at a time, the last cause waiting."""
        if self.refreshing is not None:
            self.again = cause
            return
        self.refreshing = asyncio.get_running_loop().create_task(self._refresh_loop(cause))

    async def _refresh_loop(self, cause: object) -> None:
        failures = 0
        try:
            while cause is not None and not self.closing:
                try:
                    await self.refresh(cause=cause)
                except Exception as error:  # a failed read must not end the socket
                    failures += 1
                    logger.warning("a league board was not read again: %r", error)
                    if failures >= READ_ATTEMPTS:
                        return  # the next push tries again
                    await asyncio.sleep(RETRY_SECONDS)
                    cause = object()  # a read of its own, not the one that failed
                    continue
                cause, self.again = self.again, None
        finally:
            self.refreshing = None

    async def refresh(self, *, cause: object) -> None:
        if self.watched is None or self.league_id is None:
            return
        board = await live.board_of(self.league_id, self.watched.deal, cause=cause)
        if self.player_id not in board.members:
            await self.lose_access()
            return
        text = json.dumps(live.leaderboard_message(board))
        if text != self.last and not self.closing:
            self.last = text
            await self.send(text_data=text)
