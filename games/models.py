"""Database models of the games app."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class PlayerManager(BaseUserManager["Player"]):
    """Create players and find them by nickname, whatever its case."""

    use_in_migrations = True

    def create_user(self, nickname: str, password: str | None = None, **extra: Any) -> Player:
        """Create a player; without a password the account cannot log in with one."""
        if not nickname:
            raise ValueError("A player needs a nickname.")
        player = self.model(nickname=nickname, **extra)
        if password is None:
            player.set_unusable_password()
        else:
            player.set_password(password)
        player.save(using=self._db)
        return player

    def create_superuser(self, nickname: str, password: str | None = None, **extra: Any) -> Player:
        """Create a staff player with every permission."""
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        if extra["is_staff"] is not True or extra["is_superuser"] is not True:
            raise ValueError("A superuser needs is_staff=True and is_superuser=True.")
        return self.create_user(nickname, password, **extra)

    def get_by_natural_key(self, username: str | None) -> Player:
        """Find a player by nickname, ignoring case."""
        return self.get(nickname__iexact=username)


class Player(AbstractBaseUser, PermissionsMixin):
    """Someone who plays: a registered account or a guest known only by nickname."""

    nickname = models.CharField(max_length=24, unique=True)
    is_guest = models.BooleanField(default=False)
    is_staff = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    date_joined = models.DateTimeField(default=timezone.now)

    objects = PlayerManager()

    USERNAME_FIELD = "nickname"
    REQUIRED_FIELDS: list[str] = []

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("nickname"), name="player_nickname_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.nickname
