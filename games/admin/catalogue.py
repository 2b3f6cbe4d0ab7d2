"""The catalogue's admin: variants, their rules editor and the preview of an opening deal."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core.text import is_text
from games.documents import compiled, pretty
from games.engine import RulesError, deal, practice_seed
from games.models import Variant
from games.services.games import SEED_TEXT_LIMIT
from games.words.pictures import LayoutPicture, layout_picture

PREVIEW_SEED_TEXT = "sample"
"""The practice seed text of the opening deal shown on a variant's change page."""


class RulesField(forms.JSONField):
    """A rules document edited as text: shown indented, its keys in a stable order; a syntax
    error says where it is."""

    widget = forms.Textarea(
        attrs={"rows": 30, "cols": 90, "class": "rules-editor", "spellcheck": "false"}
    )

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, forms.fields.InvalidJSONInput):
            return value
        return pretty(value)

    def bound_data(self, data: Any, initial: Any) -> Any:
        try:
            return super().bound_data(data, initial)
        except RecursionError:  # shown back as typed; to_python says what is wrong
            return forms.fields.InvalidJSONInput(data)

    def to_python(self, value: Any) -> Any:
        if self.disabled or not isinstance(value, str) or value in self.empty_values:
            return super().to_python(value)
        try:
            return json.loads(value)
        except json.JSONDecodeError as error:
            raise ValidationError(
                _("The document is not valid JSON: %(error)s (line %(line)d, column %(column)d).")
                % {"error": error.msg, "line": error.lineno, "column": error.colno},
                code="invalid",
            ) from None
        except RecursionError:
            raise ValidationError(_("The document is nested too deeply."), code="invalid") from None


class VariantAdminForm(forms.ModelForm):
    """A variant as the admin edits it: a rules editor, and a name no other variant has."""

    rules = RulesField(
        label=gettext_lazy("Rules"),
        help_text=gettext_lazy(
            "The rules document (JSON; its fields are described in games/engine/rules.py). The "
            "engine checks it on save. Deals already made keep the rules they were dealt with."
        ),
    )

    class Meta:
        model = Variant
        fields = ("name", "slug", "description", "enabled", "daily", "display_order", "rules")

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        others = Variant.objects.filter(name__iexact=name).exclude(pk=self.instance.pk)
        if others.exists():
            raise ValidationError(_("Another variant is named %(name)s.") % {"name": name})
        return name


@dataclass(frozen=True)
class Preview:
    """The opening deal of a rules document for a seed text, or why there is none."""

    seed_text: str
    picture: LayoutPicture | None = None
    error: str = ""


def preview(rules: Any, seed_text: Any) -> Preview:
    """Return the opening deal of ``rules`` (a document, or its JSON text) for a practice seed
    text, drawn face up (the admin typed the seed), or the error that prevents it."""
    if not is_text(seed_text, limit=SEED_TEXT_LIMIT) or not seed_text:
        return Preview(
            seed_text="",
            error=_("A seed is a text of 1 to %(limit)d characters.") % {"limit": SEED_TEXT_LIMIT},
        )
    if isinstance(rules, str):
        try:
            rules = RulesField().to_python(rules)
        except ValidationError as error:
            return Preview(seed_text=seed_text, error=" ".join(error.messages))
    try:
        variant = compiled(rules)
    except (RulesError, TypeError, ValueError, RecursionError) as error:
        return Preview(seed_text=seed_text, error=_("The rules are invalid: %s") % error)
    picture = layout_picture(deal(variant, practice_seed(seed_text)), revealed=True)
    return Preview(seed_text=seed_text, picture=picture)


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
