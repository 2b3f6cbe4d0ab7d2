"""REST views of the leagues of docs/api.md: parse, call one service or selector, answer.

Every view needs a player. The league is reached through an access selector (member, or owner),
which is what refuses a stranger (``not_member``), a member who is not the owner
(``not_owner``) or a closed league (``league_closed``).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import ErrorCode as E
from games.api import docs as games_docs
from games.api.base import ApiView, json_object
from games.api.throttles import IpThrottle, PlayerThrottle
from leagues import docs, selectors, services

MEMBER_ERRORS = (E.NOT_AUTHENTICATED, E.NOT_FOUND, E.NOT_MEMBER, E.LEAGUE_CLOSED)
OWNER_ERRORS = (*MEMBER_ERRORS, E.NOT_OWNER)
NO_CONTENT = {204: OpenApiResponse(description="Done.")}


class JoinsPerPlayer(PlayerThrottle):
    scope = "leagues_join_player"


class JoinsPerIp(IpThrottle):
    scope = "leagues_join_ip"


class _LeagueView(ApiView):
    permission_classes = [IsAuthenticated]


class LeagueListView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="My open leagues, by name",
        responses=games_docs.responses({200: docs.LeagueBody(many=True)}, E.NOT_AUTHENTICATED),
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.leagues_of(request.user))  # type: ignore[arg-type]

    @extend_schema(
        tags=["leagues"],
        summary="Create a league (I own it and am its first member)",
        request=games_docs.json_only(docs.LeagueRequest),
        responses=games_docs.responses(
            {201: docs.LeagueBody}, E.INVALID, E.NOT_AUTHENTICATED, E.TOO_MANY_LEAGUES
        ),
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        league = services.league_create(
            owner=request.user,  # type: ignore[arg-type]
            name=body.get("name"),
            description=body.get("description"),
        )
        return Response(selectors.league_payload(league), status=status.HTTP_201_CREATED)


class LeagueJoinView(_LeagueView):
    throttle_classes = [JoinsPerPlayer, JoinsPerIp]

    @extend_schema(
        tags=["leagues"],
        summary="Join a league by its invite code",
        request=games_docs.json_only(docs.JoinRequest),
        responses=games_docs.responses(
            {201: docs.LeagueBody},
            E.INVALID,
            E.NOT_AUTHENTICATED,
            E.BAD_CODE,
            E.LEAGUE_CLOSED,
            E.ALREADY_MEMBER,
            E.LEAGUE_FULL,
            E.TOO_MANY_LEAGUES,
            E.RATE_LIMITED,
        ),
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        league = services.league_join(player=request.user, code=body.get("code"))  # type: ignore[arg-type]
        return Response(selectors.league_payload(league), status=status.HTTP_201_CREATED)


class LeagueDetailView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="A league and its members (members only)",
        parameters=[docs.LEAGUE],
        responses=games_docs.responses({200: docs.LeagueDetailBody}, *MEMBER_ERRORS),
    )
    def get(self, request: Request, league: str) -> Response:
        found = selectors.access_league_of_member(league, player=request.user)  # type: ignore[arg-type]
        return Response(selectors.league_detail(found))

    @extend_schema(
        tags=["leagues"],
        summary="Rename a league or change its description (the owner)",
        parameters=[docs.LEAGUE],
        request=games_docs.json_only(docs.LeagueChangeRequest),
        responses=games_docs.responses({200: docs.LeagueBody}, E.INVALID, *OWNER_ERRORS),
    )
    def patch(self, request: Request, league: str) -> Response:
        body = json_object(request)
        changed = services.league_update(
            league=selectors.access_league_of_owner(league, player=request.user),  # type: ignore[arg-type]
            name=body.get("name"),
            description=body.get("description"),
        )
        return Response(selectors.league_payload(changed))

    @extend_schema(
        tags=["leagues"],
        summary="Close a league (the owner): no one joins, its members lose its boards",
        parameters=[docs.LEAGUE],
        responses=games_docs.responses(NO_CONTENT, *OWNER_ERRORS),
    )
    def delete(self, request: Request, league: str) -> Response:
        services.league_close(
            league=selectors.access_league_of_owner(league, player=request.user)  # type: ignore[arg-type]
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueLeaveView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="Leave a league (not its owner)",
        parameters=[docs.LEAGUE],
        request=None,
        responses=games_docs.responses(NO_CONTENT, *MEMBER_ERRORS, E.OWNER_CANNOT_LEAVE),
    )
    def post(self, request: Request, league: str) -> Response:
        services.league_leave(
            player=request.user,  # type: ignore[arg-type]
            league=selectors.access_league_of_member(league, player=request.user),  # type: ignore[arg-type]
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueMemberView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="Remove a member (the owner): their league sockets lose access at once",
        parameters=[docs.LEAGUE, docs.MEMBER],
        responses=games_docs.responses(NO_CONTENT, *OWNER_ERRORS, E.OWNER_CANNOT_LEAVE),
    )
    def delete(self, request: Request, league: str, nickname: str) -> Response:
        services.member_remove(
            league=selectors.access_league_of_owner(league, player=request.user),  # type: ignore[arg-type]
            nickname=nickname,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueCodeView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="Give a league a new invite code (the owner): the old one stops working",
        parameters=[docs.LEAGUE],
        request=None,
        responses=games_docs.responses({200: docs.LeagueBody}, *OWNER_ERRORS),
    )
    def post(self, request: Request, league: str) -> Response:
        changed = services.code_regenerate(
            league=selectors.access_league_of_owner(league, player=request.user)  # type: ignore[arg-type]
        )
        return Response(selectors.league_payload(changed))


class LeagueBoardView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="A league's board of a variant and day: its members' verified results, ranked "
        "as every board",
        parameters=[docs.LEAGUE, games_docs.SLUG, games_docs.DATE],
        responses=games_docs.responses({200: docs.LeagueBoardBody}, *MEMBER_ERRORS),
    )
    def get(self, request: Request, league: str, slug: str, date: str) -> Response:
        found = selectors.access_league_of_member(league, player=request.user)  # type: ignore[arg-type]
        return Response(selectors.league_board(found, slug=slug, day=selectors.check_day(date)))


class LeagueStandingsView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="A league's standings of a variant over a week or a month (points per day "
        "from the daily rank)",
        parameters=[docs.LEAGUE, games_docs.SLUG, docs.PERIOD, docs.DAY],
        responses=games_docs.responses({200: docs.StandingsBody}, E.INVALID, *MEMBER_ERRORS),
    )
    def get(self, request: Request, league: str, slug: str) -> Response:
        found = selectors.access_league_of_member(league, player=request.user)  # type: ignore[arg-type]
        params = request.query_params
        return Response(
            selectors.standings(
                found,
                slug=slug,
                period=selectors.check_period(params.get("period")),
                day=selectors.check_day(params.get("date")),
            )
        )


class MyLeagueRanksView(_LeagueView):
    @extend_schema(
        tags=["leagues"],
        summary="My rank on the board of each of my leagues, for a variant and day",
        parameters=[games_docs.SLUG, games_docs.DATE],
        responses=games_docs.responses(
            {200: docs.RankBody(many=True)}, E.NOT_AUTHENTICATED, E.NOT_FOUND
        ),
    )
    def get(self, request: Request, slug: str, date: str) -> Response:
        return Response(
            selectors.my_ranks(request.user, slug=slug, day=selectors.check_day(date))  # type: ignore[arg-type]
        )
