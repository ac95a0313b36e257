"""No Docker engine runs here, so the compose file's structure is checked instead."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_postgres_then_migrations_then_the_api():
    services = load_compose()["services"]
    assert set(services) >= {"db", "migrate", "api"}
    assert services["db"]["image"].startswith("postgres:")
    assert "healthcheck" in services["db"]
    migrate, api = services["migrate"], services["api"]
    assert migrate["command"] == ["flask", "--app", "service", "db", "upgrade"]
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert api["depends_on"]["db"]["condition"] == "service_healthy"


def test_compose_points_both_at_the_same_postgresql_database():
    services = load_compose()["services"]
    db = services["db"]["environment"]
    expected = (f"postgresql+psycopg://{db['POSTGRES_USER']}:{db['POSTGRES_PASSWORD']}"
                f"@db:5432/{db['POSTGRES_DB']}")
    assert services["migrate"]["environment"]["DATABASE_URL"] == expected
    assert services["api"]["environment"]["DATABASE_URL"] == expected
    assert services["api"]["environment"]["BIND"].startswith("0.0.0.0:")
    assert services["maintenance"]["environment"]["DATABASE_URL"] == expected


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


def test_gunicorn_config_uses_threads_and_no_control_socket():
    settings: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), settings)
    assert settings["worker_class"] == "gthread"
    assert settings["control_socket_disable"] is True
    assert settings["workers"] >= 2 and settings["threads"] >= 2
