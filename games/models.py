"""Database models of the games app."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.db.models.lookups import Exact
from django.utils import timezone, translation
from django.utils.translation import gettext

from games.engine import RulesError, compile_rules
from games.verification import figures


def same_nickname(nickname: str, field: str = "nickname") -> Exact:
    """A filter: ``field`` is ``nickname`` whatever its case.

    It compares ``lower()`` of both, as the unique index of nicknames does
    (``player_nickname_ci_unique``), so PostgreSQL finds the row through that index: Django's
    ``iexact`` compares ``upper()`` and reads every player."""
    return Exact(Lower(field), Lower(models.Value(nickname)))


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
        return self.get(same_nickname(username or ""))


class Player(AbstractBaseUser, PermissionsMixin):
    """Someone who plays: a registered account or a guest known only by nickname."""

    nickname = models.CharField(max_length=24, unique=True)
    is_guest = models.BooleanField(default=False)
    is_staff = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    date_joined = models.DateTimeField(default=timezone.now)
    banned_at = models.DateTimeField(
        null=True, blank=True, help_text="Banned from the daily challenges (practice stays open)."
    )
    ban_reason = models.CharField(max_length=500, blank=True, default="", db_default="")
    deleted_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Deleted by the player: nickname anonymised, credentials gone, results kept.",
    )
    sessions_epoch = models.PositiveIntegerField(
        default=0,
        db_default=0,
        help_text="Raised to end every browser session of the player at once.",
    )

    objects = PlayerManager()

    USERNAME_FIELD = "nickname"
    REQUIRED_FIELDS: list[str] = []

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("nickname"), name="player_nickname_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.nickname

    def _get_session_auth_hash(self, secret: str | None = None) -> str:
        """Bind sessions to ``sessions_epoch`` as well as the password: raising the epoch
        ends every session of the player ("sign out everywhere"). At epoch 0 the hash is
        Django's own, so sessions opened before epochs existed stay valid."""
        from django.utils.crypto import salted_hmac

        if not self.sessions_epoch:
            return super()._get_session_auth_hash(secret=secret)
        return salted_hmac(
            "daily_patience.Player.session",
            f"{self.password}|{self.sessions_epoch}",
            secret=secret,
            algorithm="sha256",
        ).hexdigest()


class ApiToken(models.Model):
    """An API token of a player, stored as the SHA-256 of its secret (never the secret).

    The secret is shown once, when the token is made; a token ends at ``expires_at``, when its
    player revokes it or rotates it, or signs out everywhere.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="api_tokens")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 (hex) of the secret.")
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=("player", "expires_at"), name="apitoken_player_expiry")]

    def __str__(self) -> str:
        return f"token {self.pk} of {self.player_id}"


class AdminLoginFailure(models.Model):
    """A failed sign-in on the admin login page, kept for its lockout window (per account and
    per address): PostgreSQL, so a lockout survives a restart or a Redis outage."""

    at = models.DateTimeField(db_index=True)
    nickname = models.CharField(max_length=150, help_text="As typed, lower-cased.")
    address = models.CharField(max_length=64)

    class Meta:
        indexes = [
            models.Index(fields=("nickname", "at"), name="adminfailure_nickname_at"),
            models.Index(fields=("address", "at"), name="adminfailure_address_at"),
        ]

    def __str__(self) -> str:
        return f"{self.nickname} from {self.address} at {self.at}"


TRANSLATED_FIELDS = {"name": 60, "description": 2000}


def translations_problem(value: Any) -> str | None:
    """Return what is wrong with a variant's ``translations``, or None when it is well formed:
    an object of language codes of ``LANGUAGES`` (English excepted), each an object of ``name``
    and ``description`` texts."""
    if not isinstance(value, dict):
        return gettext("Translations are a JSON object of language codes.")
    languages = {code for code, _name in settings.LANGUAGES} - {"en"}
    for code, entry in value.items():
        if code not in languages:
            return gettext("{code!r} is not a language of the service ({languages}).").format(
                code=code, languages=", ".join(sorted(languages))
            )
        if not isinstance(entry, dict) or not set(entry) <= set(TRANSLATED_FIELDS):
            return gettext("Each language holds only a name and a description.")
        for field, limit in TRANSLATED_FIELDS.items():
            text = entry.get(field, "")
            if not isinstance(text, str) or len(text) > limit or "\x00" in text:
                return gettext("{field} in {code}: a text of at most {limit} characters.").format(
                    field=field, code=code, limit=limit
                )
    return None


class Variant(models.Model):
    """A patience variant of the catalogue: its rules document and how it is offered."""

    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=60)
    description = models.TextField(blank=True)
    rules = models.JSONField(help_text="The rules document (see games/engine/rules.py).")
    enabled = models.BooleanField(default=True, help_text="Listed and playable.")
    daily = models.BooleanField(default=True, help_text="Gets a daily deal.")
    display_order = models.PositiveIntegerField(default=0)
    translations = models.JSONField(
        default=dict,
        blank=True,
        help_text='The name and description in other languages, e.g. {"fr": {"name": '
        '"Castille", "description": "…"}}; the English ones serve where a language has none.',
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("display_order", "slug")

    def __str__(self) -> str:
        return self.name

    def translated(self, field: str, language: str | None = None) -> str:
        """Return the ``name`` or ``description`` in ``language`` (default: the active one),
        falling back to the English field when that language has none."""
        code = (language or translation.get_language() or "en").split("-")[0]
        entry = self.translations.get(code) if isinstance(self.translations, dict) else None
        text = entry.get(field) if isinstance(entry, dict) else None
        return text if isinstance(text, str) and text.strip() else getattr(self, field)

    @property
    def display_name(self) -> str:
        """The name in the active language (for templates)."""
        return self.translated("name")

    @property
    def display_description(self) -> str:
        """The description in the active language (for templates)."""
        return self.translated("description")

    def clean(self) -> None:
        """Refuse a rules document the engine cannot compile, naming the bad field."""
        try:
            compile_rules(self.rules)
        except RulesError as error:
            raise ValidationError({"rules": str(error)}) from None
        problem = translations_problem(self.translations)
        if problem is not None:
            raise ValidationError({"translations": problem})

    @property
    def decks(self) -> int:
        return int(self.rules.get("decks", 1)) if isinstance(self.rules, dict) else 1


class Deal(models.Model):
    """The daily deal of a variant: a secret seed, its public commitment, frozen rules."""

    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="deals")
    date = models.DateField()
    attempt = models.PositiveSmallIntegerField(default=0)
    seed = models.CharField(max_length=64, help_text="Secret until the day is over (hex).")
    commitment = models.CharField(max_length=64, help_text="SHA-256 of the seed (hex).")
    rules = models.JSONField(help_text="The rules document as it was when the deal was made.")
    certified = models.BooleanField(
        default=False, help_text="The solver proved the deal winnable before it was served."
    )
    checking = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Made on demand, uncertified: the solver is yet to decide it (the scheduler).",
    )
    difficulty = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="1 (easy) to 5 (hard), from the solver's effort by its variant's calibration.",
    )
    effort = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Positions the solver expanded to win the deal (what its difficulty rates).",
    )
    solution = models.JSONField(
        null=True, blank=True, help_text="The solver's winning line (secret; its length is par)."
    )
    results_count = models.PositiveIntegerField(
        default=0, help_text="Verified results of the deal (counted as each one is sealed)."
    )
    withdrawals = models.PositiveIntegerField(
        default=0,
        db_default=0,
        help_text="Voided results plus results of banned players (a board's freshness count).",
    )
    regeneration_requested_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When an admin asked to regenerate it (the scheduler does, then clears this).",
    )
    published_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When an API answer first showed its commitment: from then on it never changes.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-date", "variant__display_order")
        constraints = [
            models.UniqueConstraint(fields=("variant", "date"), name="one_deal_per_variant_day"),
        ]

    def __str__(self) -> str:
        return f"{self.variant.slug} {self.date.isoformat()}"

    @property
    def board_count(self) -> int:
        """Return the count a current board of the deal was built from (see leaderboards)."""
        return self.results_count + self.withdrawals

    @property
    def par(self) -> int | None:
        """Return the length of the solver's winning line, for a certified deal."""
        return len(self.solution) if self.certified and self.solution else None


class Game(models.Model):
    """One player's game of a deal (daily) or of a practice seed."""

    class Mode(models.TextChoices):
        DAILY = "daily"
        PRACTICE = "practice"

    class Status(models.TextChoices):
        PLAYING = "playing"
        WON = "won"
        RESIGNED = "resigned"

    id = models.CharField(primary_key=True, max_length=32, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="games")
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="games")
    mode = models.CharField(max_length=10, choices=Mode.choices)
    deal = models.ForeignKey(
        Deal, on_delete=models.PROTECT, null=True, blank=True, related_name="games"
    )
    seed = models.CharField(max_length=64, help_text="The deal's seed (hex).")
    seed_text = models.CharField(max_length=200, blank=True, help_text="Practice seed text.")
    seed_chosen = models.BooleanField(
        default=True, help_text="The player chose the practice seed text (else it stays hidden)."
    )
    rules = models.JSONField(help_text="The rules document the game is played by (frozen).")
    state = models.JSONField(help_text="The current position in the engine's full format.")
    ply = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    stuck = models.BooleanField(default=False)
    can_undo = models.BooleanField(
        default=False, help_text="The position can be taken back (shown to the player)."
    )
    foundation_cards = models.PositiveSmallIntegerField(default=0)
    verified = models.BooleanField(
        default=False, help_text="Shown to players; ranking reads only sealed results."
    )
    assisted = models.BooleanField(default=False, help_text="A hint was taken.")
    hint_line = models.JSONField(
        null=True,
        blank=True,
        help_text="The winning line hints follow while the player does (MOVEs; secret).",
    )
    hint_ply = models.PositiveIntegerField(
        null=True, blank=True, help_text="The ply the hint line starts at."
    )
    started_at = models.DateTimeField()
    first_move_at = models.DateTimeField(null=True, blank=True)
    last_move_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(
        max_length=500,
        blank=True,
        default="",
        db_default="",
        help_text="Why its result was voided (shown to players); ranking reads the sealed result.",
    )

    class Meta:
        ordering = ("-started_at",)
        constraints = [
            models.UniqueConstraint(
                fields=("player", "deal"),
                condition=models.Q(mode="daily"),
                name="one_daily_game_per_player_deal",
            ),
            models.CheckConstraint(
                condition=models.Q(mode="practice", deal__isnull=True)
                | models.Q(mode="daily", deal__isnull=False),
                name="daily_games_have_a_deal",
            ),
        ]
        indexes = [models.Index(fields=("deal", "status"), name="game_deal_status")]

    def __str__(self) -> str:
        return f"{self.variant.slug} {self.mode} game {self.id} of {self.player}"

    @property
    def is_over(self) -> bool:
        return self.status != self.Status.PLAYING

    @property
    def date(self) -> Any:
        return self.deal.date if self.deal_id else None

    @property
    def duration_ms(self) -> int:
        return duration_ms(self.first_move_at, self.last_move_at)

    @property
    def moves(self) -> list[dict[str, Any]]:
        """Return the move log as played, undo included (one query)."""
        return list(self.move_rows.order_by("ply").values_list("move", flat=True))


def duration_ms(first: Any, last: Any) -> int:
    """Return the milliseconds from the first move to the last (0 before two moves)."""
    if first is None or last is None:
        return 0
    return int((last - first).total_seconds() * 1000)


class Move(models.Model):
    """One ply of a game's log: the move as played, when, and the server's seal over both.

    Moves are only ever appended; (game, ply) is unique, so the same ply can never be written
    twice. The seal (an HMAC keyed outside the database) lets verification refuse a log or a
    time edited in the database.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="move_rows")
    ply = models.PositiveIntegerField(help_text="0 for the first move.")
    move = models.JSONField()
    at = models.DateTimeField()
    seal = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("game", "ply"), name="one_move_per_game_ply"),
        ]

    def __str__(self) -> str:
        return f"move {self.ply} of game {self.game_id}"


class Result(models.Model):
    """A verified daily result: figures computed by replaying the deal, sealed by the server.

    Written only by verification (``games.verification.daily``); the leaderboards rank nothing else,
    and only rows whose seal still matches their figures. A moderator may void it
    (``games.services.moderation``): the void's time and reason are sealed with the figures, so
    neither a void nor its removal can be written in the database without breaking the seal.
    """

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="result"
    )
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="results")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="results")
    status = models.CharField(max_length=10, choices=Game.Status.choices)
    foundation_cards = models.PositiveSmallIntegerField()
    moves = models.PositiveIntegerField(help_text="Plies, undo included.")
    duration_ms = models.PositiveBigIntegerField()
    finished_at = models.DateTimeField()
    assisted = models.BooleanField(default=False)
    seal = models.CharField(max_length=64)
    verified_at = models.DateTimeField()
    voided_at = models.DateTimeField(
        null=True, blank=True, help_text="Voided by a moderator: off every board and stats."
    )
    void_reason = models.CharField(max_length=500, blank=True, default="", db_default="")
    voided_by = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = figures.ordering(game_id=None)
        # The ranking order's index is leaderboards' (migration 0002 there): it orders game ids
        # bytewise, as the Redis boards do.
        indexes = [
            models.Index(fields=("player", "deal"), name="result_player_deal"),
        ]

    def __str__(self) -> str:
        return f"result of game {self.game_id}"


class VerificationFailure(models.Model):
    """A finished game that failed verification: kept off the boards, kept here for admins."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="verification_failures")
    reason = models.CharField(max_length=40)
    detail = models.TextField()
    at = models.DateTimeField()

    class Meta:
        ordering = ("-at",)

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.reason}"
