"""finished-games feed: the frozen line of a won game, indexes in order of finish

Revision ID: 0003_finished_feed
Revises: 0002
Create Date: 2026-11-30 13:00:00

``games.line`` holds every accepted action of a won game in notation, written
once at the win (a won game accepts nothing more); existing wins are filled in
from their history here. Four partial indexes on won games, (equality prefix,
finished_at, id), serve the feed ``GET /v1/games/finished`` and the cheap ETag of
every board (its latest win).
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0003_finished_feed'
down_revision = '0002'
branch_labels = None
depends_on = None

WON = "status = 'won'"
INDEXES = {
    "ix_games_won_finished": [],
    "ix_games_won_draw_finished": ["draw"],
    "ix_games_won_code_finished": ["code"],
    "ix_games_won_player_finished": ["player_id"],
}


def upgrade():
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("line", sa.Text(), nullable=True))
    _fill_lines()
    for name, prefix in INDEXES.items():
        op.create_index(name, "games", [*prefix, "finished_at", "id"], unique=False,
                        postgresql_where=sa.text(WON), sqlite_where=sa.text(WON))


def _fill_lines():
    """The line of every game already won, from its history in order."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("UPDATE games SET line = (SELECT coalesce(string_agg(notation, ' ' ORDER BY seq), '') "
                   "FROM actions WHERE actions.game_id = games.id) WHERE status = 'won'")
        return
    # SQLite: group_concat's order is unspecified before 3.44, so join in Python, game by game.
    won = [row[0] for row in bind.execute(sa.text("SELECT id FROM games WHERE status = 'won'"))]
    for game_id in won:
        notations = bind.execute(sa.text("SELECT notation FROM actions WHERE game_id = :game ORDER BY seq"),
                                 {"game": game_id}).scalars().all()
        bind.execute(sa.text("UPDATE games SET line = :line WHERE id = :game"),
                     {"line": " ".join(notations), "game": game_id})


def downgrade():
    for name in reversed(INDEXES):
        op.drop_index(name, table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("line")
