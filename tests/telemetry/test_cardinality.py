"""Label values come from closed sets: 10,000 random paths, ids and methods make no new series."""

from __future__ import annotations

import random
import string

import pytest

from service.telemetry import metrics

from .test_metrics import samples


def _random_text(rng: random.Random, low: int = 1, high: int = 40) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "-_.~") for _ in range(rng.randint(low, high)))


def _random_request(rng: random.Random, game: str) -> tuple[str, str, dict | None]:
    anything = _random_text(rng)
    shape = rng.randrange(8)
    method = rng.choice(["GET", "GET", "POST", "PUT", "DELETE", "PATCH", "BREW", _random_text(rng, 3, 8).upper()])
    path = [f"/{anything}", f"/v1/games/{anything}", f"/v1/players/{anything}", f"/v1/games/{anything}/moves",
            f"/v1/rules/{anything}", f"/v1/games/{game}/{anything}", f"/{anything}/{_random_text(rng)}",
            f"/v1/games/{anything}/history?cursor={_random_text(rng)}"][shape]
    return method, path, {"from": anything, "to": anything} if method == "POST" else None


@pytest.mark.slow
def test_ten_thousand_random_requests_make_a_bounded_number_of_series(client):
    rng = random.Random(39)
    game = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"}).get_json()["id"]
    sent: set[str] = set()
    counts = []
    for number in range(10_000):
        method, path, body = _random_request(rng, game)
        sent.update(part for part in path.replace("?", "/").replace("=", "/").split("/") if len(part) > 3)
        client.open(path, method=method, json=body).close()
        if number in (999, 9_999):
            counts.append(len(samples()))
    series = samples()
    labels = {value for (_name, pairs) in series for _label, value in pairs}
    # the series a thousand random requests made are all there are after ten thousand
    assert counts[0] == counts[1], counts
    assert len(series) < 2_000
    assert not labels & sent, sorted(labels & sent)[:5]
    operations = {value for (name, pairs) in series for label, value in pairs if label == "operation"}
    assert "unmatched" in operations
    methods = {value for (name, pairs) in series for label, value in pairs if label == "method"}
    assert methods <= metrics.METHODS | {metrics.OTHER} and metrics.OTHER in methods
