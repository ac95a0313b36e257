"""abuse budgets: the winnable-deal pool, exact idempotent answers, idempotent creates

Revision ID: 0004_abuse_budgets
Revises: 0003_finished_feed
Create Date: 2026-11-30 13:00:00

- ``winnable_deals``: deals proven winnable ahead of demand, taken one per
  ``{"winnable": true}`` game (oldest first per draw mode).
- ``idempotent_answers`` gains the answer's exact bytes and headers (a JSONB
  body comes back with its keys reordered) and an index for the purge by age.
- ``created_answers``: the first answer to ``POST /v1/games`` and
  ``POST /v1/players`` with an ``Idempotency-Key``.
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0004_abuse_budgets'
down_revision = '0003_finished_feed'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'winnable_deals',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('draw', sa.SmallInteger(), nullable=False),
        sa.Column('code', sa.String(length=16), nullable=False),
        sa.Column('line_length', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('code'),
    )
    op.create_index('ix_winnable_deals_draw', 'winnable_deals', ['draw', 'id'], unique=False)
    with op.batch_alter_table('idempotent_answers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('raw', sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column('headers', sa.JSON(), nullable=True))
        batch_op.create_index('ix_idempotent_answers_created_at', ['created_at'], unique=False)
    op.create_table(
        'created_answers',
        sa.Column('scope', sa.String(length=64), nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=False),
        sa.Column('status', sa.SmallInteger(), nullable=False),
        sa.Column('headers', sa.JSON(), nullable=False),
        sa.Column('body', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('scope'),
    )
    op.create_index('ix_created_answers_created_at', 'created_answers', ['created_at'], unique=False)


def downgrade():
    op.drop_index('ix_created_answers_created_at', table_name='created_answers')
    op.drop_table('created_answers')
    with op.batch_alter_table('idempotent_answers', schema=None) as batch_op:
        batch_op.drop_index('ix_idempotent_answers_created_at')
        batch_op.drop_column('headers')
        batch_op.drop_column('raw')
    op.drop_index('ix_winnable_deals_draw', table_name='winnable_deals')
    op.drop_table('winnable_deals')
