"""Stand-ins for the hint search that the hint pool's child processes import by name.

Like ``games.hintworker`` they import no Django: a spawned child runs them as they are.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

DEAL = {"type": "deal"}


def die(payload: dict[str, Any], budget_seconds: float) -> dict[str, Any]:
    """End the child at once, as a crash or the kernel's OOM killer would."""
    os._exit(3)


def deal_hint(payload: dict[str, Any], budget_seconds: float) -> dict[str, Any]:
    """Answer a won line starting with a deal, from the child."""
    return {"outcome": "won", "line": [DEAL]}


def wait_for_release(folder: str, payload: dict[str, Any], budget_seconds: float) -> dict[str, Any]:
    """Write ``started`` in ``folder`` (and a line more in ``searches``), wait (at most 20 s)
    for ``release`` there, then answer."""
    with Path(folder, "searches").open("a") as searches:
        searches.write(f"{os.getpid()}\n")
    Path(folder, "started").write_text(str(os.getpid()))
    release = Path(folder, "release")
    give_up = time.monotonic() + 20
    while not release.exists() and time.monotonic() < give_up:
        time.sleep(0.01)
    return {"outcome": "won", "line": [DEAL]}
