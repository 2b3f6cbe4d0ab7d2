"""Admin pages of the games app."""

from django.contrib import admin

from games.models import Player


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
