"""The admin login page: failures lock an account and an address out, logged, with a clear
message; the lockout is kept in PostgreSQL, so it holds without Redis."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from django.test import Client

from games import clock
from games.models import Player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _small_limits(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ADMIN_LOGIN_ACCOUNT_FAILURES = 2
    settings.ADMIN_LOGIN_ADDRESS_FAILURES = 3
    settings.ADMIN_LOCKOUT_MINUTES = 15


@pytest.fixture
def admin_player() -> Player:
    return Player.objects.create_superuser("Root", "the right pass phrase")


def sign_in(nickname: str, password: str, address: str = "192.0.2.1") -> tuple[int, str]:
    answer = Client(REMOTE_ADDR=address).post(
        "/admin/login/?next=/admin/", {"username": nickname, "password": password}
    )
    return answer.status_code, answer.content.decode()


def test_an_account_is_locked_out_after_repeated_failures_even_for_the_right_password(
    admin_player, caplog
) -> None:
    # given two failures for Root, from two addresses
    caplog.set_level(logging.WARNING, logger="games.services.adminlogin")
    first = sign_in("Root", "wrong", "192.0.2.1")
    second = sign_in("root", "wrong again", "192.0.2.2")

    # when the right password comes, from a third address
    status, page = sign_in("Root", "the right pass phrase", "192.0.2.3")

    # then it is refused, saying why and for how long; every failure and the lockout logged
    assert first[0] == 200 and "Please enter the correct" in first[1]
    assert "locked for 15 more minutes" in second[1]
    assert status == 200
    assert "Too many failed sign-ins for this account" in page
    assert "locked for 15 more minutes" in page
    messages = [record.getMessage() for record in caplog.records]
    assert sum("admin login failed" in m for m in messages) == 2
    assert sum("admin login lockout: account" in m for m in messages) == 1
    assert any("admin login refused: account locked out" in m for m in messages)


def test_the_lockout_ends_once_its_window_has_passed(admin_player) -> None:
    # given a locked account
    sign_in("Root", "wrong")
    sign_in("Root", "wrong")

    # when the right password comes 15 minutes after the last failure
    with clock.frozen(clock.now() + dt.timedelta(minutes=15, seconds=1)):
        status, _page = sign_in("Root", "the right pass phrase", "192.0.2.9")

    # then it is let in
    assert status == 302


def test_an_address_is_locked_out_whatever_the_nicknames_it_tries(admin_player) -> None:
    # given three failures from one address, each on another nickname
    for nickname in ("a-one", "a-two", "a-three"):
        sign_in(nickname, "wrong", "198.51.100.7")

    # when Root signs in from that address, and from another
    _, there = sign_in("Root", "the right pass phrase", "198.51.100.7")
    elsewhere, _ = sign_in("Root", "the right pass phrase", "198.51.100.8")

    # then only that address is locked out
    assert "Too many failed sign-ins from your address" in there
    assert elsewhere == 302


def test_a_success_forgets_the_accounts_failures(admin_player) -> None:
    # given one failure
    sign_in("Root", "wrong")

    # when the right password comes, then a failure again
    assert sign_in("Root", "the right pass phrase")[0] == 302
    _, page = sign_in("Root", "wrong", "192.0.2.5")

    # then that failure is the first of a new count: no lockout
    assert "Too many failed" not in page
