"""The admin page of players: their games, bans and results."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.admin.moderation import ModerationActions, ReasonForm, ask_reason
from games.models import ApiToken, Player
from games.services import moderation


@admin.register(Player)
class PlayerAdmin(ModerationActions, admin.ModelAdmin):
    """List, search and edit players; passwords are never shown. Moderators ban a player from
    the daily challenges (with a reason, logged) and lift a ban."""

    list_display = ("nickname", "is_guest", "is_staff", "is_active", "banned_at", "date_joined")
    list_filter = (
        "is_guest",
        "is_staff",
        "is_active",
        ("banned_at", admin.EmptyFieldListFilter),
        ("deleted_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("nickname",)
    ordering = ("nickname",)
    readonly_fields = ("date_joined", "last_login", "banned_at", "ban_reason", "deleted_at")
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
        "deleted_at",
    )
    filter_horizontal = ("groups", "user_permissions")

    @admin.action(
        description=gettext_lazy("Ban the selected players from the dailies"),
        permissions=["moderate"],
    )
    def ban_players(self, request: HttpRequest, queryset: QuerySet[Player]) -> Any:
        """Ask the reason, then ban each player (their results leave every board)."""
        reason = ask_reason(
            request,
            help_text=_(
                "Required; at most %(limit)d characters. Logged, and shown on the player's "
                "page of this admin; the player is not shown it."
            ),
        )
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
                ngettext("%(count)d player banned.", "%(count)d players banned.", count)
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
                ngettext("%(count)d ban lifted.", "%(count)d bans lifted.", count)
                % {"count": count}
            ),
        )


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """The players' API tokens: when each was made, expires and was last used; never a secret
    (only its hash is stored). Deleting one revokes it."""

    list_display = ("player", "created_at", "expires_at", "last_used_at")
    list_select_related = ("player",)
    search_fields = ("player__nickname",)
    ordering = ("-created_at",)
    fields = ("player", "created_at", "expires_at", "last_used_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
