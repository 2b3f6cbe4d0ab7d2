"""Project-level pages that belong to no app."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from core.errors import ErrorCode
from core.languages import client_catalogue
from core.responses import error_response


@ensure_csrf_cookie
def front_page(request: HttpRequest) -> HttpResponse:
    """Serve the browser client, ``frontend/index.html``, in the request's language.

    The page embeds the client's catalogue of that language and sets the CSRF cookie that its
    POSTs (the language switch included) need.
    """
    language = translation.get_language()
    context = {"catalogue": client_catalogue(language), "languages": settings.LANGUAGES}
    return render(request, "index.html", context)


@require_POST
def switch_language(request: HttpRequest) -> HttpResponse:
    """Remember the language chosen (``language``, one of ``LANGUAGES``) in the language cookie
    and send the browser back to ``next`` (a page of this site), as Django's ``set_language``
    does; a language the service does not speak is refused (400 ``invalid``)."""
    chosen = request.POST.get("language")
    if chosen not in {code for code, _name in settings.LANGUAGES}:
        languages = ", ".join(code for code, _name in settings.LANGUAGES)
        detail = gettext("The language is one of {languages}.").format(languages=languages)
        return error_response(ErrorCode.INVALID, detail, status=400)
    return set_language(request)
