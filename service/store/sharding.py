"""How each table would be placed on a distributed PostgreSQL (Citus), sharded by game id.

The step after read replicas (docs/DEPLOYMENT.md, "Capacity"): the game tables are
distributed by their game's id, co-located, so that everything about one game in play
(its row, its actions, its kept answers, its lock) lives on one node and an action stays
a single-node transaction. Citus requires of a distributed table that its primary key
and every unique constraint carry the distribution column, and that a foreign key
between distributed tables joins on it; tests/store/test_sharding.py checks the schema
for that today, and that every table is placed here, so a new table is placed on purpose.
"""

from __future__ import annotations

#: Distributed by game id (``create_distributed_table(table, column, colocate_with => 'games')``).
GAME_TABLES: dict[str, str] = {"games": "id", "actions": "game_id", "idempotent_answers": "game_id"}
#: Small, read everywhere, written rarely: a copy on every node (``create_reference_table``).
#: players: joined by the boards and a game's player_id; winnable_deals: the pool a deal takes from.
REFERENCE_TABLES = frozenset({"players", "winnable_deals"})
#: Distributed by their own key, co-located with nothing: never joined with a game in a write.
#: player_stats by player_id (one row per player and mode); created_answers by scope.
OWN_KEY_TABLES: dict[str, str] = {"player_stats": "player_id", "created_answers": "scope"}
#: Not the service's data: Alembic's version row stays on the coordinator.
LOCAL_TABLES = frozenset({"alembic_version"})
