"""player statistics kept as games are dealt and won

Revision ID: 0005_player_stats
Revises: 0004_abuse_budgets
Create Date: 2026-11-30 13:30:00

One row per player and mode (0: all games, 1 and 3: per draw mode), counted
here once from the existing games; from then on the service keeps them.
"""
import sqlalchemy as sa
from alembic import op

from service.store.stats import streaks, trailing

# revision identifiers, used by Alembic.
revision = '0005_player_stats'
down_revision = '0004_abuse_budgets'
branch_labels = None
depends_on = None

MODES = (0, 1, 3)


def upgrade():
    table = op.create_table(
        'player_stats',
        sa.Column('player_id', sa.String(length=24), nullable=False),
        sa.Column('mode', sa.SmallInteger(), nullable=False),
        sa.Column('started', sa.Integer(), nullable=False),
        sa.Column('won', sa.Integer(), nullable=False),
        sa.Column('best_score', sa.Integer(), nullable=True),
        sa.Column('fewest_moves', sa.Integer(), nullable=True),
        sa.Column('fastest_ms', sa.BigInteger(), nullable=True),
        sa.Column('current_streak', sa.Integer(), nullable=False),
        sa.Column('best_streak', sa.Integer(), nullable=False),
        sa.Column('trailing', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['players.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('player_id', 'mode'),
    )
    connection = op.get_bind()
    games = {}
    for player, draw, status, score, moves, ms in connection.execute(sa.text(
            "SELECT player_id, draw, status, score, moves, duration_ms FROM games "
            "WHERE player_id IS NOT NULL ORDER BY created_at, id")):
        games.setdefault(player, []).append((draw, status, score, moves, ms))
    rows = []
    for (player,) in connection.execute(sa.text("SELECT id FROM players")):
        for mode in MODES:
            chosen = [g for g in games.get(player, []) if not mode or g[0] == mode]
            won = [g for g in chosen if g[1] == "won"]
            statuses = [g[1] for g in chosen]
            (current, best), waiting = streaks(statuses), trailing(statuses)
            rows.append({
                "player_id": player, "mode": mode, "started": len(chosen), "won": len(won),
                "best_score": max((g[2] for g in won), default=None),
                "fewest_moves": min((g[3] for g in won), default=None),
                "fastest_ms": min((g[4] for g in won if g[4] is not None), default=None),
                "current_streak": current, "best_streak": best, "trailing": waiting,
            })
    if rows:
        op.bulk_insert(table, rows)


def downgrade():
    op.drop_table('player_stats')
