"""games born offline: when the client says it started, and how long it says it took

Revision ID: 0007_client_timing
Revises: 0006_win_signal
Create Date: 2026-12-04 20:00:00

A game created with the actions a client played offline (``POST /v1/games`` with
``actions`` and ``client``) keeps what only the client knows, as the client reported it:
``client_started_at`` and ``client_seconds``. Both are null for a game the server timed
(every game before this revision). Plain ADD COLUMNs of nullable columns: no rewrite of
the table, no default to fill.
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0007_client_timing'
down_revision = '0006_win_signal'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('games', sa.Column('client_started_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('games', sa.Column('client_seconds', sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table('games') as batch:
        batch.drop_column('client_seconds')
        batch.drop_column('client_started_at')
