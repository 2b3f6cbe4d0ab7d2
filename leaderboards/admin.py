"""Admin of the leaderboards app: players' stats and results kept off the boards (read-only)."""

from django.contrib import admin

from leaderboards.models import PlayerVariantStats, UnrankedResult


@admin.register(PlayerVariantStats)
class PlayerVariantStatsAdmin(admin.ModelAdmin):
    list_display = ("player", "variant", "played", "won", "best_win_run", "last_date")
    list_filter = ("variant",)
    search_fields = ("player__nickname",)
    list_select_related = ("player", "variant")
    readonly_fields = [field.name for field in PlayerVariantStats._meta.fields]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(UnrankedResult)
class UnrankedResultAdmin(admin.ModelAdmin):
    list_display = ("game_id", "deal_id", "noticed_at")
    readonly_fields = ("game_id", "deal_id", "noticed_at")

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False
