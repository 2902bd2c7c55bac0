"""ui.compute._BoundedStore: the process-wide LRU store in front of the caches, bounded by entries and,
for bytes values, by their total length."""

import threading

from hang import HANG_TIMEOUT_S

from ui.compute import _BoundedStore


def test_least_recently_used_entries_leave_first():
    store = _BoundedStore(max_entries=2)
    store.put("a", 1)
    store.put("b", 2)
    assert store.get("a") == 1  # "a" is now the most recent
    store.put("c", 3)
    assert store.get("b") is None and store.get("a") == 1 and store.get("c") == 3


def test_bytes_values_are_bounded_by_their_total_length_and_the_newest_stays():
    store = _BoundedStore(max_entries=100, max_bytes=10)
    store.put("a", b"1234")
    store.put("b", b"5678")
    store.put("c", b"90")
    assert [store.get(key) for key in "abc"] == [b"1234", b"5678", b"90"]  # 10 bytes: at the bound
    store.put("d", b"x")  # 11 bytes: the oldest leaves
    assert store.get("a") is None and store.get("b") == b"5678"
    store.put("b", b"yy")  # replacing a value counts its new length only
    store.put("e", b"zzzz")  # 2 + 1 + 2 + 4 = 9 bytes
    assert all(store.get(key) is not None for key in "cdbe")
    store.put("huge", b"0" * 50)  # larger than the bound on its own: kept, everything else leaves
    assert store.get("huge") is not None and all(store.get(key) is None for key in "bcde")
    store.discard("huge")
    store.put("f", b"123456789")
    assert store.get("f") == b"123456789"


def test_a_value_is_computed_once_however_many_ask_at_once():
    store = _BoundedStore(max_entries=4)
    calls, got, barrier = [], [], threading.Barrier(8)

    def compute():
        calls.append(1)
        return b"payload"

    def ask():
        barrier.wait(HANG_TIMEOUT_S)
        got.append(store.get_or_compute("key", compute))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_TIMEOUT_S)
    assert not any(thread.is_alive() for thread in threads) and len(calls) == 1
    assert got == [b"payload"] * 8
