"""Checks of untrusted text shared by the services and selectors."""

from __future__ import annotations

from typing import Any


def is_text(value: Any, *, limit: int) -> bool:
    """Tell whether ``value`` is a string of at most ``limit`` characters that the database
    takes: no NUL, and valid UTF-8 (a lone surrogate, legal in JSON, is not)."""
    if not isinstance(value, str) or len(value) > limit or "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
