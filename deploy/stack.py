"""The production shape on one machine, without docker: nginx in front of two app instances.

``up`` migrates the database, starts N gunicorn masters (``gunicorn.conf.py``) on
loopback ports, renders ``deploy/nginx.conf.template`` and starts nginx on
``--port``, and returns once ``/readyz`` answers 200 through nginx. ``down`` stops
everything ``up`` started (the pid files in ``--run-dir``)::

    python deploy/stack.py up --port 8080 --run-dir .stack
    python deploy/stack.py down --run-dir .stack

The apps get ``PROXY_HOPS=1`` (nginx sets X-Forwarded-For to the address it saw)
and share their rate-limit counters in Redis (``--redis``). Settings not named here
(CORS_ORIGINS, RATELIMIT_*, …) pass through from the environment.

nginx limits the request rate of each client address before the apps see a request
(:data:`RATE_SETTINGS`: ``STACK_RATE``, ``STACK_SOLVER_RATE``, … override them), so that
a flood is refused where a refusal is cheap.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The app masters this process started, by run dir: down() reaps them.
_STARTED: dict[Path, list[subprocess.Popen]] = {}
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf.template"

#: Statuses nginx answers itself, the code of each, and the params its body carries.
NGINX_PROBLEMS = {
    400: ("INVALID_REQUEST", lambda s: {}),
    408: ("REQUEST_TIMEOUT", lambda s: {}),
    413: ("PAYLOAD_TOO_LARGE", lambda s: {"limit": s.max_body}),
    414: ("URI_TOO_LONG", lambda s: {"limit": s.header_buffer}),
    404: ("NOT_FOUND", lambda s: {}),  # /metrics from outside
    429: ("RATE_LIMITED", lambda s: {"retry_after": 1}),
    431: ("HEADERS_TOO_LARGE", lambda s: {"limit": 4 * s.header_buffer}),
    500: ("INTERNAL_ERROR", lambda s: {}),
    502: ("BAD_GATEWAY", lambda s: {}),
    503: ("SERVICE_UNAVAILABLE", lambda s: {}),
    504: ("GATEWAY_TIMEOUT", lambda s: {}),
}
#: Query parameter names that carry a credential: refused by nginx before the request is
#: proxied (so that no upstream error ever logs one), as by the app (service/api/auth.py).
_PARAM = "@@param@@"
#: Where nginx puts the request's id in its own problem documents (the template's map).
_REQUEST_ID = "@@request_id@@"
#: The statuses nginx produces for each answered one: 494 is its "request header too large";
#: a length it requires (411), a transfer coding (501) or an HTTP version (505) it does not
#: know make a malformed request for this API.
_NGINX_STATUS = {400: ("400 411 501 505", 400), 431: ("494", 431)}
#: The request-rate settings of nginx (StackSettings fields) and the variable overriding each.
RATE_SETTINGS = {
    "rate": "STACK_RATE", "burst": "STACK_BURST",
    "write_rate": "STACK_WRITE_RATE", "write_burst": "STACK_WRITE_BURST",
    "create_rate": "STACK_CREATE_RATE", "create_burst": "STACK_CREATE_BURST",
    "solver_rate": "STACK_SOLVER_RATE", "solver_burst": "STACK_SOLVER_BURST",
    "refused_rate": "STACK_REFUSED_RATE",
}
#: The status limit_req refuses with inside nginx, turned into a 429 by error_page: its
#: refusals get documents of their own, sent slowly, while limit_conn's 429 stays immediate.
LIMIT_REQ_STATUS = 439
#: The document of a request-rate refusal, by location (``rate``: every location without its
#: own): the code and the Retry-After of each.
LIMITED_LOCATIONS = {
    "rate": ("RATE_LIMITED", lambda s: 1),
    "solver": ("SOLVER_RATE_LIMITED", lambda s: math.ceil(60 / s.solver_rate)),
    "create": ("RATE_LIMITED", lambda s: math.ceil(60 / s.create_rate)),
}


@dataclass
class StackSettings:
    port: int = 8080
    listen_host: str = "127.0.0.1"
    app_ports: list[int] = field(default_factory=list)  # default: port+1, port+2
    run_dir: Path = ROOT / ".stack"
    database_url: str = "postgresql+psycopg://postgres@127.0.0.1:5432/solitaire_stack"
    redis_url: str = "redis://127.0.0.1:6379/0"
    workers: int = 2
    threads: int = 4
    client_timeout: int = 10
    upstream_timeout: int = 35
    header_buffer: int = 4096
    max_body: int = 16 * 1024
    conn_per_address: int = 32
    feed_spool: str = "512m"  # per feed stream being sent: 100,000 entries of long games fit
    # Per client address. Every request: far above what a page or a client polling a game sends.
    rate: int = 50  # per second
    burst: int = 100
    # Every request but GET/HEAD/OPTIONS: a player acts a few times a second at most.
    write_rate: int = 10  # per second
    write_burst: int = 20
    # POST /v1/games (which may deal a winnable game, a row of the pool).
    create_rate: int = 30  # per minute
    create_burst: int = 10
    # GET /v1/games/{id}/hint: the app's SOLVER_RATELIMIT (20 per minute) at the door.
    solver_rate: int = 20  # per minute
    solver_burst: int = 10
    # Bytes per second nginx sends its own 429s at: ~500 bytes take 2-3 s (0: at once).
    refused_rate: int = 200
    worker_processes: int = 1
    worker_connections: int = 2048
    access_log: str = ""  # default: nginx-access.log in run_dir; "off" for none
    error_log: str = ""  # default: nginx-error.log in run_dir
    pid_path: str = ""  # default: nginx.pid in run_dir
    temp_dir: str = ""  # default: nginx-temp in run_dir
    upstreams: list[str] = field(default_factory=list)  # host:port; default 127.0.0.1 on app_ports
    # JSON logs, request ids and metrics on (as deployed); off only to measure what they cost.
    observability: bool = True
    prometheus_port: int = 0  # 0: no Prometheus; `main` gives it --port + 9
    environment: dict = field(default_factory=dict)  # extra settings of the apps

    def __post_init__(self) -> None:
        self.run_dir = Path(self.run_dir)
        for name in RATE_SETTINGS:
            lowest = 0 if name == "refused_rate" else 1
            if getattr(self, name) < lowest:
                raise ValueError(f"{name} must be at least {lowest}, not {getattr(self, name)}")
        if not self.app_ports:
            self.app_ports = [self.port + 1, self.port + 2]


def _nginx_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def problem_documents(settings: StackSettings) -> dict[int, dict[str, str]]:
    """The body of each status nginx answers itself, in every catalog language."""
    sys.path.insert(0, str(ROOT))
    from service import i18n
    from service.api.auth import CREDENTIAL_PARAMS
    from service.api.problem_schemas import problem_document
    from service.problem_codes import STATUS

    documents: dict[int | str, dict[str, str]] = {}
    problems = {**NGINX_PROBLEMS, "token": ("TOKEN_IN_QUERY", lambda s: {"param": _PARAM})}
    for name, (code, retry_after) in LIMITED_LOCATIONS.items():
        problems[f"{name}_429"] = (code, lambda s, r=retry_after: {"retry_after": r(s)})
    for status, (code, params_of) in problems.items():
        assert not isinstance(status, int) or STATUS[code] == status, (code, status)
        params = params_of(settings)
        documents[status] = {
            lang: json.dumps({**problem_document(code, params, lang), "request_id": _REQUEST_ID},
                             ensure_ascii=False).replace(_PARAM, "${token_param}").replace(_REQUEST_ID,
                                                                                          "${edge_request_id}")
            for lang in i18n.LANGUAGES
        }
    documents["token_pattern"] = "(?:^|&)(" + "|".join(sorted(CREDENTIAL_PARAMS)) + ")(?:=|&|$)"
    return documents


def render_nginx_conf(settings: StackSettings) -> str:
    """deploy/nginx.conf.template with the settings and the problem documents filled in."""
    documents = problem_documents(settings)
    token_pattern = documents.pop("token_pattern")
    maps, pages, locations = [], [], []
    for status, by_lang in documents.items():
        lines = [f"    map $problem_lang $problem_{status} {{", f"        default {_nginx_string(by_lang['en'])};"]
        lines += [f"        {lang} {_nginx_string(body)};" for lang, body in by_lang.items() if lang != "en"]
        maps.append("\n".join([*lines, "    }"]))
        if status == "token":
            pages.append(f'        if ($args ~* "{token_pattern}") {{\n'
                         f"            set $token_param $1;\n"
                         f"            rewrite ^ /_problem/token last;\n"
                         f"        }}")
        seen, answered = _NGINX_STATUS.get(status, (status, status))
        answered = 400 if status == "token" else 429 if str(status).endswith("_429") else answered
        # A URI, not a named location: a request line nginx could not parse has no URI to keep.
        if isinstance(status, int):
            pages.append(f"        error_page {seen} ={answered} /_problem/{status};")
        elif status == "rate_429":
            pages.append(f"        error_page {LIMIT_REQ_STATUS} =429 /_problem/{status};")
        retry_after = json.loads(by_lang["en"])["params"].get("retry_after", 1)
        extra = (f"            add_header Retry-After {retry_after} always;\n"
                 if answered in (429, 502, 503, 504) else "")
        if str(status).endswith("_429") and settings.refused_rate:
            # A tarpit: nginx sends its refusal slowly (timers, no CPU), so a loop that ignores
            # Retry-After gets one answer per connection every few seconds instead of thousands.
            extra += f"            limit_rate {settings.refused_rate};\n"
        locations.append(
            f"        location = /_problem/{status} {{\n"
            f"            internal;\n"
            f"            default_type application/problem+json;\n"
            f"            add_header Content-Language $problem_lang always;\n"
            f"            add_header Cache-Control no-store always;\n"
            f"            add_header X-Content-Type-Options nosniff always;\n"
            f"            add_header X-Request-Id $edge_request_id always;\n{extra}"
            f"            return {answered} $problem_{status};\n"
            f"        }}")
    run_dir = settings.run_dir.resolve()

    def pages_of(location: str) -> str:
        """The server's error pages for a location of its own, with its own 429 document."""
        own = [page.replace("/_problem/rate_429;", f"/_problem/{location}_429;") for page in pages
               if "error_page" in page]
        return "\n".join("    " + page for page in own)

    values = {
        "worker_processes": settings.worker_processes,
        "worker_connections": settings.worker_connections,
        "pid_path": settings.pid_path or f"{run_dir}/nginx.pid",
        "temp_dir": settings.temp_dir or f"{run_dir}/nginx-temp",
        "error_log": settings.error_log or f"{run_dir}/nginx-error.log",
        "access_log": "off" if settings.access_log == "off"
        else f"{settings.access_log or run_dir / 'nginx-access.log'} edge if=$logged",
        "client_timeout": settings.client_timeout,
        "upstream_timeout": settings.upstream_timeout,
        "header_buffer": f"{settings.header_buffer // 1024}k",
        "max_body": f"{settings.max_body // 1024}k",
        "conn_per_address": settings.conn_per_address,
        "feed_spool": settings.feed_spool,
        **{name: getattr(settings, name) for name in RATE_SETTINGS},
        **{f"{name}_error_pages": pages_of(name) for name in LIMITED_LOCATIONS if name != "rate"},
        "limit_req_status": LIMIT_REQ_STATUS,
        "listen": f"{settings.listen_host}:{settings.port}",
        "upstream_servers": "\n".join(f"        server {upstream} max_fails=1 fail_timeout=2s;"
                                      for upstream in settings.upstreams
                                      or [f"127.0.0.1:{port}" for port in settings.app_ports]),
        "problem_maps": "\n".join(maps),
        "error_pages": "\n".join(pages),
        "problem_locations": "\n".join(locations),
    }

    def fill(match: re.Match) -> str:
        return str(values[match.group(1)])

    return re.sub(r"\{([a-z_]+)\}", fill, TEMPLATE.read_text())


#: docker-compose.yml's nginx: listens on 8080 in its container, logs to the container's output.
COMPOSE = {"listen_host": "0.0.0.0", "port": 8080, "upstreams": ["api-1:8000", "api-2:8000"],
           "access_log": "/dev/stdout", "error_log": "/dev/stderr", "pid_path": "/tmp/nginx.pid",
           "temp_dir": "/tmp/nginx"}
COMPOSE_CONF = Path(__file__).resolve().parent / "nginx.compose.conf"


def _app_environment(settings: StackSettings, port: int, number: int) -> dict:
    env = {**os.environ, **settings.environment}
    env.update({
        "DATABASE_URL": settings.database_url,
        "BIND": f"127.0.0.1:{port}",
        "WEB_WORKERS": str(settings.workers),
        "WEB_THREADS": str(settings.threads),
        "PROXY_HOPS": "1",
        "RATELIMIT_STORAGE_URI": settings.redis_url,
        "MAX_BODY_BYTES": str(settings.max_body),
        "ACCESS_LOG": str(settings.run_dir.resolve() / f"api-{number}-access.log"),
    })
    env.pop("RATELIMIT_PROCESSES", None)  # the counters are shared: no per-process share
    env.update(_observability_environment(settings, number))
    return env


def _observability_environment(settings: StackSettings, number: int) -> dict:
    """JSON log lines with request ids, and each instance's metrics directory (gunicorn.conf.py empties it)."""
    if not settings.observability:
        values = {"LOG_FORMAT": "text", "REQUEST_IDS": "0", "METRICS_ENABLED": "0", "LOG_REQUESTS": "0"}
    else:
        values = {"LOG_FORMAT": os.environ.get("LOG_FORMAT", "json"),
                  "PROMETHEUS_MULTIPROC_DIR": str(settings.run_dir.resolve() / f"api-{number}-metrics")}
    return {name: value for name, value in values.items() if name not in settings.environment}


def _get(port: int, path: str, timeout: float = 2.0) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _wait_for(port: int, path: str, deadline: float, process: subprocess.Popen | None = None) -> None:
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process for port {port} exited with {process.returncode}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            if _get(port, path) == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"no 200 from {path} on port {port}")


def migrate(settings: StackSettings) -> None:
    env = {**os.environ, **settings.environment, "DATABASE_URL": settings.database_url}
    subprocess.run([sys.executable, "-m", "flask", "--app", "service", "db", "upgrade"], cwd=ROOT, env=env,
                   check=True, capture_output=True)


def nginx_binary() -> str:
    path = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
    if path is None:
        raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
    return path


def start_nginx(settings: StackSettings) -> None:
    """Render the config into the run dir and start nginx (it daemonizes; its pid file is in the run dir)."""
    run_dir = settings.run_dir.resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    Path(settings.temp_dir or run_dir / "nginx-temp").mkdir(parents=True, exist_ok=True)
    conf = run_dir / "nginx.conf"
    conf.write_text(render_nginx_conf(settings))
    started = subprocess.run([nginx_binary(), "-p", str(run_dir), "-e", str(run_dir / "nginx-error.log"),
                              "-c", str(conf)], capture_output=True, text=True)
    if started.returncode != 0:
        raise RuntimeError(f"nginx did not start: {started.stderr.strip()}")


PROMETHEUS_DIR = Path(__file__).resolve().parent / "prometheus"


def prometheus_config(settings: StackSettings) -> str:
    """Prometheus scraping each instance's /metrics on its own address, with deploy/prometheus/alerts.yml."""
    targets = ", ".join(f'"127.0.0.1:{port}"' for port in settings.app_ports)
    return (f"global:\n  scrape_interval: 5s\n  evaluation_interval: 15s\n"
            f"rule_files:\n  - {PROMETHEUS_DIR / 'alerts.yml'}\n"
            f"scrape_configs:\n  - job_name: solitaire\n    static_configs:\n      - targets: [{targets}]\n")


def start_prometheus(settings: StackSettings) -> subprocess.Popen:
    """Debian's prometheus on 127.0.0.1:``prometheus_port``, its data and pid file in the run dir."""
    binary = shutil.which("prometheus")
    if binary is None:
        raise RuntimeError("prometheus is not installed (Debian: apt-get install prometheus)")
    run_dir = settings.run_dir.resolve()
    (run_dir / "prometheus.yml").write_text(prometheus_config(settings))
    log = open(run_dir / "prometheus.log", "ab")  # noqa: SIM115 (the child keeps it)
    process = subprocess.Popen(
        [binary, f"--config.file={run_dir / 'prometheus.yml'}", f"--storage.tsdb.path={run_dir / 'prometheus-data'}",
         f"--web.listen-address=127.0.0.1:{settings.prometheus_port}"],
        stdout=log, stderr=log, start_new_session=True)
    log.close()
    (run_dir / "prometheus.pid").write_text(str(process.pid))
    _STARTED.setdefault(run_dir, []).append(process)
    return process


def up(settings: StackSettings, timeout: float = 60.0) -> None:
    """Start the stack; returns once /readyz answers 200 through nginx. Stops what it started on failure."""
    settings.run_dir.mkdir(parents=True, exist_ok=True)
    running = [name for name, pid in _pids(settings.run_dir) if _alive(pid)]
    if running:  # failing here must not stop the stack that is already up
        raise RuntimeError(f"a stack already runs from {settings.run_dir} ({', '.join(running)}): stop it first")
    deadline = time.monotonic() + timeout
    try:
        migrate(settings)
        processes = _STARTED.setdefault(settings.run_dir.resolve(), [])
        for number, port in enumerate(settings.app_ports, 1):
            log = open(settings.run_dir / f"api-{number}-error.log", "ab")  # noqa: SIM115 (the child keeps it)
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
                 "--pid", str(settings.run_dir.resolve() / f"api-{number}.pid"), "service:create_app()"],
                cwd=ROOT, env=_app_environment(settings, port, number), stdout=log, stderr=log,
                start_new_session=True))
            log.close()
        for port, process in zip(settings.app_ports, processes, strict=True):
            _wait_for(port, "/healthz", deadline, process)
        start_nginx(settings)
        _wait_for(settings.port, "/readyz", deadline)
        if settings.prometheus_port:
            _wait_for(settings.prometheus_port, "/-/ready", deadline, start_prometheus(settings))
    except BaseException:
        down(settings.run_dir)
        raise


def _pids(run_dir: Path) -> list[tuple[str, int]]:
    found = []
    for name in ("nginx.pid", "prometheus.pid", *sorted(p.name for p in run_dir.glob("api-*.pid"))):
        path = run_dir / name
        with contextlib.suppress(OSError, ValueError):
            found.append((name, int(path.read_text().strip())))
    return found


def down(run_dir: Path, timeout: float = 15.0) -> None:
    """Stop nginx and the app masters whose pid files are in ``run_dir``; wait until they are gone."""
    run_dir = Path(run_dir)
    pids = _pids(run_dir)
    children = _STARTED.pop(run_dir.resolve(), [])
    pids += [(f"api-{number}.pid", child.pid) for number, child in enumerate(children, 1)
             if child.pid not in {pid for _, pid in pids}]
    for _, pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for name, pid in pids:
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(FileNotFoundError):
            (run_dir / name).unlink()
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie child of ours counts as gone once reaped.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    return True


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database of ``url`` when it does not exist yet."""
    import sqlalchemy as sa

    if not url.startswith("postgresql"):
        return
    base, name = url.rsplit("/", 1)
    admin = sa.create_engine(f"{base}/postgres", isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            exists = connection.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first()
            if not exists:
                connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["up", "down", "config", "compose-config"])
    parser.add_argument("--port", type=int, default=int(os.environ.get("STACK_PORT", "8080")))
    parser.add_argument("--run-dir", type=Path, default=Path(os.environ.get("STACK_DIR", ROOT / ".stack")))
    parser.add_argument("--database-url", default=os.environ.get("STACK_DATABASE_URL",
                                                                StackSettings.database_url))
    parser.add_argument("--redis", default=os.environ.get("STACK_REDIS_URL", StackSettings.redis_url))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "2")))
    parser.add_argument("--prometheus-port", type=int, default=None,
                        help="Prometheus's port (default --port + 9; 0: no Prometheus)")
    args = parser.parse_args()
    rates = {}
    for name, variable in RATE_SETTINGS.items():
        if variable in os.environ:
            try:
                rates[name] = int(os.environ[variable])
            except ValueError:
                parser.error(f"{variable} must be a whole number, not {os.environ[variable]!r}")
    try:
        settings = StackSettings(port=args.port, run_dir=args.run_dir, database_url=args.database_url,
                                 redis_url=args.redis, workers=args.workers, **rates,
                                 prometheus_port=args.port + 9 if args.prometheus_port is None
                                 else args.prometheus_port)
    except ValueError as error:
        parser.error(str(error))
    if args.command == "down":
        down(settings.run_dir)
        print(f"stack in {settings.run_dir} stopped")
    elif args.command == "config":
        print(render_nginx_conf(settings))
    elif args.command == "compose-config":
        COMPOSE_CONF.write_text(render_nginx_conf(StackSettings(**COMPOSE)))
        print(f"wrote {COMPOSE_CONF}")
    else:
        ensure_database(settings.database_url)
        up(settings)
        print(f"stack up: http://{settings.listen_host}:{settings.port}/ (nginx) -> apps on "
              f"{', '.join(f'127.0.0.1:{p}' for p in settings.app_ports)}; logs and pids in {settings.run_dir}")
        if settings.prometheus_port:
            print(f"prometheus: http://127.0.0.1:{settings.prometheus_port}/ (metrics: /metrics on each app port)")


if __name__ == "__main__":
    main()
