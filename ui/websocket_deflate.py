"""The websocket's permessage-deflate sends a large message that would not shrink as it is.

Streamlit's server (uvicorn with the websockets library's sans-I/O protocol,
``server.enableWebsocketCompression = true`` in .streamlit/config.toml) deflates every message. A σ
payload (rbfviz.views.common.scrub) is gzip already, most of a new setting's bytes: deflating its
0.3-0.5 MB again costs the server about 14 ms of CPU per new setting (zlib on incompressible data) to
save about 0.1 % of them.

RFC 7692 lets a sender leave any message uncompressed, its RSV1 bit unset; the receiving browser (and the
websockets library) passes such a message through, and with context takeover neither end's deflate stream
sees it, so the messages before and after it decode as before. ``install()`` wraps the library's
``PerMessageDeflate.encode``: a whole message of at least ``LARGE`` bytes whose samples deflate (zlib level
1) to more than ``SHRINKS`` of their size goes as it is; every other message is compressed as before.
"""

from __future__ import annotations

import zlib

from websockets.extensions import permessage_deflate
from websockets.frames import CONT, CTRL_OPCODES, Frame

# Messages at least this large are tested (below it deflating costs little whatever the data).
LARGE = 64 * 1024
# The test deflates this many bytes at a quarter, half and three quarters of the message (a message's
# start is its protobuf envelope, not its bulk).
SAMPLE = 4096
# A message whose samples deflate to more than this share of their size is sent as it is.
SHRINKS = 0.9


def incompressible(data) -> bool:
    """Whether ``data`` (bytes-like) is large, and deflate would not shrink it: its samples at a quarter,
    half and three quarters deflate (level 1) to more than ``SHRINKS`` of their size."""
    size = len(data)
    if size < LARGE:
        return False
    view = memoryview(data)
    sample = b"".join(view[size * q // 4 : size * q // 4 + SAMPLE] for q in (1, 2, 3))
    return len(zlib.compress(sample, 1)) > SHRINKS * len(sample)


def _encode_unless_incompressible(encode):
    def encode_frame(self, frame: Frame) -> Frame:
        whole_message = frame.opcode not in CTRL_OPCODES and frame.opcode is not CONT and frame.fin
        if whole_message and incompressible(frame.data):
            return frame  # RSV1 unset: the receiver takes it as it is
        return encode(self, frame)

    encode_frame.rbfviz_wrapped = encode
    return encode_frame


def install() -> None:
    """Wrap ``PerMessageDeflate.encode`` once per process (again: nothing)."""
    cls = permessage_deflate.PerMessageDeflate
    if not hasattr(cls.encode, "rbfviz_wrapped"):
        cls.encode = _encode_unless_incompressible(cls.encode)
