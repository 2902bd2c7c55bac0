"""A loopback TCP relay that counts the bytes a server sends: what a first visit costs on the wire.

    with ByteCounter("127.0.0.1", server_port) as relay:
        page.goto(relay.url + "/Explorer")
        ...
        relay.sent      # bytes the server wrote to the browser's connections, since start or reset()

A browser pointed at ``relay.url`` talks to the server through it; every byte the server writes is
counted as it passes: HTTP headers and bodies as compressed by the server, the websocket's frames as
sent (compressed by permessage-deflate when the server and browser agree on it), and nothing else.
Chromium's own counts see the websocket's messages decompressed, so this is the one place where the
whole visit's traffic is measured as sent. One thread runs an asyncio loop for the relay.
"""

from __future__ import annotations

import asyncio
import threading

from harness.ports import free_port

CHUNK = 65536


class ByteCounter:
    """Listens on a free loopback port, relays each connection to ``host:port``, and counts the bytes
    received from the server (``sent``) and from the browser (``received``). A context manager."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.sent = 0
        self.received = 0
        self.connections = 0
        self._loop = asyncio.new_event_loop()
        self._server = None
        self._tasks: set[asyncio.Task] = set()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="byte-counter", daemon=True)

    def __enter__(self) -> "ByteCounter":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the byte counter's relay did not start")

    def reset(self) -> None:
        self.sent = self.received = self.connections = 0

    def stop(self) -> None:
        """Close the listener and every relayed connection, then end the loop's thread."""
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    async def _shutdown(self) -> None:
        self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._relay, "127.0.0.1", self.port)
        )
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    async def _relay(self, browser_reader, browser_writer) -> None:
        self.connections += 1
        task = asyncio.current_task()
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.target)
        except OSError:
            browser_writer.close()
            return
        try:
            await asyncio.gather(
                self._pipe(browser_reader, server_writer, "received"),
                self._pipe(server_reader, browser_writer, "sent"),
            )
        except asyncio.CancelledError:  # stop(): ended quietly (asyncio logs a cancelled handler's error)
            browser_writer.close()
            server_writer.close()

    async def _pipe(self, reader, writer, counter: str) -> None:
        try:
            while data := await reader.read(CHUNK):
                setattr(self, counter, getattr(self, counter) + len(data))
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            try:
                writer.close()
            except (ConnectionError, OSError):
                pass
