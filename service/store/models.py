"""The tables: players, games with their current state, and the append-only history."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Text,
    TypeDecorator,
    and_,
    literal_column,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from ..extensions import db

JsonDocument = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator):
    """A moment with its time zone, read back aware on every database.

    PostgreSQL's ``timestamptz`` comes back aware; SQLite keeps text without a zone,
    and every moment the service writes is UTC: read back, it gets UTC again.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class PlayerRow(db.Model):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


#: Partial indexes on won games, each the ranking order after an equality prefix.
LEADERBOARD_INDEXES = {
    "ix_games_won_rank": (),
    "ix_games_won_draw": ("draw",),
    "ix_games_won_code": ("code",),
    "ix_games_won_player": ("player_id",),
}
#: Partial indexes on won games in the order they finished (migration 0003): the feed
#: of finished games reads its pages off them, and a board's ETag its latest win.
FINISHED_INDEXES = {
    "ix_games_won_finished": (),
    "ix_games_won_draw_finished": ("draw",),
    "ix_games_won_code_finished": ("code",),
    "ix_games_won_player_finished": ("player_id",),
}


class GameRow(db.Model):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    code: Mapped[str] = mapped_column(String(16))
    deal: Mapped[int] = mapped_column(BigInteger)
    draw: Mapped[int] = mapped_column(SmallInteger)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    # Hash of the owner's token: the game's own for an anonymous game, else the
    # player's (copied so that authorizing an action costs no extra query).
    token_hash: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(8), default="playing")
    score: Mapped[int] = mapped_column(Integer, default=0)
    moves: Mapped[int] = mapped_column(Integer, default=0)
    undos: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=0)
    hints: Mapped[int] = mapped_column(Integer, default=0)
    winnable: Mapped[bool | None] = mapped_column(default=None)
    state: Mapped[dict] = mapped_column(JsonDocument)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Milliseconds from creation to the win: the leaderboards' third key.
    duration_ms: Mapped[int | None] = mapped_column(BigInteger)
    # Every accepted action in notation, space-separated, frozen at the win (a won game
    # accepts nothing more): the feed serves it without reading the history table.
    line: Mapped[str | None] = mapped_column(Text)
    # A game born offline (migration 0007): when its client says it started, and the seconds
    # it says the offline play took, as reported. Null: the server timed the game.
    client_started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    client_seconds: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        Index("ix_games_player_created", "player_id", "created_at"),
    )


#: Won games: the condition of the partial indexes below. Every query on them repeats it,
#: a literal and not a bound parameter, so that the planners can prove the indexes apply.
WON = GameRow.status == literal_column("'won'")

# The leaderboards: won games only, in ranking order (migration 0002).
for _name, _prefix in LEADERBOARD_INDEXES.items():
    Index(_name, *(getattr(GameRow, column) for column in _prefix), GameRow.score.desc(), GameRow.moves,
          GameRow.duration_ms, GameRow.finished_at, GameRow.id, postgresql_where=WON, sqlite_where=WON)
for _name, _prefix in FINISHED_INDEXES.items():
    Index(_name, *(getattr(GameRow, column) for column in _prefix), GameRow.finished_at, GameRow.id,
          postgresql_where=WON, sqlite_where=WON)

#: Client-timed wins (games born offline): the condition of the two partial indexes below
#: (migration 0008), literal as well. Boards and the feed with ``timing=client`` read them;
#: with ``timing=server`` they count all wins less these (``store.feed.count_of``). On
#: PostgreSQL they carry the equality filters' columns, so that a filtered count is index-only.
WON_CLIENT_TIMED = and_(WON, GameRow.client_started_at.is_not(None))
CLIENT_TIMED_INCLUDE = ["draw", "code", "player_id"]
Index("ix_games_won_client_rank", GameRow.score.desc(), GameRow.moves, GameRow.duration_ms, GameRow.finished_at,
      GameRow.id, postgresql_where=WON_CLIENT_TIMED, sqlite_where=WON_CLIENT_TIMED,
      postgresql_include=CLIENT_TIMED_INCLUDE)
Index("ix_games_won_client_finished", GameRow.finished_at, GameRow.id, postgresql_where=WON_CLIENT_TIMED,
      sqlite_where=WON_CLIENT_TIMED, postgresql_include=CLIENT_TIMED_INCLUDE)


class ActionRow(db.Model):
    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    notation: Mapped[str] = mapped_column(String(24))
    # The outcome as the API shows it: action, from, to, card, double, cards, undone.
    detail: Mapped[dict] = mapped_column(JsonDocument)
    points: Mapped[int] = mapped_column(Integer)
    score_after: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class IdempotentAnswer(db.Model):
    """The first answer to a request sent with an Idempotency-Key, replayed on retries."""

    __tablename__ = "idempotent_answers"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(SmallInteger)
    body: Mapped[dict] = mapped_column(JsonDocument)
    # The answer's exact bytes and headers (JSONB reorders keys); null in rows stored before 0004.
    raw: Mapped[bytes | None] = mapped_column(LargeBinary)
    headers: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)


class WinnableDeal(db.Model):
    """A deal the solver proved winnable (its line replayed through the engine), waiting to be dealt."""

    __tablename__ = "winnable_deals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    draw: Mapped[int] = mapped_column(SmallInteger)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    # Actions in the winning line found: what the proof cost, for the curious operator.
    line_length: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (Index("ix_winnable_deals_draw", "draw", "id"),)


class CreatedAnswer(db.Model):
    """The first answer to a create (POST /v1/games, /v1/players) sent with an Idempotency-Key.

    ``scope`` is a hash of who asked (the bearer token's hash, or nobody), the endpoint
    and the key: the key itself is not stored. The answer holds a new token, so its
    bytes are stored masked with a keystream derived from the key (see api/idempotency.py):
    the table alone gives no token away.
    """

    __tablename__ = "created_answers"

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(SmallInteger)
    headers: Mapped[dict] = mapped_column(JSON)
    body: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)


class PlayerStats(db.Model):
    """A player's statistics, kept as games are dealt and won: one row for all games (mode 0), one per draw mode.

    ``trailing`` counts the newest games still being played: they count neither way in
    the streaks until they are decided (see store/stats.py).
    """

    __tablename__ = "player_stats"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    mode: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    started: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    best_score: Mapped[int | None] = mapped_column(Integer)
    fewest_moves: Mapped[int | None] = mapped_column(Integer)
    fastest_ms: Mapped[int | None] = mapped_column(BigInteger)
    current_streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    trailing: Mapped[int] = mapped_column(Integer, default=0)
