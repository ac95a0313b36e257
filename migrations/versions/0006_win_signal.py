"""a NOTIFY when a won game changes, so that processes can cache the boards' tags

Revision ID: 0006_win_signal
Revises: 0005_player_stats
Create Date: 2026-11-30 16:00:00

PostgreSQL only: every insert, update or delete of a won game (a win, above all),
and every TRUNCATE, sends ``NOTIFY solitaire_wins`` when its transaction commits. Each app process
listens (service/store/board_tags.py) and drops the boards' tags it cached, so that a
304 needs no query. The triggers' WHEN clauses keep the cost off every other
update of a game (an action on a game being played).
"""
from alembic import op

# revision identifiers, used by Alembic.
revision = '0006_win_signal'
down_revision = '0005_player_stats'
branch_labels = None
depends_on = None

CHANNEL = 'solitaire_wins'  # service.store.board_tags.CHANNEL
TRIGGERS = {
    'games_win_inserted': "AFTER INSERT ON games FOR EACH ROW WHEN (NEW.status = 'won')",
    'games_win_updated': "AFTER UPDATE ON games FOR EACH ROW WHEN (NEW.status = 'won' OR OLD.status = 'won')",
    'games_win_deleted': "AFTER DELETE ON games FOR EACH ROW WHEN (OLD.status = 'won')",
    'games_truncated': "AFTER TRUNCATE ON games FOR EACH STATEMENT",
}


def upgrade():
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.execute(f"""
        CREATE FUNCTION notify_win() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('{CHANNEL}', '');
            RETURN NULL;
        END $$""")
    for name, when in TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} EXECUTE FUNCTION notify_win()")


def downgrade():
    if op.get_bind().dialect.name != 'postgresql':
        return
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON games")
    op.execute("DROP FUNCTION notify_win()")
