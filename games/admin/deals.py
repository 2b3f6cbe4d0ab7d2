"""The admin page of daily deals: their certification, attempts and regeneration."""

import datetime as dt
from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from core.errors import ServiceError
from games.models import Deal, Game
from games.payloads import day_is_over
from games.services import deal_request_regeneration

REGENERATE_LIMIT = 10
"""Most deals one "Regenerate" action remakes (the solver certifies each in turn)."""

SHOWN_HEX = 12
"""How many hex digits of a commitment or seed the list shows (the whole is its tooltip)."""


def _short_hex(text: str) -> str:
    """Return the start of a hex text as the list shows it, the whole text as its tooltip."""
    if len(text) <= SHOWN_HEX:
        return format_html("<code>{}</code>", text)
    return format_html('<code title="{}">{}…</code>', text, text[:SHOWN_HEX])


def _secret_in_list(word: str, sentence: str) -> str:
    """Return the list's one word for a secret, the whole sentence as its tooltip."""
    return format_html('<span title="{}">{}</span>', sentence, word)


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    """Look at the daily deals, and remake deals of future days nobody has played.

    Deals are made by the service and never edited. A seed and a par show only once their day
    is over, even to superusers, so no admin can peek at a deal in play; the solver's line never
    shows. "Regenerate" remakes unplayed deals of future days by their variant's current rules.
    """

    # One line a deal: the commitment and a revealed seed are cut to their first hex digits,
    # a secret is one word (each whole in its tooltip), and games/admin.css keeps cells unwrapped.
    list_display = (
        "date",
        "variant",
        "attempt",
        "certified",
        "difficulty",
        "listed_par",
        "players",
        "finished",
        "results_count",
        "listed_commitment",
        "listed_seed",
        "regeneration",
    )
    list_filter = ("variant", "certified", "date")
    list_select_related = ("variant",)
    date_hierarchy = "date"
    fields = (
        "variant",
        "date",
        "attempt",
        "certified",
        "difficulty",
        "revealed_par",
        "players",
        "finished",
        "results_count",
        "commitment",
        "revealed_seed",
        "regeneration",
        "published_at",
        "rules",
        "created_at",
    )
    readonly_fields = fields
    actions = ("regenerate",)

    class Media:
        css = {"all": ("games/admin.css",)}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Deal]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                players_count=Count("games"),
                finished_count=Count("games", filter=~Q(games__status=Game.Status.PLAYING)),
            )
        )

    @admin.display(description=gettext_lazy("Seed"))
    def revealed_seed(self, deal_: Deal) -> str:
        if day_is_over(deal_.date):
            return deal_.seed
        return pgettext("the seed of a deal", "secret until the day is over")

    @admin.display(description=gettext_lazy("Par"))
    def revealed_par(self, deal_: Deal) -> str:
        if not day_is_over(deal_.date):
            return pgettext("the par of a deal", "secret until the day is over")
        return str(deal_.par) if deal_.par is not None else "-"

    @admin.display(description=gettext_lazy("Seed"))
    def listed_seed(self, deal_: Deal) -> str:
        if day_is_over(deal_.date):
            return _short_hex(deal_.seed)
        return _secret_in_list(
            pgettext("the seed of a deal, in the list", "secret"),
            pgettext("the seed of a deal", "secret until the day is over"),
        )

    @admin.display(description=gettext_lazy("Par"))
    def listed_par(self, deal_: Deal) -> str:
        if not day_is_over(deal_.date):
            return _secret_in_list(
                pgettext("the par of a deal, in the list", "secret"),
                pgettext("the par of a deal", "secret until the day is over"),
            )
        return self.revealed_par(deal_)

    @admin.display(description=gettext_lazy("Commitment"))
    def listed_commitment(self, deal_: Deal) -> str:
        return _short_hex(deal_.commitment)

    @admin.display(description=gettext_lazy("Regeneration"))
    def regeneration(self, deal_: Deal) -> str:
        """Say whether a regeneration asked for is waiting for the scheduler."""
        if deal_.regeneration_requested_at is None:
            return "-"
        return _("pending since %(time)s UTC") % {
            "time": deal_.regeneration_requested_at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")
        }

    @admin.display(description=gettext_lazy("Players"), ordering="players_count")
    def players(self, deal_: Deal) -> int:
        """Return how many games were started on the deal."""
        return deal_.players_count  # type: ignore[attr-defined]

    @admin.display(description=gettext_lazy("Finished"), ordering="finished_count")
    def finished(self, deal_: Deal) -> int:
        """Return how many games of the deal are over (won, resigned or closed)."""
        return deal_.finished_count  # type: ignore[attr-defined]

    @admin.action(
        description=gettext_lazy(
            "Regenerate the selected deals of future days (unplayed) by current rules"
        ),
        permissions=["regenerate"],
    )
    def regenerate(self, request: HttpRequest, queryset: QuerySet[Deal]) -> None:
        if queryset.count() > REGENERATE_LIMIT:
            self.message_user(
                request,
                _("Regenerate at most %(limit)d deals at a time: each may take the solver a while.")
                % {"limit": REGENERATE_LIMIT},
                messages.ERROR,
            )
            return
        for deal_id in list(queryset.order_by("date").values_list("pk", flat=True)):
            # Asked only: the scheduler runs the solver (regeneratedeals), never this request.
            try:
                asked = deal_request_regeneration(deal_id=deal_id)
            except ServiceError as error:
                self.message_user(
                    request, _("Not regenerated: %(why)s") % {"why": error.detail}, messages.ERROR
                )
                continue
            # The log is a record read later by anyone: it stays in English.
            self.log_change(request, asked, "Regeneration by the current rules requested.")
            self.message_user(
                request,
                _(
                    "%(deal)s will be regenerated by the scheduler within a minute or so (the "
                    "solver certifies it); its attempt and certification show here once it is."
                )
                % {"deal": asked},
            )

    def has_regenerate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(f"{self.opts.app_label}.change_deal")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a deal may have been served: it is never removed
