"""harness.postgres: a private cluster its owner stops and starts, a streaming replica, scratch databases on it."""

from __future__ import annotations

import time

import sqlalchemy as sa

from harness.postgres import PrivateCluster, binaries, scratch_database
from tests.databases import missing


def _cluster() -> PrivateCluster:
    if binaries() is None:
        missing("no PostgreSQL binaries (/usr/lib/postgresql/*/bin)")
    return PrivateCluster()


def test_a_private_cluster_stops_and_starts_with_its_data_and_goes_away():
    with _cluster() as cluster:
        with scratch_database("harness", cluster.url) as url:
            engine = sa.create_engine(url, pool_pre_ping=True)
            with engine.begin() as connection:
                connection.exec_driver_sql("CREATE TABLE t (x int)")
                connection.exec_driver_sql("INSERT INTO t VALUES (7)")
            cluster.stop()
            assert not cluster.running() and not cluster.ready(timeout=0.5)
            cluster.start()
            with engine.connect() as connection:
                assert connection.exec_driver_sql("SELECT x FROM t").scalar() == 7
            engine.dispose()
        directory = cluster.directory
    assert not directory.exists()


def test_a_replica_follows_its_primary():
    with _cluster() as cluster:
        primary = sa.create_engine(cluster.url)
        with primary.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE t (x int)")
        standby = cluster.replica()
        with primary.begin() as connection:
            connection.exec_driver_sql("INSERT INTO t VALUES (1), (2)")
        replica = sa.create_engine(standby.url)
        deadline = time.monotonic() + 30
        while True:
            with replica.connect() as connection:
                assert connection.exec_driver_sql("SELECT pg_is_in_recovery()").scalar() is True
                if connection.exec_driver_sql("SELECT count(*) FROM t").scalar() == 2:
                    break
            assert time.monotonic() < deadline, "the replica never caught up"
            time.sleep(0.1)
        primary.dispose()
        replica.dispose()
