"""The repository's documents hold together: every relative link and anchor of every Markdown
file resolves, and every mention of a contract (``docs/api.md``, ``docs/deals.md``,
``docs/variants.md``, ``docs/engine.md``) in code, tests and docs names a file that exists."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SKIPPED_DIRS = {
    ".git",
    ".venv",
    "node_modules",
    "var",
    "staticfiles",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
}
TEXT_SUFFIXES = {".py", ".md", ".js", ".html", ".css", ".toml", ".yml", ".yaml", ".conf", ".json"}
TEXT_NAMES = {"Makefile", "Dockerfile", "run", "production.env.example"}

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_LINK = re.compile(r"(?:href|src)\s*=\s*\"([^\"]*)\"")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)\s*=\s*\"([^\"]+)\"")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
CONTRACT = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*(?:api|deals|variants|engine)\.md)\b")


def repository_files(suffixes: set[str], names: set[str] = frozenset()) -> Iterator[Path]:
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        for name in files:
            path = Path(folder) / name
            if path.suffix in suffixes or name in names:
                yield path


MARKDOWN = sorted(repository_files({".md"}))


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield the lines outside fenced code blocks, with their numbers."""
    fenced = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence:
            fenced = None if fenced == fence.group(1) else fenced or fence.group(1)
            continue
        if fenced is None:
            yield number, line


def slug(heading: str) -> str:
    """Return the anchor GitHub gives a heading: its text, lower case, spaces as hyphens, and
    nothing but letters, digits, ``-`` and ``_``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "").strip().lower()
    return "".join(c for c in text if c.isalnum() or c in " -_").replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Return the anchors of a Markdown file: its headings' (repeats get -1, -2, …) and any
    ``<a id=…>`` or ``<a name=…>``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        found.update(HTML_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path) -> list[str]:
    """Return every relative link of a Markdown file whose file or anchor does not exist."""
    broken = []
    for number, raw in prose_lines(path.read_text(encoding="utf-8")):
        line = CODE_SPAN.sub("", raw)
        targets = INLINE_LINK.findall(line) + HTML_LINK.findall(line)
        reference = REFERENCE.match(line)
        if reference:
            targets.append(reference.group(1))
        for target in targets:
            if not target or SCHEME.match(target):
                continue
            where = f"{path.relative_to(ROOT)}:{number}: {target}"
            file_part, _, anchor = target.partition("#")
            base = ROOT if file_part.startswith("/") else path.parent
            linked = (base / file_part.lstrip("/")).resolve() if file_part else path
            if ROOT not in (linked, *linked.parents) or not linked.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and (linked.suffix != ".md" or anchor not in anchors(linked)):
                broken.append(f"{where} (no such anchor)")
    return broken


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_and_anchor_of_a_markdown_file_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_the_repository_has_its_documents() -> None:
    names = {str(path.relative_to(ROOT)) for path in MARKDOWN}

    assert {"README.md", "docs/api.md", "docs/deals.md", "docs/variants.md"} <= names


@pytest.mark.parametrize(
    ("text", "broken"),
    [
        ("# Title\n\n[here](#title) and [there](other.md#part)\n", []),
        ("[gone](missing.md)\n", ["missing.md (no such file)"]),
        ("# Title\n\n[gone](#nowhere)\n", ["#nowhere (no such anchor)"]),
        ("[gone](other.md#nowhere)\n", ["other.md#nowhere (no such anchor)"]),
        ('<img src="missing.png" alt="x">\n', ["missing.png (no such file)"]),
        ("[ref]: missing.md\n", ["missing.md (no such file)"]),
        ("```\n[in code](missing.md)\n```\n`[in a span](missing.md)`\n", []),
        ("[out](https://example.org/missing.md) <https://example.org>\n", []),
        ("# A `code` title, twice\n# A `code` title, twice\n[x](#a-code-title-twice-1)\n", []),
        ("[escape](../../outside.md)\n", ["../../outside.md (no such file)"]),
    ],
)
def test_the_link_check_finds_broken_files_and_anchors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, broken: list[str]
) -> None:
    # given: a small repository of two documents
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "other.md").write_text("# Other\n\n## Part\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text("# Outside the folder\n", encoding="utf-8")
    folder = tmp_path / "docs"
    folder.mkdir()
    page = folder / "page.md"
    page.write_text(text.replace("other.md", "../other.md"), encoding="utf-8")

    # when
    found = broken_links(page)

    # then
    assert [entry.split(": ", 1)[1] for entry in found] == [
        entry.replace("other.md", "../other.md") for entry in broken
    ]


def contract_mentions(path: Path) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for mention in CONTRACT.findall(line):
            yield number, mention


def test_every_mention_of_a_contract_names_a_file_that_exists() -> None:
    # given: every text file of the repository (code, tests, docs, configuration)
    files = sorted(repository_files(TEXT_SUFFIXES, TEXT_NAMES))
    assert files

    # when: each mention of a contract (docs/api.md, docs/deals.md, docs/variants.md,
    # docs/engine.md, or a sibling's name inside docs/) is resolved from the repository's root or
    # from the mentioning file's folder
    unresolved = [
        f"{path.relative_to(ROOT)}:{number}: {mention}"
        for path in files
        for number, mention in contract_mentions(path)
        if not (ROOT / mention).is_file() and not (path.parent / mention).is_file()
    ]

    # then
    assert unresolved == []
