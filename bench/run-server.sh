#!/usr/bin/env bash
# The load on ./sluice serve's API and dashboard (dev.sluice.bench.ServerBench), side by side in one JVM run:
#   adds:        for the in-memory engine, then Redis: a SluiceServer on a free loopback port; R runs of wrk adding
#                jobs over the API (POST /api/v1/queues/{q}/jobs, bench/server-add.lua: a 100-byte payload, no job
#                id) for S s with C connections and T wrk threads, each followed by as many queue.add calls from C
#                threads of the same JVM on the same engine: requests/s, p50 and p99, and the API's throughput as a
#                share of the Java call's;
#   dashboards:  on Redis, while a worker completes 100 jobs a second, 0, 1 and 50 open dashboard event streams
#                (GET /api/v1/dashboard/events), a window of W s each, the order rotated each of N rounds: Redis's
#                CPU (INFO CPU, used_cpu_sys + used_cpu_user) per second of the window.
# Starts a private redis-server on a free port (no persistence), so that its CPU is this benchmark's alone; needs wrk
# (Debian package 'wrk'). Prints the figures and Markdown tables, also kept in bench/results/server-raw.txt.
# Heavy: run it alone (flock /tmp/sluice-build.lock bench/run-server.sh).
#
# Usage: bench/run-server.sh [--runs 3] [--seconds 10] [--connections 32] [--threads 2] [--window 30] [--rounds 3]
# Takes about 2 x (5 + runs x (seconds + 5)) + rounds x 3 x (window + 6) + 10 seconds (about 7 min), build excluded.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
seconds=10
connections=32
threads=2
window=30
rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --window) window="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --runs R --seconds S --connections C --threads T --window W --rounds N)" >&2
       exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install wrk)" >&2; exit 1; }

# shellcheck source=prepare.sh
source bench/prepare.sh
describe_measured sluice-core sluice-redis sluice-server
scratch="$(mktemp -d /tmp/sluice-server-bench.XXXXXX)"
start_private_redis "$scratch"

raw="$OUT/server-raw.txt"
{
  echo "# bench/run-server.sh --runs $runs --seconds $seconds --connections $connections --threads $threads" \
    "--window $window --rounds $rounds"
  echo "# $(date -u +%Y-%m-%dT%H:%MZ); commit $commit (measured code: $measured_commit; changed since: $dirty);" \
    "$("$JAVA" -version 2>&1 | head -1); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2);" \
    "$(redis-server --version | cut -d' ' -f1-3); $(nproc) vCPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), shared"
  "$JAVA" -Xms1g -Xmx1g -cp "$JAR" dev.sluice.bench.ServerBench "redis://127.0.0.1:$port" bench/server-add.lua \
    "$runs" "$seconds" "$connections" "$threads" "$window" "$rounds" 2>"$scratch/stderr.txt" \
    || { cat "$scratch/stderr.txt" >&2; exit 1; }
} | tee "$raw"
