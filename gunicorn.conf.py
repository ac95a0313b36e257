"""gunicorn settings: gthread workers, which beat sync workers for small JSON answers on 2 cores."""

import os

bind = os.environ.get("BIND", f"127.0.0.1:{os.environ.get('PORT', '8000')}")
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "4"))
keepalive = 5
timeout = 30
graceful_timeout = 10
accesslog = os.environ.get("ACCESS_LOG") or None
# gunicorn 27 opens a control socket at a fixed path: two servers on one machine would clash.
control_socket_disable = True

# preload_app stays off: each worker builds its own app and connection pool after the fork.
