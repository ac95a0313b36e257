"""Solitaire Réfléchi game service: ``create_app()`` builds the Flask app.

Serve it with ``gunicorn 'service:create_app()'``.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from flask import Flask

from . import config
from .extensions import db, migrate


def json_text(value) -> str:
    """A JSON column's value as compact JSON text."""
    return orjson.dumps(value).decode()


MIGRATIONS = str(Path(__file__).resolve().parent.parent / "migrations")


def create_app(overrides: dict | None = None) -> Flask:
    """Build the app from the environment, then ``overrides`` (tests pass their own)."""
    from .api.json_provider import BoundedJSONProvider

    app = Flask(__name__, instance_relative_config=True, static_folder=None)
    app.json = BoundedJSONProvider(app)  # request.get_json refuses what the views' parser refuses
    app.config.update(
        # ASCII on purpose: generators make package and class names of the title
        # ("Solitaire Réfléchi" became an uninstallable `solitaire_ré_fl_é_chi_client`).
        API_TITLE="Solitaire Reflechi API",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        # Swagger UI's files from the installed flask-swagger-ui package, served by
        # service.api.docs_assets: no CDN, works offline, the version pinned in pyproject.toml.
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
    )
    app.config.update(config.from_environment())
    app.config.update(overrides or {})
    app.json.sort_keys = False  # answers keep the field order of API.md
    app.json.ensure_ascii = False  # UTF-8 as the contract says: "10♥", not "10\\u2665"

    url = app.config.get("DATABASE_URL")
    if not url:
        os.makedirs(app.instance_path, exist_ok=True)
        url = f"sqlite:///{os.path.join(app.instance_path, 'solitaire.db')}"
    app.config["SQLALCHEMY_DATABASE_URI"] = url
    # hide_parameters: a logged database error never shows its parameters (token hashes, names).
    # No pool_pre_ping: its round trip came with every request; a connection the server dropped
    # fails at its transaction's first statement instead, which runs again on a fresh one
    # (store.db.on_live_connection).
    # The JSON columns (a game's state, an action's detail) through orjson: the stdlib's encoder
    # and decoder were most of the cost of an action's UPDATE and of reading the state back.
    app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", {"hide_parameters": True, "json_serializer": json_text,
                                                        "json_deserializer": orjson.loads})
    from .logs import install as install_log_redactor

    install_log_redactor()

    db.init_app(app)
    migrate.init_app(app, db, directory=MIGRATIONS)
    with app.app_context():
        from .store import configure_engine
        from .telemetry.setup import init_telemetry

        configure_engine(db.engine)
        init_telemetry(app, db.engine)  # first of the request hooks: a request's id and clock start here
        _attach_replicas(app)

    from .api import init_api
    from .api.auth import refuse_query_token
    from .api.bodies import cap_streamed_body
    from .api.rate_limits import init_rate_limits, limit_views
    from .edge import init_edge

    init_rate_limits(app)  # first: every request counts in its address's window, whatever refuses it next
    app.before_request(cap_streamed_body)  # then a body over MAX_CONTENT_LENGTH is 413, chunked or not
    app.before_request(refuse_query_token)  # then a token in a URL is refused before any view reads it
    init_edge(app)
    init_api(app)
    limit_views(app)  # after the views exist: the write and solver limits are theirs
    from .web import web_bp
    from .web.offline import offline_bp
    from .web.pages import pages_bp

    app.register_blueprint(web_bp)
    app.register_blueprint(pages_bp)
    app.register_blueprint(offline_bp)
    from .cli import register_commands

    register_commands(app)
    return app


def _attach_replicas(app) -> None:
    """DATABASE_REPLICA_URLS: the replicas the stale-tolerant reads go to (service/store/replicas.py)."""
    from .store import configure_engine, replicas

    urls = app.config.get("DATABASE_REPLICA_URLS") or []
    if not urls:
        return
    router = replicas.Replicas(urls, float(app.config.get("REPLICA_MAX_LAG_SECONDS", 2)),
                               app.config["SQLALCHEMY_ENGINE_OPTIONS"])
    for replica in router.replicas:
        configure_engine(replica.engine)
        if "tracer_provider" in app.extensions:  # a replica's statements in the request's trace too
            from .telemetry.traces import trace_engine

            trace_engine(app.extensions["tracer_provider"], replica.engine)
    replicas.attach(db.engine, router)
