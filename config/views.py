"""Project-level pages that belong to no app."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie


@ensure_csrf_cookie
def front_page(request: HttpRequest) -> HttpResponse:
    """Serve the browser client, ``frontend/index.html``, with the CSRF cookie its POSTs need."""
    return render(request, "index.html")
