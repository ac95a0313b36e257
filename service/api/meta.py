"""Health probes and the catalog of every code with its localized message."""

from __future__ import annotations

from flask import current_app

from .. import i18n
from ..engine import RULES_VERSION
from ..problem_codes import PARAMS, STATUS
from ..usecases.errors import ServiceError
from ..usecases.readiness import readiness
from .answer_schemas import HealthSchema, ReadinessSchema, RuleCatalogSchema, RuleSchema
from .present import json_response
from .problems import Blueprint, problem_response
from .schemas import RulesQuerySchema
from .solving import solver_gate

blp = Blueprint("rules", __name__, url_prefix="/v1/rules",
                description="Every error code with its HTTP status and its message in five languages.")
probes = Blueprint("probes", __name__, description="Liveness and readiness for orchestrators.")


def _rule(code: str, lang: str | None) -> dict:
    entry = {"code": code, "status": STATUS[code], "params": list(PARAMS[code])}
    if lang:
        entry["message"] = i18n.catalog(lang)[code]
    else:
        entry["messages"] = {language: i18n.catalog(language)[code] for language in i18n.LANGUAGES}
    return entry


@blp.route("")
@blp.arguments(RulesQuerySchema, location="query")
@blp.response(200, RuleCatalogSchema)
@blp.doc(operationId="listRules")
def rules(query):
    """List every code with its status and message

    Messages are templates whose `{placeholders}` are the code's `params`; `names` says how
    each language shows the pile, card and rank params in them. With `lang`, one language;
    without, all five (en, de, da, ro, ja). `rules_version` is the version of the rules the
    server judges by: a client must not judge locally with an older engine.
    """
    lang = query.get("lang")
    languages = [lang] if lang else list(i18n.LANGUAGES)
    return json_response({"rules_version": RULES_VERSION, "lang": lang, "languages": languages,
                          "rules": [_rule(code, lang) for code in PARAMS],
                          "names": {language: i18n.names(language) for language in languages}})


@blp.route("/<code>")
@blp.arguments(RulesQuerySchema, location="query")
@blp.response(200, RuleSchema)
@blp.problem(404, "NOT_FOUND: no such code.")
@blp.doc(operationId="getRule")
def rule(query, code):
    """Describe one code

    The `type` of every problem answer points here.
    """
    if code not in PARAMS:
        raise ServiceError("NOT_FOUND")
    return json_response(_rule(code, query.get("lang")))


@probes.route("/healthz")
@probes.response(200, HealthSchema)
@probes.doc(operationId="checkHealth")
def healthz():
    """Report that the process is up

    For liveness probes: answers without touching the database, never rate limited.
    """
    return json_response({"status": "ok"})


@probes.route("/readyz")
@probes.response(200, ReadinessSchema)
@probes.problem(503, "SERVICE_UNAVAILABLE: the database does not answer.")
@probes.doc(operationId="checkReadiness")
def readyz():
    """Report each dependency: the database, Redis, the solver

    For readiness probes: 200 when a `SELECT 1` succeeds, else 503 `SERVICE_UNAVAILABLE`.
    `checks` names each dependency with its state: `redis` is `down` (and `status`
    `degraded`, still 200: limits and solver answers are then kept per process),
    `ok` or `not_configured`; `solver` tells the free search slots of the process that
    answered and the proven-winnable deals waiting per draw mode.
    """
    try:
        return json_response(readiness(_redis_ping(), solver_gate(current_app._get_current_object())))
    except ServiceError as error:
        return problem_response(error.code, headers={"Retry-After": "1"})


def _redis_ping():
    """A ping of the Redis the limits or the solver cache use (None: they use none)."""
    config = current_app.config
    url = config.get("REDIS_URL") or config.get("RATELIMIT_STORAGE_URI") or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    client = current_app.extensions.get("readiness_redis")
    if client is None:
        import redis

        client = current_app.extensions.setdefault("readiness_redis", redis.Redis.from_url(
            url, socket_timeout=0.25, socket_connect_timeout=0.25))

    def answered() -> bool:
        try:
            return bool(client.ping())
        except Exception:  # redis' own errors, OSError, timeouts
            return False

    return answered
