"""service.usecases.solving and .idempotency: the solver on a budget, the keys' rules."""

from __future__ import annotations

import dataclasses

import pytest

from service.engine import Game
from service.usecases.errors import ServiceError
from service.usecases.idempotency import mask
from tests.usecases.conftest import kept


def test_a_search_with_every_slot_taken_is_busy(context, solving):
    with solving.gate, pytest.raises(ServiceError) as busy:
        solving.hint(Game.from_code("TF1-D1N-AAAAAAA").to_state())
    assert (busy.value.code, busy.value.params) == ("SOLVER_BUSY", {"retry_after": 1})


def test_an_empty_pool_searches_on_the_spot_and_asks_for_a_refill(context, solving):
    asked = []
    code = dataclasses.replace(solving, pool_low=1, refill=asked.append).winnable_code(3)
    assert code.draw == 3 and asked == [3]


def test_a_key_is_printable_and_a_masked_answer_unmasks():
    assert kept("  k1 ").checked_key() == "k1"
    for bad in ("", "   ", "k" * 129, "a\u0000b"):
        with pytest.raises(ServiceError) as refused:
            kept(bad).checked_key()
        assert list(refused.value.errors) == ["Idempotency-Key"]
    assert mask(mask(b"secret token", "k1"), "k1") == b"secret token" != mask(b"secret token", "k1")
