"""Streamlit's websocket protocol as one browser tab speaks it: the benchmarks' simulated students.

``StreamlitSession`` connects as the browser does (health ping for the XSRF cookie, host-config, the
websocket), sends rerun requests and reads until the script run ends, keeping the browser's message
cache (``MessageCache``). What a run showed is read by a subclass's ``on_element`` (and
``on_message`` for other messages) into a ``ScriptRun`` (or a subclass with more fields).

``SCRUB`` is the σ payload's codec (rbfviz.views.common.scrub: numpy and Plotly, no torch, so that a class
of simulated students does not pay torch's import and memory).
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from rbfviz.views.common import scrub as SCRUB  # noqa: F401  the benchmarks read payloads with it

FINISHED_OK = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
FINISHED_EARLY = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
FINISHED_FRAGMENT = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_FRAGMENT_RUN_SUCCESSFULLY")
SIDEBAR = 1  # RootContainer.SIDEBAR: the first index of a sidebar element's delta path


@dataclass
class ScriptRun:
    """What one script run sent back (times in seconds from sending the rerun request)."""

    seconds: float | None = None  # until script_finished
    to_new_session: float | None = None
    status: int | None = None  # ForwardMsg.ScriptFinishedStatus
    query: dict = field(default_factory=dict)  # the address the server wrote last
    ws_bytes: int = 0  # every websocket message received in this run
    messages: int = 0
    refs: int = 0  # ref_hash messages (an element the client already holds)
    problems: list[str] = field(default_factory=list)


class MessageCache:
    """The browser's ForwardMsgCache: big messages are kept by hash and listed in every rerun request,
    a reference (ref_hash) is answered from here, and an entry unused for ``max_age`` finished runs
    is dropped (Streamlit's frontend does the same)."""

    def __init__(self):
        self.entries: dict[str, list] = {}  # hash → [raw bytes, run count when last used, fragment id]
        self.run_count = 0
        self.max_age = 2  # new_session.config.max_cached_message_age

    def receive(self, raw: bytes) -> tuple[ForwardMsg, bool | None]:
        """(the message, with a reference resolved; None if it was no reference, else whether the
        cache held what it refers to)."""
        fwd = ForwardMsg()
        fwd.ParseFromString(raw)
        if fwd.WhichOneof("type") == "ref_hash":
            entry = self.entries.get(fwd.ref_hash)
            if entry is None:
                return fwd, False
            entry[1] = self.run_count
            cached = ForwardMsg()
            cached.ParseFromString(entry[0])
            cached.metadata.CopyFrom(fwd.metadata)  # the reference carries the delta's place
            return cached, True
        if fwd.metadata.cacheable and fwd.hash and fwd.hash not in self.entries:
            fragment = fwd.delta.fragment_id if fwd.WhichOneof("type") == "delta" else ""
            self.entries[fwd.hash] = [raw, self.run_count, fragment]
        return fwd, None

    def run_finished(self, status: int, fragment_ids: tuple[str, ...] = ()) -> None:
        """A run ended: age the entries (after a fragment run, only that fragment's, as the frontend)."""
        if status == FINISHED_EARLY:
            return
        self.run_count += 1
        for key in [
            k
            for k, (_, used, fragment) in self.entries.items()
            if self.run_count - used > self.max_age and (not fragment_ids or fragment in fragment_ids)
        ]:
            del self.entries[key]


class StreamlitSession:
    """One browser tab's worth of Streamlit protocol over one websocket, with the browser's message cache.

    ``await connect()``, then ``await run(page, query, ...)`` per script run, ``await close()``.
    ``returns_on_early``: whether a run that ended early (a newer rerun request replaced it) ends
    ``run``, as a problem, or is read past to the run that replaced it."""

    returns_on_early = True

    def __init__(self, base_url: str, timeout: float):
        self.base_url = base_url
        self.timeout = timeout
        self.ws = None
        self.cache = MessageCache()

    async def connect(self) -> None:
        def pings() -> str:
            with urllib.request.urlopen(f"{self.base_url}/_stcore/health", timeout=self.timeout) as r:
                cookie = r.headers.get("set-cookie", "").split(";")[0]
            with urllib.request.urlopen(f"{self.base_url}/_stcore/host-config", timeout=self.timeout) as r:
                r.read()
            return cookie

        cookie = await asyncio.to_thread(pings)
        xsrf = cookie.split("=", 1)[1] if cookie.startswith("_streamlit_xsrf=") else "PLACEHOLDER_AUTH_TOKEN"
        self.ws = await websockets.connect(
            self.base_url.replace("http://", "ws://") + "/_stcore/stream",
            subprotocols=["streamlit", xsrf],
            max_size=None,
            open_timeout=self.timeout,
            additional_headers={"Cookie": cookie, "Origin": self.base_url},
        )

    async def send(self, msg: BackMsg) -> None:
        await self.ws.send(msg.SerializeToString())

    async def clear_cache(self) -> None:
        """Ask the server to clear its st.cache_data and st.cache_resource (the browser's "Clear caches")."""
        msg = BackMsg()
        msg.clear_cache = True
        await self.send(msg)

    async def run(
        self,
        page: str,
        query: dict,
        *,
        widgets: tuple = (),
        fragment_id: str = "",
        is_auto_rerun: bool = False,
        result: ScriptRun | None = None,
    ) -> ScriptRun:
        """Rerun ``page`` with this address query and read until its script run ends.

        ``widgets``: (widget id, field of WidgetState, value) per widget whose state the browser sends,
        e.g. ``(id, "json_value", '{"level": 3}')``; ``fragment_id`` reruns that fragment only.
        ``result`` (a ScriptRun subclass) collects what the subclass's ``on_element`` reads."""
        msg = BackMsg()
        msg.rerun_script.query_string = urlencode(query)
        msg.rerun_script.page_name = page
        msg.rerun_script.cached_message_hashes.extend(self.cache.entries)
        if fragment_id:
            msg.rerun_script.fragment_id = fragment_id
            msg.rerun_script.is_auto_rerun = is_auto_rerun
        for widget_id, kind, value in widgets:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id = widget_id
            setattr(state, kind, value)
        result = ScriptRun() if result is None else result
        t0 = time.perf_counter()
        await self.send(msg)
        async with asyncio.timeout(self.timeout):
            while True:
                raw = await self.ws.recv()
                result.ws_bytes += len(raw)
                result.messages += 1
                fwd, ref = self.cache.receive(raw)
                if ref is not None:
                    result.refs += 1
                    if not ref:
                        result.problems.append(f"ref_hash {fwd.ref_hash} not in this client's cache")
                now = time.perf_counter() - t0
                kind = fwd.WhichOneof("type")
                if kind == "new_session":
                    result.to_new_session = now
                    if fwd.new_session.config.max_cached_message_age:
                        self.cache.max_age = fwd.new_session.config.max_cached_message_age
                elif kind == "page_info_changed":
                    result.query = dict(parse_qsl(fwd.page_info_changed.query_string))
                elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    self.on_element(fwd, result, now, sent=ref is None)
                elif kind == "script_finished":
                    status = fwd.script_finished
                    self.cache.run_finished(
                        status, (fragment_id,) if fragment_id and status == FINISHED_FRAGMENT else ()
                    )
                    if status == FINISHED_EARLY and not self.returns_on_early:
                        continue
                    result.seconds, result.status = now, status
                    if status not in (FINISHED_OK, FINISHED_FRAGMENT):
                        result.problems.append(f"run ended {ForwardMsg.ScriptFinishedStatus.Name(status)}")
                    return result
                else:
                    self.on_message(fwd, result, now)

    def on_element(self, fwd: ForwardMsg, result: ScriptRun, now: float, sent: bool) -> None:
        """A new element arrived ``now`` seconds into the run (``sent``: over the wire, not a reference).
        The base class reads error boxes and exceptions into ``result.problems``."""
        element = fwd.delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            result.problems.append(f"exception box: {element.exception.type}: {element.exception.message}")
        elif kind == "alert" and element.alert.format == 1:  # Alert.ERROR
            result.problems.append(f"error box: {element.alert.body[:200]}")

    def on_message(self, fwd: ForwardMsg, result: ScriptRun, now: float) -> None:
        """Any other message (auto_rerun, session_status_changed, ...): nothing by default."""

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
