"""A large message that deflate would not shrink (a σ payload, gzip already) goes over the compressed
websocket as it is, RSV1 unset, and every message, compressed or not, decodes to its bytes in order at the
other end, with both ends keeping their deflate context (ui.websocket_deflate)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import BINARY as OP_BINARY
from websockets.frames import CONT as OP_CONT
from websockets.frames import PING as OP_PING
from websockets.frames import TEXT as OP_TEXT
from websockets.frames import Frame

from ui import websocket_deflate


def ends(context_takeover: bool) -> tuple[PerMessageDeflate, PerMessageDeflate]:
    """The server's and the browser's ends of one connection, with uvicorn's settings."""
    no_takeover = not context_takeover
    server = PerMessageDeflate(no_takeover, no_takeover, 12, 12, {"memLevel": 5})
    browser = PerMessageDeflate(no_takeover, no_takeover, 12, 12)
    return server, browser


def messages() -> list[tuple[bytes, bool]]:
    """(message, compressed?) pairs: small and large JSON (compressed), gzip payloads and random bytes
    (as they are), a large message whose envelope compresses but whose bulk does not (as it is)."""
    rng = np.random.default_rng(3)
    figure = json.dumps({"x": rng.normal(size=20_000).round(3).tolist()}).encode()
    payload = gzip.compress(rng.normal(size=60_000).tobytes(), 6)
    envelope = b'{"id": "scrub_explorer_0", "args": ' + b"x" * 5_000 + b"}" + payload
    return [
        (b'{"delta": 1}', True),
        (figure, True),
        (payload, False),
        (b'{"delta": 2}' * 50, True),
        (rng.bytes(200_000), False),
        (envelope, False),
        (figure[::-1], True),
    ]


@pytest.fixture()
def installed(monkeypatch):
    monkeypatch.setattr(PerMessageDeflate, "encode", PerMessageDeflate.encode)  # undone after the test
    websocket_deflate.install()
    websocket_deflate.install()  # once only
    assert not hasattr(PerMessageDeflate.encode.rbfviz_wrapped, "rbfviz_wrapped")


@pytest.mark.parametrize("context_takeover", [True, False])
def test_incompressible_messages_go_as_they_are_and_every_message_decodes(installed, context_takeover):
    server, browser = ends(context_takeover)
    for opcode in (OP_BINARY, OP_TEXT):
        for data, compressed in messages():
            sent = server.encode(Frame(opcode, data))
            assert sent.rsv1 is compressed
            if not compressed:
                assert bytes(sent.data) == data  # its own bytes, nothing added
            received = browser.decode(sent)
            assert bytes(received.data) == data and not received.rsv1


def test_the_same_messages_compress_alike_before_and_after_an_uncompressed_one(installed):
    """The uncompressed message leaves the server's deflate context alone: the compressed messages around
    it are the bytes an unwrapped encoder gives for them alone."""
    wrapped, _ = ends(True)
    plain, _ = ends(True)
    for data, compressed in messages():
        sent = wrapped.encode(Frame(OP_BINARY, data))
        if compressed:
            assert bytes(sent.data) == bytes(websocket_deflate_original(plain, data).data)


def websocket_deflate_original(end: PerMessageDeflate, data: bytes) -> Frame:
    return PerMessageDeflate.encode.rbfviz_wrapped(end, Frame(OP_BINARY, data))


def test_control_and_fragmented_frames_are_left_to_the_library(installed):
    server, browser = ends(True)
    ping = Frame(OP_PING, b"ping")
    assert server.encode(ping) is ping
    rng = np.random.default_rng(4)
    first, rest = rng.bytes(100_000), rng.bytes(100_000)
    head = server.encode(Frame(OP_BINARY, first, fin=False))
    tail = server.encode(Frame(OP_CONT, rest))
    assert head.rsv1 and not tail.rsv1  # a fragmented message is compressed as a whole, as before
    assert bytes(browser.decode(head).data) + bytes(browser.decode(tail).data) == first + rest


def test_incompressible_reads_large_messages_only():
    rng = np.random.default_rng(5)
    assert not websocket_deflate.incompressible(rng.bytes(websocket_deflate.LARGE - 1))
    assert websocket_deflate.incompressible(rng.bytes(websocket_deflate.LARGE))
    assert not websocket_deflate.incompressible(bytes(10 * websocket_deflate.LARGE))
