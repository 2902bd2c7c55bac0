"""A small thread-safe LRU store, bounded by entries and, for bytes values, by their total length.

One implementation for every process-wide store of the app and the library: the app's computed views
(ui/compute.py), the training results (rbfviz.nn.jobs), the uploaded files' hashes (ui/exports.py).
Many sessions share one store, so every method takes its lock, and ``get_or_compute`` computes a
missing value once however many sessions ask for it at the same time (one lock per key).

    store = BoundedStore(max_entries=24, max_bytes=64 << 20)
    payload = store.get_or_compute(key, build)      # build() once; the others wait, then read it

A stored value of None cannot be told from a missing one: store something else.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from numbers import Integral

WAIT_S = 0.3  # how often ``get_or_compute``'s ``waiting`` is called while another thread computes


def bytes_size(value) -> int:
    """What a value counts against ``max_bytes``: a bytes value's length, anything else 0."""
    return len(value) if isinstance(value, (bytes, bytearray, memoryview)) else 0


class BoundedStore:
    """An LRU dict: ``get`` and ``put`` make a key the most recent; when a ``put`` goes over a bound,
    the least recently used entries leave until it holds again, but the newest entry always stays
    (a single value larger than ``max_bytes`` is kept, alone).

    max_entries: at most this many entries, an integer >= 1.
    max_bytes: at most this many bytes over the values ``bytes_size`` counts (None: no such bound).
    """

    def __init__(self, max_entries: int, max_bytes: int | None = None):
        if isinstance(max_entries, bool) or not isinstance(max_entries, Integral) or max_entries < 1:
            raise ValueError(f"max_entries must be an integer >= 1, got {max_entries!r}.")
        if max_bytes is not None and (
            isinstance(max_bytes, bool) or not isinstance(max_bytes, Integral) or max_bytes < 0
        ):
            raise ValueError(f"max_bytes must be an integer >= 0 or None, got {max_bytes!r}.")
        self.max_entries = int(max_entries)
        self.max_bytes = None if max_bytes is None else int(max_bytes)
        self._items: OrderedDict = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._key_locks: dict = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    @property
    def bytes(self) -> int:
        """The total ``bytes_size`` of the values stored now."""
        with self._lock:
            return self._bytes

    def keys(self) -> list:
        """The keys, least recently used first."""
        with self._lock:
            return list(self._items)

    def get(self, key: Hashable):
        """The value stored under key (now the most recent), or None."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return None

    def put(self, key: Hashable, value) -> None:
        """Store value under key as the most recent entry, then evict down to the bounds."""
        with self._lock:
            if key in self._items:
                self._bytes -= bytes_size(self._items[key])
            self._items[key] = value
            self._items.move_to_end(key)
            self._bytes += bytes_size(value)
            while len(self._items) > 1 and (
                len(self._items) > self.max_entries
                or (self.max_bytes is not None and self._bytes > self.max_bytes)
            ):
                old, dropped = self._items.popitem(last=False)
                self._bytes -= bytes_size(dropped)
                self._key_locks.pop(old, None)

    def discard(self, key: Hashable) -> None:
        """Forget key's value, if any."""
        with self._lock:
            if key in self._items:
                self._bytes -= bytes_size(self._items.pop(key))

    def clear(self) -> None:
        """Forget every value (the benchmarks start each measurement cold)."""
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def key_lock(self, key: Hashable) -> threading.Lock:
        """The lock of one key: whoever holds it is computing that key's value."""
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())

    def get_or_compute(
        self, key: Hashable, compute: Callable[[], object], waiting: Callable[[], None] | None = None
    ):
        """The stored value for key, or ``compute()`` stored under it; computed once however many
        threads ask at the same time (the others wait on the key's lock, then find it stored). An
        exception from compute() stores nothing and reaches the caller that ran it. ``waiting``: called
        about every ``WAIT_S`` seconds while this thread waits for another one's computation (a page
        redraws its bar there; an exception from it ends the wait and reaches the caller)."""
        value = self.get(key)
        if value is not None:
            return value
        lock = self.key_lock(key)
        if waiting is None:
            lock.acquire()
        else:
            while not lock.acquire(timeout=WAIT_S):
                waiting()
        try:
            value = self.get(key)
            if value is None:
                value = compute()
                self.put(key, value)
            return value
        finally:
            lock.release()
