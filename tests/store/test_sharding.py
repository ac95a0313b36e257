"""The schema is ready to be sharded by game id (Citus): service/store/sharding.py's placement holds.

Checked on the database the real migrations build (SQLite and PostgreSQL): every table is
placed; each distributed table's primary key and unique constraints carry its
distribution column; a foreign key between game tables joins on the game id; a
foreign key from a distributed table points at a reference table or a co-located one.
"""

from __future__ import annotations

import sqlalchemy as sa

from service.extensions import db
from service.store import sharding


def _distribution(table: str) -> str | None:
    return sharding.GAME_TABLES.get(table) or sharding.OWN_KEY_TABLES.get(table)


def test_every_table_is_placed_and_keyed_by_its_distribution_column(app):
    with app.app_context():
        inspector = sa.inspect(db.engine)
        tables = set(inspector.get_table_names())
        placed = (set(sharding.GAME_TABLES) | set(sharding.OWN_KEY_TABLES) | sharding.REFERENCE_TABLES
                  | sharding.LOCAL_TABLES)
        assert tables - placed == set(), "a new table must be placed in service/store/sharding.py"
        problems = []
        for table in sorted(tables):
            column = _distribution(table)
            if column is None:
                continue
            key = inspector.get_pk_constraint(table)["constrained_columns"]
            if column not in key:
                problems.append(f"{table}: primary key {key} without {column}")
            uniques = [u["column_names"] for u in inspector.get_unique_constraints(table)]
            uniques += [i["column_names"] for i in inspector.get_indexes(table) if i.get("unique")]
            problems += [f"{table}: unique {names} without {column}" for names in uniques if column not in names]
            for foreign in inspector.get_foreign_keys(table):
                target = foreign["referred_table"]
                if target in sharding.REFERENCE_TABLES:
                    continue
                if table in sharding.GAME_TABLES and target in sharding.GAME_TABLES:
                    pairs = dict(zip(foreign["constrained_columns"], foreign["referred_columns"], strict=True))
                    if pairs.get(column) != sharding.GAME_TABLES[target]:
                        problems.append(f"{table}: foreign key {pairs} to {target} not on the game id")
                else:
                    problems.append(f"{table}: foreign key to {target}, neither reference nor co-located")
        assert not problems, "\n".join(problems)
        assert "game_id" in inspector.get_pk_constraint("actions")["constrained_columns"]
