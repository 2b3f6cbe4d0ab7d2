"""The JSON Schemas of the sockets' messages (``docs/schemas/``) and the checks made with them.

The socket tests' communicator (``tests.games.sockets.CheckedCommunicator``, opened by the
``ws_connect`` fixture) passes every message a socket sends through ``check_message`` and every
close through ``check_close``: a message of a type its socket does not send, one that breaks its
schema, or a close that does not follow the error naming its code fails the test.
"""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

SCHEMAS = Path(__file__).resolve().parent.parent / "docs" / "schemas"

# What each socket sends; a path no socket serves gets the catch-all's error only.
GAME_PATH = re.compile(r"^/ws/games/[-a-zA-Z0-9_]{1,64}/$")
DAILY_PATH = re.compile(r"^/ws/daily/[-a-zA-Z0-9_]{1,64}/[-0-9a-zA-Z]{1,16}/$")
LEAGUE_PATH = re.compile(r"^/ws/leagues/[0-9]{1,18}/[-a-zA-Z0-9_]{1,64}/[-0-9a-zA-Z]{1,16}/$")
SENT_TYPES = {
    "game-socket": {"game", "error"},
    "daily-socket": {"leaderboard", "progress", "presence", "error"},
    "league-socket": {"leaderboard", "error"},
    None: {"error"},
}


def _retrieve(uri: str) -> Resource:
    path = Path(urllib.request.url2pathname(urllib.parse.urlsplit(uri).path))
    return Resource.from_contents(json.loads(path.read_text(encoding="utf-8")))


REGISTRY: Registry = Registry(retrieve=_retrieve)


def schema_uri(name: str, pointer: str = "") -> str:
    """Return the URI of ``docs/schemas/<name>`` (and of a part of it, with ``pointer``)."""
    uri = (SCHEMAS / name).as_uri()
    return f"{uri}#{pointer}" if pointer else uri


@cache
def validator(name: str, pointer: str = "") -> Draft202012Validator:
    """Return a validator of the schema ``docs/schemas/<name>`` (or of its part ``pointer``)."""
    return Draft202012Validator({"$ref": schema_uri(name, pointer)}, registry=REGISTRY)


def schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def socket_of(path: str) -> str | None:
    """Return the socket schema serving ``path`` (the unquoted path, without its query)."""
    if GAME_PATH.match(path):
        return "game-socket"
    if DAILY_PATH.match(path):
        return "daily-socket"
    if LEAGUE_PATH.match(path):
        return "league-socket"
    return None


def violations(name: str, instance: Any, pointer: str = "") -> str | None:
    """Return why ``instance`` breaks the schema, or None when it holds."""
    error = best_match(validator(name, pointer).iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(the message)"
    return f"{where}: {error.message}"


def check_message(path: str, message: Any) -> None:
    """Fail unless ``message`` is one the socket at ``path`` sends, as its schema says."""
    socket = socket_of(path)
    kind = message.get("type") if isinstance(message, dict) else None
    assert kind in SENT_TYPES[socket], (
        f"{path} sent a message of a type it does not send ({kind!r}): {message!r}"
    )
    for name, pointer in (
        (f"messages/{kind}.json", ""),
        (f"{socket}.json" if socket else "messages/error.json", "/$defs/server" if socket else ""),
    ):
        broken = violations(name, message, pointer)
        assert broken is None, f"{path} sent a {kind!r} message that breaks {name}: {broken}"


@cache
def close_codes() -> dict[str, int]:
    """Return, per error code, the close code that follows it when it ends a socket."""
    codes = schema("messages/error.json")["properties"]["error"]["oneOf"]
    return {code["const"]: code["x-close-code"] for code in codes if "x-close-code" in code}


def check_close(code: int, previous: dict[str, Any] | None) -> None:
    """Fail unless a close with ``code`` follows an error message naming that close code."""
    assert previous is not None and previous.get("type") == "error", (
        f"the server closed the socket ({code}) without an error message first: {previous!r}"
    )
    expected = close_codes().get(previous["error"])
    assert code == expected, (
        f"the server closed with {code} after {previous['error']!r}, documented as {expected}"
    )
