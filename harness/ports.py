"""A free TCP port on the loopback interface."""

import socket


def free_port() -> int:
    """A port nobody listens on now, on 127.0.0.1 (the OS picks it; another process may take it before
    the caller binds it, which the callers' start-up checks then report)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
