"""leaderboard indexes: partial indexes on won games in ranking order

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 10:00:00

Each index is (equality prefix, score DESC, moves, duration_ms, finished_at, id)
restricted to ``status = 'won'``: the overall board, one draw mode, one deal
and one player each read their first page straight off an index, and the
COUNT that ranks a later page is an index-only range scan.
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

WON = "status = 'won'"
INDEXES = {
    "ix_games_won_rank": [],
    "ix_games_won_draw": ["draw"],
    "ix_games_won_code": ["code"],
    "ix_games_won_player": ["player_id"],
}


def upgrade():
    for name, prefix in INDEXES.items():
        op.create_index(
            name, "games",
            [*prefix, sa.text("score DESC"), "moves", "duration_ms", "finished_at", "id"],
            unique=False, postgresql_where=sa.text(WON), sqlite_where=sa.text(WON),
        )


def downgrade():
    for name in reversed(INDEXES):
        op.drop_index(name, table_name="games")
