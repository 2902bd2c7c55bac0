#!/usr/bin/env bash
# The browser tests (pytest -m "e2e and not container": the suite CI's main pytest step runs; the
# podman tests are CI's own step), RUNS times in a row (default 5); the runs listed in HOG_RUNS
# (default "2 4") beside a CPU hog: a one-thread busy loop pinned to one core that stops by itself
# after HOG_SECONDS (default 1800) or when its run ends, whichever comes first.
#
#   bash bench/flake_check.sh                 # 5 runs, runs 2 and 4 beside the hog
#   RUNS=2 HOG_RUNS=2 bash bench/flake_check.sh -k accessibility   # extra arguments go to pytest
#
# Each run uses the README test command's workers: XDIST (default "-n 2 --dist loadgroup": two workers,
# each with its own app server and Chromium); XDIST="-n 0" runs in one process.
#
# Prints one line per run (exit code, wall and CPU time, load average before and after, pytest's summary,
# the failed tests by name) and a
# last line "flake check: N of RUNS runs failed"; each run's log is artifacts/flake-check/run-<i>.log.
# Exit code 0 only if every run passed. Needs the browser tests' environment (docs/contribute/tests.md).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${RUNS:-5}
hog_runs=" ${HOG_RUNS:-2 4} "
hog_seconds=${HOG_SECONDS:-1800}
read -r -a xdist <<<"${XDIST--n 2 --dist loadgroup}"
python=${PYTHON:-python}
logs=$root/artifacts/flake-check
mkdir -p "$logs"
load() { cut -d' ' -f1-3 /proc/loadavg; }
summary_re='^(=+ )?(no tests ran|[0-9]+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?))\b.* in [0-9.]+s'

failed=0
for ((i = 1; i <= runs; i++)); do
  hog=
  if [[ $hog_runs == *" $i "* ]]; then
    # bounded: the loop ends by itself after hog_seconds even if this script is killed
    "$python" -c "import time
end = time.monotonic() + $hog_seconds
while time.monotonic() < end:
    pass" &
    hog=$!
    command -v taskset >/dev/null && taskset -cp 0 "$hog" >/dev/null
  fi
  before=$(load)
  start=$SECONDS
  timer=(); [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f '%U %S' -o "$logs/run-$i.cpu")
  "${timer[@]}" "$python" -m pytest "${xdist[@]}" -m "e2e and not container" -p no:cacheprovider -q "$@" >"$logs/run-$i.log" 2>&1
  rc=$?
  if [[ -n $hog ]]; then kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null; fi
  ((rc == 0)) || failed=$((failed + 1))
  # pytest's closing line: "=== 3 failed, 101 passed, … in 612.3s ===", or without the = rule under -q
  summary=$(grep -E "$summary_re" "$logs/run-$i.log" | tail -n 1 | sed -E 's/^=+ | =+$//g')
  # CPU seconds (user + system) of pytest and the servers and browsers it waited for
  cpu=$([[ -s $logs/run-$i.cpu ]] && awk 'END { printf ", %.0f CPU s", $1 + $2 }' "$logs/run-$i.cpu")
  printf 'run %d/%d%s: exit %d in %d s%s, load average %s -> %s; %s\n' "$i" "$runs" \
    "${hog:+ beside a CPU hog on core 0}" "$rc" "$((SECONDS - start))" "$cpu" "$before" "$(load)" \
    "${summary:-no pytest summary line (see the log)}"
  # the failed tests by name (pytest -ra's short summary): which test, not only how many
  grep -E '^(FAILED|ERROR) ' "$logs/run-$i.log" | cut -c1-300 | sed 's/^/    /'
done
echo "flake check: $failed of $runs runs failed"
((failed == 0))
