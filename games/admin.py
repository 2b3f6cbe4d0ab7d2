"""Admin pages of the games app."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from games.admin_moderation import ModerationActions, ReasonForm, ask_reason
from games.engine import RulesError, deal, practice_seed, render
from games.models import Deal, Game, Player, Result, Variant, VerificationFailure
from games.payloads import day_is_over
from games.rulesets import compiled
from games.services import moderation
from games.verification import seal_is_valid


@admin.register(Player)
class PlayerAdmin(ModerationActions, admin.ModelAdmin):
    """List, search and edit players; passwords are never shown. Moderators ban a player from
    the daily challenges (with a reason, logged) and lift a ban."""

    list_display = ("nickname", "is_guest", "is_staff", "is_active", "banned_at", "date_joined")
    list_filter = ("is_guest", "is_staff", "is_active", ("banned_at", admin.EmptyFieldListFilter))
    search_fields = ("nickname",)
    ordering = ("nickname",)
    readonly_fields = ("date_joined", "last_login", "banned_at", "ban_reason")
    actions = ("ban_players", "unban_players")
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
        "banned_at",
        "ban_reason",
    )
    filter_horizontal = ("groups", "user_permissions")

    @admin.action(description="Ban the selected players from the dailies", permissions=["moderate"])
    def ban_players(self, request: HttpRequest, queryset: QuerySet[Player]) -> Any:
        """Ask the reason, then ban each player (their results leave every board)."""
        reason = ask_reason(request)
        if isinstance(reason, ReasonForm):
            return self.reason_page(
                request,
                queryset,
                reason,
                action="ban_players",
                title="Ban players",
                explanation="Their results leave every board and they can no longer play "
                "dailies; they may still log in and practise. The reason is logged.",
                submit="Ban",
            )
        self.moderate(
            request,
            queryset,
            lambda player: moderation.player_ban(player=player, reason=reason, by=request.user),
            message=f"Banned from the dailies: {reason}",
            done="{count} player(s) banned.",
        )
        return None

    @admin.action(description="Lift the ban of the selected players", permissions=["moderate"])
    def unban_players(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        """Lift each player's ban (their sealed results rank again)."""
        self.moderate(
            request,
            queryset,
            lambda player: moderation.player_unban(player=player),
            message="Ban lifted.",
            done="{count} ban(s) lifted.",
        )


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
class GameAdmin(ModerationActions, admin.ModelAdmin):
    """Look at games (read-only: a game changes only through its moves) and moderate them:
    replay a game again, void its result with a reason. The seed, position and rules of a game
    are never shown (a daily game's would give away its deal while the day is on)."""

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
        "assisted",
        "voided",
        "started_at",
    )
    list_filter = (
        "variant",
        ("deal__date", admin.DateFieldListFilter),
        "status",
        "verified",
        "assisted",
        "mode",
    )
    date_hierarchy = "deal__date"
    search_fields = ("id", "player__nickname")
    list_select_related = ("player", "variant", "deal")
    exclude = ("seed", "state", "rules")
    actions = ("reverify", "void_results")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in Game._meta.fields if f.name not in self.exclude]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.method in ("GET", "HEAD") and super().has_change_permission(request, obj)

    @admin.display(boolean=True, description="Voided")
    def voided(self, game: Game) -> bool:
        return bool(game.void_reason)

    @admin.action(
        description="Re-verify the selected games (replay them)", permissions=["moderate"]
    )
    def reverify(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        """Replay each game's sealed log again; report and log OK or the failure."""
        for game in queryset:
            outcome = moderation.game_reverify(game=game)
            if outcome.ok:
                text = "Re-verified: OK."
                self.message_user(request, f"Game {game.pk}: {text}", messages.SUCCESS)
            else:
                text = f"Re-verification failed ({outcome.reason}): {outcome.detail}."
                if outcome.still_ranks:
                    text += " Its result still holds its seal: void it to take it off the board."
                self.message_user(request, f"Game {game.pk}: {text}", messages.ERROR)
            self.log_change(request, game, text)

    @admin.action(description="Void the results of the selected games", permissions=["moderate"])
    def void_results(self, request: HttpRequest, queryset: QuerySet[Game]) -> Any:
        """Ask the reason, then void each game's result (it leaves its board and stats)."""
        reason = ask_reason(request)
        if isinstance(reason, ReasonForm):
            return self.reason_page(
                request,
                queryset,
                reason,
                action="void_results",
                title="Void results",
                explanation="Each result leaves its day's board and its player's stats; the "
                "reason is logged and shown on the game. Games without a result are skipped.",
                submit="Void",
            )
        with_result = Result.objects.filter(game__in=queryset).select_related("game")
        found = {result.game_id: result for result in with_result}
        for game in queryset:
            if game.pk not in found:
                self.message_user(
                    request, f"Game {game.pk} has no result: skipped.", messages.WARNING
                )
        self.moderate(
            request,
            [found[pk] for pk in sorted(found)],
            lambda result: moderation.result_void(result=result, reason=reason, by=request.user),
            message=f"Result voided: {reason}",
            done="{count} result(s) voided.",
            logged=lambda result: result.game,
        )
        return None


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
        "voided_at",
        "verified_at",
    )
    list_filter = (
        "status",
        "assisted",
        "deal__variant",
        ("voided_at", admin.EmptyFieldListFilter),
    )
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
        "voided_at",
        "void_reason",
        "voided_by",
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
