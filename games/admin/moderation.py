"""What the moderation actions of the admin share: the reason form, its page, the loop.

A moderation action (void a result, ban a player) first shows a page asking the reason; on
submit it calls the service once per object, reports what it skipped and why, and leaves a
``LogEntry`` per object acted on. Only staff who may change the model see these actions.

The pages and messages speak the moderator's language; the ``LogEntry`` messages stay English.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy

from core.errors import ServiceError
from games.services.moderation import REASON_LIMIT


class ReasonForm(forms.Form):
    """A moderator's reason: required, at most ``REASON_LIMIT`` characters, no NUL; ``help_text``
    says where the reason goes, with ``%(limit)d`` for the limit (a gettext text, said in the
    request's language when the form is made)."""

    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=REASON_LIMIT,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
    )

    def __init__(self, *args: Any, help_text: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Said when the form is made, in the language of the request it answers.
        self.fields["reason"].help_text = help_text % {"limit": REASON_LIMIT}


def ask_reason(request: HttpRequest, *, help_text: str) -> str | ReasonForm:
    """Return the reason submitted on the action's page, else the form to show (empty, or with
    its errors) whose help text is ``help_text``."""
    if "apply" not in request.POST:
        return ReasonForm(help_text=help_text)
    form = ReasonForm(request.POST, help_text=help_text)
    if form.is_valid():
        return str(form.cleaned_data["reason"])
    return form


class ModerationActions:
    """A ``ModelAdmin`` mixin: the permission, the reason page and the loop of an action."""

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        """Tell whether the user may moderate: staff with the model's change permission."""
        opts = self.opts  # type: ignore[attr-defined]
        user = request.user
        return bool(
            user.is_active
            and user.is_staff
            and user.has_perm(f"{opts.app_label}.change_{opts.model_name}")
        )

    def response_action(self, request: HttpRequest, queryset: Any) -> Any:
        """Refuse a selection naming no possible object (a forged form) with a message rather
        than a server error, then run the action as usual."""
        model_admin: admin.ModelAdmin = self  # type: ignore[assignment]
        selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        try:
            for value in selected:
                if "\x00" in value:
                    raise ValidationError("NUL")
                model_admin.opts.pk.to_python(value)
        except ValidationError:
            model_admin.message_user(
                request, gettext("The selection names no such object."), messages.ERROR
            )
            return None
        return super().response_action(request, queryset)  # type: ignore[misc]

    def reason_page(
        self,
        request: HttpRequest,
        queryset: Iterable[Model],
        form: ReasonForm,
        *,
        action: str,
        title: str,
        explanation: str,
        submit: str,
        named: Callable[[Any], str] = str,
    ) -> TemplateResponse:
        """Return the page asking the reason of ``action`` on the selected objects, each
        listed by ``named``."""
        model_admin: admin.ModelAdmin = self  # type: ignore[assignment]
        context = {
            **model_admin.admin_site.each_context(request),
            "title": title,
            "explanation": explanation,
            "submit": submit,
            "action": action,
            "queryset": list(queryset),
            "names": [named(obj) for obj in queryset],
            "form": form,
            "opts": model_admin.opts,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": model_admin.media,
        }
        request.current_app = model_admin.admin_site.name
        return TemplateResponse(request, "admin/games/moderation_reason.html", context)

    def moderate(
        self,
        request: HttpRequest,
        objects: Iterable[Any],
        act: Callable[[Any], object],
        *,
        message: str,
        done: Callable[[int], str],
        logged: Callable[[Any], Model] | None = None,
        named: Callable[[Any], str] = str,
    ) -> int:
        """Call ``act`` on each object; log ``message`` on each one acted on (or on what
        ``logged`` names), report each refusal (naming the object by ``named``) and then
        ``done(count)``; return how many were acted on.

        ``message`` is stored in the ``LogEntry`` as given: pass it in English, whatever the
        moderator's language, for it is a record read later by anyone."""
        model_admin: admin.ModelAdmin = self  # type: ignore[assignment]
        count = 0
        for obj in objects:
            try:
                act(obj)
            except ServiceError as error:
                model_admin.message_user(
                    request,
                    gettext("%(object)s: %(why)s") % {"object": named(obj), "why": error.detail},
                    messages.WARNING,
                )
                continue
            model_admin.log_change(request, logged(obj) if logged else obj, message)
            count += 1
        model_admin.message_user(request, done(count), messages.SUCCESS)
        return count
