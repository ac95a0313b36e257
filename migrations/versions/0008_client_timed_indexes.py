"""client-timed wins: two small partial indexes, for the boards' and the feed's timing filter

Revision ID: 0008_client_timed_indexes
Revises: 0007_client_timing
Create Date: 2026-12-05 08:00:00

``timing=client`` keeps the games born offline (``client_started_at`` set) and
``timing=server`` leaves them out. Without an index on them, a client-timed board
read the ranking index from its top, row by row in the table, until it had a
page, and every count under ``timing=server`` (a later page's rank, a tag's recent
wins) visited each counted row in the table: PostgreSQL answered a tag's count
with a sequential scan. Two partial indexes on client-timed wins only, in the
ranking order and in the order of finish (as 0002 and 0003), make ``timing=client``
an index read, and ``timing=server`` counts all wins less these, index-only on
both sides (``service.store.feed.count_of``). On PostgreSQL they include draw,
code and player_id, the boards' equality filters. They hold client-timed wins
alone: small, and nothing to maintain for a game the server timed.
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0008_client_timed_indexes'
down_revision = '0007_client_timing'
branch_labels = None
depends_on = None

WON_CLIENT_TIMED = "status = 'won' AND client_started_at IS NOT NULL"
INCLUDE = ["draw", "code", "player_id"]
INDEXES = {
    "ix_games_won_client_rank": [sa.text("score DESC"), "moves", "duration_ms", "finished_at", "id"],
    "ix_games_won_client_finished": ["finished_at", "id"],
}


def upgrade():
    for name, columns in INDEXES.items():
        op.create_index(name, "games", columns, unique=False, postgresql_where=sa.text(WON_CLIENT_TIMED),
                        sqlite_where=sa.text(WON_CLIENT_TIMED), postgresql_include=INCLUDE)


def downgrade():
    for name in reversed(INDEXES):
        op.drop_index(name, table_name="games")
