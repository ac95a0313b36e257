"""The face-down stock stays secret: no unseen stock card in any answer of an unfinished game.

Long random games through the API (legal and illegal actions, taps and double taps,
undo, recycle, malformed bodies, reads of the history and legal moves, hints). The
cards the player has seen are everything dealt to the tableau and every card that
has been on the waste; every answer's JSON is walked value by value, and every header,
for a card name of the stock's other cards.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from service import create_app
from service.extensions import db

RANKS, SUITS = "A23456789TJQK", "SHDC"
DECK = {rank + suit for rank in RANKS for suit in SUITS}
PILES = [f"t{n}" for n in range(1, 8)]
FOUNDATIONS = ["fS", "fH", "fD", "fC"]
TOKEN = re.compile(r"[A-Za-z0-9]+")


def _canonical(token: str) -> str | None:
    """The card a token names (``9C``, ``TH``, ``10H``, any case), else None."""
    upper = token.upper()
    if upper.startswith("10"):
        upper = "T" + upper[2:]
    return upper if upper in DECK else None


def _cards_in(value, found: set[str]) -> None:
    """Every card named by a JSON value's strings (keys included), token by token."""
    if isinstance(value, dict):
        for key, item in value.items():
            _cards_in(key, found)
            _cards_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _cards_in(item, found)
    elif isinstance(value, str):
        for token in TOKEN.findall(value):
            card = _canonical(token)
            if card:
                found.add(card)


class Player:
    """Plays one game through the API, scanning every answer for unseen stock cards."""

    def __init__(self, client, rng: random.Random, draw: int) -> None:
        self.client, self.rng = client, rng
        answer = client.post("/v1/games", json={"draw": draw})
        assert answer.status_code == 201
        self.game = answer.get_json()
        self.id = self.game["id"]
        self.auth = {"Authorization": f"Bearer {self.game['token']}"}
        self.seen: set[str] = set()
        self.see(self.game)
        self.requests = 0
        self.scan(answer, named=set())

    def see(self, view: dict) -> None:
        for column in view["tableau"]:
            self.seen.update(column)
        self.seen.update(view["waste"])
        shown = sum(map(len, view["tableau"])) + len(view["waste"]) + sum(view["foundations"].values())
        assert shown + view["stock"] == 52

    def unseen(self) -> set[str]:
        return DECK - self.seen

    def scan(self, response, named: set[str]) -> None:
        """No unseen card in the body or headers (cards the request itself named excepted)."""
        self.requests += 1
        body = response.get_data(as_text=True)
        data = None
        if body and response.mimetype.endswith("json"):
            data = json.loads(body)
        if isinstance(data, dict) and data.get("id") == self.id and "tableau" in data:
            self.see(data)  # a draw shows its card on the waste: seen from now on
            self.game = data
        if self.game["status"] == "won":
            return
        found: set[str] = set()
        # The game's id is random text: 'Ad_…' names no card.
        _cards_in(json.loads(body.replace(self.id, "")) if data is not None else None, found)
        for name, value in response.headers.items():
            _cards_in(name, found)
            _cards_in(value.replace(self.id, ""), found)
        leaked = (found & self.unseen()) - named
        assert not leaked, f"unseen stock cards {leaked} in {response.status_code} {body[:300]}"

    def act(self, action: str, body=None, *, raw: bytes | None = None) -> None:
        named: set[str] = set()
        if body is not None:
            _cards_in(body, named)
        if raw is not None:
            response = self.client.post(f"/v1/games/{self.id}/{action}", data=raw, headers=self.auth,
                                        content_type="application/json")
        else:
            response = self.client.post(f"/v1/games/{self.id}/{action}", json=body, headers=self.auth)
        assert response.status_code < 500, response.get_data(as_text=True)
        self.scan(response, named)

    def read(self, path: str = "") -> None:
        response = self.client.get(f"/v1/games/{self.id}{path}", headers=self.auth)
        assert response.status_code < 500, response.get_data(as_text=True)
        self.scan(response, set())

    def any_card(self) -> str:
        return self.rng.choice(sorted(DECK))

    def step(self) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            self.act("recycle" if self.game["stock"] == 0 else "draw")
        elif roll < 0.40:
            response = self.client.get(f"/v1/games/{self.id}/legal-moves")
            self.scan(response, set())
            items = response.get_json()["items"]
            if items:
                choice = rng.choice(items)
                kind = choice["action"]
                body = {k: choice[k] for k in ("from", "to", "card") if k in choice}
                action = {"move": "moves", "take-back": "take-back"}.get(kind, kind)
                self.act(action, body or None)
        elif roll < 0.50:
            self.act("undo")
        elif roll < 0.65:
            source = rng.choice([*PILES, "waste"])
            body = {"from": source, "double": rng.random() < 0.5}
            if rng.random() < 0.3:
                body["card"] = self.any_card()
            self.act("tap", body)
        elif roll < 0.78:
            body = {"from": rng.choice([*PILES, "waste"]), "to": rng.choice([*PILES, *FOUNDATIONS, "foundation"])}
            if rng.random() < 0.3:
                body["card"] = self.any_card()
            self.act("moves", body)
        elif roll < 0.82:
            self.act("take-back", {"from": rng.choice(FOUNDATIONS), "to": rng.choice(PILES)})
        elif roll < 0.86:
            self.act("recycle")  # often illegal: the stock is not empty
        elif roll < 0.90:
            bad = rng.choice([b"{", b"[]", b'{"from": 3}', b'{"from": "stock", "to": "waste"}',
                              b'{"from": "t1", "to": "t9"}', b'{"unknown": true}', b'"AS"', b"\xff\xfe"])
            self.act(rng.choice(["moves", "tap", "take-back", "draw"]), raw=bad)
        elif roll < 0.94:
            self.read()
        elif roll < 0.97:
            self.read("/actions?limit=200")
        else:
            self.read("/legal-moves")


@pytest.fixture
def secrecy_client(database_url):
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                      "SOLVER_HINT_BUDGET_MS": 30})
    yield app.test_client()
    with app.app_context():
        db.engine.dispose()


@pytest.mark.parametrize("draw", [1, 3])
def test_no_unseen_stock_card_in_any_answer(secrecy_client, draw):
    rng = random.Random(7000 + draw)
    total = 0
    for _ in range(3):
        player = Player(secrecy_client, rng, draw)
        for step in range(250):
            player.step()
            if step % 50 == 0:
                player.read("/hint")  # owner only; the solver sees the stock, its answer must not
            if player.game["status"] == "won":
                break
        total += player.requests
    assert total > 700


def test_the_scanner_finds_cards():
    found: set[str] = set()
    _cards_in({"detail": "Cannot put 9C on 10h", "cards": ["KS"], "x": "t3>t5:QD", "PASS": "AS-word"}, found)
    assert found == {"9C", "TH", "KS", "QD", "AS"}
    found.clear()
    _cards_in({"text": "PASSWORD BASKET", "id": "xAS1"}, found)
    assert found == set()
