"""harness/, what the tests and benchmarks share: its settings say what was wrong, its /proc readers read
this process, a free port can be bound, the message cache answers references as the browser's does, the
byte counter counts what passes each way."""

import os
import socket
import subprocess
import sys

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness import settings
from harness.byte_counter import ByteCounter
from harness.ports import free_port
from harness.proc import cpu_seconds, pid_listening_on, rss_mb
from harness.streamlit_client import FINISHED_OK, MessageCache


@pytest.mark.parametrize(
    "name, read",
    [("RBFVIZ_E2E_TIMEOUT", settings.e2e_timeout_s), ("RBFVIZ_TEST_TIMEOUT", settings.test_timeout_s)],
)
def test_a_timeout_is_seconds_and_a_bad_one_says_what_is_allowed(monkeypatch, name, read):
    monkeypatch.setenv(name, "45")
    assert read() == 45.0
    monkeypatch.delenv(name)
    assert read() in (300.0, 600.0)
    for bad in ("soon", "-3", "0"):
        monkeypatch.setenv(name, bad)
        with pytest.raises(ValueError, match=name):
            read()


def test_flags_are_one_or_zero(monkeypatch):
    monkeypatch.setenv("RBFVIZ_REQUIRE_BROWSER", "1")
    assert settings.require_browser()
    monkeypatch.setenv("RBFVIZ_REQUIRE_BROWSER", "0")
    assert not settings.require_browser()
    monkeypatch.setenv("RBFVIZ_REQUIRE_BROWSER", "yes")
    with pytest.raises(ValueError, match="expected 1"):
        settings.require_browser()
    monkeypatch.setenv("RBFVIZ_E2E_SCREENSHOTS", "some")
    with pytest.raises(ValueError, match="all or failed"):
        settings.screenshot_every_test()


def test_proc_readers_read_this_process_and_none_for_a_gone_one():
    busy = sum(i * i for i in range(200_000))  # some CPU of our own
    assert busy > 0
    assert cpu_seconds(os.getpid()) > 0
    assert 1 < rss_mb(os.getpid()) < 100_000
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert cpu_seconds(gone.pid) is None and rss_mb(gone.pid) is None and cpu_seconds(None) is None


def test_a_free_port_can_be_bound_and_its_listener_found():
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
        sock.listen()
        assert pid_listening_on(port) == os.getpid()


def test_the_message_cache_answers_a_reference_and_forgets_after_max_age():
    cache = MessageCache()
    big = ForwardMsg()
    big.hash, big.metadata.cacheable = "h1", True
    big.delta.new_element.markdown.body = "a big element"
    received, ref = cache.receive(big.SerializeToString())
    assert ref is None and "h1" in cache.entries
    reference = ForwardMsg()
    reference.ref_hash = "h1"
    resolved, ref = cache.receive(reference.SerializeToString())
    assert ref is True and resolved.delta.new_element.markdown.body == "a big element"
    for _ in range(cache.max_age + 1):
        cache.run_finished(FINISHED_OK)
    assert "h1" not in cache.entries
    assert cache.receive(reference.SerializeToString())[1] is False


def test_a_test_or_benchmark_server_runs_with_the_containers_thread_and_allocator_settings():
    """harness's servers measure what the container runs: every variable of CONTAINER_ENV is in the
    Dockerfile's ENV with that value (two OpenMP threads per K-Means fit made fits 50–500× slower on a
    busy machine)."""
    from harness.settings import ROOT
    from harness.streamlit_server import CONTAINER_ENV

    dockerfile = (ROOT / "Dockerfile").read_text()
    for name, value in CONTAINER_ENV.items():
        assert f"{name}={value}" in dockerfile, name


def test_the_byte_counter_relays_and_counts_each_way():
    """A server that answers 100,000 bytes to each 5-byte request, reached twice through the relay."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with ByteCounter("127.0.0.1", listener.getsockname()[1]) as relay:
            for _ in range(2):
                with socket.create_connection(("127.0.0.1", relay.port), timeout=10) as client:
                    client.sendall(b"hello")
                    server, _ = listener.accept()
                    with server:
                        assert server.recv(5) == b"hello"
                        server.sendall(b"x" * 100_000)
                    got = b""
                    while chunk := client.recv(65536):
                        got += chunk
                    assert got == b"x" * 100_000
            assert (relay.sent, relay.received, relay.connections) == (200_000, 10, 2)
            relay.reset()
            assert (relay.sent, relay.received, relay.connections) == (0, 0, 0)
