"""A real HTTP server around an app, for tests that need sockets and threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from werkzeug.serving import make_server


@contextmanager
def serving(app) -> Iterator[str]:
    """Serve ``app`` threaded on a free port of 127.0.0.1; yield its base URL."""
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        thread.join(10)
        httpd.server_close()
