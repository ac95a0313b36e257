"""The pool of proven-winnable deals: filled ahead of demand, so a winnable game is a row read.

:func:`fill` searches deals (CPU-time budget per attempt), replays each winning line
through the engine from the deal's code, and only then stores the deal;
:func:`take` removes and returns the oldest deal of a draw mode in one statement,
so two workers never deal the same one (``FOR UPDATE SKIP LOCKED`` on PostgreSQL;
SQLite's write lock does the same).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import delete, func, select

from ..engine import Game, GameCode
from ..extensions import db
from ..solver import winnable_deal
from .db import write_transaction
from .models import WinnableDeal

_DEALS = WinnableDeal.__table__
_C = _DEALS.c


def size(draw: int) -> int:
    """Deals waiting in the pool for draw mode ``draw``."""
    count = db.session.execute(select(func.count()).select_from(_DEALS).where(_C.draw == draw)).scalar_one()
    db.session.rollback()
    return count


def take(draw: int) -> GameCode | None:
    """Remove the oldest deal of draw mode ``draw`` from the pool and return it (None: the pool is empty)."""
    oldest = (select(_C.id).where(_C.draw == draw).order_by(_C.id).limit(1)
              .with_for_update(skip_locked=True).scalar_subquery())
    with write_transaction() as session:
        code = session.execute(delete(_DEALS).where(_C.id == oldest).returning(_C.code)).scalar_one_or_none()
    return GameCode.parse(code) if code else None


def replays_to_a_win(code: GameCode, line) -> bool:
    """True when ``line`` (engine actions) played from ``code``'s deal wins it."""
    game = Game(code)
    for action in line:
        game.apply(action)  # a Rejection here is a solver bug: let it be loud
    return game.won


def add(code: GameCode, line) -> bool:
    """Store a deal whose ``line`` wins it; False when the line does not win or the deal is already there."""
    if not replays_to_a_win(code, line):
        return False
    with write_transaction() as session:
        if session.execute(select(_C.id).where(_C.code == str(code))).first() is not None:
            return False
        session.add(WinnableDeal(draw=code.draw, code=str(code), line_length=len(line)))
    return True


def fill(draw: int, target: int, *, budget_ms: int = 500, deadline_s: float = 60.0,
         clock: Callable[[], float] = time.thread_time, keep_going: Callable[[], bool] = lambda: True) -> int:
    """Search and add deals until ``target`` wait for ``draw`` or ``deadline_s`` (on ``clock``) runs out.

    Each attempt gets ``budget_ms`` of ``clock``; returns the number of deals added.
    ``keep_going`` is asked between deals (a background refill stops with the process).
    """
    added = 0
    end = clock() + deadline_s
    while size(draw) < target and keep_going():
        left = end - clock()
        if left <= 0:
            break
        found = winnable_deal(draw, deadline_s=left, budget_ms=budget_ms, clock=clock)
        if found is None:
            break
        code, solution = found
        added += add(code, solution.line)
    return added
