"""The admin pages of games, their sealed results and the games refused at verification."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.admin.moderation import ModerationActions, ReasonForm, ask_reason
from games.models import Game, Result, VerificationFailure
from games.services import moderation
from games.verification.seals import seal_is_valid


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

    @admin.display(boolean=True, description=gettext_lazy("Voided"))
    def voided(self, game: Game) -> bool:
        return bool(game.void_reason)

    @admin.action(
        description=gettext_lazy("Re-verify the selected games (replay them)"),
        permissions=["moderate"],
    )
    def reverify(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        """Replay each game's sealed log again; report and log OK or the failure."""
        for game in queryset:
            outcome = moderation.game_reverify(game=game)
            # ``text`` is stored in the log, a record read later by anyone: it stays in English;
            # the moderator is told in their own language.
            facts = {"id": game.pk, "reason": outcome.reason, "detail": outcome.detail}
            if outcome.ok:
                text = "Re-verified: OK."
                said = _("Game %(id)s: Re-verified: OK.") % facts
            else:
                text = f"Re-verification failed ({outcome.reason}): {outcome.detail}."
                said = _("Game %(id)s: Re-verification failed (%(reason)s): %(detail)s.") % facts
                if outcome.still_ranks:
                    text += " Its result still holds its seal: void it to take it off the board."
                    said = (
                        _(
                            "Game %(id)s: Re-verification failed (%(reason)s): %(detail)s. Its "
                            "result still holds its seal: void it to take it off the board."
                        )
                        % facts
                    )
            self.message_user(request, said, messages.SUCCESS if outcome.ok else messages.ERROR)
            self.log_change(request, game, text)

    @admin.action(
        description=gettext_lazy("Void the results of the selected games"),
        permissions=["moderate"],
    )
    def void_results(self, request: HttpRequest, queryset: QuerySet[Game]) -> Any:
        """Ask the reason, then void each game's result (it leaves its board and stats)."""
        reason = ask_reason(
            request,
            help_text=_("Required; at most %(limit)d characters. Logged, and shown on the game."),
        )
        if isinstance(reason, ReasonForm):
            return self.reason_page(
                request,
                queryset,
                reason,
                action="void_results",
                title=_("Void results"),
                explanation=_(
                    "Each result leaves its day's board and its player's stats; the reason is "
                    "logged and shown on the game. Games without a result are skipped."
                ),
                submit=_("Void"),
                named=lambda game: (
                    _("Game %(id)s of %(player)s")
                    % {
                        "id": game.pk,
                        "player": game.player,
                    }
                ),
            )
        with_result = Result.objects.filter(game__in=queryset).select_related("game")
        found = {result.game_id: result for result in with_result}
        for game in queryset:
            if game.pk not in found:
                self.message_user(
                    request,
                    _("Game %(id)s has no result: skipped.") % {"id": game.pk},
                    messages.WARNING,
                )
        self.moderate(
            request,
            [found[pk] for pk in sorted(found)],
            lambda result: moderation.result_void(result=result, reason=reason, by=request.user),
            # The log is a record read later by anyone: it stays in English.
            message=f"Result voided: {reason}",
            done=lambda count: (
                ngettext("%(count)d result voided.", "%(count)d results voided.", count)
                % {"count": count}
            ),
            logged=lambda result: result.game,
            named=lambda result: _("result of game %(id)s") % {"id": result.game_id},
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

    @admin.display(boolean=True, description=gettext_lazy("Seal holds"))
    def sealed(self, result: Result) -> bool:
        return seal_is_valid(result)


@admin.register(VerificationFailure)
class VerificationFailureAdmin(ReadOnlyAdmin):
    """Finished games that failed verification and were kept off the leaderboards."""

    list_display = ("game", "reason", "detail", "at")
    list_filter = ("reason",)
    search_fields = ("game__id", "game__player__nickname")
    readonly_fields = ("game", "reason", "detail", "at")
