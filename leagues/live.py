"""The live side of a league's board: read again when the deal's board changes, shared by the
sockets of one process.

A league socket watches its deal through the process's live hub of ``leaderboards.live``, so it
hears of the deal's coalesced pushes (at most one a second per deal, cluster-wide). A push that
carries the deal's leaderboard means a result came, left or came back: the league's board is read
again, once per league and push in a process however many of its sockets watch
(``board_of``), and sent to each socket only if it changed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from games.models import Deal
from games.ws.base import in_thread
from leaderboards.selectors import LIVE_ENTRIES
from leagues import selectors
from leagues.models import League

CACHE_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class LeagueBoard:
    """A league's board of a deal as read, with who its members were when it was read."""

    entries: list[dict[str, Any]]
    members: frozenset[int]


def _read(league_id: int, deal: Deal) -> LeagueBoard:
    league = League.objects.filter(pk=league_id, closed_at__isnull=True).first()
    if league is None:
        return LeagueBoard([], frozenset())
    members = frozenset(selectors.member_ids(league))
    return LeagueBoard(selectors.board_entries(league, deal), members)


_reads: dict[tuple[int, int], tuple[object, asyncio.Future[LeagueBoard]]] = {}


async def board_of(league_id: int, deal: Deal, *, cause: object) -> LeagueBoard:
    """Return the league's board of ``deal``, read once per ``cause`` (a push of the deal, seen
    by every socket of the league in this process) and shared."""
    key = (league_id, deal.pk)
    found = _reads.get(key)
    if found is not None and found[0] is cause:
        return await asyncio.shield(found[1])
    if len(_reads) > CACHE_LIMIT:
        _reads.clear()
    future = asyncio.ensure_future(in_thread(_read)(league_id, deal))
    _reads[key] = (cause, future)
    return await asyncio.shield(future)


def leaderboard_message(board: LeagueBoard) -> dict[str, Any]:
    """Return the socket's ``leaderboard`` message: the best ``LIVE_ENTRIES`` of the league's
    board, as the daily socket sends the deal's, and how many rank."""
    entries = board.entries[:LIVE_ENTRIES]
    return {"type": "leaderboard", "entries": entries, "total": len(board.entries)}


def reset() -> None:
    """Forget the shared reads (tests)."""
    _reads.clear()
