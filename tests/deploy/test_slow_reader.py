"""A slow NDJSON reader holds neither an app thread nor a database snapshot past FEED_STREAM_SECONDS.

Through the stack, with nginx's spool of the feed turned off (``feed_spool="0"``: nginx
then stops reading from the app once its buffers are full, as it would once a spool is
full), a reader that takes one byte a second. The app bounds the write itself
(service/api/feed.py): within the setting plus a grace, its thread is free and no
transaction of the app's holds a snapshot (``backend_xmin`` in ``pg_stat_activity``).
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
import requests
import sqlalchemy as sa

from tests.deploy.conftest import deployed_stack, stack_ports
from tests.deploy.test_stack import _long_wins

STREAM_SECONDS = 3


@pytest.fixture(scope="module")
def unspooled(tmp_path_factory):
    with deployed_stack(tmp_path_factory, "slow", stack_ports(3), threads=2, feed_spool="0", client_timeout=60,
                        environment={"FEED_STREAM_SECONDS": str(STREAM_SECONDS)}) as settings:
        yield settings


def _snapshots(engine) -> int:
    """Connections of the apps (not this one) holding a snapshot."""
    with engine.connect() as connection:
        return connection.execute(sa.text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL")).scalar_one()


def test_a_one_byte_a_second_reader_is_cut_at_the_setting(unspooled):
    base = f"http://127.0.0.1:{unspooled.port}"
    engine = sa.create_engine(unspooled.database_url)
    stop = threading.Event()
    readers = []
    try:
        with _long_wins(unspooled.database_url, 10_000, 3_000):  # ~30 MB: far beyond every buffer
            for _ in range(4):  # every thread of both apps
                reader = socket.create_connection(("127.0.0.1", unspooled.port), timeout=5)
                reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                reader.sendall(b"GET /v1/games/finished?limit=100000 HTTP/1.1\r\nHost: x\r\n"
                               b"Accept: application/x-ndjson\r\n\r\n")
                readers.append(reader)

            def trickle(sock):
                while not stop.is_set():
                    try:
                        if not sock.recv(1):
                            return
                    except OSError:
                        return
                    stop.wait(1.0)

            threads = [threading.Thread(target=trickle, args=(reader,), daemon=True) for reader in readers]
            for thread in threads:
                thread.start()
            time.sleep(1.0)
            assert _snapshots(engine) >= 1, "the streams are under way, each on its snapshot"
            time.sleep(STREAM_SECONDS + 3)  # the setting, the grace, gunicorn closing
            assert _snapshots(engine) == 0, "a stalled stream still holds a database snapshot"
            answers = [requests.get(f"{base}/v1/rules", timeout=5).status_code for _ in range(4)]
            assert answers == [200] * 4, "every app thread is free again"
    finally:
        stop.set()
        for reader in readers:
            reader.close()
        engine.dispose()
