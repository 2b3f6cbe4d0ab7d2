"""Summarise the per-frame timings ``benchmarks/load.py --frames`` recorded in the workers.

Run: ``.venv/bin/python benchmarks/frames.py [PREFIX]`` (default ``var/bench/frames``; the
workers wrote ``PREFIX.<pid>``). It prints, over every move frame of every worker: the
server's time per frame and per stage (p50, p99, max), the stages of the slowest 1 %, the
service call's thread CPU and SQL time, when the slowest 1 % happened (100 ms bins, per worker:
bursts shared by both workers point to PostgreSQL or the machine, bursts of one to that
worker), the collector's pauses over 5 ms and the event loop's lag. Nothing here is part of the
tests.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import OUT, percentile

STAGES = ("thread hop in", "rate limit", "service call", "payload", "hop out and send")


def load(prefix: str) -> dict[str, dict[str, Any]]:
    found = {}
    for path in sorted(Path(prefix).parent.glob(Path(prefix).name + ".*")):
        if path.suffix != ".tmp":
            found[path.suffix.lstrip(".")] = json.loads(path.read_text())
    return found


def summarise(prefix: str) -> str:
    workers = load(prefix)
    frames = [
        (pid, frame)
        for pid, record in workers.items()
        for frame in record["frames"]
        if len(frame) == len(STAGES) + 1
    ]
    if not frames:
        return f"no frame timings under {prefix}.*"
    lines = [f"{len(frames)} move frames in {len(workers)} workers"]
    total = [(f[-1] - f[0]) * 1000 for _, f in frames]
    lines.append(_row("server time per frame", total))
    for i, stage in enumerate(STAGES):
        lines.append(_row(stage, [(f[i + 1] - f[i]) * 1000 for _, f in frames]))
    threshold = percentile(total, 99)
    slowest = [(pid, f) for pid, f in frames if (f[-1] - f[0]) * 1000 >= threshold]
    means = [
        sum((f[i + 1] - f[i]) * 1000 for _, f in slowest) / len(slowest) for i in range(len(STAGES))
    ]
    lines.append(
        "slowest 1 %: mean ms per stage: "
        + ", ".join(f"{stage} {mean:.1f}" for stage, mean in zip(STAGES, means, strict=True))
    )
    calls = [call for record in workers.values() for call in record["calls"]]
    if calls:
        lines.append(_row("service call thread CPU", [c[1] * 1000 for c in calls]))
        lines.append(_row("service call SQL time", [c[2] * 1000 for c in calls]))
    start = min(f[0] for _, f in frames)
    bins = Counter((int((f[0] - start) * 10), pid) for pid, f in slowest)
    lines.append(
        "slowest 1 % by 100 ms from the first frame (bin: worker × frames): "
        + "; ".join(f"{b}: {pid}×{n}" for (b, pid), n in sorted(bins.items()))
    )
    for pid, record in workers.items():
        pauses = [p for p in record["pauses"] if p[1] >= start and p[2] > 0.005]
        described = ", ".join(
            f"gen {g} at bin {int((t - start) * 10)} {wall * 1000:.0f} ms ({cpu * 1000:.0f} CPU)"
            for g, t, wall, cpu in pauses
        )
        lines.append(f"worker {pid}: collector pauses over 5 ms: {described or 'none'}")
        lags = [lag * 1000 for lag in record["lags"]]
        if lags:
            lines.append(f"worker {pid}: {_row('event loop lag', lags)}")
    return "\n".join(lines)


def _row(name: str, values: list[float]) -> str:
    return (
        f"{name}: p50 {percentile(values, 50):.2f} ms, p99 {percentile(values, 99):.2f} ms, "
        f"max {max(values):.1f} ms"
    )


if __name__ == "__main__":
    print(summarise(sys.argv[1] if len(sys.argv) > 1 else str(OUT / "frames")))
