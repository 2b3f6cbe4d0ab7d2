"""Admin pages of the games app."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from games.engine import RulesError, deal, practice_seed, render
from games.models import Deal, Game, Player, Result, Variant, VerificationFailure
from games.payloads import day_is_over
from games.rulesets import compiled
from games.verification import seal_is_valid


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """List, search and edit players; passwords are never shown."""

    list_display = ("nickname", "is_guest", "is_staff", "is_active", "date_joined")
    list_filter = ("is_guest", "is_staff", "is_active")
    search_fields = ("nickname",)
    ordering = ("nickname",)
    readonly_fields = ("date_joined", "last_login")
    fields = (
        "nickname",
        "is_guest",
        "is_active",
        "is_staff",
        "is_superuser",
        "groups",
        "user_permissions",
        "date_joined",
        "last_login",
    )
    filter_horizontal = ("groups", "user_permissions")


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    """Run the catalogue: offer variants, make them daily, edit their rules documents.

    A rules document is validated by the engine on save (the error names the bad field). Deals
    already made keep the rules they were dealt with, so an edit applies from the next deal on.
    """

    list_display = ("name", "slug", "enabled", "daily", "display_order", "decks", "updated_at")
    list_editable = ("enabled", "daily", "display_order")
    list_filter = ("enabled", "daily")
    search_fields = ("slug", "name")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("sample_deal", "created_at", "updated_at")
    fields = (
        "name",
        "slug",
        "description",
        "translations",
        "enabled",
        "daily",
        "display_order",
        "rules",
        "sample_deal",
        "created_at",
        "updated_at",
    )
    actions = ("offer", "withdraw")

    @admin.display(description="Sample deal (seed text 'sample')")
    def sample_deal(self, variant: Variant) -> str:
        """Show the deal these rules make from a fixed seed, to check an edit at a glance."""
        if not variant.pk:
            return "Save the variant to see a sample deal."
        try:
            state = deal(compiled(variant.rules), practice_seed("sample"))
        except (RulesError, TypeError, ValueError) as error:
            return f"The rules do not compile: {error}"
        return format_html("<pre>{}</pre>", render(state))

    @admin.action(description="Offer the selected variants (enable)")
    def offer(self, request: HttpRequest, queryset: QuerySet[Variant]) -> None:
        count = queryset.update(enabled=True)
        self.message_user(request, f"{count} variant(s) offered.")

    @admin.action(description="Withdraw the selected variants (disable)")
    def withdraw(self, request: HttpRequest, queryset: QuerySet[Variant]) -> None:
        count = queryset.update(enabled=False)
        self.message_user(request, f"{count} variant(s) withdrawn.")


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    """Look at the daily deals. They are made by the service and never edited; a seed shows only
    once its day is over, so no admin can peek at a deal in play."""

    list_display = (
        "date",
        "variant",
        "attempt",
        "certified",
        "difficulty",
        "revealed_par",
        "results_count",
        "commitment",
        "revealed_seed",
    )
    list_filter = ("variant", "certified", "date")
    date_hierarchy = "date"
    fields = (
        "variant",
        "date",
        "attempt",
        "certified",
        "difficulty",
        "revealed_par",
        "results_count",
        "commitment",
        "revealed_seed",
        "rules",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="Seed")
    def revealed_seed(self, deal_: Deal) -> str:
        return deal_.seed if day_is_over(deal_.date) else "secret until the day is over"

    @admin.display(description="Par")
    def revealed_par(self, deal_: Deal) -> str:
        if not day_is_over(deal_.date):
            return "secret until the day is over"
        return str(deal_.par) if deal_.par is not None else "-"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    """Look at games: read-only, since a game changes only through its moves."""

    list_display = (
        "id",
        "player",
        "variant",
        "mode",
        "deal",
        "status",
        "ply",
        "foundation_cards",
        "verified",
        "started_at",
    )
    list_filter = ("mode", "status", "verified", "variant")
    search_fields = ("id", "player__nickname")
    list_select_related = ("player", "variant", "deal")
    exclude = ("seed", "state", "rules")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in Game._meta.fields if f.name not in self.exclude]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.method in ("GET", "HEAD") and super().has_change_permission(request, obj)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written only by verification: to look at, never to edit."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.method in ("GET", "HEAD") and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Result)
class ResultAdmin(ReadOnlyAdmin):
    """Verified daily results, with whether each still carries the server's seal."""

    list_display = (
        "game",
        "player",
        "deal",
        "status",
        "foundation_cards",
        "moves",
        "duration_ms",
        "assisted",
        "sealed",
        "verified_at",
    )
    list_filter = ("status", "assisted", "deal__variant")
    search_fields = ("game__id", "player__nickname")
    list_select_related = ("player", "deal__variant")
    readonly_fields = (
        "game",
        "deal",
        "player",
        "status",
        "foundation_cards",
        "moves",
        "duration_ms",
        "finished_at",
        "assisted",
        "sealed",
        "verified_at",
    )
    exclude = ("seal",)

    @admin.display(boolean=True, description="Seal holds")
    def sealed(self, result: Result) -> bool:
        return seal_is_valid(result)


@admin.register(VerificationFailure)
class VerificationFailureAdmin(ReadOnlyAdmin):
    """Finished games that failed verification and were kept off the leaderboards."""

    list_display = ("game", "reason", "detail", "at")
    list_filter = ("reason",)
    search_fields = ("game__id", "game__player__nickname")
    readonly_fields = ("game", "reason", "detail", "at")
