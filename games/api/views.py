"""REST views of docs/api.md: parse the request, call one service or selector, answer its payload.

Refusals are ``ServiceError``s raised by the services and selectors; ``games.api.exceptions``
turns them, and DRF's own exceptions, into the error body of docs/api.md.
"""

from __future__ import annotations

from django.contrib.auth import login, logout, update_session_auth_hash
from django.db import transaction
from django.middleware.csrf import get_token
from django.utils.translation import gettext
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import ErrorCode as E
from core.errors import ServiceError
from games import payloads, selectors, services
from games.api import docs, throttles
from games.api.base import ApiView, check_same_origin, json_object
from games.models import ApiToken, Player


def _player(request: Request) -> Player | None:
    return request.user if request.user.is_authenticated else None  # type: ignore[return-value]


def _signed_in(request: Request, player: Player, *, created: bool) -> Response:
    """Log the browser session in as ``player`` and answer its token.

    The session's row, ``last_login`` and the token are written in one transaction (one commit,
    not three: a crowd of guests arrives at the rollover)."""
    with transaction.atomic():
        login(request._request, player, backend="django.contrib.auth.backends.ModelBackend")
        body = {
            "token": services.player_token(player=player),
            "player": payloads.player_payload(player),
        }
    return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


# --- players and authentication -------------------------------------------------------------


class CsrfView(ApiView):
    @extend_schema(
        tags=["auth"],
        summary="Get a CSRF token (and its cookie) for session-authenticated unsafe requests",
        responses=docs.responses({200: docs.CsrfBody}),
    )
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request._request)})


class GuestView(ApiView):
    throttle_classes = throttles.AUTH

    @extend_schema(
        tags=["auth"],
        summary="Create a guest player and log the session in",
        request=docs.NicknameBody,
        responses=docs.responses({201: docs.TokenBody}, E.INVALID, E.FORBIDDEN, E.RATE_LIMITED),
    )
    def post(self, request: Request) -> Response:
        check_same_origin(request)
        body = json_object(request)
        player = services.player_create_guest(nickname=body.get("nickname"))
        return _signed_in(request, player, created=True)


class RegisterView(ApiView):
    throttle_classes = throttles.AUTH

    @extend_schema(
        tags=["auth"],
        summary="Create a player with a password and log the session in",
        request=docs.CredentialsBody,
        responses=docs.responses({201: docs.TokenBody}, E.INVALID, E.FORBIDDEN, E.RATE_LIMITED),
    )
    def post(self, request: Request) -> Response:
        check_same_origin(request)
        body = json_object(request)
        player = services.player_register(
            nickname=body.get("nickname"), password=body.get("password")
        )
        return _signed_in(request, player, created=True)


class LoginView(ApiView):
    throttle_classes = throttles.AUTH

    @extend_schema(
        tags=["auth"],
        summary="Log in with a nickname and password (session and token)",
        request=docs.CredentialsBody,
        responses=docs.responses(
            {200: docs.TokenBody}, E.INVALID, E.NOT_AUTHENTICATED, E.FORBIDDEN, E.RATE_LIMITED
        ),
    )
    def post(self, request: Request) -> Response:
        check_same_origin(request)
        body = json_object(request)
        player = services.player_login(
            request=request._request, nickname=body.get("nickname"), password=body.get("password")
        )
        return _signed_in(request, player, created=False)


class LogoutView(ApiView):
    @extend_schema(
        tags=["auth"],
        summary="Log the session out; with everywhere, end every session and token of the player",
        request=docs.LogoutBody,
        responses=docs.responses(
            {204: OpenApiResponse(description="Logged out.")},
            E.INVALID,
            E.NOT_AUTHENTICATED,
            E.FORBIDDEN,
        ),
    )
    def post(self, request: Request) -> Response:
        everywhere = json_object(request).get("everywhere", False)
        if not isinstance(everywhere, bool):
            raise ServiceError(
                E.INVALID, gettext("everywhere is true or false."), field="everywhere"
            )
        player = _player(request)
        if everywhere:
            if player is None:
                raise NotAuthenticated()
            services.player_sign_out_everywhere(player=player)
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountView(ApiView):
    """A view of one's own account: signed-in players only; writes counted per player."""

    permission_classes = [IsAuthenticated]
    limited_reads = False

    def get_throttles(self) -> list:  # type: ignore[type-arg]
        if self.request.method in ("GET", "HEAD") and not self.limited_reads:
            return []
        return [throttle() for throttle in throttles.ACCOUNT]


class MeView(AccountView):
    @extend_schema(
        tags=["auth"],
        summary="The current player",
        responses=docs.responses({200: docs.PlayerBody}, E.NOT_AUTHENTICATED),
    )
    def get(self, request: Request) -> Response:
        return Response(payloads.player_payload(request.user))  # type: ignore[arg-type]

    @extend_schema(
        tags=["auth"],
        summary="Delete one's account: results stay, anonymised; sessions and tokens end",
        request=docs.DeleteBody,
        responses=docs.responses(
            {204: OpenApiResponse(description="Deleted.")},
            E.INVALID,
            E.NOT_AUTHENTICATED,
            E.FORBIDDEN,
            E.RATE_LIMITED,
        ),
    )
    def delete(self, request: Request) -> Response:
        body = json_object(request)
        services.player_delete(
            player=request.user,  # type: ignore[arg-type]
            confirm=body.get("confirm"),
            password=body.get("password"),
        )
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MePasswordView(AccountView):
    @extend_schema(
        tags=["auth"],
        summary="Set a password (a guest keeps the account) or change it",
        request=docs.PasswordBody,
        responses=docs.responses(
            {200: docs.PlayerBody}, E.INVALID, E.NOT_AUTHENTICATED, E.FORBIDDEN, E.RATE_LIMITED
        ),
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        player = services.player_set_password(
            player=request.user,  # type: ignore[arg-type]
            password=body.get("password"),
            current_password=body.get("current_password"),
        )
        if request.auth is None:  # signed in by the session: it goes on with the new password
            update_session_auth_hash(request._request, player)
        return Response(payloads.player_payload(player))


class MeTokensView(AccountView):
    @extend_schema(
        tags=["auth"],
        summary="The player's live API tokens (never their secrets)",
        responses=docs.responses({200: docs.TokenListBody}, E.NOT_AUTHENTICATED),
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.player_tokens(request.user, current=request.auth))  # type: ignore[arg-type]

    @extend_schema(
        tags=["auth"],
        summary="Rotate: a new token; the one this request came with (if any) ends",
        request=None,
        responses=docs.responses(
            {201: docs.NewTokenBody}, E.NOT_AUTHENTICATED, E.FORBIDDEN, E.RATE_LIMITED
        ),
    )
    def post(self, request: Request) -> Response:
        current = request.auth if isinstance(request.auth, ApiToken) else None
        token, secret = services.token_rotate(player=request.user, current=current)  # type: ignore[arg-type]
        body = {
            "token": secret,
            "id": token.pk,
            "created_at": payloads.iso(token.created_at),
            "expires_at": payloads.iso(token.expires_at),
        }
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        tags=["auth"],
        summary="End every API token of the player (sessions stay)",
        request=None,
        responses=docs.responses(
            {204: OpenApiResponse(description="Revoked.")},
            E.NOT_AUTHENTICATED,
            E.FORBIDDEN,
            E.RATE_LIMITED,
        ),
    )
    def delete(self, request: Request) -> Response:
        services.tokens_revoke_all(player=request.user)  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeTokenView(AccountView):
    @extend_schema(
        tags=["auth"],
        summary="End one API token of the player",
        operation_id="me_token_revoke",
        request=None,
        responses=docs.responses(
            {204: OpenApiResponse(description="Revoked.")},
            E.NOT_AUTHENTICATED,
            E.NOT_FOUND,
            E.FORBIDDEN,
            E.RATE_LIMITED,
        ),
    )
    def delete(self, request: Request, token_id: int) -> Response:
        services.token_revoke(player=request.user, token_id=token_id)  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeExportView(AccountView):
    limited_reads = True

    @extend_schema(
        tags=["auth"],
        summary="Everything kept about the player, as JSON (no token secret, no secret seed)",
        responses=docs.responses({200: docs.ExportBody}, E.NOT_AUTHENTICATED, E.RATE_LIMITED),
    )
    def get(self, request: Request) -> Response:
        body = selectors.player_export(request.user)  # type: ignore[arg-type]
        headers = {"Content-Disposition": 'attachment; filename="daily-patience-account.json"'}
        return Response(body, headers=headers)


class MyGamesView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["games"],
        summary="The caller's own games, newest first, paged",
        parameters=[
            OpenApiParameter("status", str, enum=["playing", "over"], description="Filter."),
            docs.OFFSET,
            docs.LIMIT,
        ],
        responses=docs.responses(
            {
                200: inline_serializer(
                    "MyGamesBody",
                    {
                        "total": serializers.IntegerField(),
                        "offset": serializers.IntegerField(),
                        "limit": serializers.IntegerField(),
                        "games": docs.GameBody(many=True),
                    },
                )
            },
            E.INVALID,
            E.NOT_AUTHENTICATED,
        ),
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        offset, limit = selectors.check_page(params.get("offset"), params.get("limit"))
        total, games = selectors.player_games(
            request.user,  # type: ignore[arg-type]
            status=params.get("status"),
            offset=offset,
            limit=limit,
        )
        return Response(
            {
                "total": total,
                "offset": offset,
                "limit": limit,
                "games": [payloads.game_payload(game) for game in games],
            }
        )


# --- variants and daily deals ---------------------------------------------------------------


class VariantListView(ApiView):
    @extend_schema(
        tags=["variants"],
        summary="The enabled variants",
        parameters=[docs.LANGUAGE],
        responses=docs.responses({200: docs.VariantBody(many=True)}),
    )
    def get(self, request: Request) -> Response:
        return Response([payloads.variant_payload(v) for v in selectors.variant_list()])


class VariantDetailView(ApiView):
    @extend_schema(
        tags=["variants"],
        summary="One enabled variant with its rules document",
        parameters=[docs.SLUG, docs.LANGUAGE],
        responses=docs.responses({200: docs.VariantDetailBody}, E.NOT_FOUND),
    )
    def get(self, request: Request, slug: str) -> Response:
        variant = selectors.access_variant(slug)
        return Response(payloads.variant_payload(variant, with_rules=True))


class DailyListView(ApiView):
    @extend_schema(
        tags=["daily"],
        summary="Today's deal of every daily variant, with tomorrow's commitment once it is made",
        responses=docs.responses({200: docs.DailyBody(many=True)}),
    )
    def get(self, request: Request) -> Response:
        return Response(services.daily_list())


class DailyDetailView(ApiView):
    @extend_schema(
        tags=["daily"],
        summary="A variant's deal of one day, with its frozen rules (seed revealed once the day "
        "has ended)",
        parameters=[docs.SLUG, docs.DATE],
        responses=docs.responses({200: docs.DealDetailBody}, E.NOT_FOUND),
    )
    def get(self, request: Request, slug: str, date: str) -> Response:
        deal = services.deal_of_day(slug=slug, date_text=date)
        return Response(selectors.daily_entry(deal, with_rules=True))


class DailyHistoryView(ApiView):
    @extend_schema(
        tags=["daily"],
        operation_id="daily_history",
        summary="A daily variant's deals up to today, newest first, paged by date",
        parameters=[docs.SLUG, docs.BEFORE, docs.DEALS_LIMIT],
        responses=docs.responses({200: docs.DealHistoryBody}, E.INVALID, E.NOT_FOUND),
    )
    def get(self, request: Request, slug: str) -> Response:
        params = request.query_params
        _, limit = selectors.check_page(
            None, params.get("limit"), default=selectors.PAST_DEALS_LIMIT
        )
        before = selectors.check_before(params.get("before"))
        return Response(selectors.past_deals(slug, before=before, limit=limit))


# --- games ----------------------------------------------------------------------------------


class GameListView(ApiView):
    permission_classes = [IsAuthenticated]
    throttle_classes = throttles.GAMES

    @extend_schema(
        tags=["games"],
        summary="Start a game: today's daily deal (201, or 200 when it exists) or a practice deal",
        request=docs.NewGameBody,
        responses=docs.responses(
            {
                201: OpenApiResponse(docs.GameBody, description="A new game."),
                200: OpenApiResponse(docs.GameBody, description="The caller's daily game."),
            },
            E.INVALID,
            E.NOT_AUTHENTICATED,
            E.FORBIDDEN,
            E.RATE_LIMITED,
        ),
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        game, created = services.game_start(
            player=request.user,  # type: ignore[arg-type]
            variant=body.get("variant"),
            mode=body.get("mode"),
            seed=body.get("seed"),
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(payloads.game_payload(game), status=code)


class GameDetailView(ApiView):
    @extend_schema(
        tags=["games"],
        summary="A game (its player; anyone once its daily deal's day has ended)",
        parameters=[docs.GAME_ID],
        responses=docs.responses(
            {200: docs.GameBody}, E.NOT_AUTHENTICATED, E.FORBIDDEN, E.NOT_FOUND
        ),
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.access_game(game_id, _player(request))
        return Response(payloads.game_payload(services.game_close_if_expired(game=game)))


class GameMoveView(ApiView):
    permission_classes = [IsAuthenticated]
    throttle_classes = throttles.MOVES

    @extend_schema(
        tags=["games"],
        summary="Play a move at the game's current ply",
        parameters=[docs.GAME_ID],
        request=docs.PlyMoveBody,
        responses=docs.responses(
            {200: docs.GameBody},
            E.INVALID,
            E.NOT_AUTHENTICATED,
            E.FORBIDDEN,
            E.NOT_FOUND,
            E.STALE_PLY,
            E.GAME_OVER,
            E.ILLEGAL_MOVE,
            E.RATE_LIMITED,
        ),
    )
    def post(self, request: Request, game_id: str) -> Response:
        body = json_object(request)
        game = services.game_move(
            game_id=game_id,
            player=request.user,  # type: ignore[arg-type]
            ply=body.get("ply"),
            move=body.get("move"),
        )
        return Response(payloads.game_payload(game))


class GameResignView(ApiView):
    permission_classes = [IsAuthenticated]
    throttle_classes = throttles.MOVES

    @extend_schema(
        tags=["games"],
        summary="Resign a game in play",
        parameters=[docs.GAME_ID],
        request=None,
        responses=docs.responses(
            {200: docs.GameBody}, E.NOT_AUTHENTICATED, E.FORBIDDEN, E.NOT_FOUND, E.GAME_OVER
        ),
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = services.game_resign(game_id=game_id, player=request.user)  # type: ignore[arg-type]
        return Response(payloads.game_payload(game))


class GameHintView(ApiView):
    permission_classes = [IsAuthenticated]
    throttle_classes = throttles.HINTS

    @extend_schema(
        tags=["games"],
        summary="The next move of a winning line (marks the game assisted for good)",
        parameters=[docs.GAME_ID],
        responses=docs.responses(
            {
                200: inline_serializer(
                    "HintBody",
                    {
                        "move": serializers.JSONField(
                            allow_null=True, help_text="A MOVE, or null when none is found."
                        ),
                        "detail": serializers.CharField(),
                    },
                )
            },
            E.NOT_AUTHENTICATED,
            E.FORBIDDEN,
            E.NOT_FOUND,
            E.GAME_OVER,
            E.RATE_LIMITED,
            E.UNAVAILABLE,
        ),
    )
    def get(self, request: Request, game_id: str) -> Response:
        hint = services.game_hint(game_id=game_id, player=request.user)  # type: ignore[arg-type]
        return Response(hint)


class GameReplayView(ApiView):
    @extend_schema(
        tags=["games"],
        summary="A game's seed and full move log (its player once over; anyone after the day)",
        parameters=[docs.GAME_ID],
        responses=docs.responses(
            {200: docs.ReplayBody}, E.NOT_AUTHENTICATED, E.FORBIDDEN, E.NOT_FOUND
        ),
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.access_replay(game_id, _player(request))
        return Response(payloads.replay_payload(services.game_close_if_expired(game=game)))


class GameReplayPositionsView(ApiView):
    @extend_schema(
        tags=["games"],
        summary="A game's positions ply by ply, as its player saw them (same access as replay)",
        parameters=[docs.GAME_ID, docs.OFFSET, docs.POSITIONS_LIMIT],
        responses=docs.responses(
            {200: docs.PositionsBody},
            E.INVALID,
            E.NOT_AUTHENTICATED,
            E.FORBIDDEN,
            E.NOT_FOUND,
        ),
    )
    def get(self, request: Request, game_id: str) -> Response:
        params = request.query_params
        offset, limit = selectors.check_page(
            params.get("offset"), params.get("limit"), default=selectors.POSITIONS_LIMIT
        )
        game = selectors.access_replay(game_id, _player(request))
        game = services.game_close_if_expired(game=game)
        return Response(selectors.replay_positions(game, offset=offset, limit=limit))


class NotFoundView(ApiView):
    """Answer every unknown path under ``/api/`` with the JSON 404 of docs/api.md."""

    schema = None
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        raise NotFound(gettext("No API endpoint at {path}.").format(path=request.path))
