"""The alert rules of deploy/prometheus: valid (promtool check rules), each one unit-tested (promtool test rules)
and explained in docs/OPERATIONS.md."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "alerts.yml"
TESTS = ROOT / "deploy" / "prometheus" / "alerts.test.yml"


@pytest.fixture(scope="module")
def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("promtool is missing (Debian: apt-get install prometheus)")
        pytest.skip("promtool is missing (Debian: apt-get install prometheus)")
    return found


def _alerts() -> list[str]:
    return [rule["alert"] for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]
            if "alert" in rule]


def test_the_rules_are_valid(promtool):
    checked = subprocess.run([promtool, "check", "rules", str(RULES)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_every_alert_passes_its_unit_tests(promtool):
    tested = subprocess.run([promtool, "test", "rules", str(TESTS)], capture_output=True, text=True,
                            cwd=TESTS.parent)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_has_a_test_that_fires_it_and_one_that_does_not():
    cases = [case for test in yaml.safe_load(TESTS.read_text())["tests"] for case in test["alert_rule_test"]]
    for alert in _alerts():
        mine = [case for case in cases if case["alertname"] == alert]
        assert any(case["exp_alerts"] for case in mine), f"{alert} is never shown firing"
        assert any(not case["exp_alerts"] for case in mine), f"{alert} is never shown quiet"


def test_every_alert_is_explained_in_the_operations_guide():
    guide = (ROOT / "docs" / "OPERATIONS.md").read_text()
    for alert in _alerts():
        assert f"### {alert}" in guide, alert
