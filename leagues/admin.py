"""The admin page of leagues: moderators rename a league (its name under the nickname rule) or
close it; each change is logged (a ``LogEntry``, in English)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy, ngettext

from leagues import services
from leagues.models import League, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    fields = ("player", "joined_at")
    readonly_fields = ("player", "joined_at")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: League | None = None) -> bool:
        return False


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    """List, search and rename leagues; close them (their members lose their boards)."""

    list_display = ("name", "owner", "created_at", "closed_at")
    list_filter = (("closed_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "owner__nickname")
    fields = ("name", "description", "owner", "code", "created_at", "closed_at")
    readonly_fields = ("owner", "code", "created_at", "closed_at")
    inlines = (MembershipInline,)
    actions = ("close_leagues",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a league is made by a player

    def has_delete_permission(self, request: HttpRequest, obj: League | None = None) -> bool:
        return False  # closed, never deleted: its record stays

    @admin.action(description=gettext_lazy("Close the selected leagues"), permissions=["change"])
    def close_leagues(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        closed = 0
        for league in queryset.filter(closed_at__isnull=True):
            services.league_close(league=league)
            self.log_change(request, league, "Closed by a moderator.")  # the log stays English
            closed += 1
        self.message_user(
            request,
            ngettext("%(count)d league closed.", "%(count)d leagues closed.", closed)
            % {"count": closed},
            messages.SUCCESS,
        )
