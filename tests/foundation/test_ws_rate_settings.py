"""The WebSocket frame limits read from the environment (WEBSOCKET_RATE_SOCKET, _PLAYER)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRINT_LIMITS = (
    "import django; django.setup(); from django.conf import settings; "
    "import json; print(json.dumps(settings.WEBSOCKET_RATE_LIMITS))"
)


def limits_with(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBSOCKET_RATE_")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", **extra)
    return subprocess.run(
        [sys.executable, "-c", PRINT_LIMITS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_frame_limits_default_to_twenty_a_second_and_six_hundred_a_minute() -> None:
    run = limits_with({})
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "socket": {"frames": 20, "seconds": 1},
        "player": {"frames": 600, "seconds": 60},
    }


def test_the_environment_sets_each_frame_limit_and_refuses_a_malformed_one() -> None:
    run = limits_with({"WEBSOCKET_RATE_SOCKET": "1000/1", "WEBSOCKET_RATE_PLAYER": "5/10"})
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "socket": {"frames": 1000, "seconds": 1},
        "player": {"frames": 5, "seconds": 10},
    }
    bad = limits_with({"WEBSOCKET_RATE_SOCKET": "fast"})
    assert bad.returncode != 0
    assert "WEBSOCKET_RATE_SOCKET must be frames/seconds" in bad.stderr
