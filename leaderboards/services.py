"""Writes of the leaderboards: a verified result enters its deal's board and its player's stats.

``result_record`` is called for every new verified result (``receivers.py``, on
``games.signals.result_verified``). Redis holds only what PostgreSQL can rebuild, so a write to
Redis that fails is logged and left for the next read to repair.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Greatest
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games.models import Deal, Game, Player, Result
from games.payloads import day_is_over
from games.services import deal_of_day
from games.verification.figures import Figures
from games.verification.seals import seal_is_valid
from leaderboards import changes, ranking, selectors, stats, story
from leaderboards.models import PlayerVariantStats, UnrankedResult

logger = logging.getLogger(__name__)


def result_record(*, result: Result) -> None:
    """Rank a just-verified result on its deal's board and count it in its player's stats.

    A banned player's result (a game of theirs closed when its day ended) is counted in their
    stats but ranks nowhere.
    """
    if result.player.banned_at is None:
        try:
            ranking.board_add(
                deal_id=result.deal_id, result=result, nickname=result.player.nickname
            )
        except Exception:  # the result is committed; the board's next read repairs it
            logger.exception("could not rank the result of game %s", result.game_id)
    stats_record(result=result)


# --- moderation -------------------------------------------------------------------------------


def _board_withdraw(result: Result, nickname: str) -> None:
    """Take a result off its deal's Redis board and tell the deal's watchers."""
    ranking.board_remove(deal_id=result.deal_id, result=result, nickname=nickname)
    changes.board_changed(result.deal_id)


def result_withdraw(*, result: Result) -> None:
    """Take a voided result off its board and out of its player's stats."""
    _board_withdraw(result, result.player.nickname)
    stats_rebuild(player_id=result.player_id, variant_id=result.deal.variant_id)


def player_withdraw(*, player: Player) -> None:
    """Take every result of a banned player off every board."""
    results = Result.objects.filter(player=player).select_related("deal")
    for result in results.iterator(chunk_size=500):
        _board_withdraw(result, player.nickname)


def player_restore(*, player: Player) -> None:
    """Rank an unbanned player's sealed results again: their boards are rebuilt when read."""
    deal_ids = Result.objects.filter(player=player).values_list("deal_id", flat=True)
    for deal_id in deal_ids.iterator(chunk_size=500):
        ranking.board_forget(deal_id=deal_id)
        changes.board_changed(deal_id)


def player_renamed(*, deal_ids: list[int]) -> None:
    """Rebuild the boards of these deals from PostgreSQL (when next read), where a player now
    has another name (a deleted account): ranks stay, the name changes; watchers are told."""
    for deal_id in deal_ids:
        ranking.board_forget(deal_id=deal_id)
        changes.board_changed(deal_id)


def _may_rank(result: Result | _Row) -> bool:
    """Tell whether a result's seal matches its figures; record one that does not."""
    if seal_is_valid(result):
        return True
    result_unrank(result=result)
    return False


def result_unrank(*, result: Result | _Row) -> None:
    """Keep a result whose seal does not match its figures off every board, and log it."""
    _, created = UnrankedResult.objects.get_or_create(
        game_id=result.game_id, defaults={"deal_id": result.deal_id}
    )
    if created:
        logger.error(
            "the result of game %s does not match its seal (edited?): it is never ranked",
            result.game_id,
        )
        ranking.board_forget(deal_id=result.deal_id)  # it may have entered Redis before


@dataclass(frozen=True, slots=True)
class _Row(Figures):
    """The columns of a ``Result`` that ranking and its seal need (lighter than a model)."""

    game_id: str
    deal_id: int
    player_id: int
    seal: str
    voided_at: dt.datetime | None
    void_reason: str
    nickname: str
    banned_at: dt.datetime | None

    @property
    def weight(self) -> int:
        """Return how much the row counts in ``Deal.board_count``: once, and once more if
        voided and once more if its player is banned."""
        return 1 + (self.voided_at is not None) + (self.banned_at is not None)


_ROW_COLUMNS = tuple(
    field for field in _Row.__dataclass_fields__ if field not in ("nickname", "banned_at")
)


def _batches(deal: Deal) -> Iterator[tuple[list[tuple[ranking.Ranked, str]], int]]:
    """Yield the deal's results that may rank in batches by game id, with the count they make
    in ``Deal.board_count`` (withdrawn ones read but left out count more)."""
    after: str | None = None
    while True:
        rows = Result.objects.filter(deal_id=deal.pk).order_by("game_id")
        if after is not None:
            rows = rows.filter(game_id__gt=after)
        batch = [
            _Row(*values)
            for values in rows.values_list(*_ROW_COLUMNS, "player__nickname", "player__banned_at")[
                : ranking.REBUILD_BATCH
            ]
        ]
        if not batch:
            return
        after = batch[-1].game_id
        ranked = [
            (row, row.nickname)
            for row in batch
            # The seal first: a void written in the database breaks it and is recorded.
            if _may_rank(row) and row.voided_at is None and row.banned_at is None
        ]
        yield ranked, sum(row.weight for row in batch)
        if len(batch) < ranking.REBUILD_BATCH:
            return


def board_rebuild(*, deal: Deal) -> bool | None:
    """Rebuild the deal's Redis board from PostgreSQL in bounded batches, checking every seal.

    Return True when rebuilt, False while another process rebuilds it, None without Redis.
    """
    return ranking.board_rebuild(deal_id=deal.pk, batches=_batches(deal))


def board_page(
    *, deal: Deal, offset: int = 0, limit: int = selectors.REST_ENTRIES, nickname: str | None = None
) -> ranking.Page:
    """Return a page of the deal's board (``selectors.board``), first mending what the read
    found: a Redis board missing or behind PostgreSQL is rebuilt (and the page read from it),
    results whose seals do not hold are recorded as never to rank."""
    read = selectors.board(deal, offset=offset, limit=limit, nickname=nickname)
    for result in read.tampered:
        result_unrank(result=result)
    if read.stale and board_rebuild(deal=deal):
        fresh = selectors.board(deal, offset=offset, limit=limit, nickname=nickname)
        if not fresh.stale:
            return fresh.page
    return read.page


def top_entries(deal: Deal) -> tuple[list[dict[str, Any]], int]:
    """Return the deal's best ``selectors.LIVE_ENTRIES`` ENTRYs and the number ranked.

    Cheap: one Redis script call (ZRANGE + HMGET + ZCARD) while the board is fresh; one more
    query when the caller's deal is an old copy; PostgreSQL only while Redis is away.
    """
    page = board_page(deal=deal, limit=selectors.LIVE_ENTRIES)
    return page.entries, page.total


def leaderboard_read(
    *, slug: str, date_text: str, offset: int, limit: int, nickname: str | None
) -> dict[str, Any]:
    """Return the leaderboard of docs/api.md of a day (``games.services.deal_of_day``, which
    closes a past day's games still in play), its board mended first (``board_page``)."""
    deal = deal_of_day(slug=slug, date_text=date_text)
    page = board_page(deal=deal, offset=offset, limit=limit, nickname=nickname)
    return selectors.leaderboard(deal, page, offset=offset, limit=limit, nickname=nickname)


# --- players' stats ---------------------------------------------------------------------------


def stats_record(*, result: Result) -> None:
    """Count a result in its player's stats of its variant.

    A result of a day later than every day counted is one UPDATE (the arithmetic of
    ``stats.advance`` in SQL); a first result, or one arriving out of date order (a game closed
    when its day ended, after a later day's result), computes that player's runs again.
    """
    deal = result.deal
    day: dt.date = deal.date
    won = result.status == "won"
    after_day = day - stats.ONE_DAY
    play_run = Case(When(last_date=after_day, then=F("play_run") + 1), default=Value(1))
    changes = {
        "played": F("played") + 1,
        "won": F("won") + int(won),
        "moves_total": F("moves_total") + result.moves,
        "last_date": day,
        "play_run": play_run,
        "best_play_run": Greatest(F("best_play_run"), play_run),
    }
    if won:
        win_run = Case(When(win_run_end=after_day, then=F("win_run") + 1), default=Value(1))
        changes |= {
            "win_run": win_run,
            "win_run_end": day,
            "best_win_run": Greatest(F("best_win_run"), win_run),
        }
    updated = PlayerVariantStats.objects.filter(
        Q(last_date__lt=day) | Q(last_date__isnull=True),
        player_id=result.player_id,
        variant_id=deal.variant_id,
    ).update(**changes)
    if not updated:
        stats_rebuild(player_id=result.player_id, variant_id=deal.variant_id)


def stats_rebuild(*, player_id: int, variant_id: int) -> PlayerVariantStats:
    """Compute a player's stats in a variant again from their results (voided ones left out)."""
    results = Result.objects.filter(
        player_id=player_id, deal__variant_id=variant_id, voided_at__isnull=True
    )
    runs = stats.runs_from(
        (day, status == "won", moves)
        for day, status, moves in results.values_list("deal__date", "status", "moves")
    )
    fields = asdict(runs)
    try:
        with transaction.atomic():
            row, _ = PlayerVariantStats.objects.update_or_create(
                player_id=player_id, variant_id=variant_id, defaults=fields
            )
    except IntegrityError:  # made at the same moment by another result: overwrite it
        PlayerVariantStats.objects.filter(player_id=player_id, variant_id=variant_id).update(
            **fields
        )
        row = PlayerVariantStats.objects.get(player_id=player_id, variant_id=variant_id)
    return row


def stats_rebuild_all() -> int:
    """Compute every player's stats again from the results; return how many rows were kept."""
    kept = Result.objects.filter(voided_at__isnull=True)
    pairs = set(kept.values_list("player_id", "deal__variant_id").distinct())
    for player_id, variant_id in sorted(pairs):
        stats_rebuild(player_id=player_id, variant_id=variant_id)
    rows = PlayerVariantStats.objects.values_list("player_id", "variant_id", "pk")
    stale = [pk for player_id, variant_id, pk in rows if (player_id, variant_id) not in pairs]
    PlayerVariantStats.objects.filter(pk__in=stale).delete()
    return len(pairs)


# --- the day's story --------------------------------------------------------------------------


def story_read(*, slug: str, date_text: str, viewer: Player | None) -> dict[str, Any]:
    """Return the day's story of docs/api.md (``leaderboards.story``) with the viewer's place.

    While the day is on, only a player who has finished the deal may read it (what the day's
    players did would help one still playing): anonymous callers get ``not_authenticated``, the
    others ``forbidden``. Once the day is over, anyone may.
    """
    deal = deal_of_day(slug=slug, date_text=date_text)
    if not day_is_over(deal.date):
        story_check_finished(deal=deal, viewer=viewer)
    nickname = viewer.nickname if viewer is not None else None
    page = board_page(deal=deal, limit=1, nickname=nickname)
    return story.story(deal, player_entry=page.player_entry, total=page.total)


def story_check_finished(*, deal: Deal, viewer: Player | None) -> None:
    """Raise unless ``viewer`` has a game of ``deal`` that is over."""
    if viewer is None:
        raise ServiceError(
            ErrorCode.NOT_AUTHENTICATED,
            gettext("Sign in and finish today's deal to see how the day is going."),
        )
    finished = Game.objects.filter(deal=deal, player=viewer).exclude(status=Game.Status.PLAYING)
    if not finished.exists():
        raise ServiceError(
            ErrorCode.FORBIDDEN,
            gettext("The day's story shows once you have finished today's deal."),
        )
