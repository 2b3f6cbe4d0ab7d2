"""The rules pages: every offered variant's rules in words, and its opening layout face down."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from games.engine import builtin_variant, card_label, catalogue, deal, launch_slugs, practice_seed
from games.engine.rules import Kind
from games.models import Variant
from games.services import variants_load
from games.views import RULES_SEED_TEXT
from games.words.pictures import BACKS_DRAWN

pytestmark = pytest.mark.django_db

FACE = re.compile(r'<span class="lp-card lp-face[^"]*">([^<]*)</span>')
BACK = '<span class="lp-card lp-back"'


@pytest.mark.parametrize("slug", launch_slugs())
def test_the_rules_page_describes_every_pile_kind_and_hides_face_down_cards(client, variants, slug):
    # given the opening deal the page pictures
    rules = builtin_variant(slug)
    state = deal(rules, practice_seed(RULES_SEED_TEXT))
    # when
    response = client.get(f"/rules/{slug}/")
    # then the page names the variant and has a section per pile kind it has
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert f"<h2>{variants[slug].name}</h2>" in page
    kinds = {rule.kind for rule in rules.piles}
    for kind in (Kind.FOUNDATION, Kind.TABLEAU, Kind.RESERVE):
        assert (f'class="rules-section rules-{kind.value}"' in page) == (kind in kinds)
    assert 'class="rules-section rules-stock"' in page
    assert 'class="rules-section rules-deal"' in page
    assert f"all {rules.total_cards} cards are on the foundations" in page
    # and the picture prints exactly the face-up cards (of the drawn tops), never a face-down one
    drawn_up: Counter[str] = Counter()
    backs = 0
    for rule, pile in zip(rules.piles, state.piles, strict=True):
        up = [card_label(card) for card in pile.cards[pile.hidden :]]
        top_only = rule.kind in (Kind.FOUNDATION, Kind.STOCK, Kind.WASTE)
        drawn_up.update(up[-1:] if top_only else up)
        if not (top_only and up):
            backs += 1 if top_only and pile.hidden else min(pile.hidden, BACKS_DRAWN)
    assert Counter(FACE.findall(page)) == drawn_up
    assert page.count(BACK) == backs
    assert "lp-down" not in page


def test_box_kite_says_its_rules_in_words(client, variants):
    page = client.get("/rules/box-kite/").content.decode()
    assert "up or down by one regardless of suit, King and Ace being adjacent" in page
    assert "An empty pile stays empty." in page
    assert "8 rounds over the tableau piles, the first 7 face down." in page
    assert "There is no stock." in page


def test_capricieuse_and_quadruple_canfield_say_their_redeals(client, variants):
    capricieuse = client.get("/rules/capricieuse/").content.decode()
    canfield = client.get("/rules/quadruple-canfield/").content.decode()
    assert "2 redeals, each available at any time" in capricieuse
    assert "A card on a foundation stays there." in capricieuse
    assert "turns the whole waste back over into the stock" in canfield
    assert "filled at once with the top card of the reserve" in canfield
    assert "Base rank of this deal" in canfield


def test_the_rules_index_lists_the_offered_variants_only(client, variants):
    # given one variant withdrawn
    Variant.objects.filter(slug="castile").update(enabled=False)
    # when
    page = client.get("/rules/").content.decode()
    # then
    for slug in launch_slugs():
        assert (f'href="/rules/{slug}/"' in page) == (slug != "castile")


@pytest.mark.parametrize("slug", ["no-such-game", "castile", "a.b", "%00", "x" * 41, "%C3%A9"])
def test_an_unknown_or_withdrawn_variant_has_a_not_found_page(client, variants, slug):
    # given Castile withdrawn
    Variant.objects.filter(slug="castile").update(enabled=False)
    # when
    response = client.get(f"/rules/{slug}/")
    # then an HTML page says so
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert "No such game" in response.content.decode()


@pytest.mark.parametrize(("language", "name"), [("fr", "Cerf-volant"), ("es", "Cometa")])
def test_a_reader_gets_the_variants_names_in_their_language(client, variants, language, name):
    # given the shipped translations (Box Kite is Cerf-volant in French, Cometa in Spanish)
    # when a French or Spanish browser asks for the index and a page
    index = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    page = client.get("/rules/box-kite/", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    # then both name it in that language
    assert name in index
    assert f"<h2>{name}</h2>" in page
    assert name not in client.get("/rules/box-kite/").content.decode()


# French decks print Valet, Dame and Roi as V, D and R; Spanish-language French-suited decks keep
# the J, Q and K of Jota, Reina and Rey.
@pytest.mark.parametrize(
    ("language", "letters"), [("fr", {"J": "V", "Q": "D", "K": "R"}), ("es", {})]
)
def test_a_reader_sees_the_letters_of_their_language_on_the_cards(
    client, variants, language, letters
):
    # given the opening layout drawn in English
    english = FACE.findall(client.get("/rules/box-kite/").content.decode())
    # when a French or Spanish reader looks at it
    page = client.get("/rules/box-kite/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    translated = FACE.findall(page)
    # then the same cards show their letters
    assert translated == [label.translate(str.maketrans(letters)) for label in english]
    assert any(label[0] in "JQK" for label in english)
    assert f'<html lang="{language}">' in page


@pytest.mark.parametrize("language", ["fr", "es"])
def test_every_variants_rules_are_said_in_french_and_spanish(language):
    from django.utils import translation

    from games.engine import catalogue
    from games.words.rules import rules_sections

    # given every shipped variant, further ones included
    for entry in catalogue():
        variant = builtin_variant(entry["slug"])
        with translation.override("en"):
            english = rules_sections(variant)
        # when its rules are said in the reader's language
        with translation.override(language):
            translated = rules_sections(variant)
        # then no title and no sentence is left in English
        assert len(translated) == len(english)
        for said, original in zip(translated, english, strict=True):
            assert said.title != original.title or (language, said.title) == ("fr", "Tableau")
            for sentence, english_sentence in zip(said.sentences, original.sentences, strict=True):
                assert sentence != english_sentence, (entry["slug"], sentence)


def _english_and_french(client, slug: str) -> tuple[str, str]:
    """Return a variant's rules page as an English and a French reader get it, each language's
    apostrophe written as itself."""
    english = client.get(f"/rules/{slug}/").content.decode()
    french = client.get(f"/rules/{slug}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    return english.replace("&#x27;", "'"), french.replace("&#x27;", "’")


CLASSICS = ["klondike-draw-3", "freecell", "spider-2-suits", "yukon"]


@pytest.mark.parametrize("slug", CLASSICS)
def test_the_classics_rules_pages_say_their_keys_in_english_and_french(client, variants, slug):
    # given the classics offered by an admin (loadvariants --all adds them disabled)
    variants_load(include_extras=True)
    Variant.objects.filter(slug__in=CLASSICS).update(enabled=True)
    said = {
        "klondike-draw-3": (
            "until they hold 1, 2, 3, 4, 5, 6, 7 cards; the first 0, 1, 2, 3, 4, 5, 6",
            "jusqu’à ce qu’elles tiennent 1, 2, 3, 4, 5, 6, 7 cartes",
        ),
        "freecell": (
            "plus one for each empty free cell, the whole doubled for each empty tableau pile",
            "plus une par cellule libre vide, le tout doublé pour chaque pile vide du tableau",
        ),
        "spider-2-suits": (
            "only while no tableau pile is empty",
            "que si aucune pile du tableau n’est vide",
        ),
        "yukon": (
            "Any face-up cards may be moved together, whatever their order",
            "Toutes les cartes visibles d’une pile peuvent être déplacées ensemble",
        ),
    }[slug]

    # when an English and a French reader ask for the page
    english, french = _english_and_french(client, slug)

    # then each reads the game's own rule in their language, and the picture hides the backs
    assert said[0] in english
    assert said[1] in french
    assert "lp-down" not in english


def test_the_rules_index_groups_the_games_by_family(client, variants):
    # given every shipped variant offered
    variants_load(include_extras=True)
    Variant.objects.update(enabled=True)

    # when
    page = client.get("/rules/").content.decode()

    # then each family heads its games, in the order of the families, and every game is listed
    headings = re.findall(r'<section class="rules-family" aria-labelledby="family-(\w+)"', page)
    assert headings == ["klondike", "freecell", "spider", "yukon", "canfield", "golf", "other"]
    for entry in catalogue():
        assert page.count(f'href="/rules/{entry["slug"]}/"') == 1
    spider = page.split('id="family-spider"')[1].split("</section>")[0]
    assert re.findall(r'href="/rules/([-\w]+)/"', spider) == [
        "spider-2-suits",
        "spider-1-suit",
        "spider-4-suits",
    ]


def test_the_families_are_named_in_the_readers_language(client, variants):
    page = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()

    assert '<h3 id="family-other">Autres jeux</h3>' in page


CLEARING = ["golf", "tripeaks", "pyramid"]


@pytest.mark.parametrize("slug", CLEARING)
def test_the_clearing_games_rules_pages_say_their_keys_in_english_and_french(
    client, variants, slug
):
    # given the clearing games offered by an admin (loadvariants --all adds them disabled)
    variants_load(include_extras=True)
    Variant.objects.filter(slug__in=CLEARING).update(enabled=True)
    said = {
        "golf": (
            "The waste takes the top card of any tableau pile that builds on its top card up or "
            "down by one regardless of suit.",
            "Le rebut prend la carte du dessus de toute pile du tableau",
        ),
        "tripeaks": (
            "a card is covered by the one or two cards of the next row that overlap it",
            "une carte est couverte par la ou les deux cartes de la rangée suivante",
        ),
        "pyramid": (
            "Two playable cards whose ranks add up to 13 are removed together onto the discard "
            "pile",
            "Deux cartes jouables dont les rangs font 13",
        ),
    }[slug]

    # when an English and a French reader ask for the page
    english, french = _english_and_french(client, slug)

    # then each reads the game's own rule and its goal, a clear tableau, in their language
    assert said[0] in english
    assert said[1] in french
    assert "The game is won when every tableau card is cleared away" in english
    assert "La partie est gagnée quand toutes les cartes du tableau sont enlevées" in french
