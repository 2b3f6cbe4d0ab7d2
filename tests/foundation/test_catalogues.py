"""The translation catalogues are complete and in step with the code (config.catalogues).

The first two tests are the ones that fail when a new client text (``t("…")``) or a new server
sentence (``gettext``) has no French or Spanish yet: ``make messages`` then says what to
translate.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from config.catalogues import (
    BASE_DIR,
    LOCALE_DIR,
    check_client,
    check_po,
    client_strings,
    parse_po,
    server_strings,
)

FRENCH = LOCALE_DIR / "fr" / "LC_MESSAGES"


@pytest.mark.parametrize("language", ["fr", "es"])
def test_every_client_text_has_its_translation(language: str) -> None:
    report = check_client(language)

    assert report.missing == [], (
        f"run `make messages` and translate these in frontend/i18n/{language}.json"
    )
    assert report.mismatched == []
    assert report.problems == []


@pytest.mark.parametrize("language", ["fr", "es"])
def test_every_server_sentence_has_its_translation_compiled(language: str) -> None:
    messages = LOCALE_DIR / language / "LC_MESSAGES"
    report = check_po(messages / "django.po", messages / "django.mo")

    assert report.missing == [], f"translate these in locale/{language}/LC_MESSAGES/django.po"
    assert report.mismatched == []
    assert report.problems == []


def test_the_checker_runs_from_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "config.catalogues"],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("OK")


# --- the client's texts --------------------------------------------------------------------


def test_texts_are_taken_from_t_and_tn_calls_only(tmp_path: Path) -> None:
    # given
    module = tmp_path / "view.js"
    module.write_text(
        '// t("an example in a comment")\n'
        '/* tn("nor", "this", 2) */\n'
        'const a = t("Play");\n'
        "const b = t('It\\'s {name}\\u2019s turn', { name });\n"
        'const c = tn("{count} move", "{count} moves", n);\n'
        "const d = t(`Plain template`);\n"
        "const e = t(label);\n"
        "const f = t(`Hello ${name}`);\n"
        'const g = split("not a call of t") + format("nor this") + obj.t("nor this");\n'
        'const h = t("A long text, " +\n  "split over lines " + `in three`, { n }) + "!";\n'
        'const i = t("Hello " + name);\n',
        encoding="utf-8",
    )

    # when
    found = client_strings([module])

    # then
    assert found.texts == {
        "Play": ["view.js:3"],
        "It's {name}’s turn": ["view.js:4"],
        "{count} move": ["view.js:5"],
        "{count} moves": ["view.js:5"],
        "Plain template": ["view.js:6"],
        "A long text, split over lines in three": ["view.js:10"],
    }
    assert found.dynamic == ["view.js:7", "view.js:8", "view.js:12"]


def test_a_missing_a_mismatched_and_a_stale_translation_are_told(tmp_path: Path) -> None:
    # given
    module = tmp_path / "view.js"
    module.write_text('t("Play"); t("Rank {rank}"); t("New text");\n', encoding="utf-8")
    (tmp_path / "fr.json").write_text(
        json.dumps({"Play": "Jouer", "Rank {rank}": "Rang {rang}", "Gone": "Parti"}),
        encoding="utf-8",
    )

    # when
    report = check_client("fr", client_strings([module]), directory=tmp_path)

    # then
    assert report.missing == ["'New text' (view.js:1)"]
    assert report.mismatched == ["'Rank {rank}' → 'Rang {rang}'"]
    assert report.stale == ["'Gone'"]
    assert report.failed


def test_a_catalogue_that_is_not_an_object_of_texts_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "fr.json").write_text('["Jouer"]', encoding="utf-8")
    (tmp_path / "it.json").write_text("{not json", encoding="utf-8")

    for language in ("fr", "it", "de"):
        report = check_client(language, client_strings([]), directory=tmp_path)
        assert report.failed and report.problems


# --- the server's catalogue ----------------------------------------------------------------


def test_untranslated_fuzzy_and_mismatched_messages_are_told(tmp_path: Path) -> None:
    # given
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Done."\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Nearly."\nmsgstr "Presque."\n\n'
        'msgid "At ply {ply}."\nmsgstr "Au coup {coup}."\n\n'
        'msgctxt "rank"\nmsgid "King"\nmsgstr "Roi"\n',
        encoding="utf-8",
    )

    # when
    report = check_po(po, tmp_path / "django.mo", sources=None)

    # then
    assert [line.split(" ", 1)[1] for line in report.missing] == ["'Done.'", "'Nearly.'"]
    assert [line.split(" ", 1)[1] for line in report.mismatched] == ["'At ply {ply}.'"]
    assert len(report.problems) == 1
    assert report.problems[0].startswith("django.mo: cannot be read")


def test_a_compiled_catalogue_behind_its_po_is_told(tmp_path: Path) -> None:
    # given: the shipped catalogue, one translation of the .po changed and not compiled
    shutil.copy(FRENCH / "django.mo", tmp_path / "django.mo")
    text = (FRENCH / "django.po").read_text(encoding="utf-8")
    changed = text.replace('msgstr "Jeton invalide."', 'msgstr "Jeton non valable."')
    assert changed != text
    (tmp_path / "django.po").write_text(changed, encoding="utf-8")

    # when
    report = check_po(tmp_path / "django.po", tmp_path / "django.mo")

    # then
    assert report.missing == report.mismatched == []
    assert report.problems == [
        "django.mo is out of date with django.po: run `make messages` (or "
        "`python manage.py compilemessages`)"
    ]


def test_the_po_reader_joins_continued_lines_and_contexts() -> None:
    entries = parse_po(
        '# a comment\nmsgctxt "card"\nmsgid ""\n"Two "\n"lines"\nmsgstr "Deux "\n"lignes"\n\n'
        'msgid "One"\nmsgid_plural "Many"\nmsgstr[0] "Un"\nmsgstr[1] "Plusieurs"\n\n'
        '#~ msgid "Old"\n#~ msgstr "Vieux"\n'
    )

    assert [(e.context, e.msgid, e.plural, e.strings) for e in entries] == [
        ("card", "Two lines", None, {0: "Deux lignes"}),
        (None, "One", "Many", {0: "Un", 1: "Plusieurs"}),
    ]


def test_a_malformed_po_is_refused_with_its_line() -> None:
    for text in ['msgstr "x"\n', 'msgid "a"\nmsgstr x\n', '"lost"\n', 'msgid "a"\nmsgwhat "b"\n']:
        with pytest.raises(ValueError, match="line"):
            parse_po(text)


def test_server_sentences_are_taken_from_gettext_calls_and_templates(tmp_path: Path) -> None:
    # given
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "views.py").write_text(
        "from django.utils.translation import gettext, ngettext, pgettext_lazy\n"
        "A = gettext('One sentence.')\n"
        "B = ngettext('{n} card', '{n} cards', n)\n"
        "C = pgettext_lazy('rank', 'King')\n"
        "D = gettext(variable)\n"
        "E = print('not a sentence')\n",
        encoding="utf-8",
    )
    (tmp_path / "frontend").mkdir()
    (tmp_path / "frontend" / "page.html").write_text(
        "{% translate \"Title\" %}{% translate 'Menu' context 'nav' %}\n"
        "{% blocktranslate trimmed %}\n  Two\n  lines {{ who }}\n{% endblocktranslate %}\n",
        encoding="utf-8",
    )

    # when
    found = server_strings(tmp_path)

    # then
    assert set(found) == {
        (None, "One sentence."),
        (None, "{n} card"),
        ("rank", "King"),
        (None, "Title"),
        ("nav", "Menu"),
        (None, "Two lines %(who)s"),
    }
    assert found[(None, "One sentence.")] == "games/views.py:2"


def test_a_sentence_of_the_code_missing_from_the_po_is_told(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "new.py").write_text("gettext('A brand new sentence.')\n")

    report = check_po(FRENCH / "django.po", FRENCH / "django.mo", sources=tmp_path)

    assert report.missing == [
        "games/new.py:1 'A brand new sentence.' is not in django.po: run `make messages`"
    ]


def test_the_checker_checks_every_language_of_the_service(settings) -> None:
    from config.catalogues import LANGUAGES

    assert set(LANGUAGES) == {code for code, _name in settings.LANGUAGES} - {"en"}
