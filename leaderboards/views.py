"""REST view of a deal's leaderboard."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from games import services
from games.api import docs
from games.api.base import ApiView
from games.errors import ErrorCode
from leaderboards import selectors


class LeaderboardView(ApiView):
    @extend_schema(
        tags=["leaderboards"],
        summary="A daily deal's leaderboard, best first (over and verified games only)",
        parameters=[
            docs.SLUG,
            docs.DATE,
            OpenApiParameter("player", str, description="A nickname: add its entry and rank."),
        ],
        responses=docs.responses({200: docs.LeaderboardBody}, ErrorCode.NOT_FOUND),
    )
    def get(self, request: Request, slug: str, date: str) -> Response:
        deal = services.deal_of_day(slug=slug, date_text=date)
        nickname = request.query_params.get("player")
        return Response(selectors.leaderboard(deal, nickname=nickname))
