"""Estimate, per variant, the share of deals winnable with full information.

Run: ``make winrates`` (or ``.venv/bin/python benchmarks/winrates.py --deals 100 --seconds 5``).
For every variant it solves the deals of practice seed texts ``study-0`` … ``study-<N-1>`` with a
time budget each, and writes ``docs/winrates.md``: the share proved winnable with its 95% Wilson
interval, the share left undecided, the upper bound (won plus undecided), the solve-time
distribution, and the nodes and line lengths of won deals (for a difficulty scale), beside the
published figures. Budgets are CPU seconds (the solver's default clock), so ``--jobs N`` may
study N variants at once in separate processes without changing the figures, and a busy
machine only makes the study slower.

The report replaces what ``--out`` holds up to its first ``## `` heading; the sections from
that heading on (the solver benchmark and its notes) are written by hand and kept.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import builtin_variant, deal, practice_seed, solve
from games.engine.rules import Return

VARIANTS = [
    "caprice",
    "castile",
    "quadruple-canfield",
    "box-kite",
    "capricieuse",
    "canfield",
    "beleaguered-castle",
    "klondike-draw-3",
    "freecell",
    "spider-2-suits",
]
PUBLISHED = {
    "klondike-draw-3": (
        "81.945% ± 0.084% winnable with full information, draw 3, unlimited redeals, no "
        "foundation return (Solvitaire's 'klondike')"
    ),
    "freecell": "more than 99.9% winnable with 4 free cells",
    "castile": "about 35% won in human play",
    "box-kite": "about 7% won in human play",
    "canfield": "65–82% winnable with full information (Solvitaire, 200 deals)",
    "beleaguered-castle": "59–70% winnable with full information (Solvitaire, 200 deals)",
}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def quartiles(values: list[float]) -> str:
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:.3g}"
    q = statistics.quantiles(values, n=4, method="inclusive")
    return f"{min(values):.3g} / {q[0]:.3g} / {q[1]:.3g} / {q[2]:.3g} / {max(values):.3g}"


def study(
    slug: str, deals: int, seconds: float, prefix: str = "study", back: str | None = None
) -> dict[str, object]:
    """Solve ``deals`` deals of ``slug`` (with ``back``, a copy whose foundations give cards
    back by that rule); return the outcome counts and distributions."""
    variant = builtin_variant(slug)
    if back is not None:
        variant = replace(variant, foundation_return=Return(back))
    counts = {"won": 0, "lost": 0, "unknown": 0}
    times: list[float] = []
    nodes: list[float] = []
    lengths: list[float] = []
    for i in range(deals):
        result = solve(deal(variant, practice_seed(f"{prefix}-{i}")), budget_seconds=seconds)
        counts[result.outcome] += 1
        if result.outcome != "unknown":
            times.append(result.seconds)
        if result.outcome == "won" and result.line is not None:
            nodes.append(result.nodes)
            lengths.append(len(result.line))
        print(
            f"{slug} {prefix}-{i} {result.outcome} {result.nodes} {result.seconds:.2f}", flush=True
        )
    return {"counts": counts, "times": times, "nodes": nodes, "lengths": lengths}


def report(
    results: dict[str, dict[str, object]],
    deals: int,
    seconds: float,
    note: str = "",
    prefix: str = "study",
) -> str:
    lines = [
        "# Win rates with full information",
        "",
        f"Measured by `benchmarks/winrates.py --deals {deals} --seconds {seconds:g}` "
        f"(`make winrates`): the deals of practice seed texts `{prefix}-0` … "
        f"`{prefix}-{deals - 1}`, "
        f"each solved by `games.engine.solve` with a budget of {seconds:g} s of CPU time. "
        "*Won* is proved by a replayed line, *lost* by an exhausted search; *undecided* "
        "ran out of time. The 95% interval (Wilson) is for the proved share; the upper bound "
        "counts every undecided deal as winnable.",
        "",
        "| variant | deals | won (proved) | 95% interval | lost (proved) | undecided "
        "| upper bound | published |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for slug, data in results.items():
        counts = data["counts"]
        assert isinstance(counts, dict)
        n = sum(counts.values())
        low, high = wilson(counts["won"], n)
        lines.append(
            f"| {slug} | {n} | {counts['won'] / n:.0%} | {low:.0%}–{high:.0%} "
            f"| {counts['lost'] / n:.0%} | {counts['unknown'] / n:.0%} "
            f"| {(counts['won'] + counts['unknown']) / n:.0%} | {PUBLISHED.get(slug, '–')} |"
        )
    lines += [
        "",
        "Distributions (min / lower quartile / median / upper quartile / max):",
        "",
        "| variant | CPU seconds to decide | nodes of won deals | line length of won deals |",
        "| --- | --- | --- | --- |",
    ]
    for slug, data in results.items():
        times, nodes, lengths = data["times"], data["nodes"], data["lengths"]
        assert isinstance(times, list) and isinstance(nodes, list) and isinstance(lengths, list)
        lines.append(f"| {slug} | {quartiles(times)} | {quartiles(nodes)} | {quartiles(lengths)} |")
    if note:
        lines += ["", note]
    return "\n".join(lines) + "\n"


def kept_sections(text: str) -> str:
    """Return the hand-written part of a report: from its first ``## `` heading to its end."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("## "):
            return "".join(lines[i:])
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--variants", nargs="*", default=VARIANTS)
    parser.add_argument("--jobs", type=int, default=1, help="variants studied at once")
    parser.add_argument("--prefix", default="study", help="seed texts <prefix>-0 … <prefix>-<N-1>")
    parser.add_argument("--note", default="", help="a paragraph to end the report with")
    parser.add_argument(
        "--foundation-return",
        choices=[rule.value for rule in Return],
        help="study copies of the variants whose foundations give cards back by this rule",
    )
    parser.add_argument(
        "--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "winrates.md")
    )
    args = parser.parse_args()
    results: dict[str, dict[str, object]] = {}
    started = time.perf_counter()
    tasks = [
        (slug, args.deals, args.seconds, args.prefix, args.foundation_return)
        for slug in args.variants
    ]
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        for slug, data in zip(args.variants, pool.starmap(study, tasks), strict=True):
            results[slug] = data
    out = Path(args.out)
    kept = kept_sections(out.read_text(encoding="utf-8")) if out.exists() else ""
    text = report(results, args.deals, args.seconds, args.note, args.prefix)
    out.write_text(text + ("\n" + kept if kept else ""), encoding="utf-8")
    print(f"done in {time.perf_counter() - started:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
