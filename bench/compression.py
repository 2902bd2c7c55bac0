"""Bytes of a first visit to the Explorer, measured in Chromium: straight from Streamlit, through
HAProxy's on-the-fly gzip, and through HAProxy with the precompressed front-end files; and the
proxy's CPU per first visit.

    .venv/bin/python bench/compression.py                   # 3 visits per way, prints a table
    .venv/bin/python bench/compression.py --visits 5 --json artifacts/compression.json

It starts `deploy/run-local --processes 1` twice (once with --no-precompressed), opens
/Explorer at the defaults in a fresh Chromium context (no cache, no cookie) --visits times per way,
and adds up what Chromium reports for every HTTP response of the page (headers + body as sent,
i.e. compressed: Playwright's request.sizes()). The websocket's frames are counted apart: they are
the app's data, not files, and no way here compresses them. Ways:

  streamlit      the replica's own port: what `streamlit run app.py` or the container alone sends
  proxy-gzip     HAProxy's on-the-fly gzip only (libslz in Debian's build, about gzip -1)
  proxy          deploy/haproxy.cfg as shipped: the front-end files precompressed, Brotli for a
                 browser that offers it (Chromium does to localhost and over HTTPS)
  proxy-no-br    the same, the browser offering only gzip and deflate (Chromium over plain HTTP
                 to another machine: a classroom server without TLS)
  proxy-ws-deflate  as "proxy", with Streamlit's websocket compression on
                 (server.enableWebsocketCompression, permessage-deflate): is it worth the app's CPU?

HAProxy's and the replica's CPU are read from /proc/PID/stat (user + system) before and after the
visits of a way, divided by the visits. What the replica sent on the wire (the websocket, as
compressed or not, and the few answers not served from HAProxy's memory) is HAProxy's "bout" of
the replica, from its stats page. Target: a first visit through the proxy ≤ 3 MB over HTTP.
"""

from __future__ import annotations

import argparse
import base64
import csv
import io
import json
import os
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.chromium import CHROMIUM_ARGS  # noqa: E402
from harness.proc import cpu_seconds  # noqa: E402
from harness.run_local import RunLocal  # noqa: E402
from harness.settings import chromium_path  # noqa: E402

TARGET_BYTES = 3_000_000
APP = "[data-testid='stApp']"


def replica_bytes_out(rl: RunLocal) -> int:
    """Bytes HAProxy received from the replica and passed on (its stats page's "bout")."""
    login = base64.b64encode(f"{rl.info['stats_user']}:{rl.info['stats_password']}".encode()).decode()
    request = urllib.request.Request(
        rl.info["stats_url"] + ";csv", headers={"Authorization": f"Basic {login}"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        rows = csv.DictReader(io.StringIO(r.read().decode().lstrip("# ")))
        return sum(
            int(row["bout"]) for row in rows if row["pxname"] == "streamlit" and row["svname"] == "app1"
        )


def first_visit(browser, url: str, accept_encoding: str | None, timeout_ms: int) -> dict:
    """One first visit in a fresh context: HTTP bytes by content type and encoding, websocket bytes."""
    headers = {"Accept-Encoding": accept_encoding} if accept_encoding else {}
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, extra_http_headers=headers)
    page = context.new_page()
    responses, ws_bytes = [], [0]

    def finished(request):
        sizes, response = request.sizes(), request.response()
        kind = (response.headers.get("content-type") or "?").split(";")[0] if response else "?"
        encoding = (response.headers.get("content-encoding") or "identity") if response else "?"
        responses.append((kind, encoding, sizes["responseBodySize"] + sizes["responseHeadersSize"]))

    def websocket(ws):
        ws.on("framereceived", lambda f: ws_bytes.__setitem__(0, ws_bytes[0] + len(f)))

    page.on("requestfinished", finished)
    page.on("websocket", websocket)
    try:
        page.goto(url, timeout=timeout_ms)
        page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=timeout_ms)
        page.wait_for_selector(".js-plotly-plot", timeout=timeout_ms)
        page.wait_for_selector(f"{APP}[data-test-script-state='notRunning']", timeout=timeout_ms)
        page.wait_for_timeout(2000)  # late requests (fonts, lazily loaded chunks)
    finally:
        context.close()
    by_type: dict[str, int] = {}
    for kind, _, size in responses:
        by_type[kind] = by_type.get(kind, 0) + size
    return {
        "http_bytes": sum(size for *_, size in responses),
        "requests": len(responses),
        "by_type": by_type,
        "encodings": sorted({e for k, e, _ in responses if "javascript" in k}),
        "ws_received_bytes": ws_bytes[0],
    }


def measure(
    browser,
    url: str,
    accept_encoding: str | None,
    visits: int,
    rl: RunLocal,
    via_proxy: bool,
    timeout_ms: int,
) -> dict:
    haproxy_pid, app_pid = rl.info["haproxy_pid"], rl.info["replicas"][0]["pid"]
    cpu0, app0, out0 = cpu_seconds(haproxy_pid), cpu_seconds(app_pid), replica_bytes_out(rl)
    runs = [first_visit(browser, url, accept_encoding, timeout_ms) for _ in range(visits)]
    row = {**runs[-1], "http_bytes_all": [r["http_bytes"] for r in runs]}
    row["app_cpu_s_per_visit"] = round((cpu_seconds(app_pid) - app0) / visits, 4)
    if via_proxy:
        row["proxy_cpu_s_per_visit"] = round((cpu_seconds(haproxy_pid) - cpu0) / visits, 4)
        row["replica_bytes_out_per_visit"] = (replica_bytes_out(rl) - out0) // visits
    return row


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--visits", type=int, default=3, help="first visits per way (default 3)")
    p.add_argument("--json", type=Path, help="write the results here")
    p.add_argument("--chromium", default=chromium_path())
    p.add_argument("--timeout", type=float, default=120, help="seconds per page (default 120)")
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    timeout_ms = int(args.timeout * 1000)
    rows = {}
    logs = ROOT / "artifacts" / "bench-compression"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        try:
            ways = {
                "gzip": (False, {}),
                "precompressed": (True, {"STREAMLIT_SERVER_ENABLE_WEBSOCKET_COMPRESSION": "false"}),
                "ws-deflate": (True, {"STREAMLIT_SERVER_ENABLE_WEBSOCKET_COMPRESSION": "true"}),
            }
            for setup, (precompressed, env) in ways.items():
                rl = RunLocal(1, logs / setup, precompressed=precompressed, env=env)
                try:
                    proxy, replica = rl.info["url"] + "/Explorer", rl.info["replicas"][0]["url"] + "/Explorer"
                    # the replica warms up (first script run imports torch) before anything is counted
                    first_visit(browser, proxy, None, timeout_ms)
                    if setup == "gzip":
                        rows["streamlit"] = measure(
                            browser, replica, None, args.visits, rl, False, timeout_ms
                        )
                        rows["proxy-gzip"] = measure(browser, proxy, None, args.visits, rl, True, timeout_ms)
                    elif setup == "precompressed":
                        rows["proxy"] = measure(browser, proxy, None, args.visits, rl, True, timeout_ms)
                        rows["proxy-no-br"] = measure(
                            browser, proxy, "gzip, deflate", args.visits, rl, True, timeout_ms
                        )
                    else:
                        rows["proxy-ws-deflate"] = measure(
                            browser, proxy, None, args.visits, rl, True, timeout_ms
                        )
                finally:
                    rl.stop()
        finally:
            browser.close()

    base = rows["streamlit"]["http_bytes"]
    load = os.getloadavg()
    print(
        f"\nFirst visit to the Explorer (defaults) in Chromium, {args.visits} visits per way; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(
        f"{'way':16s} {'HTTP MB':>8s} {'ratio':>6s} {'JS MB':>6s} {'fonts MB':>8s} {'requests':>8s} "
        f"{'JS encoding':>16s} {'replica→proxy MB':>16s} {'proxy CPU-s':>11s} {'app CPU-s':>9s}"
        "  (per visit; target ≤ 3 MB over HTTP)"
    )
    for way in ("streamlit", "proxy-gzip", "proxy", "proxy-no-br", "proxy-ws-deflate"):
        r = rows[way]
        js = sum(v for k, v in r["by_type"].items() if "javascript" in k)
        fonts = sum(v for k, v in r["by_type"].items() if k.startswith("font/"))
        cpu, out = r.get("proxy_cpu_s_per_visit"), r.get("replica_bytes_out_per_visit")
        print(
            f"{way:16s} {r['http_bytes'] / 1e6:8.2f} {r['http_bytes'] / base:6.2f} {js / 1e6:6.2f} "
            f"{fonts / 1e6:8.2f} {r['requests']:8d} {','.join(r['encodings']):>16s} "
            f"{'-' if out is None else f'{out / 1e6:.2f}':>16s} {'-' if cpu is None else f'{cpu:.3f}':>11s} "
            f"{r['app_cpu_s_per_visit']:9.3f}  {'ok' if r['http_bytes'] <= TARGET_BYTES else 'over'}"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"loadavg": load, "visits": args.visits, "ways": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
