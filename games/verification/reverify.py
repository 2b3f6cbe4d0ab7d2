"""Re-verify a past day's board, or one game, with the rules engine alone.

Anyone can check the service's figures: this command reads the public deal, replays and
leaderboard from the REST API, checks the revealed seed against the commitment published when the
deal opened, replays every move log with ``games.engine`` from that seed and compares what the log
proves (status, cards on the foundations, moves) with what the board claims::

    python -m games.verification.reverify https://HOST/api/leaderboards/caprice/2026-11-30/
    python -m games.verification.reverify https://HOST/api/games/<id>/
    python -m games.verification.reverify --json --limit 50 https://HOST/api/leaderboards/caprice/2026-11-30/

Exit status: 0 when everything agrees, 1 on any mismatch, 2 on a usage or network error.

It imports only the standard library and ``games.engine`` (no Django), so it runs from a plain
checkout: ``PYTHONPATH=. python -m games.verification.reverify URL``.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from games.engine import ReplayError, RulesError, builtin_rules, player_view, replay
from games.verification.figures import OUTCOME, Outcome, rank_key

Fetch = Callable[[str], Any]
PAGE = 100
TIMEOUT_SECONDS = 30
_DAY_PATH = re.compile(r"^(?P<prefix>.*?)/api/leaderboards/(?P<slug>[^/]+)/(?P<date>[^/]+)/?$")
_GAME_PATH = re.compile(r"^(?P<prefix>.*?)/api/games/(?P<id>[^/]+)(?:/replay)?/?$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

NOTE_RULES = (
    "rules: the API does not publish the deal's frozen rules; the variant's current rules "
    "(GET /api/variants/<slug>/) were used, then the engine's built-in document"
)
NOTE_ORDER = (
    "order: cards and moves are proved by the replays; assisted, duration and finish time are "
    "the board's own claims (the move log does not prove them), checked for consistency only"
)


class UsageError(Exception):
    """The command cannot run: bad arguments, the network, or a day not yet revealed (exit 2)."""


class FetchError(UsageError):
    """A request to the API failed; ``status`` is the HTTP status, or None for no answer."""

    def __init__(self, url: str, status: int | None, detail: str) -> None:
        super().__init__(f"GET {url}: {detail}")
        self.url = url
        self.status = status


def http_fetch(url: str) -> Any:
    """GET ``url`` and return its JSON body; raise ``FetchError`` on any failure."""
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": "daily-patience-reverify"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
            body = answer.read()
    except urllib.error.HTTPError as error:
        raise FetchError(url, error.code, _error_detail(error.code, error.read())) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise FetchError(url, None, f"no answer ({reason})") from None
    try:
        return json.loads(body)
    except ValueError:
        raise FetchError(url, 200, "the answer is not JSON") from None


def _error_detail(status: int, body: bytes) -> str:
    try:
        data = json.loads(body)
        return f"HTTP {status} {data.get('error')}: {data.get('detail')}"
    except (ValueError, AttributeError):
        return f"HTTP {status}"


# --- what a replay proves -------------------------------------------------------------------


def claimed(raw: dict[str, Any], moves_key: str) -> Outcome:
    """Return the figures an API object claims (a figure of the wrong type reads as None)."""

    def number(key: str) -> int | None:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    status = raw.get("status")
    return Outcome(
        status if isinstance(status, str) else None, number("foundation_cards"), number(moves_key)
    )


@dataclass
class Check:
    """One entry (or game) checked: the board's claim, the replay's proof and what disagrees."""

    rank: int | None
    player: str
    game: str
    claimed: Outcome
    proved: Outcome | None
    problems: list[str] = field(default_factory=list)
    assisted: bool = False
    duration_ms: int | None = None
    finished_at: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class Report:
    """The outcome of a run: one ``Check`` per entry, plus the checks of the day as a whole."""

    variant: str
    date: str | None
    seed: str | None
    commitment: str | None
    checks: list[Check] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    total: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems and all(check.ok for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "date": self.date,
            "seed": self.seed,
            "commitment": self.commitment,
            "total": self.total,
            "ok": self.ok,
            "problems": self.problems,
            "notes": self.notes,
            "entries": [{**asdict(check), "ok": check.ok} for check in self.checks],
        }


def prove(
    rules: dict[str, Any], seed: bytes, moves: list[Any], claimed_status: str | None
) -> Outcome:
    """Replay ``moves`` from ``seed`` and return the figures the log proves.

    The log proves a win; it cannot tell a resignation from a game closed at the end of its day,
    so a game that is not won is proved ``resigned``. Raise ``ReplayError`` or ``RulesError``.
    """
    result = replay(rules, seed, moves)
    status = "won" if result.state.won else "resigned"
    if claimed_status == "playing" and status != "won":
        status = "playing"
    return Outcome(status, result.state.foundation_cards(), result.plies)


def compare(check: Check) -> None:
    """Add a problem to ``check`` for every figure where claim and proof differ."""
    if check.proved is None:
        return
    for name in OUTCOME:
        claimed, proved = getattr(check.claimed, name), getattr(check.proved, name)
        if claimed != proved:
            check.problems.append(f"{name}: the board says {claimed}, the replay proves {proved}")


def check_seed(seed_hex: Any, commitment: Any) -> tuple[bytes | None, str | None]:
    """Return the seed's bytes and a problem (or None) of its check against the commitment."""
    if not isinstance(seed_hex, str) or not re.fullmatch(r"[0-9a-f]{64}", seed_hex):
        return None, f"the revealed seed {seed_hex!r} is not 64 lowercase hex digits"
    seed = bytes.fromhex(seed_hex)
    digest = hashlib.sha256(seed).hexdigest()
    if digest != commitment:
        return seed, f"SHA-256(seed) = {digest}, but the published commitment is {commitment}"
    return seed, None


def order_problems(checks: list[Check]) -> list[str]:
    """Return where consecutive entries break the ranking of docs/api.md.

    Assisted after unassisted, then cards descending and moves ascending (proved), then duration
    ascending and finish time ascending (the board's claims). Ranks must run 1, 2, 3, …
    """
    problems = []
    for before, after in itertools.pairwise(checks):
        if before.rank is not None and after.rank is not None and after.rank != before.rank + 1:
            problems.append(f"rank {after.rank} follows rank {before.rank}")
        if before.proved is None or after.proved is None:
            continue
        a, b = _order_key(before), _order_key(after)
        if a > b:
            problems.append(
                f"order: {after.player} (rank {after.rank}) should rank before "
                f"{before.player} (rank {before.rank})"
            )
    return problems


def _order_key(check: Check) -> tuple[Any, ...]:
    """Rank by the proved figures, and by the board's claims for the rest (ISO times in UTC
    order as the times do); the game id is left out: an entry does not claim it."""
    assert check.proved is not None
    return rank_key(
        {
            "assisted": check.assisted,
            "foundation_cards": check.proved.foundation_cards or 0,
            "moves": check.proved.moves or 0,
            "duration_ms": check.duration_ms if check.duration_ms is not None else 0,
            "finished_at": check.finished_at or "",
            "game_id": "",
        }
    )


# --- reading the API ------------------------------------------------------------------------


class Verifier:
    """Check a day or a game of the service at ``base`` (the URL before ``/api/``)."""

    def __init__(
        self, base: str, fetch: Fetch = http_fetch, progress: TextIO | None = None
    ) -> None:
        self.base = base.rstrip("/")
        self.fetch = fetch
        self.progress = progress
        self._rules: dict[str, tuple[dict[str, Any], str]] = {}

    def get(self, path: str, **query: Any) -> Any:
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        return self.fetch(url)

    def rules(self, slug: str, deal: dict[str, Any], report: Report) -> dict[str, Any]:
        """Return the rules the deal is played with, noting in ``report`` where they came from."""
        if isinstance(deal.get("rules"), dict):
            return deal["rules"]
        if slug not in self._rules:
            try:
                rules = self.get(f"/api/variants/{urllib.parse.quote(slug)}/")["rules"]
                source = "the variant's rules"
            except (FetchError, KeyError, TypeError):
                try:
                    rules, source = builtin_rules(slug), "the engine's built-in document"
                except KeyError:
                    raise UsageError(f"no rules found for the variant {slug!r}") from None
            self._rules[slug] = (rules, source)
            if NOTE_RULES not in report.notes:
                report.notes.append(NOTE_RULES)
        return self._rules[slug][0]

    def deal(self, slug: str, date: str, report: Report) -> bytes:
        """Fetch the day's deal, check its seed against its commitment; return the seed."""
        deal = self.get(f"/api/daily/{urllib.parse.quote(slug)}/{date}/")
        report.commitment = deal.get("commitment")
        report.seed = deal.get("seed")
        if deal.get("variant") != slug or deal.get("date") != date:
            report.problems.append(
                f"asked for {slug} {date}, the API answered {deal.get('variant')} "
                f"{deal.get('date')}"
            )
        if report.seed is None:
            raise UsageError(
                f"the seed of {slug} {date} is not revealed yet: its day has not ended"
            )
        seed, problem = check_seed(report.seed, report.commitment)
        if problem:
            report.problems.append(problem)
        if seed is None:
            raise UsageError(problem or "no seed")
        self._deal = deal
        return seed

    def entry(
        self, raw: dict[str, Any], rules: dict[str, Any], seed: bytes, seed_hex: str
    ) -> Check:
        """Check one leaderboard entry against its game's replay."""
        check = Check(
            rank=raw.get("rank"),
            player=str(raw.get("player")),
            game=str(raw.get("game")),
            claimed=claimed(raw, "moves"),
            proved=None,
            assisted=bool(raw.get("assisted", False)),
            duration_ms=raw.get("duration_ms"),
            finished_at=raw.get("finished_at"),
        )
        try:
            log = self.get(f"/api/games/{urllib.parse.quote(check.game)}/replay/")
        except FetchError as error:
            if error.status is None:
                raise
            check.problems.append(f"its replay cannot be read: {error}")
            return check
        self.check_replay(check, log, rules, seed, seed_hex)
        return check

    def check_replay(
        self, check: Check, log: Any, rules: dict[str, Any], seed: bytes, seed_hex: str | None
    ) -> None:
        """Replay ``log`` into ``check.proved`` and note every disagreement."""
        if not isinstance(log, dict) or not isinstance(log.get("moves"), list):
            check.problems.append("its replay has no move list")
            return
        if seed_hex is not None and log.get("seed") != seed_hex:
            check.problems.append(f"its replay's seed {log.get('seed')!r} is not the deal's")
        if log.get("status") != check.claimed.status:
            check.problems.append(
                f"status: the board says {check.claimed.status}, "
                f"the replay says {log.get('status')}"
            )
        try:
            check.proved = prove(rules, seed, log["moves"], check.claimed.status)
        except ReplayError as error:
            check.problems.append(f"the log does not replay: move {error.index}: {error.detail}")
            return
        except RulesError as error:
            check.problems.append(f"the rules do not compile: {error}")
            return
        compare(check)

    def day(self, slug: str, date: str, limit: int | None = None) -> Report:
        """Check a whole day's leaderboard (at most ``limit`` entries)."""
        report = Report(variant=slug, date=date, seed=None, commitment=None)
        seed = self.deal(slug, date, report)
        rules = self.rules(slug, self._deal, report)
        board_path = f"/api/leaderboards/{urllib.parse.quote(slug)}/{date}/"
        offset = 0
        while limit is None or len(report.checks) < limit:
            page = PAGE if limit is None else min(PAGE, limit - len(report.checks))
            board = self.get(board_path, offset=offset, limit=page)
            entries = board.get("entries")
            if not isinstance(entries, list):
                raise UsageError(f"GET {board_path}: the answer has no entries")
            total = board.get("total")
            report.total = total if isinstance(total, int) else None
            if report.total is None and offset == 0:
                report.notes.append(
                    "paging: the board gives no total; only the entries it answered were checked"
                )
            entries = entries[:page]
            for raw in entries:
                report.checks.append(self.entry(raw, rules, seed, report.seed or ""))
                self._tell(len(report.checks), report.total)
            offset += len(entries)
            if report.total is None or not entries or offset >= report.total:
                break
        if report.total is not None and limit is None and len(report.checks) != report.total:
            report.problems.append(
                f"the board claims {report.total} entries but {len(report.checks)} were listed"
            )
        report.problems.extend(order_problems(report.checks))
        report.notes.append(NOTE_ORDER)
        return report

    def game(self, game_id: str) -> Report:
        """Check one game: its replay against its game object (and its day's deal if daily)."""
        quoted = urllib.parse.quote(game_id)
        game = self.get(f"/api/games/{quoted}/")
        slug, date = game.get("variant"), game.get("date")
        report = Report(variant=str(slug), date=date, seed=None, commitment=None)
        log = self.get(f"/api/games/{quoted}/replay/")
        seed_hex = log.get("seed")
        if date is not None:
            seed = self.deal(str(slug), str(date), report)
            rules = self.rules(str(slug), self._deal, report)
            seed_hex = report.seed
        else:
            if not isinstance(seed_hex, str) or not re.fullmatch(r"[0-9a-f]{64}", seed_hex):
                raise UsageError(f"the replay's seed {seed_hex!r} is not 64 lowercase hex digits")
            seed = bytes.fromhex(seed_hex)
            report.seed = seed_hex
            rules = self.rules(str(slug), {}, report)
            if "seed_text" in log and log["seed_text"] is not None:
                text_seed = hashlib.sha256(str(log["seed_text"]).encode()).hexdigest()
                if text_seed != seed_hex:
                    report.problems.append("the practice seed is not SHA-256 of its seed text")
        check = Check(
            rank=None,
            player=str(game.get("player")),
            game=str(game.get("id", game_id)),
            claimed=claimed(game, "ply"),
            proved=None,
            assisted=bool(game.get("assisted", False)),
        )
        self.check_replay(check, log, rules, seed, seed_hex)
        if check.proved is not None and isinstance(game.get("state"), dict):
            seen = player_view(replay(rules, seed, log["moves"]).state)
            shown = {key: game["state"].get(key) for key in seen}
            if shown != seen:
                check.problems.append("its position is not the one its log reaches")
        report.checks.append(check)
        return report

    def _tell(self, done: int, total: int | None) -> None:
        if self.progress is not None and done % 10 == 0:
            print(f"checked {done}/{total if total is not None else '?'}", file=self.progress)


# --- the command ----------------------------------------------------------------------------


def target(url: str) -> tuple[str, str, dict[str, str]]:
    """Split a leaderboard or game URL into (base, kind, parts); raise ``UsageError``."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise UsageError(f"{url!r} is not an http(s) URL")
    path = parsed.path
    day = _DAY_PATH.match(path)
    if day:
        if not _DATE.match(day["date"]):
            raise UsageError(f"{day['date']!r} is not a date (YYYY-MM-DD)")
        base = f"{parsed.scheme}://{parsed.netloc}{day['prefix']}"
        return base, "day", {"slug": day["slug"], "date": day["date"]}
    game = _GAME_PATH.match(path)
    if game:
        return f"{parsed.scheme}://{parsed.netloc}{game['prefix']}", "game", {"id": game["id"]}
    raise UsageError(f"{url!r} is neither /api/leaderboards/<slug>/<date>/ nor /api/games/<id>/")


def render(report: Report, out: TextIO) -> None:
    """Print ``report`` for people."""
    day = f" {report.date}" if report.date else ""
    print(f"{report.variant}{day}", file=out)
    if report.commitment is not None:
        print(f"  commitment {report.commitment}", file=out)
    if report.seed is not None:
        print(f"  seed       {report.seed}", file=out)
    header = f"{'rank':>5}  {'player':<24} {'claimed':<26} {'proved':<26} result"
    print(header, file=out)
    for check in report.checks:
        claimed = _figures(check.claimed)
        proved = _figures(check.proved) if check.proved else "-"
        rank = check.rank if check.rank is not None else "-"
        verdict = "OK" if check.ok else "MISMATCH"
        print(f"{rank:>5}  {check.player:<24} {claimed:<26} {proved:<26} {verdict}", file=out)
        for problem in check.problems:
            print(f"{'':7}- {problem}", file=out)
    for problem in report.problems:
        print(f"MISMATCH: {problem}", file=out)
    for note in report.notes:
        print(f"note: {note}", file=out)
    bad = sum(not check.ok for check in report.checks)
    verdict = "OK" if report.ok else "MISMATCH"
    print(
        f"{verdict}: {len(report.checks)} checked, {bad} mismatched, "
        f"{len(report.problems)} problem(s) with the day",
        file=out,
    )


def _figures(figures: Outcome) -> str:
    return f"{figures.status} {figures.foundation_cards} cards {figures.moves} moves"


def run(
    argv: list[str],
    *,
    fetch: Fetch = http_fetch,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the command with ``argv``; return its exit status (0 agree, 1 mismatch, 2 error)."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = argparse.ArgumentParser(
        prog="python -m games.verification.reverify",
        description="Re-verify a past day's leaderboard, or one game, with the rules engine.",
    )
    parser.add_argument("url", help="…/api/leaderboards/<slug>/<date>/ or …/api/games/<id>/")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--limit", type=int, help="check at most N entries of the board")
    try:
        args = parser.parse_args(argv)
    except SystemExit as error:
        return 0 if error.code == 0 else 2
    try:
        if args.limit is not None and args.limit < 1:
            raise UsageError("--limit must be at least 1")
        base, kind, parts = target(args.url)
        verifier = Verifier(base, fetch, progress=err)
        if kind == "day":
            report = verifier.day(parts["slug"], parts["date"], limit=args.limit)
        else:
            report = verifier.game(parts["id"])
    except UsageError as error:
        print(f"error: {error}", file=err)
        return 2
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        print(f"error: the API answered an unexpected shape ({error!r})", file=err)
        return 2
    if args.json:
        json.dump(report.to_json(), out, indent=2)
        out.write("\n")
    else:
        render(report, out)
    return 0 if report.ok else 1


def main() -> None:
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
