"""rbfviz.bounded_store.BoundedStore: the one process-wide LRU store (the app's computed views, the
training results, the uploaded files' hashes), bounded by entries and, for bytes values, by their total
length; shared by every session's thread."""

import random
import threading

import pytest
from hang import HANG_TIMEOUT_S

from rbfviz.bounded_store import BoundedStore, bytes_size


def test_least_recently_used_entries_leave_first():
    store = BoundedStore(max_entries=2)
    store.put("a", 1)
    store.put("b", 2)
    assert store.get("a") == 1  # "a" is now the most recent
    store.put("c", 3)
    assert store.get("b") is None and store.get("a") == 1 and store.get("c") == 3


def test_the_eviction_order_follows_every_get_and_put():
    store = BoundedStore(max_entries=3)
    for key in "abc":
        store.put(key, key.upper())
    assert store.keys() == ["a", "b", "c"]
    store.get("a")
    store.put("b", "B2")  # replacing a value makes it the most recent too
    assert store.keys() == ["c", "a", "b"]
    store.get("missing")  # a miss changes nothing
    store.put("d", "D")
    assert store.keys() == ["a", "b", "d"] and store.get("b") == "B2"  # the get: "b" is the newest
    store.discard("a")
    store.discard("never there")
    assert store.keys() == ["d", "b"] and len(store) == 2


@pytest.mark.parametrize("max_entries", [1, 2, 5])
def test_the_entry_bound_is_never_exceeded(max_entries):
    store = BoundedStore(max_entries=max_entries)
    for i in range(20):
        store.put(i, i)
        assert len(store) == min(i + 1, max_entries)
        assert store.keys() == list(range(max(0, i + 1 - max_entries), i + 1))  # the newest stay


def test_bytes_values_are_bounded_by_their_total_length_and_the_newest_stays():
    store = BoundedStore(max_entries=100, max_bytes=10)
    store.put("a", b"1234")
    store.put("b", b"5678")
    store.put("c", b"90")
    assert [store.get(key) for key in "abc"] == [b"1234", b"5678", b"90"]  # 10 bytes: at the bound
    store.put("d", b"x")  # 11 bytes: the oldest leaves
    assert store.get("a") is None and store.get("b") == b"5678"
    store.put("b", b"yy")  # replacing a value counts its new length only
    store.put("e", b"zzzz")  # 2 + 1 + 2 + 4 = 9 bytes
    assert all(store.get(key) is not None for key in "cdbe") and store.bytes == 9
    store.put("huge", b"0" * 50)  # larger than the bound on its own: kept, everything else leaves
    assert store.get("huge") is not None and all(store.get(key) is None for key in "bcde")
    store.discard("huge")
    assert store.bytes == 0
    store.put("f", b"123456789")
    assert store.get("f") == b"123456789"


def test_only_bytes_values_count_against_the_byte_bound():
    assert bytes_size(b"abc") == bytes_size(bytearray(3)) == bytes_size(memoryview(b"abc")) == 3
    assert bytes_size("abc") == bytes_size([1, 2, 3]) == bytes_size(None) == 0
    store = BoundedStore(max_entries=10, max_bytes=0)
    store.put("text", "not bytes")
    store.put("number", 12)
    assert len(store) == 2 and store.bytes == 0


def test_bad_bounds_are_refused_with_what_is_allowed():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="max_entries must be an integer >= 1"):
            BoundedStore(max_entries=bad)
    for bad in (-1, 2.0, False):
        with pytest.raises(ValueError, match="max_bytes must be an integer >= 0 or None"):
            BoundedStore(max_entries=1, max_bytes=bad)


def run_together(target, threads: int = 8) -> None:
    barrier = threading.Barrier(threads)
    errors = []

    def run(i):
        try:
            barrier.wait(HANG_TIMEOUT_S)
            target(i)
        except BaseException as exc:  # noqa: BLE001 - re-raised below, in the test's thread
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(HANG_TIMEOUT_S)
    assert not any(worker.is_alive() for worker in workers)
    if errors:
        raise errors[0]


def test_a_value_is_computed_once_however_many_ask_at_once():
    store = BoundedStore(max_entries=4)
    calls, got = [], []

    def compute():
        calls.append(1)
        return b"payload"

    run_together(lambda _: got.append(store.get_or_compute("key", compute)))
    assert len(calls) == 1 and got == [b"payload"] * 8


def test_a_failed_computation_stores_nothing_and_the_next_caller_computes():
    store = BoundedStore(max_entries=4)

    def fail():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        store.get_or_compute("key", fail)
    assert store.get("key") is None and len(store) == 0
    assert store.get_or_compute("key", lambda: 7) == 7


def test_sessions_putting_and_reading_at_once_keep_both_bounds_and_the_byte_count():
    store = BoundedStore(max_entries=16, max_bytes=400)
    seen = []

    def session(i):
        rng = random.Random(i)
        for _ in range(2000):
            key = rng.randrange(64)
            if rng.random() < 0.5:
                store.put(key, bytes(rng.randrange(60)))
            elif rng.random() < 0.9:
                value = store.get(key)
                assert value is None or isinstance(value, bytes)
            else:
                store.discard(key)
            seen.append((len(store), store.bytes))

    run_together(session)
    assert all(n <= 16 for n, _ in seen)
    assert all(b <= 400 for _, b in seen)  # every value is smaller than the bound, so none stands alone
    assert store.bytes == sum(len(store.get(key)) for key in store.keys())


def _computing_in_another_thread():
    """A store whose key "k" another thread is computing (it returns "value" once ``release`` is set):
    the store, the release event and the thread."""
    store = BoundedStore(max_entries=4)
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        release.wait(5)
        return "value"

    first = threading.Thread(target=lambda: store.get_or_compute("k", slow))
    first.start()
    assert started.wait(5)
    return store, release, first


def test_a_waiter_is_called_while_another_thread_computes_and_then_reads_its_value():
    store, release, first = _computing_in_another_thread()
    calls = []

    def waiting():
        calls.append(1)
        if len(calls) == 2:
            release.set()

    assert store.get_or_compute("k", lambda: "computed twice", waiting) == "value"
    first.join(5)
    assert len(calls) >= 2


def test_an_exception_from_the_waiter_ends_the_wait_and_the_computation_goes_on():
    store, release, first = _computing_in_another_thread()

    def waiting():
        raise KeyboardInterrupt  # a BaseException, as Streamlit's rerun is

    with pytest.raises(KeyboardInterrupt):
        store.get_or_compute("k", lambda: "never", waiting)
    release.set()
    first.join(5)
    assert store.get("k") == "value"
    assert store.get_or_compute("k", lambda: "never", waiting) == "value"  # stored: no wait at all
