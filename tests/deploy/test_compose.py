"""No Docker engine runs here, so the compose file's structure is checked instead."""

from __future__ import annotations

from pathlib import Path

import yaml
from gunicorn.workers.gthread import ThreadWorker

ROOT = Path(__file__).resolve().parents[2]


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


APIS = ("api-1", "api-2")


def test_compose_runs_postgres_and_redis_then_migrations_then_two_apps_behind_nginx():
    services = load_compose()["services"]
    assert set(services) == {"db", "redis", "migrate", *APIS, "nginx", "maintenance"}
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    assert "healthcheck" in services["db"] and "healthcheck" in services["redis"]
    migrate = services["migrate"]
    assert migrate["command"] == ["flask", "--app", "service", "db", "upgrade"]
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    for name in APIS:
        api = services[name]
        assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert api["depends_on"]["db"]["condition"] == "service_healthy"
        assert api["depends_on"]["redis"]["condition"] == "service_healthy"
    assert {name: services["nginx"]["depends_on"][name]["condition"] for name in APIS} == {
        name: "service_healthy" for name in APIS}


def test_only_nginx_publishes_a_port():
    services = load_compose()["services"]
    assert [name for name, service in services.items() if "ports" in service] == ["nginx"]
    assert services["nginx"]["ports"] == ["${STACK_PORT:-8080}:8080"]


def test_compose_points_every_app_at_the_same_postgresql_database_and_redis():
    services = load_compose()["services"]
    db = services["db"]["environment"]
    expected = (f"postgresql+psycopg://{db['POSTGRES_USER']}:{db['POSTGRES_PASSWORD']}"
                f"@db:5432/{db['POSTGRES_DB']}")
    assert services["migrate"]["environment"]["DATABASE_URL"] == expected
    for name in APIS:
        environment = services[name]["environment"]
        assert environment["DATABASE_URL"] == expected
        assert environment["BIND"] == "0.0.0.0:8000"  # on the compose network only
        assert environment["PROXY_HOPS"] == "1"
        assert environment["RATELIMIT_STORAGE_URI"].startswith("redis://redis:6379/")
    assert services["maintenance"]["environment"]["DATABASE_URL"] == expected


def test_the_compose_nginx_config_is_the_rendered_template():
    import sys

    sys.path.insert(0, str(ROOT / "deploy"))
    import stack

    nginx = load_compose()["services"]["nginx"]
    assert "./deploy/nginx.compose.conf:/etc/nginx/nginx.conf:ro" in nginx["volumes"]
    rendered = stack.render_nginx_conf(stack.StackSettings(**stack.COMPOSE))
    assert (ROOT / "deploy" / "nginx.compose.conf").read_text() == rendered, \
        "run: python deploy/stack.py compose-config"
    for name in APIS:
        assert f"server {name}:8000 " in rendered


def test_compose_purges_and_refills_the_pool_periodically():
    maintenance = load_compose()["services"]["maintenance"]
    script = maintenance["command"][-1]
    assert "flask --app service purge" in script and "pool fill" in script and "sleep" in script
    assert maintenance["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_dockerfile_serves_the_app_factory_with_the_gunicorn_config():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["gunicorn", "-c", "gunicorn.conf.py", "service:create_app()"]' in dockerfile
    for path in ("service", "migrations", "gunicorn.conf.py", "pyproject.toml"):
        assert f"COPY {path}" in dockerfile or f" {path} " in dockerfile
        assert (ROOT / path).exists()
    # The built image must find what create_app needs at run time.
    assert "COPY docs ./docs" in dockerfile
    assert "COPY clients/js/src ./clients/js/src" in dockerfile  # the engine's modules at /static/engine/


def test_gunicorn_config_uses_threads_and_no_control_socket():
    settings: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), settings)
    # gthread, answering gunicorn's own refusals in problem+json (tests/deploy/test_serving.py)
    assert issubclass(settings["worker_class"], ThreadWorker)
    assert settings["control_socket_disable"] is True
    assert settings["workers"] >= 2 and settings["threads"] >= 2


def test_gunicorn_gives_its_workers_one_counter_file_and_each_its_share_should_it_fail(monkeypatch):
    monkeypatch.delenv("RATELIMIT_PROCESSES", raising=False)
    monkeypatch.delenv("RATELIMIT_STORAGE_URI", raising=False)
    monkeypatch.setenv("WEB_WORKERS", "3")
    settings: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), settings)
    shares, uri = settings["raw_env"]
    assert shares == "RATELIMIT_PROCESSES=3" and uri.startswith("RATELIMIT_STORAGE_URI=solitaire-file:///")
    directory = Path(uri.split("://", 1)[1]).parent
    assert directory.is_dir()
    settings["on_exit"](None)  # the master's scratch counters go with it
    assert not directory.exists()
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "redis://127.0.0.1:6379/0")  # a shared store: no file
    monkeypatch.setenv("RATELIMIT_PROCESSES", "1")  # an operator's choice wins
    exec((ROOT / "gunicorn.conf.py").read_text(), settings)
    assert settings["raw_env"] == []


def test_gunicorn_logs_no_query_string_and_listens_on_loopback_by_default(monkeypatch):
    monkeypatch.delenv("BIND", raising=False)
    settings: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), settings)
    assert settings["bind"].startswith("127.0.0.1:")
    assert "%(U)s" in settings["access_log_format"]
    for leaky in ("%(r)s", "%(q)s", "%(f)s", "%({authorization}i)s"):
        assert leaky not in settings["access_log_format"]
