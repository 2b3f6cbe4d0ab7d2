"""Check the translation catalogues: the client's JSON ones and the server's gettext ones.

``python -m config.catalogues`` (``make messages`` runs it after extracting and compiling)
reports, for every language but English:

- the client: every ``t("…")`` and ``tn("…", "…")`` literal of ``frontend/static/frontend/*.js``
  (literals joined by ``+`` make one text, as they do when the call runs) missing from
  ``frontend/i18n/<language>.json``, the entries no call uses any more (stale: kept, only
  reported), translations whose ``{placeholders}`` differ from their English text, and calls
  whose text is not a literal (they cannot be checked);
- the server: every sentence of the code (the literal arguments of ``gettext`` and its kin,
  the texts of ``{% translate %}`` and ``{% blocktranslate %}``) missing from
  ``locale/<language>/LC_MESSAGES/django.po`` (``make messages`` adds them), every msgid
  without a translation or marked fuzzy, translations whose placeholders differ, and a compiled
  ``django.mo`` that is missing or does not say what the ``.po`` says.

It exits 1 when anything but stale entries and unchecked calls is found, else 0. The tests run
the same checks (``tests/foundation/test_catalogues.py``).
"""

from __future__ import annotations

import ast
import gettext
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from core.languages import CLIENT_CATALOGUES

BASE_DIR = Path(__file__).resolve().parent.parent
CLIENT_SOURCES = BASE_DIR / "frontend" / "static" / "frontend"
LOCALE_DIR = BASE_DIR / "locale"
LANGUAGES = ("fr", "es")

_STRING = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\.)*`)"""
_CALL = re.compile(r"(?<![\w$.])(tn?)\(\s*")
_LITERAL = re.compile(_STRING, re.S)
_PLUS = re.compile(r"\s*\+\s*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_JS_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\n|.)", re.S)
_BRACE = re.compile(r"\{(\w+)(?:![rsa])?(?::[^{}]*)?\}")
_PERCENT = re.compile(r"%\((\w+)\)[#0 +-]*\d*(?:\.\d+)?[sdifr]")


# --- the client ------------------------------------------------------------------------------


def _unescape_js(body: str) -> str:
    def one(match: re.Match[str]) -> str:
        text = match.group(1)
        if text.startswith("u{"):
            return chr(int(text[2:-1], 16))
        if text[0] in "ux" and len(text) > 1:
            return chr(int(text[1:], 16))
        if text == "\n":
            return ""
        return _ESCAPES.get(text, text)

    return _JS_ESCAPE.sub(one, body)


def _without_comments(source: str) -> str:
    """Return ``source`` with its comments blanked (strings kept), so that an example in a
    comment is not taken for a call."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char in "\"'`":
            match = _LITERAL.match(source, i)
            end = match.end() if match else i + 1
            out.append(source[i:end])
            i = end
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * source.count("\n", i, end))
            i = end
        else:
            out.append(char)
            i += 1
    return "".join(out)


@dataclass
class ClientStrings:
    """The texts of the client's ``t()``/``tn()`` calls, where they are, and unchecked calls."""

    texts: dict[str, list[str]] = field(default_factory=dict)
    dynamic: list[str] = field(default_factory=list)


def _joined_literals(source: str, position: int) -> tuple[str | None, int]:
    """Read the literals joined by ``+`` at ``position``: return their text and where they end,
    or ``None`` when any part is not a plain literal (a variable, a template with ``${}``)."""
    parts: list[str] = []
    while True:
        literal = _LITERAL.match(source, position)
        if literal is None or (literal.group(0).startswith("`") and "${" in literal.group(0)):
            return None, position
        parts.append(_unescape_js(literal.group(0)[1:-1]))
        position = literal.end()
        plus = _PLUS.match(source, position)
        if plus is None:
            return "".join(parts), position
        position = plus.end()


def client_strings(files: Iterable[Path] | None = None) -> ClientStrings:
    """Extract the literal texts of every ``t()`` and ``tn()`` call of the client's modules."""
    found = ClientStrings()
    if files is None:  # i18n.js defines t() and tn() and calls them with variables
        files = [path for path in CLIENT_SOURCES.glob("*.js") if path.name != "i18n.js"]
    for path in sorted(files):
        source = _without_comments(path.read_text(encoding="utf-8"))
        for call in _CALL.finditer(source):
            line = source.count("\n", 0, call.start()) + 1
            where = f"{path.name}:{line}"
            wanted = 2 if call.group(1) == "tn" else 1
            position = call.end()
            for index in range(wanted):
                # A text may be split over lines as literals joined by "+": its key is the whole.
                text, position = _joined_literals(source, position)
                if text is None:
                    found.dynamic.append(where)
                    break
                found.texts.setdefault(text, []).append(where)
                if index + 1 < wanted:
                    comma = re.compile(r"\s*,\s*").match(source, position)
                    if comma is None:
                        found.dynamic.append(where)
                        break
                    position = comma.end()
    return found


def placeholders(text: str) -> set[str]:
    """Return the names of the ``{name}`` and ``%(name)s`` places of a text."""
    return set(_BRACE.findall(text)) | set(_PERCENT.findall(text))


@dataclass
class Report:
    """What a check found; ``failed`` when anything but stale entries and unchecked calls."""

    missing: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.missing or self.mismatched or self.problems)


def check_client(
    language: str, strings: ClientStrings | None = None, directory: Path = CLIENT_CATALOGUES
) -> Report:
    """Compare the client's texts with its catalogue of ``language`` (in ``directory``)."""
    strings = strings if strings is not None else client_strings()
    path = directory / f"{language}.json"
    report = Report(unchecked=list(strings.dynamic))
    try:
        catalogue = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        report.problems.append(f"{path.name}: cannot be read: {error}")
        return report
    if not isinstance(catalogue, dict):
        report.problems.append(f"{path.name}: must be a JSON object")
        return report
    for text, where in sorted(strings.texts.items()):
        translation = catalogue.get(text)
        if not isinstance(translation, str) or not translation.strip():
            report.missing.append(f"{text!r} ({', '.join(where)})")
    for text, translation in sorted(catalogue.items()):
        if not isinstance(translation, str):
            report.problems.append(f"{text!r}: the translation must be a string")
        elif placeholders(text) != placeholders(translation):
            report.mismatched.append(f"{text!r} → {translation!r}")
        if text not in strings.texts:
            report.stale.append(repr(text))
    return report


# --- the server ------------------------------------------------------------------------------


@dataclass
class PoEntry:
    """One message of a ``.po`` file."""

    msgid: str
    context: str | None = None
    plural: str | None = None
    strings: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False
    line: int = 0

    @property
    def key(self) -> str:
        return self.msgid if self.context is None else f"{self.context}\x04{self.msgid}"


_PO_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b"}


def _po_string(text: str, line: int) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"line {line}: expected a quoted string, got {text!r}")
    return re.sub(r"\\(.)", lambda m: _PO_ESCAPES.get(m.group(1), m.group(1)), text[1:-1])


def read_po(path: Path) -> list[PoEntry]:
    """Parse a ``.po`` file (obsolete ``#~`` entries left out); raise ``ValueError`` if bad."""
    return parse_po(path.read_text(encoding="utf-8"))


def parse_po(text: str) -> list[PoEntry]:
    """Parse the text of a ``.po`` file, like :func:`read_po`."""
    entries: list[PoEntry] = []
    entry: PoEntry | None = None
    flags: set[str] = set()
    target: tuple[str, int] | None = None

    def start(line: int) -> None:
        nonlocal entry, flags
        if entry is not None and "msgid" in seen:
            entries.append(entry)
        entry = PoEntry(msgid="", fuzzy="fuzzy" in flags, line=line)
        seen.clear()
        flags = set()

    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            continue
        if line.startswith("#,"):
            flags |= {flag.strip() for flag in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            if entry is None or target is None:
                raise ValueError(f"line {number}: a string continues nothing")
            value = _po_string(line, number)
            name, index = target
            if name == "msgctxt":
                entry.context = (entry.context or "") + value
            elif name == "msgid":
                entry.msgid += value
            elif name == "msgid_plural":
                entry.plural = (entry.plural or "") + value
            else:
                entry.strings[index] = entry.strings.get(index, "") + value
            continue
        # An entry starts at its msgctxt, or at its msgid when it has no context.
        if keyword == "msgctxt" or (keyword == "msgid" and seen != {"msgctxt"}):
            start(number)
        if entry is None:
            raise ValueError(f"line {number}: {keyword} comes before any msgid")
        value = _po_string(rest, number)
        if keyword == "msgctxt":
            entry.context, target = value, ("msgctxt", 0)
        elif keyword == "msgid":
            entry.msgid, target = value, ("msgid", 0)
        elif keyword == "msgid_plural":
            entry.plural, target = value, ("msgid_plural", 0)
        elif keyword == "msgstr":
            entry.strings[0], target = value, ("msgstr", 0)
            keyword = "msgstr"
        elif (plural := re.fullmatch(r"msgstr\[(\d+)\]", keyword)) is not None:
            index = int(plural.group(1))
            entry.strings[index], target = value, ("msgstr", index)
            keyword = "msgstr"
        else:
            raise ValueError(f"line {number}: unknown keyword {keyword!r}")
        seen.add(keyword)
    if entry is not None and "msgid" in seen:
        entries.append(entry)
    return entries


SERVER_SOURCES = ("config", "games", "leaderboards")
SERVER_TEMPLATES = ("frontend",)
_SINGULAR = {"gettext", "gettext_lazy", "gettext_noop", "_", "ngettext", "ngettext_lazy"}
_CONTEXTUAL = {"pgettext", "pgettext_lazy", "npgettext", "npgettext_lazy"}
_TEMPLATE_TAG = re.compile(
    r"""\{%\s*(?:translate|trans)\s+(?P<q>["'])(?P<text>.*?)(?P=q)"""
    r"""(?:\s+context\s+(?P<c>["'])(?P<context>.*?)(?P=c))?[^%]*%\}""",
    re.S,
)
_TEMPLATE_BLOCK = re.compile(
    r"""\{%\s*blocktrans(?:late)?(?P<options>[^%]*)%\}(?P<text>.*?)"""
    r"""\{%\s*endblocktrans(?:late)?\s*%\}""",
    re.S,
)


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def server_strings(base: Path = BASE_DIR) -> dict[tuple[str | None, str], str]:
    """Return the server's sentences, ``(context, msgid)`` → where: the literal arguments of
    the gettext functions in the Python modules, and the translated texts of the templates."""
    found: dict[tuple[str | None, str], str] = {}
    for folder in SERVER_SOURCES:
        for path in sorted((base / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            where = str(path.relative_to(base))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                # The msgid is the (singular) text; a plural rides along with it.
                if name in _SINGULAR:
                    context, text = None, _literal(node.args[0])
                elif name in _CONTEXTUAL and len(node.args) >= 2:
                    context, text = _literal(node.args[0]), _literal(node.args[1])
                else:
                    continue
                if text:
                    found.setdefault((context, text), f"{where}:{node.lineno}")
    for folder in SERVER_TEMPLATES:
        for path in sorted((base / folder).rglob("*.html")):
            source = path.read_text(encoding="utf-8")
            where = str(path.relative_to(base))
            for tag in _TEMPLATE_TAG.finditer(source):
                found.setdefault((tag.group("context"), tag.group("text")), where)
            for block in _TEMPLATE_BLOCK.finditer(source):
                text = re.sub(r"\{\{\s*(\w+)\s*\}\}", r"%(\1)s", block.group("text"))
                if "trimmed" in block.group("options"):
                    text = " ".join(line.strip() for line in text.strip().splitlines())
                context = re.search(r"""context\s+(["'])(.*?)\1""", block.group("options"))
                found.setdefault((context.group(2) if context else None, text), where)
    return found


@cache
def _service_strings() -> dict[tuple[str | None, str], str]:
    """Return the service's own sentences, read once for every language's check."""
    return server_strings(BASE_DIR)


def check_po(po: Path, mo: Path, sources: Path | None = BASE_DIR) -> Report:
    """Check that every message of ``po`` is translated, that ``mo`` says the same, and (with
    ``sources``) that every sentence of the server's code is in ``po``."""
    report = Report()
    try:
        entries = read_po(po)
    except (OSError, ValueError) as error:
        report.problems.append(f"{po.name}: cannot be read: {error}")
        return report
    messages = [entry for entry in entries if entry.msgid]
    if sources is not None:
        known = {(entry.context, entry.msgid) for entry in messages}
        found = _service_strings() if sources == BASE_DIR else server_strings(sources)
        for (context, text), where in sorted(found.items(), key=lambda item: item[1]):
            if (context, text) not in known:
                report.missing.append(f"{where} {text!r} is not in {po.name}: run `make messages`")
    for entry in messages:
        where = f"{po.name}:{entry.line} {entry.msgid!r}"
        forms = [entry.strings.get(index, "") for index in range(max(len(entry.strings), 1))]
        if entry.fuzzy or not all(form.strip() for form in forms):
            report.missing.append(where)
            continue
        expected = placeholders(entry.msgid) | placeholders(entry.plural or "")
        if any(placeholders(form) - expected for form in forms) or (
            entry.plural is None and placeholders(forms[0]) != expected
        ):
            report.mismatched.append(where)
    try:
        with mo.open("rb") as handle:
            compiled = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    except Exception as error:  # a missing or corrupt file, whatever the way it is broken
        report.problems.append(f"{mo.name}: cannot be read: {error}")
        return report
    wanted: dict[object, str] = {}
    for entry in messages:
        if entry.fuzzy:
            continue
        if entry.plural is None:
            if entry.strings.get(0):
                wanted[entry.key] = entry.strings[0]
        else:
            for index, form in entry.strings.items():
                if form:
                    wanted[(entry.key, index)] = form
    actual = {key: value for key, value in compiled.items() if key != ""}
    if wanted != actual:
        report.problems.append(
            f"{mo.name} is out of date with {po.name}: run `make messages` (or "
            "`python manage.py compilemessages`)"
        )
    return report


# --- the command line ------------------------------------------------------------------------


def _print(title: str, items: list[str]) -> None:
    if items:
        print(f"{title} ({len(items)}):")
        for item in items:
            print(f"  {item}")


def main() -> int:
    """Check every catalogue of every language; print what is found; return the exit status."""
    strings = client_strings()
    failed = False
    for language in LANGUAGES:
        client = check_client(language, strings)
        messages = LOCALE_DIR / language / "LC_MESSAGES"
        server = check_po(messages / "django.po", messages / "django.mo")
        print(f"[{language}] client: {len(strings.texts)} texts; server: django.po")
        _print("client texts without a translation", client.missing)
        _print("client translations whose {placeholders} differ", client.mismatched)
        _print("client catalogue entries no call uses (stale)", client.stale)
        _print("client calls whose text is not a literal (unchecked)", client.unchecked)
        _print("client catalogue problems", client.problems)
        _print("server messages without a translation (or fuzzy)", server.missing)
        _print("server translations whose placeholders differ", server.mismatched)
        _print("server catalogue problems", server.problems)
        failed = failed or client.failed or server.failed
    print("FAILED" if failed else "OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
