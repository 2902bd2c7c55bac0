"""Sizing: how many students one and two app processes serve behind HAProxy, and the CPU per student.

    .venv/bin/python bench/scaleout.py                                # 1 and 2 processes, the default ladder
    .venv/bin/python bench/scaleout.py --processes 2 --sessions 80 160 320 --json artifacts/scaleout.json

For each process count it starts `deploy/run-local --processes P` (HAProxy and P app processes on
127.0.0.1, the per-replica connection cap raised so that only the processes limit), then runs
bench/load.py against the proxy for each class size of the ladder, smallest first, until a class
misses the target (σ commit → updated page p95 ≤ 2 s, zero errors). The whole class arrives within
--arrival-seconds (default 10, as bench/load.py's default mode: the teacher says "open the Explorer")
and each student commits σ --changes times with --think seconds between commits, so all N students
are on the server at once: N is the class size, not a rate.

CPU is read from /proc/PID/stat (user + system time) of every app process and of HAProxy before and
after each class; "CPU per student" is that server CPU divided by the students (warm-up and probe
students of load.py included in the CPU, not in the count: a small overestimate). The load client
runs on the same machine and competes for the same 2 cores; its own CPU is reported too.

Measured numbers and the sizing table built from them are in docs/deploy/sizing.md.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's harness

from harness.load_run import run_load  # noqa: E402
from harness.proc import children_cpu_seconds, machine_busy_seconds, rss_mb  # noqa: E402
from harness.run_local import RunLocal  # noqa: E402

TARGET_P95 = 2.0


def one_class(rl: RunLocal, sessions: int, args, out_dir: Path) -> dict:
    report_path = out_dir / f"load-{len(rl.pids)}p-{sessions}.json"
    arrival = args.arrival_seconds
    cpu0, proxy0, client0, busy0, t0 = (
        rl.server_cpu(),
        rl.proxy_cpu(),
        children_cpu_seconds(),
        machine_busy_seconds(),
        time.monotonic(),
    )
    proc, r = run_load(
        report_path,
        sessions=sessions,
        port=rl.port,
        pid=rl.pids[0],
        arrival_seconds=arrival,
        changes=args.changes,
        think=args.think,
        settle=1,
        timeout=args.timeout,
    )
    wall = time.monotonic() - t0
    server_cpu, proxy_cpu, client_cpu = (
        rl.server_cpu() - cpu0,
        rl.proxy_cpu() - proxy0,
        children_cpu_seconds() - client0,
    )
    other_cpu = machine_busy_seconds() - busy0 - server_cpu - proxy_cpu - client_cpu
    if r is None:
        return {
            "processes": len(rl.pids),
            "sessions": sessions,
            "failed": proc.stdout[-2000:] + proc.stderr[-2000:],
        }
    latency = r["commit_to_page"]
    row = {
        "processes": len(rl.pids),
        "sessions": sessions,
        "arrival_seconds": arrival,
        "wall_seconds": round(wall, 1),
        "errors": len(r["errors"]),
        "first_errors": r["errors"][:5],
        "commit_p50": latency["p50"],
        "commit_p95": latency["p95"],
        "commit_max": latency["max"],
        "open_p50": r["open"]["p50"],
        "open_p95": r["open"]["p95"],
        "server_cpu_seconds": round(server_cpu, 2),
        "proxy_cpu_seconds": round(proxy_cpu, 2),
        "client_cpu_seconds": round(client_cpu, 2),
        # everything else the machine ran meanwhile (other people's tests, the browser, ...): a busy
        # machine makes the latencies worse than on a machine of its own
        "other_cpu_seconds": round(other_cpu, 1),
        "server_cpu_per_student": round(server_cpu / sessions, 3),
        "server_cores_busy": round(server_cpu / wall, 2),
        "rss_mb": [rss_mb(p) for p in rl.pids],
    }
    row["ok"] = row["errors"] == 0 and row["commit_p95"] is not None and row["commit_p95"] <= args.target
    return row


def fmt(row: dict) -> str:
    if "failed" in row:
        return f"  {row['sessions']:>4} students: load.py failed: {row['failed'][-300:]}"
    if row["commit_p95"] is None or row["open_p95"] is None:
        return (
            f"  {row['sessions']:>4} students: errors {row['errors']}, no σ commit or open completed "
            f"(first errors: {row['first_errors'][:2]}) ✗"
        )
    return (
        f"  {row['sessions']:>4} students over {row['arrival_seconds']:.0f} s: errors {row['errors']}, "
        f"commit → page p50 {row['commit_p50']:.3f} / p95 {row['commit_p95']:.3f} / max "
        f"{row['commit_max']:.2f} s, "
        f"first open p95 {row['open_p95']:.2f} s; server CPU {row['server_cpu_seconds']:.1f} s "
        f"({row['server_cpu_per_student']:.3f} s per student, {row['server_cores_busy']:.2f} cores over "
        f"{row['wall_seconds']:.0f} s), HAProxy {row['proxy_cpu_seconds']:.1f} s, load client "
        f"{row['client_cpu_seconds']:.1f} s, other work on the machine {row['other_cpu_seconds']:.0f} s; "
        f"RSS {[round(m) for m in row['rss_mb'] if m]} MB "
        f"{'✓' if row['ok'] else '✗'}"
    )


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    p.add_argument(
        "--sessions",
        type=int,
        nargs="+",
        default=[40, 80, 120, 160, 240, 320, 400, 480],
        help="the ladder of class sizes, tried in order until one misses the target",
    )
    p.add_argument(
        "--arrival-seconds",
        type=float,
        default=10.0,
        help="the whole class arrives within this many seconds (default 10)",
    )
    p.add_argument("--changes", type=int, default=5, help="σ commits per student (default 5)")
    p.add_argument("--think", type=float, nargs=2, default=(0.5, 2.0), help="seconds between commits")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--target", type=float, default=TARGET_P95, help="commit → page p95 target, s (default 2)")
    p.add_argument("--maxconn", type=int, default=2000, help="HAProxy's per-replica cap for the runs")
    p.add_argument("--json", type=Path, default=ROOT / "artifacts" / "scaleout.json")
    args = p.parse_args(argv)
    out_dir = args.json.parent / "scaleout"
    out_dir.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    # Every configuration runs at once (an idle app process costs next to nothing) and each class
    # size is played to 1 process, then to 2, ...: on a shared machine the configurations being
    # compared then meet about the same other work. A configuration leaves the ladder at its first miss.
    rows, best = [], {}
    runs = {}
    try:
        for processes in args.processes:
            runs[processes] = RunLocal(processes, out_dir / f"run-local-{processes}p", maxconn=args.maxconn)
            print(
                f"{processes} process(es) behind HAProxy at http://127.0.0.1:{runs[processes].port}",
                flush=True,
            )
        for processes, rl in runs.items():
            # warm-up (not counted): every process imports torch and fills its caches on its first runs
            warm = one_class(
                rl, 4 * processes, argparse.Namespace(**{**vars(args), "arrival_seconds": 1.0}), out_dir
            )
            print(f"  {processes}p warm-up:" + fmt(warm)[1:], flush=True)
        active = list(runs)
        for sessions in sorted(args.sessions):
            for processes in list(active):
                row = one_class(runs[processes], sessions, args, out_dir)
                rows.append(row)
                print(f"  {processes}p" + fmt(row)[1:], flush=True)
                if row.get("ok"):
                    best[processes] = sessions
                else:
                    active.remove(processes)
            if not active:
                break
    finally:
        for rl in runs.values():
            rl.stop()
    result = {
        "arrival_seconds": args.arrival_seconds,
        "changes": args.changes,
        "think": list(args.think),
        "target_p95": args.target,
        "cores": os.cpu_count(),
        "rows": rows,
        "largest_class_within_target": best,
        "students_per_process": {p: n / p for p, n in best.items()},
    }
    args.json.write_text(json.dumps(result, indent=1))
    print(
        f"\nlargest class within p95 ≤ {args.target:g} s and 0 errors: "
        + ", ".join(f"{p} process(es): {n} students ({n / p:.0f} per process)" for p, n in best.items())
        + f" (ladder {sorted(args.sessions)}); full results in {args.json}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
