"""openapi.yaml passes Redocly (recommended) and Spectral (spectral:oas) with 0 errors.

The warnings left are the ones justified in contract/redocly.yaml and contract/.spectral.yaml;
any other warning fails, so a new one is either fixed or justified there.
"""

from __future__ import annotations

import json
import subprocess

from tests.contract.tools import CONTRACT, NODE_ENV, OPENAPI, node_tool

REDOCLY_ACCEPTED = {
    ("info-license", "#/info"),
    ("operation-4xx-response", "#/paths/~1healthz/get/responses"),
    ("operation-4xx-response", "#/paths/~1readyz/get/responses"),
    ("no-unused-components", "#/components/responses/MethodNotAllowed"),
}
SPECTRAL_ACCEPTED = {("oas3-unused-component", "components.responses.MethodNotAllowed")}


def test_redocly_recommended():
    run = subprocess.run([node_tool("redocly"), "lint", str(OPENAPI), "--config", "redocly.yaml",
                          "--format=json"], cwd=CONTRACT, env=NODE_ENV, capture_output=True, text=True,
                         timeout=300)
    report = json.loads(run.stdout)
    problems = {(p["ruleId"], p["location"][0]["pointer"]): p["severity"] for p in report["problems"]}
    errors = [key for key, severity in problems.items() if severity == "error"]
    assert report["totals"]["errors"] == 0 and not errors, errors
    assert set(problems) <= REDOCLY_ACCEPTED, set(problems) - REDOCLY_ACCEPTED


def test_spectral_oas():
    run = subprocess.run([node_tool("spectral"), "lint", str(OPENAPI), "-r", ".spectral.yaml", "-f", "json",
                          "--fail-severity", "error"], cwd=CONTRACT, env=NODE_ENV, capture_output=True,
                         text=True, timeout=300)
    start = run.stdout.index("[")  # after any banner
    problems = {(p["code"], ".".join(map(str, p["path"]))): p["severity"]
                for p in json.loads(run.stdout[start:])}
    errors = [key for key, severity in problems.items() if severity == 0]
    assert run.returncode == 0 and not errors, (errors, run.stderr[-2000:])
    assert set(problems) <= SPECTRAL_ACCEPTED, set(problems) - SPECTRAL_ACCEPTED
