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

import asyncio
import json
import logging

from games.ws.base import PatienceConsumer
from leaderboards import live

logger = logging.getLogger(__name__)

# Frames a watcher may have waiting; a watcher that reads slower loses the oldest.
OUTBOX_LIMIT = 20


class DailyConsumer(PatienceConsumer):
    """The socket of a daily deal's watchers."""

    kind = "daily"
    watched: live.WatchedDeal | None = None

    async def open(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        watched = await live.find_deal(kwargs["slug"], kwargs["date"])
        # Pushes that arrive while the snapshot is read and sent wait, so the snapshot comes first.
        self.outbox = []
        self.greeting = True
        await live.join(watched, self)
        live.watch(watched)
        self.watched = watched
        for message in await live.snapshot(watched):
            await self.send_json(message)
        if any(json.loads(frame).get("type") == "leaderboard" for frame in self.outbox):
            # A board held back may be older than the snapshot's: a fresh one after it ends on
            # the truth.
            fresh = await live.snapshot(watched)
            self.outbox.extend(json.dumps(m) for m in fresh if m["type"] == "leaderboard")
        self.greeting = False
        self.start_sending()

    async def disconnect(self, code: int) -> None:
        watched, self.watched = self.watched, None
        if watched is not None:
            live.unwatch(watched.deal_id)
            await live.leave(watched, self)
        await super().disconnect(code)

    sending: asyncio.Task[None] | None = None
    greeting = False
    outbox: list[str]

    def push(self, frames: list[str]) -> None:
        """Queue a coalesced push of the deal, its messages encoded once for every watcher
        (handed over by the process's live hub), without waiting for it to be sent: a slow
        watcher delays only itself. Past ``OUTBOX_LIMIT`` frames waiting, the oldest go."""
        if self.closing or self.watched is None:
            return
        self.outbox.extend(frames)
        del self.outbox[:-OUTBOX_LIMIT]
        self.start_sending()

    def start_sending(self) -> None:
        """Send the outbox in a task of its own, unless one runs or the greeting is on its way."""
        if self.sending is None and not self.greeting and self.outbox:
            self.sending = asyncio.get_running_loop().create_task(self.send_outbox())

    async def send_outbox(self) -> None:
        try:
            while self.outbox and not self.closing:
                await self.send(text_data=self.outbox.pop(0))
        except Exception as error:  # the socket went away while a push was on its way
            logger.info("a push to a watcher was not sent: %r", error)
        finally:
            self.sending = None
