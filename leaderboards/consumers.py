"""The daily socket ``ws/daily/<slug>/<date>/``: the live leaderboard of a deal, for anyone.

On connect the watcher gets ``{"type": "leaderboard", "entries": [top 20 ENTRY], "total": int}``
and ``{"type": "presence", "playing": int}``; then the coalesced pushes of ``leaderboards.live``
(at most one group message a second per deal: progress batch, leaderboard, presence). No token
or session is needed, nor an ``Origin``; a page of a foreign host is refused (4403). An unknown
deal (unknown variant, bad or future date, past day never dealt) is refused ``not_found``
(4404). Anything a client sends is answered ``invalid``.
"""

from __future__ import annotations

from typing import Any

from games.ws.base import PatienceConsumer
from leaderboards import live


class DailyConsumer(PatienceConsumer):
    """The socket of a daily deal's watchers."""

    deal_id: int | None = None

    async def open(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        watched = await live.find_deal(kwargs["slug"], kwargs["date"])
        await self.join(watched.group)
        live.watch(watched)
        self.deal_id = watched.deal_id
        for message in await live.snapshot(watched):
            await self.send_json(message)

    async def disconnect(self, code: int) -> None:
        if self.deal_id is not None:
            live.unwatch(self.deal_id)
            self.deal_id = None
        await super().disconnect(code)

    async def daily_push(self, event: dict[str, Any]) -> None:
        if self.closing:
            return
        for message in event["messages"]:
            await self.send_json(message)
