"""The daily socket ``ws/daily/<slug>/<date>/``: the live leaderboard of a deal, for anyone.

On connect the watcher gets ``{"type": "leaderboard", "entries": [top 20 ENTRY], "total": int}``
and ``{"type": "presence", "playing": int}``; then the coalesced pushes of ``leaderboards.live``
(at most one group message a second per deal: progress batch, leaderboard, presence), handed
over by the process's live hub (one group member per process, not per watcher). No token
or session is needed, nor an ``Origin``; a page of a foreign host is refused (4403). An unknown
deal (unknown variant, bad or future date, past day never dealt) is refused ``not_found``
(4404). Anything a client sends is answered ``invalid``.
"""

from __future__ import annotations

from games.ws.base import PatienceConsumer
from leaderboards import live


class DailyConsumer(PatienceConsumer):
    """The socket of a daily deal's watchers."""

    watched: live.WatchedDeal | None = None

    async def open(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        watched = await live.find_deal(kwargs["slug"], kwargs["date"])
        await live.join(watched, self)
        live.watch(watched)
        self.watched = watched
        for message in await live.snapshot(watched):
            await self.send_json(message)

    async def disconnect(self, code: int) -> None:
        watched, self.watched = self.watched, None
        if watched is not None:
            live.unwatch(watched.deal_id)
            await live.leave(watched, self)
        await super().disconnect(code)

    async def push(self, frames: list[str]) -> None:
        """Send a coalesced push of the deal, its messages already encoded once for every
        watcher (handed over by the process's live hub)."""
        if self.closing or self.watched is None:
            return
        for frame in frames:
            await self.send(text_data=frame)
