"""Players are the user model: nicknames are unique whatever their case."""

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from games.models import Player

pytestmark = pytest.mark.django_db


def test_player_is_the_user_model() -> None:
    assert get_user_model() is Player


def test_player_created_without_password_cannot_log_in_with_one() -> None:
    player = Player.objects.create_user("Alice", is_guest=True)

    assert player.is_guest is True
    assert player.is_active is True
    assert player.has_usable_password() is False


def test_player_created_with_password_checks_it() -> None:
    player = Player.objects.create_user("Bob", password="a long passphrase")

    assert player.check_password("a long passphrase") is True
    assert player.is_guest is False


def test_nickname_is_unique_whatever_its_case() -> None:
    Player.objects.create_user("Alice")

    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create_user("ALICE")


def test_natural_key_lookup_ignores_case() -> None:
    alice = Player.objects.create_user("Alice")

    assert Player.objects.get_by_natural_key("aLiCe") == alice


def test_superuser_is_staff_with_every_permission() -> None:
    admin = Player.objects.create_superuser("root", password="another passphrase")

    assert (admin.is_staff, admin.is_superuser) == (True, True)
