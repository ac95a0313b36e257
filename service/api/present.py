"""How stored rows become JSON: one place for the game view, times and ETags."""

from __future__ import annotations

from datetime import datetime

from flask import Response, current_app, request
from flask import json as flask_json

from ..engine import RULES_VERSION, Game
from ..store import GameRecord
from ..usecases.cursors import utc


def iso(moment: datetime | None) -> str | None:
    """UTC ISO 8601 to the millisecond, with a ``Z``."""
    if moment is None:
        return None
    return utc(moment).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_ms(moment: datetime) -> str:
    """:func:`iso`, cheaper when the moment is UTC already (PostgreSQL's usually are).

    For lists of many rows: ``astimezone`` before ``isoformat`` was a fifth of a
    leaderboard row's cost.
    """
    text = moment.isoformat(timespec="milliseconds")
    if len(text) == 29 and text.endswith("+00:00"):
        return text[:23] + "Z"
    return iso(moment)


def seconds(duration_ms: int | None) -> float | None:
    return None if duration_ms is None else duration_ms / 1000


def game_json(row: GameRecord, game: Game) -> dict:
    """The public view of a game: API.md's shape plus id, hints and timestamps."""
    return {
        "id": row.id,
        **game.view(),
        "hints": row.hints,
        "created_at": iso(row.created_at),
        "finished_at": iso(row.finished_at),
        "seconds": seconds(row.duration_ms),
        "player": row.player_id,
        "winnable": row.winnable,
        "timing": row.timing,
        "client": None if row.client_started_at is None else {"started_at": iso(row.client_started_at),
                                                              "seconds": row.client_seconds},
    }


def game_summary_json(row) -> dict:
    """A game in a player's list (``store.games.player_games_page``'s rows): no position, no history."""
    return {"id": row.id, "code": row.code, "draw": row.draw, "status": row.status, "score": row.score,
            "moves": row.moves, "created_at": iso(row.created_at), "finished_at": iso(row.finished_at),
            "seconds": seconds(row.duration_ms)}


def player_stats_json(rows: dict) -> dict:
    """A player's statistics (``store.stats.read``'s rows by mode) over all games and per draw mode."""
    return {"all": _stats_json(rows.get(0)), "draw1": _stats_json(rows.get(1)), "draw3": _stats_json(rows.get(3))}


def _stats_json(row) -> dict:
    started = row.started if row else 0
    won = row.won if row else 0
    return {
        "started": started,
        "won": won,
        "win_rate": round(won / started, 4) if started else 0,
        "best_score": row.best_score if row else None,
        "fewest_moves": row.fewest_moves if row else None,
        "fastest_win": seconds(row.fastest_ms) if row else None,
        "current_streak": row.current_streak if row else 0,
        "best_streak": row.best_streak if row else 0,
    }


def etag(version: int) -> str:
    return f'"{version}"'


RULES_HEADER = str(RULES_VERSION)


def game_headers(version: int) -> dict:
    """The headers of every answer about one game at one version: its tag and the rules that judged it."""
    return {"ETag": etag(version), "Rules-Version": RULES_HEADER}


def json_response(body: dict, status: int = 200, *, version: int | None = None,
                  headers: dict | None = None) -> Response:
    response = Response(flask_json.dumps(body), status=status, mimetype="application/json")
    if version is not None:
        response.headers.update(game_headers(version))
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def known_tags() -> frozenset[str]:
    """The tags the request's ``If-None-Match`` names (weak comparison: without ``W/``; ``*`` included)."""
    header = request.headers.get("If-None-Match")
    if not header:
        return frozenset()
    return frozenset(part.strip().removeprefix("W/") for part in header.split(","))


def if_none_match(tag: str) -> bool:
    """Whether the request's ``If-None-Match`` names ``tag`` (weak comparison, ``*`` included)."""
    sent = known_tags()
    return "*" in sent or tag in sent


def cache_headers(tag: str) -> dict:
    """A pollable list's headers: its tag and how long shared caches may keep it."""
    return {"ETag": tag, "Cache-Control": f"public, max-age={current_app.config['PUBLIC_CACHE_SECONDS']}"}


def not_modified(headers: dict) -> Response:
    """304: the client's JSON copy is current (RFC 9110 wants its tag and caching headers repeated).

    Typed as JSON, not as Flask's default HTML: the edge would add a page's headers (CSP,
    X-Frame-Options) that a cache then merges into the JSON it keeps. Werkzeug drops the
    type itself from a 304.
    """
    return Response(status=304, mimetype="application/json", headers=headers)


def board_json(ranked: list, following: str | None) -> dict:
    """A leaderboard page (``store.leaderboards.ranked_page``'s rows) as ``{"items", "next"}``."""
    items = [{
        "rank": rank, "game": game, "code": code, "draw": draw, "player": player,
        "player_name": name, "score": score, "moves": moves, "seconds": ms / 1000,
        "finished_at": iso_ms(finished), "timing": timing(client_started),
    } for rank, (game, code, draw, player, name, score, moves, ms, finished, client_started, *_) in ranked]
    return {"items": items, "next": following}


def feed_entry(row) -> dict:
    """One finished game as the feed lists it (``store.feed.FEED_COLUMNS``)."""
    game, code, draw, player, name, score, moves, undos, hints, ms, finished, line, client_started = row
    return {"id": game, "code": code, "draw": draw, "player": None if player is None else {"id": player, "name": name},
            "score": score, "moves": moves, "undos": undos, "hints": hints, "duration_ms": ms,
            "finished_at": iso_ms(finished), "line": line, "timing": timing(client_started)}


def timing(client_started_at) -> str:
    """How a finished game's time was measured: "client" for a game born offline, else "server"."""
    return "server" if client_started_at is None else "client"
