"""Calibrate each variant's difficulty steps from the solver's effort over a sample of its deals.

Run: ``make difficulty`` (or ``.venv/bin/python benchmarks/difficulty.py --deals 150 --nodes
60000 --jobs 2``). For every variant it solves the deals of the practice seed texts
``calibrate-0`` … ``calibrate-<N-1>`` (never a daily seed) with a budget of positions each (the
same work on any machine), and writes ``games/engine/difficulty.json``: the four cut points of
``games.engine.difficulty.cut_points`` per variant, with the sample they came from. A deal not won
within the budget counts as the hardest (effort beyond the budget); a deal proved lost is left
out, as no daily deal is one. The figures go into docs/winrates.md by hand.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import builtin_variant, deal, practice_seed, solve
from games.engine.difficulty import CALIBRATION_FILE, cut_points

VARIANTS = [
    "caprice",
    "castile",
    "quadruple-canfield",
    "box-kite",
    "capricieuse",
    "canfield",
    "beleaguered-castle",
]


CHUNK = 25  # deals a task: the chunks of every variant share the processes


def sample(slug: str, first: int, stop: int, nodes: int, prefix: str) -> dict[str, object]:
    """Solve the deals ``first`` … ``stop - 1`` of ``slug`` within ``nodes`` positions each;
    return the efforts and the outcomes' counts."""
    variant = builtin_variant(slug)
    efforts: list[float] = []
    counts = {"won": 0, "lost": 0, "unknown": 0}
    for i in range(first, stop):
        result = solve(deal(variant, practice_seed(f"{prefix}-{i}")), budget_nodes=nodes)
        counts[result.outcome] += 1
        if result.outcome == "won":
            efforts.append(result.nodes)
        elif result.outcome == "unknown":
            efforts.append(math.inf)
        print(f"{slug} {prefix}-{i} {result.outcome} {result.nodes}", flush=True)
    return {"efforts": efforts, "counts": counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=30_000, help="positions a deal at most")
    parser.add_argument("--variants", nargs="*", default=VARIANTS)
    parser.add_argument("--jobs", type=int, default=2, help="processes (chunks of 25 deals each)")
    parser.add_argument("--prefix", default="calibrate")
    parser.add_argument("--out", default=str(CALIBRATION_FILE))
    args = parser.parse_args()
    started = time.perf_counter()
    tasks = [
        (slug, first, min(first + CHUNK, args.deals), args.nodes, args.prefix)
        for slug in args.variants
        for first in range(0, args.deals, CHUNK)
    ]
    out = Path(args.out)
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {"variants": {}}
    found: dict[str, dict[str, Any]] = {
        slug: {"efforts": [], "counts": {"won": 0, "lost": 0, "unknown": 0}}
        for slug in args.variants
    }
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        for task, part in zip(tasks, pool.starmap(sample, tasks), strict=True):
            kept = found[task[0]]
            kept["efforts"] += part["efforts"]
            for outcome, count in part["counts"].items():
                kept["counts"][outcome] += count
    for slug in args.variants:
        efforts = found[slug]["efforts"]
        cuts = cut_points(efforts)
        data["variants"][slug] = {
            "cuts": [None if math.isinf(cut) else int(cut) for cut in cuts],
            "sample": f"{args.prefix}-0 … {args.prefix}-{args.deals - 1}",
            "budget_nodes": args.nodes,
            "outcomes": found[slug]["counts"],
            "measured": dt.date.today().isoformat(),
            "command": f"benchmarks/difficulty.py --variants {slug} --deals {args.deals} "
            f"--nodes {args.nodes} --prefix {args.prefix}",
        }
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"done in {time.perf_counter() - started:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
