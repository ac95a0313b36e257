"""gunicorn settings: gthread workers, which beat sync workers for small JSON answers on 2 cores.

In production gunicorn sits behind nginx (deploy/) and listens on loopback or a unix
socket only (``BIND=unix:/run/solitaire/api.sock``): nginx absorbs slow clients, so a
stalled socket never holds one of these threads.
"""

import os

from gunicorn.workers.gthread import ThreadWorker

bind = os.environ.get("BIND", f"127.0.0.1:{os.environ.get('PORT', '8000')}")


class ProblemThreadWorker(ThreadWorker):
    """gthread, answering the requests gunicorn refuses itself (too long, malformed) in problem+json.

    Defined here, not in the service package: the master loads the worker class, and it
    must not import the app (workers load it; a HUP then serves new code).
    """

    def init_process(self) -> None:
        from service.serving import answer_refusals_in_problem_json

        answer_refusals_in_problem_json(self.cfg)
        super().init_process()


worker_class = ProblemThreadWorker
workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "4"))
keepalive = 5
timeout = 30
graceful_timeout = 10
# Above nginx's bounds (4 KiB a line, 16 KiB of headers: deploy/nginx.conf.template), so that
# whatever nginx lets through is answered by the app, as problem+json, never by gunicorn's HTML.
limit_request_line = 8190
limit_request_fields = 4096
limit_request_field_size = 8190
# The client address and scheme are the app's business (PROXY_HOPS, werkzeug's ProxyFix):
# gunicorn trusts no forwarded header itself.
forwarded_allow_ips = ""
accesslog = os.environ.get("ACCESS_LOG") or None
# The path without its query string, and no Referer: neither may carry a token into the log.
# Last, the request id the answer carried (the app's own log lines have it too).
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms "%(a)s" %({x-request-id}o)s'
# gunicorn 27 opens a control socket at a fixed path: two servers on one machine would clash.
control_socket_disable = True

# With the in-memory rate-limit store each worker would count alone, enforcing and announcing
# its share of each limit: every worker of this server counts in one file of the master's
# instead (service/api/file_counters.py), so X-RateLimit-Limit is the configured limit, as
# with Redis. RATELIMIT_PROCESSES stays the worker count: the share each worker counts
# alone should that file (or a shared store) fail.
raw_env = [] if "RATELIMIT_PROCESSES" in os.environ else [f"RATELIMIT_PROCESSES={workers}"]
_COUNTERS_DIR = None
if workers > 1 and os.environ.get("RATELIMIT_STORAGE_URI", "memory://").startswith("memory://"):
    import tempfile

    _COUNTERS_DIR = tempfile.mkdtemp(prefix="solitaire-limits-")
    raw_env.append(f"RATELIMIT_STORAGE_URI=solitaire-file://{_COUNTERS_DIR}/counters.db")

# preload_app stays off: each worker builds its own app and connection pool after the fork.

# ---- metrics: prometheus_client's multiprocess mode (service/telemetry/metrics.py) ------------
# Each worker writes its metrics to files in PROMETHEUS_MULTIPROC_DIR and /metrics sums them.
# That directory belongs to the gunicorn that starts: made and emptied here, in the master,
# before any worker forks (files of an earlier run would be summed in); a dead worker's live
# gauges are dropped in child_exit. Without the variable, the master makes a private one and
# removes it on exit. deploy/stack.py gives each instance its own.
_metrics_dir_made = []


def on_starting(server):
    import shutil
    import tempfile

    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not path:
        path = tempfile.mkdtemp(prefix="solitaire-metrics-")
        _metrics_dir_made.append(path)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    elif os.path.isdir(path):
        for entry in os.scandir(path):
            if entry.is_file() and entry.name.endswith(".db"):
                os.unlink(entry.path)
            elif entry.is_dir():
                shutil.rmtree(entry.path)
    os.makedirs(path, exist_ok=True)
    server.log.info("metrics of the workers in %s", path)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid, os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def on_exit(server):
    """The master's scratch directories go with it: its rate-limit counters and its metrics."""
    import shutil

    for path in [*_metrics_dir_made, *([_COUNTERS_DIR] if _COUNTERS_DIR else [])]:
        shutil.rmtree(path, ignore_errors=True)
