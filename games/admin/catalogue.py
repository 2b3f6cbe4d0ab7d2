"""Forms and previews of the catalogue's admin: the rules editor and the opening-deal preview."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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
