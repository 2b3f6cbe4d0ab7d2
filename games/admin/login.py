"""The admin login page, throttled: repeated failures lock the account and the address out
(``games.services.adminlogin``), and the page says so and for how long."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.utils.translation import ngettext
from rest_framework.throttling import BaseThrottle

from games.services import adminlogin


def client_address(request: Any) -> str:
    """Return the client's address as the API's rate limits read it (``NUM_PROXIES``)."""
    return str(BaseThrottle().get_ident(request))[:64]


def _refusal(lockout: adminlogin.Lockout) -> forms.ValidationError:
    if lockout.scope == "account":
        sentence = ngettext(
            "Too many failed sign-ins for this account: it is locked for %(minutes)d more "
            "minute. Try again then.",
            "Too many failed sign-ins for this account: it is locked for %(minutes)d more "
            "minutes. Try again then.",
            lockout.minutes,
        )
    else:
        sentence = ngettext(
            "Too many failed sign-ins from your address: it is locked for %(minutes)d more "
            "minute. Try again then.",
            "Too many failed sign-ins from your address: it is locked for %(minutes)d more "
            "minutes. Try again then.",
            lockout.minutes,
        )
    return forms.ValidationError(sentence % {"minutes": lockout.minutes}, code="locked")


class LockoutAdminLoginForm(AdminAuthenticationForm):
    """Refuse a locked account or address before checking the password; count each failure."""

    def clean(self) -> dict[str, Any]:
        nickname = self.cleaned_data.get("username")
        address = client_address(self.request)
        lockout = adminlogin.admin_login_lockout(nickname=nickname, address=address)
        if lockout is not None:
            raise _refusal(lockout)
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            started = adminlogin.admin_login_failed(nickname=nickname, address=address)
            if started is not None:
                raise _refusal(started) from None
            raise
        adminlogin.admin_login_succeeded(nickname=nickname)
        return cleaned


admin.site.login_form = LockoutAdminLoginForm
