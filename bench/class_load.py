"""Ask the class under load: a class joins a room over 20 s and answers one question within 30 s.

    .venv/bin/python bench/class_load.py                                      # one process, SQLite file
    .venv/bin/python bench/class_load.py --processes 2 --database postgres    # deploy/run-local + HAProxy
    .venv/bin/python bench/class_load.py --students 20 --json out.json

A benchmark, not a test: it prints figures and checks them against the targets, exit code 1 on a miss.

Each student is a real Streamlit session speaking the browser's protocol
(harness.streamlit_client's ``StreamlitSession``: websocket, XSRF cookie, message cache). The teacher
is this script, on the same store the app uses (rbfviz.classroom.Store on the server's
RBFVIZ_DATABASE_URL): it creates the room, opens lesson step 1's question (a choice of three) and, after
the class has answered, reveals it.

1. **Join**: student i opens ``/Lessons?room=CODE`` at a uniformly spread time within --join seconds
   (the page joins the room and writes the student's seat into the address).
2. **Poll**: as the browser does for a fragment with ``run_every``, each student reruns the class panel
   (``rerun_script`` with the panel's ``fragment_id``, ``is_auto_rerun``) every STUDENT_REFRESH seconds
   after the previous rerun ended.
3. **Answer**: after a think time (uniform in --think), the student submits the form: the radio's
   option's label (seeded) and the submit button's trigger, in one fragment rerun. **Acknowledged** = that run
   shows "Your answer is in". Submission time = send → that message. Every answer must be in within
   --answer-within seconds of the question opening.
4. **Counted**: ``Store.tally`` (what the teacher's panel draws) must count every acknowledged answer.
5. **Polling cost**: for --idle seconds after everyone has answered, the class only polls. The app
   processes' CPU time (/proc) over that window, per second (share of one core) and per poll.
6. **Reveal**: the teacher reveals; time until each student's poll shows the verdict and "Why".

Targets (issue 18): every acknowledged answer counted (120 of 120), submission p95 <= 1 s on one process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.Alert_pb2 import Alert  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from bench.load import percentile  # noqa: E402
from harness.proc import cpu_seconds  # noqa: E402
from harness.run_local import RunLocal  # noqa: E402
from harness.streamlit_client import ScriptRun, StreamlitSession  # noqa: E402
from harness.streamlit_server import StreamlitServer  # noqa: E402

PAGE = "Lessons"
STUDENT_REFRESH = 2.0  # ui.classroom.STUDENT_REFRESH (read from the page's auto_rerun message)
ACK = "Your answer is in"
TARGET_SUBMIT_P95 = 1.0  # seconds, one process


@dataclass
class PanelRun(ScriptRun):
    """What one run of the page or of the class panel showed (times from sending, seconds)."""

    fragment_id: str = ""
    interval: float | None = None
    radio_id: str = ""
    options: tuple[str, ...] = ()
    submit_id: str = ""
    acknowledged_at: float | None = None
    revealed: bool = False


@dataclass
class Student:
    index: int
    joined: bool = False
    acknowledged: bool = False
    submit_seconds: float | None = None
    join_seconds: float | None = None
    polls: list[float] = field(default_factory=list)
    poll_times: list[float] = field(default_factory=list)  # monotonic send times
    revealed_after: float | None = None
    seat: str = ""
    pick: int | None = None  # the option index acknowledged last
    cut: bool = False  # the replica holding this session was stopped (--fault)
    kept: bool = False  # after reconnecting, the page showed the answer given before
    reanswered: bool = False  # and a new answer was acknowledged
    reconnected: str = ""  # what the first run after reconnecting showed
    reconnect_after: float | None = None  # seconds from stopping the replica to that page
    problems: list[str] = field(default_factory=list)


class ClassSession(StreamlitSession):
    """A student's browser tab on the Lessons page (harness.streamlit_client): page runs and class-panel
    (fragment) reruns; a run replaced by a newer one is read past."""

    returns_on_early = False

    async def run_panel(self, query: dict, fragment_id: str = "", widgets: tuple = ()) -> PanelRun:
        return await super().run(
            PAGE,
            query,
            widgets=widgets,
            fragment_id=fragment_id,
            is_auto_rerun=not widgets,
            result=PanelRun(),
        )

    def on_message(self, fwd: ForwardMsg, result: PanelRun, now: float) -> None:
        if fwd.WhichOneof("type") == "auto_rerun":
            result.fragment_id, result.interval = fwd.auto_rerun.fragment_id, fwd.auto_rerun.interval

    def on_element(self, fwd: ForwardMsg, result: PanelRun, now: float, sent: bool) -> None:
        super().on_element(fwd, result, now, sent)
        element = fwd.delta.new_element
        kind = element.WhichOneof("type")
        if kind == "radio" and element.radio.label == "Your answer":
            result.radio_id, result.options = element.radio.id, tuple(element.radio.options)
        elif kind == "button" and element.button.is_form_submitter:
            result.submit_id = element.button.id
        elif kind == "alert":
            body = element.alert.body
            if element.alert.format == Alert.SUCCESS and body.startswith(ACK):
                result.acknowledged_at = now
            elif body.startswith(("Right:", "Not quite:")):
                result.revealed = True


async def play_student(s: Student, base_url: str, code: str, plan: dict, clock: dict, timeout: float):
    """One student: join at plan['arrive'], poll, answer at plan['answer'], poll until told to stop."""
    rng = random.Random(s.index)
    await asyncio.sleep(max(0.0, plan["arrive"] - (time.monotonic() - clock["t0"])))
    session = ClassSession(base_url, timeout)
    try:
        t = time.perf_counter()
        await session.connect()
        first = await session.run_panel({"room": code})
        s.join_seconds = time.perf_counter() - t
        s.problems += first.problems
        if not first.fragment_id or not first.radio_id or not first.submit_id:
            s.problems.append(f"the class panel with the open question did not appear: {first}")
            return
        s.joined = True
        query, fragment = first.query or {"room": code}, first.fragment_id
        interval = first.interval or STUDENT_REFRESH
        radio, submit, options = first.radio_id, first.submit_id, first.options
        s.seat = query.get("seat", "")
        next_poll = time.monotonic() + interval
        while not clock["stop"].is_set():
            now = time.monotonic()
            if not s.acknowledged and now - clock["t0"] >= plan["answer"]:
                pick = rng.randrange(len(options))
                run = await session.run_panel(query, fragment, widgets=answer(radio, submit, options[pick]))
                s.problems += run.problems
                if run.acknowledged_at is not None:
                    s.acknowledged, s.submit_seconds, s.pick = True, run.acknowledged_at, pick
                else:
                    s.problems.append("no acknowledgement after submitting")
                    plan["answer"] += 1.0  # try again a second later, as a student would
                next_poll = time.monotonic() + interval
                continue
            if now >= next_poll:
                s.poll_times.append(now)
                try:
                    run = await session.run_panel(query, fragment)
                except (ConnectionClosed, OSError):
                    if not clock.get("fault_at") or s.cut:
                        raise
                    # the replica holding this session was stopped: reconnect as the browser does (the
                    # proxy picks a live replica; the address still carries the room and the seat),
                    # check the answer given before is there, and change it
                    s.cut = True
                    await session.close()
                    session, again = await reconnect(base_url, query, timeout)
                    s.kept = again.acknowledged_at is not None
                    s.reconnect_after = time.monotonic() - clock["fault_at"]
                    s.reconnected = (
                        f"form={bool(again.radio_id)} acknowledged={s.kept} revealed={again.revealed} "
                        f"problems={again.problems}"
                    )
                    fragment, radio, submit = again.fragment_id, again.radio_id, again.submit_id
                    if s.pick is not None and radio and submit:
                        pick = (s.pick + 1) % len(options)
                        run = await session.run_panel(
                            query, fragment, widgets=answer(radio, submit, options[pick])
                        )
                        if run.acknowledged_at is not None:
                            s.reanswered, s.pick = True, pick
                    next_poll = time.monotonic() + interval
                    continue
                fragment = run.fragment_id or fragment
                s.polls.append(run.seconds)
                s.problems += run.problems
                if run.revealed and s.revealed_after is None and clock.get("revealed_at"):
                    s.revealed_after = time.monotonic() - clock["revealed_at"]
                next_poll = time.monotonic() + interval
                continue
            wake = min(next_poll, clock["t0"] + plan["answer"]) if not s.acknowledged else next_poll
            try:
                await asyncio.wait_for(clock["stop"].wait(), timeout=max(0.01, wake - time.monotonic()))
            except TimeoutError:
                pass
    except Exception as exc:  # noqa: BLE001 — reported per student
        s.problems.append(f"{type(exc).__name__}: {exc}")
    finally:
        await session.close()


async def reconnect(base_url: str, query: dict, timeout: float, tries: int = 20):
    """A new session on the same address, retried once a second as the browser's reconnect does while
    the proxy still sends some requests to the stopped replica (HTTP 503)."""
    for attempt in range(tries):
        session = ClassSession(base_url, timeout)
        try:
            await session.connect()
            return session, await session.run_panel(query)
        except (ConnectionClosed, InvalidStatus, OSError):  # urllib's HTTPError is an OSError
            await session.close()
            if attempt == tries - 1:
                raise
            await asyncio.sleep(1.0)


def answer(radio: str, submit: str, label: str) -> tuple:
    """The widget states of submitting the form: the radio's value is its option's label."""
    return ((radio, "string_value", label), (submit, "trigger_value", True))


async def warm_up(app_urls: list[str], timeout: float) -> list[float]:
    """Open the Lessons page once on each app process (imports, the lesson steps' cached numbers), as a
    teacher does before the class; the seconds each took."""
    took = []
    for url in app_urls:
        session = ClassSession(url, max(timeout, 180.0))
        t = time.perf_counter()
        await session.connect()
        await session.run_panel({})
        await session.close()
        took.append(time.perf_counter() - t)
    return took


def app_cpu(pids: list[int]) -> dict[int, float]:
    """CPU seconds so far of each app process still running."""
    found = {pid: cpu_seconds(pid) for pid in pids}
    return {pid: seconds for pid, seconds in found.items() if seconds is not None}


def cpu_since(before: dict[int, float], pids: list[int]) -> float:
    """CPU seconds used since ``before`` by the processes running then and now (a stopped replica's
    time is left out)."""
    now = app_cpu(pids)
    return sum(now[pid] - before[pid] for pid in now.keys() & before.keys())


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def run_class(args, base_url: str, db_url: str, pids: list[int]) -> dict:
    from rbfviz.classroom import Store
    from rbfviz.views.lessons.arrays import STEPS, prepare, step_data
    from rbfviz.views.lessons.class_session import question_spec

    store = Store(db_url, pool_size=2, max_overflow=2)
    room = store.create_room()
    step = STEPS[0]
    store.open_question(room.code, room.secret, question_spec(prepare(step), step_data(step.settings).scale))
    rng = random.Random(0)
    plans = []
    for i in range(args.students):
        arrive = args.join * (i + rng.random()) / args.students
        plans.append({"arrive": arrive, "answer": arrive + rng.uniform(*args.think)})
    students = [Student(i) for i in range(args.students)]
    clock = {"t0": time.monotonic(), "stop": asyncio.Event()}
    cpu0 = app_cpu(pids)
    tasks = [
        asyncio.create_task(play_student(s, base_url, room.code, p, clock, args.timeout))
        for s, p in zip(students, plans)
    ]
    # answering phase
    await asyncio.sleep(max(0.0, args.answer_within - (time.monotonic() - clock["t0"])))
    answered_by = time.monotonic() - clock["t0"]
    cpu_answering = cpu_since(cpu0, pids)
    tally = store.tally(room.code, room.secret)
    acknowledged = sum(s.acknowledged for s in students)
    fault = {}
    if args.fault:
        # the first replica dies (a crash, an out-of-memory kill): its sockets close at once and HAProxy
        # sends its students to the others. (--fault-signal TERM: Streamlit's own shutdown, which
        # closed only some of its websockets at once when measured; the rest waited for the timeout)
        os.kill(pids[0], getattr(signal, f"SIG{args.fault_signal}"))
        clock["fault_at"] = time.monotonic()
        fault["counted_right_after"] = store.tally(room.code, room.secret).answered
    # idle polling phase
    idle_from, cpu_idle0, client0 = time.monotonic(), app_cpu(pids), time.process_time()
    polls_before = sum(len(s.poll_times) for s in students)
    await asyncio.sleep(args.idle)
    idle_seconds = time.monotonic() - idle_from
    cpu_idle = cpu_since(cpu_idle0, pids)
    client_idle = time.process_time() - client0
    idle_polls = sum(len(s.poll_times) for s in students) - polls_before
    load_idle = loadavg()
    if args.fault:  # the cut students' new answers go in before the reveal
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and any(s.cut and not s.reconnected for s in students):
            await asyncio.sleep(0.5)
        await asyncio.sleep(2 * STUDENT_REFRESH)
    # reveal
    clock["revealed_at"] = time.monotonic()
    store.reveal(room.code, room.secret)
    deadline = time.monotonic() + args.reveal_wait
    while time.monotonic() < deadline and any(s.joined and s.revealed_after is None for s in students):
        await asyncio.sleep(0.2)
    clock["stop"].set()
    await asyncio.gather(*tasks)
    counted_after = store.tally(room.code, room.secret).answered
    if args.fault:
        cut = [s for s in students if s.cut]
        fault.update(
            cut=len(cut),
            kept=sum(s.kept for s in cut),
            reanswered=sum(s.reanswered for s in cut),
            replaced=sum(s.reanswered and store.view(room.code, s.seat).mine == float(s.pick) for s in cut),
            rows=store.count_rows()["rbfviz_answers"],
            reconnect_pages=sorted({s.reconnected for s in cut}),
            reconnect_p95_s=percentile([s.reconnect_after for s in cut if s.reconnect_after is not None], 95),
            reconnect_max_s=max(
                (s.reconnect_after for s in cut if s.reconnect_after is not None), default=None
            ),
        )
    store.clear_room(room.code, room.secret)
    store.dispose()
    submits = [s.submit_seconds for s in students if s.submit_seconds is not None]
    polls = [p for s in students for p in s.polls if p is not None]
    reveals = [s.revealed_after for s in students if s.revealed_after is not None]
    problems = [f"student {s.index}: {p}" for s in students for p in s.problems]
    return dict(
        students=args.students,
        joined=sum(s.joined for s in students),
        acknowledged=acknowledged,
        counted=tally.answered,
        counted_after_reveal=counted_after,
        answered_by_s=answered_by,
        join_p95_s=percentile([s.join_seconds for s in students if s.join_seconds], 95),
        submit_p50_s=percentile(submits, 50),
        submit_p95_s=percentile(submits, 95),
        submit_max_s=max(submits, default=None),
        poll_p50_s=percentile(polls, 50),
        poll_p95_s=percentile(polls, 95),
        polls_per_s_idle=idle_polls / idle_seconds,
        app_cpu_answering_s=cpu_answering,
        app_cpu_idle_share=cpu_idle / idle_seconds,
        app_cpu_ms_per_poll=1000 * cpu_idle / max(idle_polls, 1),
        client_cpu_idle_share=client_idle / idle_seconds,
        reveal_seen=len(reveals),
        reveal_p95_s=percentile(reveals, 95),
        reveal_max_s=max(reveals, default=None),
        fault=fault,
        problems=problems[:20],
        problem_count=len(problems),
        loadavg_idle=load_idle,
    )


def start_target(args, log_dir: Path):
    """(base URL, database URL, app pids, each app process's own URL, stop function)."""
    if args.processes == 1 and args.database == "sqlite":
        db_url = f"sqlite:///{log_dir / 'class.sqlite3'}"
        os.environ["RBFVIZ_DATABASE_URL"] = db_url
        server = StreamlitServer(log_dir / "app.log")
        server.wait_healthy(180)
        return server.url, db_url, [server.pid], [server.url], server.stop
    rl = RunLocal(
        args.processes, log_dir, port=args.port, database=args.database, maxconn=args.maxconn or None
    )
    pids = rl.pids + [rl.info["haproxy_pid"]]
    return rl.url, rl.info["database_url"], pids, [r["url"] for r in rl.replicas], rl.stop


def print_report(r: dict, args) -> bool:
    def f(x, unit="s"):
        return "—" if x is None else f"{x:.3f} {unit}".strip()

    where = f"{args.processes} process(es), {args.database}" + (" behind HAProxy" if r["via_proxy"] else "")
    print(f"\nAsk the class: {r['students']} students join within {args.join:g} s, answer within "
          f"{args.answer_within:g} s ({where}); load average before {r['loadavg_before']}, idle phase "
          f"{r['loadavg_idle']}, after {r['loadavg_after']} (2 cores, shared)")  # fmt: skip
    print(f"  joined {r['joined']}/{r['students']}, acknowledged {r['acknowledged']}, counted by the "
          f"teacher's tally {r['counted']} (after reveal {r['counted_after_reveal']})")  # fmt: skip
    print(f"  join p95 {f(r['join_p95_s'])}; submission p50 {f(r['submit_p50_s'])}, "
          f"p95 {f(r['submit_p95_s'])}, max {f(r['submit_max_s'])}")  # fmt: skip
    print(f"  polling ({r['polls_per_s_idle']:.1f} polls/s): run p50 {f(r['poll_p50_s'])}, "
          f"p95 {f(r['poll_p95_s'])}; app CPU {100 * r['app_cpu_idle_share']:.0f} % of one core = "
          f"{r['app_cpu_ms_per_poll']:.1f} ms per poll (this load client: "
          f"{100 * r['client_cpu_idle_share']:.0f} %); app CPU while answering "
          f"{r['app_cpu_answering_s']:.1f} s")  # fmt: skip
    print(f"  reveal seen by {r['reveal_seen']}/{r['joined']}: p95 {f(r['reveal_p95_s'])}, "
          f"max {f(r['reveal_max_s'])}")  # fmt: skip
    if r["fault"]:
        fl = r["fault"]
        print(f"  fault: app1 stopped (SIG{args.fault_signal}) with the question open; counted right after "
              f"{fl['counted_right_after']}; "
              f"{fl['cut']} sessions cut, {fl['kept']} found their answer after reconnecting, "
              f"{fl['reanswered']} answered again, {fl['replaced']} replaced (stored = the new answer); "
              f"answer rows {fl['rows']}; back on the page after p95 {f(fl['reconnect_p95_s'])}, "
              f"max {f(fl['reconnect_max_s'])}")  # fmt: skip
        ok_fault = fl["cut"] > 0 and fl["kept"] == fl["reanswered"] == fl["replaced"] == fl["cut"]
        ok_fault = ok_fault and fl["rows"] == r["students"] == fl["counted_right_after"]
    else:
        ok_fault = True
    print(f"  problems: {r['problem_count']}" + "".join(f"\n    {p}" for p in r["problems"]))
    ok = r["counted"] == r["acknowledged"] == r["students"] and r["problem_count"] == 0 and ok_fault
    if args.processes == 1:
        ok = ok and r["submit_p95_s"] is not None and r["submit_p95_s"] <= TARGET_SUBMIT_P95
    print("  targets: all answers acknowledged and counted, 0 problems"
          + (f", submission p95 <= {TARGET_SUBMIT_P95:g} s" if args.processes == 1 else "")
          + f": {'met' if ok else 'MISSED'}")  # fmt: skip
    return ok


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=120)
    p.add_argument("--join", type=float, default=20.0, help="students arrive within this many seconds")
    p.add_argument("--think", type=float, nargs=2, default=(2.0, 8.0), help="think time range, seconds")
    p.add_argument("--answer-within", type=float, default=30.0, help="seconds after the question opens")
    p.add_argument("--idle", type=float, default=20.0, help="seconds of polling only, for its CPU cost")
    p.add_argument("--reveal-wait", type=float, default=20.0)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--port", type=int, default=8090, help="HAProxy's port with --processes > 1 or postgres")
    p.add_argument("--timeout", type=float, default=60.0, help="per run, seconds")
    p.add_argument(
        "--fault",
        action="store_true",
        help="with --processes >= 2: once everyone has answered, "
        "stop the first replica; its students reconnect, find their answer and change it",
    )
    p.add_argument(
        "--maxconn",
        type=int,
        help="run-local's connections per replica before HAProxy queues; "
        "with --fault the surviving replicas must hold the whole class",
    )
    p.add_argument("--fault-signal", choices=("KILL", "TERM"), default="KILL")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if args.fault and args.processes < 2:
        p.error("--fault needs --processes 2 or more")
    if not 1 <= args.students <= 400 or args.join + args.think[1] > args.answer_within:
        p.error("1-400 students, and --join + the longest think time must fit in --answer-within")
    log_dir = Path(tempfile.mkdtemp(prefix="rbfviz-class-bench-"))
    before = loadavg()
    base_url, db_url, pids, app_urls, stop = start_target(args, log_dir)
    try:
        warm = asyncio.run(warm_up(app_urls, args.timeout))
        result = asyncio.run(run_class(args, base_url, db_url, pids))
        result["warm_up_s"] = warm
    finally:
        stop()
    result.update(loadavg_before=before, loadavg_after=loadavg(), via_proxy=not (
        args.processes == 1 and args.database == "sqlite"), log_dir=str(log_dir))  # fmt: skip
    ok = print_report(result, args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
