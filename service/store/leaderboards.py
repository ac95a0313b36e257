"""The leaderboards' queries: won games in ranking order, a keyset page, its ranks.

Ranking: score (highest first), then moves (fewest), then time to win
(``duration_ms``, shortest); among entries equal on those three, the earliest win
(``finished_at``) and then the game id come first, so the order is total and a
keyset cursor over ``(score, moves, duration_ms, finished_at, id)`` never skips
nor repeats an entry while new wins arrive between pages.

``rank`` is standard competition ranking ("1224") over ``(score, moves,
duration_ms)``: one plus the number of entries, under the same filters, that are
strictly better. The first page needs no count; on a later page two COUNTs over
the partial index that serves the page (see migration 0002) ride along in the
page's own statement. Under ``timing=server`` each is all wins less the
client-timed ones (``store.feed.count_of``, migration 0008): index-only both.

Every query repeats ``games.status = 'won'`` as a literal, not a bound
parameter, so that SQLite and PostgreSQL's generic plans can prove the partial
indexes apply.
"""

from __future__ import annotations

from functools import cache

from sqlalchemy import Integer, and_, bindparam, literal_column, or_, select
from sqlalchemy.engine import Connection

from .driver import DriverStatement
from .feed import BOARD_FILTERS, count_of, filter_shape, filter_terms
from .models import GameRow, PlayerRow

#: A cursor's position: bound as :score, :moves, :ms, :finished and :game.
CURSOR_KEYS = ("score", "moves", "ms", "finished", "game")
_GAMES = GameRow.__table__
_PLAYERS = PlayerRow.__table__
_G = _GAMES.c
ORDER = (_G.score.desc(), _G.moves, _G.duration_ms, _G.finished_at, _G.id)
ENTRY_COLUMNS = (_G.id, _G.code, _G.draw, _G.player_id, _PLAYERS.c.name, _G.score, _G.moves,
                 _G.duration_ms, _G.finished_at, _G.client_started_at)
#: The filters a board may have, each compared with the bound parameter of its name (and ``timing``,
#: a literal condition: ``store.feed.TIMINGS``).
FILTERS = BOARD_FILTERS
_SCORE, _MOVES, _MS, _FINISHED, _GAME = (bindparam(key) for key in CURSOR_KEYS)


def _better():
    """Entries strictly better on (score, moves, time) than the cursor: the ones that outrank it."""
    return and_(_G.score >= _SCORE, or_(
        _G.score > _SCORE,
        and_(_G.score == _SCORE, or_(_G.moves < _MOVES, and_(_G.moves == _MOVES, _G.duration_ms < _MS))),
    ))


def _at_or_before():
    """Entries at the cursor's position or ahead of it in the full order."""
    return and_(_G.score >= _SCORE, or_(
        _better(),
        and_(_G.score == _SCORE, _G.moves == _MOVES, _G.duration_ms == _MS,
             or_(_G.finished_at < _FINISHED, and_(_G.finished_at == _FINISHED, _G.id <= _GAME))),
    ))


def _after():
    """Entries behind the cursor's position in the full order: the keyset of the next page."""
    return and_(_G.score <= _SCORE, or_(
        _G.score < _SCORE,
        and_(_G.score == _SCORE, or_(
            _G.moves > _MOVES,
            and_(_G.moves == _MOVES, or_(
                _G.duration_ms > _MS,
                and_(_G.duration_ms == _MS, or_(
                    _G.finished_at > _FINISHED,
                    and_(_G.finished_at == _FINISHED, _G.id > _GAME),
                )),
            )),
        )),
    ))


@cache
def page_statement(filters: tuple[str, ...], after: bool):
    """One page of entries for the filters named (``store.feed.filter_shape``), after a cursor or not.

    Built once per shape (at most 2^5 x 3 x 2) and reused: the values are bound at
    execution (:func:`page_query`), so it is compiled once per dialect (store.driver)
    and no expression tree is built per request. Fetches ``:rows`` = limit + 1 rows,
    to know whether another page follows.

    After a cursor, each row also carries ``ahead`` (entries at or before the cursor)
    and ``better`` (entries strictly better than the cursor's score, moves and
    time): uncorrelated subqueries, evaluated once, in the same statement and so
    the same snapshot as the page. They rank the page's first entry.
    """
    terms = filter_terms(filters)
    query = (select(*ENTRY_COLUMNS).select_from(_GAMES.outerjoin(_PLAYERS, _PLAYERS.c.id == _G.player_id))
             .where(*terms).order_by(*ORDER).limit(bindparam("rows", type_=Integer)))
    if after:
        query = query.add_columns(
            count_of(filters, _at_or_before()).label("ahead"),
            count_of(filters, _better()).label("better"),
        ).where(_after())
    return query


def page_query(filters: dict, after: dict | None, limit: int):
    """The statement and parameters of one page: ``filters`` maps names of FILTERS and ``timing`` to values
    (None: absent)."""
    shape, params = filter_shape(filters)
    if after is not None:
        params.update(after)
    params["rows"] = limit + 1
    return _page(shape, after is not None), params


@cache
def _page(filters: tuple[str, ...], after: bool) -> DriverStatement:
    return DriverStatement(page_statement(filters, after))


_PLAYER_EXISTS = DriverStatement(select(literal_column("1")).select_from(_PLAYERS)
                                 .where(_PLAYERS.c.id == bindparam("player")))



def ranked_page(connection: Connection, filters: dict, after: dict | None, limit: int) -> tuple[list, bool] | None:
    """One page of entries with their competition ranks: ``([(rank, row), ...], more)``.

    ``after``: the position of the previous page's last entry (see :data:`CURSOR_KEYS`).
    None when the ``player`` filter names no player (checked only when the page is
    empty: entries prove the player exists).
    """
    statement, params = page_query(filters, after, limit)
    rows = statement.all(connection, params)
    if not rows and filters.get("player") is not None and _PLAYER_EXISTS.first(
            connection, {"player": filters["player"]}) is None:
        return None
    more = len(rows) > limit
    rows = rows[:limit]
    ranked = []
    ahead = 0  # entries before the page
    previous = None
    rank = 0
    if rows and after is not None:
        ahead = rows[0][-2]
        previous = (after["score"], after["moves"], after["ms"])
        rank = rows[0][-1] + 1  # "better" + 1: if the first entry ties with the cursor's
    index = ahead
    for row in rows:
        index += 1
        key = (row[5], row[6], row[7])  # score, moves, duration_ms
        if key != previous:
            rank = index
            previous = key
        ranked.append((rank, row))
    return ranked, more
