"""Project-level pages that belong to no app."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def front_page(request: HttpRequest) -> HttpResponse:
    """Render the front page, ``frontend/index.html``."""
    return render(request, "index.html")
