"""Admin pages of the games app."""

import datetime as dt
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from core.errors import ServiceError
from games.admin.catalogue import PREVIEW_SEED_TEXT, VariantAdminForm, preview
from games.admin.moderation import ModerationActions, ReasonForm, ask_reason
from games.models import Deal, Game, Player, Result, Variant, VerificationFailure
from games.payloads import day_is_over
from games.services import deal_request_regeneration, moderation
from games.verification.seals import seal_is_valid

REGENERATE_LIMIT = 10
"""Most deals one "Regenerate" action remakes (the solver certifies each in turn)."""


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

    @admin.action(
        description=gettext_lazy("Ban the selected players from the dailies"),
        permissions=["moderate"],
    )
    def ban_players(self, request: HttpRequest, queryset: QuerySet[Player]) -> Any:
        """Ask the reason, then ban each player (their results leave every board)."""
        reason = ask_reason(request)
        if isinstance(reason, ReasonForm):
            return self.reason_page(
                request,
                queryset,
                reason,
                action="ban_players",
                title=_("Ban players"),
                explanation=_(
                    "Their results leave every board and they can no longer play "
                    "dailies; they may still log in and practise. The reason is logged."
                ),
                submit=_("Ban"),
            )
        self.moderate(
            request,
            queryset,
            lambda player: moderation.player_ban(player=player, reason=reason, by=request.user),
            # The log is a record read later by anyone: it stays in English.
            message=f"Banned from the dailies: {reason}",
            done=lambda count: (
                ngettext("%(count)d player(s) banned.", "%(count)d player(s) banned.", count)
                % {"count": count}
            ),
        )
        return None

    @admin.action(
        description=gettext_lazy("Lift the ban of the selected players"),
        permissions=["moderate"],
    )
    def unban_players(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        """Lift each player's ban (their sealed results rank again)."""
        self.moderate(
            request,
            queryset,
            lambda player: moderation.player_unban(player=player),
            message="Ban lifted.",  # the log stays in English
            done=lambda count: (
                ngettext("%(count)d ban(s) lifted.", "%(count)d ban(s) lifted.", count)
                % {"count": count}
            ),
        )


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    """Run the catalogue: offer variants, make them daily, edit and copy their rules documents.

    A rules document is validated by the engine on save (the error names the bad field). Deals
    already made keep the rules they were dealt with, and games the rules they started with, so
    an edit applies from the next deal and the next game on. "Copy" opens the add form filled
    from an existing variant; "Preview" draws the opening deal of any seed text.
    """

    form = VariantAdminForm
    list_display = ("name", "slug", "enabled", "daily", "display_order", "decks", "updated_at")
    list_editable = ("enabled", "daily", "display_order")
    list_filter = ("enabled", "daily")
    search_fields = ("slug", "name")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("opening_layout", "created_at", "updated_at")
    fields = (
        "name",
        "slug",
        "description",
        "translations",
        "enabled",
        "daily",
        "display_order",
        "rules",
        "opening_layout",
        "created_at",
        "updated_at",
    )
    actions = ("offer", "withdraw", "copy")

    class Media:
        css = {"all": ("games/layout.css", "games/admin.css")}

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        return [
            path("preview/", view(self.preview_view), name="games_variant_preview"),
            path(
                "<path:object_id>/preview/",
                view(self.preview_view),
                name="games_variant_preview_saved",
            ),
            *super().get_urls(),
        ]

    @admin.display(
        description=gettext_lazy("Opening deal (seed text “sample”, face-down cards face up)")
    )
    def opening_layout(self, variant: Variant) -> str:
        """Draw the deal these rules make from a fixed seed, to check an edit at a glance."""
        if not variant.pk:
            return _("Save the variant, or use Preview below, to see its opening deal.")
        shown = preview(variant.rules, PREVIEW_SEED_TEXT)
        if shown.picture is None:
            return shown.error
        return render_to_string("games/layout_picture.html", {"picture": shown.picture})

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """Fill the add form from the variant named by ``?copy_from=<id>``, but for its name
        and slug, which the copy must have of its own; the copy starts with no daily deal."""
        initial = super().get_changeform_initial_data(request)
        source = self._copy_source(request)
        if source is not None:
            initial.update(
                description=source.description,
                rules=source.rules,
                enabled=True,
                daily=False,
                display_order=source.display_order,
            )
        return initial

    def _copy_source(self, request: HttpRequest) -> Variant | None:
        source_id = request.GET.get("copy_from", "")
        if not source_id.isdigit() or len(source_id) > 18:
            return None
        source = Variant.objects.filter(pk=int(source_id)).first()
        if source is None or not self.has_view_permission(request, source):
            return None
        return source

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        source = self._copy_source(request)
        if source is not None:
            extra_context = {**(extra_context or {}), "copy_source": source}
        elif request.GET.get("copy_from"):
            self.message_user(request, _("There is no variant to copy by that id."), messages.ERROR)
        return super().add_view(request, form_url, extra_context)

    def log_addition(self, request: HttpRequest, obj: Any, message: Any) -> LogEntry:
        source = self._copy_source(request)
        if source is not None:
            # The log is a record read later by anyone: it stays in English.
            message = f"Added as a copy of {source.name} ({source.slug})."
        return super().log_addition(request, obj, message)

    def preview_view(self, request: HttpRequest, object_id: str | None = None) -> HttpResponse:
        """Draw the opening deal of a seed text: for the saved rules of a variant (GET), or for
        the rules posted by the change or add form, saved or not (POST)."""
        variant = None
        if object_id is not None:
            variant = self.get_object(request, object_id)
            if variant is None:
                return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_view_permission(request, variant):
            raise PermissionDenied
        if request.method == "POST":
            rules_text = request.POST.get("rules", "")
            seed_text = request.POST.get("preview_seed", PREVIEW_SEED_TEXT)
            shown = preview(rules_text, seed_text)
        elif variant is not None:
            rules_text = ""
            seed_text = request.GET.get("seed", PREVIEW_SEED_TEXT)
            shown = preview(variant.rules, seed_text)
        else:
            return HttpResponseRedirect(reverse("admin:games_variant_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Opening deal of the edited rules")
            if request.method == "POST"
            else _("Opening deal of %(name)s") % {"name": variant.name},
            "variant": variant,
            "saved": request.method != "POST",
            "preview": shown,
            "rules_text": rules_text,
            "media": self.media,
        }
        return TemplateResponse(request, "admin/games/variant/preview.html", context)

    @admin.action(description=gettext_lazy("Offer the selected variants (enable)"))
    def offer(self, request: HttpRequest, queryset: QuerySet[Variant]) -> None:
        self._switch(request, queryset, enabled=True, words="Offered (enabled)")

    @admin.action(description=gettext_lazy("Withdraw the selected variants (disable)"))
    def withdraw(self, request: HttpRequest, queryset: QuerySet[Variant]) -> None:
        self._switch(request, queryset, enabled=False, words="Withdrawn (disabled)")

    def _switch(
        self, request: HttpRequest, queryset: QuerySet[Variant], *, enabled: bool, words: str
    ) -> None:
        changed = list(queryset.exclude(enabled=enabled))
        Variant.objects.filter(pk__in=[v.pk for v in changed]).update(enabled=enabled)
        if changed:
            # ``words`` and this message are stored in the log: they stay in English.
            LogEntry.objects.log_actions(
                user_id=request.user.pk,
                queryset=changed,
                action_flag=CHANGE,
                change_message=f"{words} by the admin action.",
            )
        if enabled:
            text = ngettext(
                "%(count)d variant offered.", "%(count)d variants offered.", len(changed)
            )
        else:
            text = ngettext(
                "%(count)d variant withdrawn.", "%(count)d variants withdrawn.", len(changed)
            )
        self.message_user(request, text % {"count": len(changed)})

    @admin.action(description=gettext_lazy("Copy the selected variant into a new one"))
    def copy(self, request: HttpRequest, queryset: QuerySet[Variant]) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(request, _("Select exactly one variant to copy."), messages.ERROR)
            return None
        url = reverse("admin:games_variant_add")
        return HttpResponseRedirect(f"{url}?copy_from={queryset.get().pk}")


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    """Look at the daily deals, and remake deals of future days nobody has played.

    Deals are made by the service and never edited. A seed and a par show only once their day
    is over, even to superusers, so no admin can peek at a deal in play; the solver's line never
    shows. "Regenerate" remakes unplayed deals of future days by their variant's current rules.
    """

    list_display = (
        "date",
        "variant",
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
        "rules",
        "created_at",
    )
    readonly_fields = fields
    actions = ("regenerate",)

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
        reason = ask_reason(request)
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
                ngettext("%(count)d result(s) voided.", "%(count)d result(s) voided.", count)
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
