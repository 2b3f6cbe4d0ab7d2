"""A bare ASGI app: the socket and HTTP floor of the load benchmark.

Served as the service is (``python -m config.serve benchmarks.echo:app --workers 2``): every
WebSocket text frame is sent straight back, and any HTTP request is answered ``{"ok": true}``.
"""

from __future__ import annotations

from typing import Any

BODY = b'{"ok": true}'


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http":
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": BODY})
        return
    if scope["type"] == "websocket":
        while True:
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
            elif message["type"] == "websocket.receive":
                if message.get("text") is not None:
                    await send({"type": "websocket.send", "text": message["text"]})
                else:
                    await send({"type": "websocket.send", "bytes": message.get("bytes") or b""})
            else:  # websocket.disconnect
                return
