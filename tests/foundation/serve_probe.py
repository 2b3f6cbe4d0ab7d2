"""A minimal ASGI application for tests/foundation/test_serve.py: it answers every HTTP
request with the process id of the worker that accepted the connection."""

from __future__ import annotations

import os
from typing import Any


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = str(os.getpid()).encode()
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"connection", b"close")]}
    )
    await send({"type": "http.response.body", "body": body})
