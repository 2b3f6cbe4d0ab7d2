"""Writes of daily deals: made once per variant and day, from the secret and the date.

A day's deal is the first attempt of docs/deals.md the solver proves winnable (``deal_prepare``,
run ahead of time by ``manage.py preparedeals``); if none of ``DEAL_ATTEMPTS`` is proved, the
first attempt not proved lost is served, marked uncertified. No request ever waits for the
solver: a request that finds no deal for today makes attempt 0, uncertified and ``checking``,
and a day ahead is made only by ``preparedeals``. Its commitment is out from then on, so the
deal is never changed; the scheduler certifies it where it stands as soon as the solver decides
it (``deals_check``, and ``deal_prepare`` when it reaches that day).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from core.errors import ErrorCode, ServiceError
from games import clock
from games.documents import compiled
from games.engine import SolveResult, commitment, daily_seed, deal, parse_seed, solve
from games.engine.difficulty import difficulty as rated_difficulty
from games.models import Deal, Game, Variant

logger = logging.getLogger(__name__)


def _deal_secret() -> str:
    secret = getattr(settings, "DEAL_SECRET", "")
    if not secret:
        raise RuntimeError("DEAL_SECRET is not configured")
    return secret


def _existing(variant: Variant, date: dt.date) -> Deal | None:
    return Deal.objects.filter(variant=variant, date=date).select_related("variant").first()


def _create(variant: Variant, date: dt.date, attempt: int, **fields: object) -> Deal:
    """Make the deal of ``attempt``, or return the one a concurrent writer made first."""
    seed = daily_seed(_deal_secret(), variant.slug, date.isoformat(), attempt)
    try:
        with transaction.atomic():
            return Deal.objects.create(
                variant=variant,
                date=date,
                attempt=attempt,
                seed=seed.hex(),
                commitment=commitment(seed),
                rules=variant.rules,
                **fields,
            )
    except IntegrityError:  # made by a concurrent request
        return Deal.objects.select_related("variant").get(variant=variant, date=date)


def deal_get_or_create(*, variant: Variant, date: dt.date) -> Deal:
    """Return the variant's deal of ``date``; without one, make attempt 0, uncertified and
    waiting for the solver's check (a request never waits for the solver)."""
    return _existing(variant, date) or _create(variant, date, 0, checking=True)


def _rated(variant: Variant, result: SolveResult) -> dict[str, Any]:
    """Return the fields a won ``result`` gives a deal of ``variant``: its line, its effort and
    its difficulty by the variant's calibration (``games.engine.difficulty``)."""
    return {
        "certified": True,
        "effort": result.nodes,
        "difficulty": rated_difficulty(variant.slug, result.nodes),
        "solution": [move.to_json() for move in result.line or []],
    }


def _certify(variant: Variant, date: dt.date, seconds: float | None) -> dict[str, Any]:
    """Return the fields of the variant's deal of ``date`` by its current rules: the first
    attempt the solver proves winnable within ``seconds`` each (``DEAL_CERTIFY_SECONDS``), else
    the first not proved lost, uncertified. Write nothing: the solver may take a while."""
    budget = settings.DEAL_CERTIFY_SECONDS if seconds is None else seconds
    rules = compiled(variant.rules)
    fallback: int | None = None
    for attempt in range(max(1, settings.DEAL_ATTEMPTS)):
        seed = daily_seed(_deal_secret(), variant.slug, date.isoformat(), attempt)
        started = time.monotonic()
        result = solve(deal(rules, seed), budget_seconds=budget, clock=time.monotonic)
        logger.info(
            "%s %s attempt %d: %s in %d positions, %.1f s",
            variant.slug,
            date,
            attempt,
            result.outcome,
            result.nodes,
            time.monotonic() - started,
        )
        if result.outcome == "won" and result.line is not None:
            return {"attempt": attempt, **_rated(variant, result)}
        if fallback is None and result.outcome != "lost":
            fallback = attempt
    logger.warning("%s %s: no attempt proved winnable; serving it uncertified", variant.slug, date)
    return {
        "attempt": fallback or 0,
        "certified": False,
        "difficulty": None,
        "effort": None,
        "solution": None,
    }


def deal_prepare(*, variant: Variant, date: dt.date, seconds: float | None = None) -> Deal:
    """Return the variant's deal of ``date``, making it, if it is not made yet, from the first
    attempt the solver proves winnable within ``seconds`` each (``DEAL_CERTIFY_SECONDS``); one
    a request made meanwhile is checked where it stands (``deal_check``)."""
    existing = _existing(variant, date)
    if existing is None:
        fields = _certify(variant, date, seconds)
        existing = _create(variant, date, fields.pop("attempt"), **fields)
    if existing.checking:
        return deal_check(deal_=existing, seconds=seconds)
    return existing


def deal_check(*, deal_: Deal, seconds: float | None = None) -> Deal:
    """Certify a deal made on demand as it stands, if the solver proves it winnable: its
    commitment is out, so its attempt, seed and rules never change. The solver has the time of
    every attempt (``DEAL_ATTEMPTS`` × ``seconds``, by default ``DEAL_CERTIFY_SECONDS``); however
    it ends, the check is over. Return the deal as it is then."""
    budget = (settings.DEAL_CERTIFY_SECONDS if seconds is None else seconds) * max(
        1, settings.DEAL_ATTEMPTS
    )
    started = time.monotonic()
    result = solve(
        deal(compiled(deal_.rules), parse_seed(deal_.seed)),
        budget_seconds=budget,
        clock=time.monotonic,
    )
    logger.info(
        "%s %s attempt %d, made on demand: %s in %d positions, %.1f s",
        deal_.variant.slug,
        deal_.date,
        deal_.attempt,
        result.outcome,
        result.nodes,
        time.monotonic() - started,
    )
    fields: dict[str, Any] = {"checking": False}
    if result.outcome == "won" and result.line is not None:
        fields.update(_rated(deal_.variant, result))
    Deal.objects.filter(pk=deal_.pk, checking=True).update(**fields)
    return Deal.objects.select_related("variant").get(pk=deal_.pk)


def deals_check() -> list[Deal]:
    """Check every deal made on demand that the solver is yet to decide, oldest first (the
    scheduler's look between its daily runs); return them as they are then."""
    waiting = Deal.objects.filter(checking=True).select_related("variant").order_by("created_at")
    return [deal_check(deal_=waiting_deal) for waiting_deal in list(waiting)]


def deals_publish(*, deal_ids: list[int]) -> dict[int, str]:
    """Mark deals whose commitment an API answer is about to show as published (frozen from then
    on: ``_check_regenerable`` refuses them), and return their commitments as they stand once
    marked, which is what the answer must show: a regeneration that committed before the mark
    is shown, and none can commit after it."""
    if not deal_ids:
        return {}
    Deal.objects.filter(pk__in=deal_ids, published_at__isnull=True).update(published_at=clock.now())
    return dict(Deal.objects.filter(pk__in=deal_ids).values_list("pk", "commitment"))


def _check_regenerable(deal_: Deal) -> None:
    if deal_.published_at is not None:
        raise ServiceError(
            ErrorCode.INVALID,
            f"The commitment of the deal of {deal_.date.isoformat()} has been published: "
            "the deal never changes.",
        )
    if deal_.date <= clock.today():
        raise ServiceError(
            ErrorCode.INVALID,
            f"The deal of {deal_.date.isoformat()} is not in the future: it may have been "
            "served, so it is never remade.",
        )
    if Game.objects.filter(deal=deal_).exists():
        raise ServiceError(
            ErrorCode.INVALID, f"The deal of {deal_.date.isoformat()} has games: it is kept."
        )


def _regenerable(deal_id: int) -> Deal:
    """Return the deal, if it may be regenerated; raise ``not_found`` or ``invalid``."""
    found = Deal.objects.select_related("variant").filter(pk=deal_id).first()
    if found is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such deal.")
    _check_regenerable(found)
    return found


def deal_request_regeneration(*, deal_id: int) -> Deal:
    """Ask for a deal of a future day that no game is played on to be regenerated: the
    scheduler does it (``deals_regenerate_requested``), since the solver may take minutes and no
    request waits for it. The request's time is the latest asking: a regeneration that began
    before it leaves it pending (the rules may have changed since). Raise as
    ``deal_regenerate`` does."""
    current = _regenerable(deal_id)
    current.regeneration_requested_at = clock.now()
    Deal.objects.filter(pk=deal_id).update(
        regeneration_requested_at=current.regeneration_requested_at
    )
    return current


def deals_regenerate_requested(
    *, seconds: float | None = None
) -> list[tuple[Deal, ServiceError | None]]:
    """Regenerate every deal an admin asked for, oldest request first; return each deal with
    the refusal that ended its request (it got games, or its day began), or None when remade.
    Either way its request is cleared, unless it was asked again meanwhile."""
    done: list[tuple[Deal, ServiceError | None]] = []
    pending = Deal.objects.filter(regeneration_requested_at__isnull=False)
    for deal_id in list(pending.order_by("regeneration_requested_at").values_list("pk", flat=True)):
        try:
            done.append((deal_regenerate(deal_id=deal_id, seconds=seconds), None))
        except ServiceError as refusal:
            # A refusal does not depend on the rules: a request made since is refused too.
            Deal.objects.filter(pk=deal_id).update(regeneration_requested_at=None)
            refused = Deal.objects.select_related("variant").filter(pk=deal_id).first()
            if refused is not None:
                done.append((refused, refusal))
    return done


def deal_regenerate(*, deal_id: int, seconds: float | None = None) -> Deal:
    """Remake a deal of a future day that no game is played on, by its variant's current rules.

    The attempts of docs/deals.md are tried again from 0 (the seeds of a day never change; the rules
    dealing them may have), with the certification of ``deal_prepare``, and a pending request
    to regenerate it is cleared. Raise ``invalid`` for a deal of today or the past, or one with
    games; ``not_found`` if there is no such deal. The solver may run for minutes: the scheduler
    calls it (``deals_regenerate_requested``), never a request.
    """
    started = clock.now()
    current = _regenerable(deal_id)
    fields = _certify(current.variant, current.date, seconds)
    with transaction.atomic():
        locked = Deal.objects.select_for_update().select_related("variant").get(pk=deal_id)
        _check_regenerable(locked)  # again: the day may have begun while the solver ran
        seed = daily_seed(
            _deal_secret(), locked.variant.slug, locked.date.isoformat(), fields["attempt"]
        )
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.seed = seed.hex()
        locked.commitment = commitment(seed)
        locked.rules = current.variant.rules  # the rules the solver certified
        asked = locked.regeneration_requested_at
        if asked is not None and asked <= started:  # not asked again while the solver ran
            locked.regeneration_requested_at = None
        locked.save(
            update_fields=[*fields, "seed", "commitment", "rules", "regeneration_requested_at"]
        )
    return locked


def daily_deals(*, date: dt.date | None = None) -> list[tuple[Deal, Deal | None]]:
    """Return, per enabled daily variant, its deal of ``date`` (default today, made on demand)
    and the next day's if it is made yet: its commitment is published a day ahead."""
    day = date or clock.today()
    return [
        (
            deal_get_or_create(variant=variant, date=day),
            _existing(variant, day + dt.timedelta(days=1)),
        )
        for variant in Variant.objects.filter(enabled=True, daily=True)
    ]


def deals_prepare(
    *, days: int, start: dt.date | None = None, seconds: float | None = None
) -> Iterator[Deal]:
    """Make (certifying them) the deals of every daily variant for ``days`` days from ``start``
    (default today), yielding each as it is ready."""
    first = start or clock.today()
    for offset in range(days):
        for variant in Variant.objects.filter(enabled=True, daily=True):
            date = first + dt.timedelta(days=offset)
            yield deal_prepare(variant=variant, date=date, seconds=seconds)


def deal_rate(*, deal_: Deal, seconds: float | None = None) -> Deal:
    """Rate a certified deal again by its variant's current calibration. A deal made before its
    effort was kept is solved again for it (its line and seed never change; the solver has
    ``DEAL_ATTEMPTS`` × ``seconds``, as ``deal_check``); one the solver does not win again in
    that time keeps its difficulty. Return the deal as it is then."""
    if not deal_.certified:
        return deal_
    effort = deal_.effort
    if effort is None:
        budget = (settings.DEAL_CERTIFY_SECONDS if seconds is None else seconds) * max(
            1, settings.DEAL_ATTEMPTS
        )
        result = solve(
            deal(compiled(deal_.rules), parse_seed(deal_.seed)),
            budget_seconds=budget,
            clock=time.monotonic,
        )
        if result.outcome != "won":
            return deal_
        effort = result.nodes
    rated = rated_difficulty(deal_.variant.slug, effort)
    Deal.objects.filter(pk=deal_.pk).update(effort=effort, difficulty=rated)
    deal_.effort, deal_.difficulty = effort, rated
    return deal_


def deals_rate(*, seconds: float | None = None) -> Iterator[Deal]:
    """Rate again every certified deal of today and later (``deal_rate``), yielding each: run
    after a new calibration. A past day's difficulty stays as it was published."""
    coming = Deal.objects.filter(date__gte=clock.today(), certified=True)
    for found in list(coming.select_related("variant").order_by("date", "variant__slug")):
        yield deal_rate(deal_=found, seconds=seconds)
