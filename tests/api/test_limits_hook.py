"""The in-memory rate-limit store overrides a private hook of ``limits``: fail loudly if it goes away."""

from __future__ import annotations

from limits.storage import MemoryStorage

from service.api.memory_counters import SweepingMemoryStorage


def test_memory_storage_still_has_the_private_hook():
    assert callable(getattr(MemoryStorage, "_MemoryStorage__schedule_expiry", None))


def test_a_hit_starts_no_timer():
    storage = SweepingMemoryStorage()
    timer = storage.timer  # started once by MemoryStorage.__init__
    timer.join()
    for _ in range(3):
        storage.incr("key", 60)
    # Had limits renamed its hook, its own would have found the timer done and started a new one.
    assert storage.timer is timer
    assert storage.get("key") == 3


def test_expired_counters_are_swept_inline():
    storage = SweepingMemoryStorage()
    storage.incr("old", 60)
    storage.expirations["old"] = 0  # long expired
    storage._next_sweep = 0.0
    storage.incr("new", 60)
    assert "old" not in storage.storage
    assert storage.get("new") == 1


def test_a_counter_removed_by_another_thread_mid_sweep_is_no_error():
    class RemovedMeanwhile(dict):  # the sweep's snapshot still names a key another thread's read removed
        def keys(self):
            return [*super().keys(), "read-meanwhile"]

        def items(self):
            return [*super().items(), ("read-meanwhile", 0.0)]

    storage = SweepingMemoryStorage()
    storage.timer.join()  # limits' own sweep, run once by MemoryStorage.__init__
    storage.incr("old", 60)
    storage.expirations = RemovedMeanwhile(storage.expirations, old=0.0)
    storage._next_sweep = 0.0
    assert storage.incr("new", 60) == 1
    assert "old" not in storage.storage
