"""REST views of the leaderboards and players of docs/api.md."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import ErrorCode
from games import selectors as game_selectors
from games.api import docs as games_docs
from games.api.base import ApiView
from leaderboards import docs, selectors, services


class LeaderboardView(ApiView):
    @extend_schema(
        tags=["leaderboards"],
        summary="A daily deal's leaderboard, best first (over and verified games only)",
        parameters=[games_docs.SLUG, games_docs.DATE, docs.OFFSET, docs.LIMIT, docs.PLAYER],
        responses=games_docs.responses(
            {200: docs.LeaderboardBody}, ErrorCode.INVALID, ErrorCode.NOT_FOUND
        ),
    )
    def get(self, request: Request, slug: str, date: str) -> Response:
        offset, limit = game_selectors.check_page(
            request.query_params.get("offset"),
            request.query_params.get("limit"),
            default=selectors.REST_ENTRIES,
        )
        return Response(
            services.leaderboard_read(
                slug=slug,
                date_text=date,
                offset=offset,
                limit=limit,
                nickname=request.query_params.get("player"),
            )
        )


class StoryView(ApiView):
    @extend_schema(
        tags=["leaderboards"],
        summary="The day's story: how everyone did, as bars, with the caller's place (today's "
        "only once the caller has finished it)",
        parameters=[games_docs.SLUG, games_docs.DATE],
        responses=games_docs.responses(
            {200: docs.StoryBody},
            ErrorCode.NOT_AUTHENTICATED,
            ErrorCode.FORBIDDEN,
            ErrorCode.NOT_FOUND,
        ),
    )
    def get(self, request: Request, slug: str, date: str) -> Response:
        viewer = request.user if request.user.is_authenticated else None
        return Response(
            services.story_read(slug=slug, date_text=date, viewer=viewer)  # type: ignore[arg-type]
        )


class AllTimeView(ApiView):
    @extend_schema(
        tags=["leaderboards"],
        summary="A variant's all-time top 20 by daily wins and by best win streak",
        parameters=[games_docs.SLUG],
        responses=games_docs.responses({200: docs.AllTimeBody}, ErrorCode.NOT_FOUND),
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(selectors.all_time(slug))


class PlayerView(ApiView):
    @extend_schema(
        tags=["players"],
        summary="A player's profile and stats per variant (finished, verified daily games)",
        parameters=[docs.NICKNAME],
        responses=games_docs.responses({200: docs.ProfileBody}, ErrorCode.NOT_FOUND),
    )
    def get(self, request: Request, nickname: str) -> Response:
        return Response(selectors.player_profile(nickname))


class PlayerResultsView(ApiView):
    @extend_schema(
        tags=["players"],
        summary="A player's daily results, newest first, with ranks (a day's once it has ended, "
        "except for the player)",
        parameters=[docs.NICKNAME, docs.VARIANT, docs.OFFSET, docs.LIMIT],
        responses=games_docs.responses(
            {200: docs.ResultsBody}, ErrorCode.INVALID, ErrorCode.NOT_FOUND
        ),
    )
    def get(self, request: Request, nickname: str) -> Response:
        params = request.query_params
        offset, limit = game_selectors.check_page(
            params.get("offset"), params.get("limit"), default=selectors.REST_ENTRIES
        )
        viewer = request.user if request.user.is_authenticated else None
        return Response(
            selectors.player_results(
                nickname,
                viewer=viewer,  # type: ignore[arg-type]
                variant=selectors.check_variant(params.get("variant")),
                offset=offset,
                limit=limit,
            )
        )
