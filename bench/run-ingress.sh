#!/usr/bin/env bash
# The cost of the ingress filter: one endpoint in Jetty (IngressServer) without a filter, behind Sluice's filter and
# behind a Bucket4j filter with the same limit, loaded by wrk over loopback, side by side in one sitting.
#   open regime:  a limit no load reaches (every request allowed): throughput and latency of each, R rounds, the
#                 order of the three rotated each round; medians
#   exact regime: N requests allowed per hour; a 5 s run must get exactly N answers 200 and the rest 429
# Writes bench/results/ingress.json and bench/results/ingress.md. Needs wrk (Debian package 'wrk').
# Usage: bench/run-ingress.sh [--rounds 5] [--seconds 10] [--connections 32] [--results bench/results]
# Takes about (3 x rounds x (seconds + 5)) + 30 seconds, build excluded.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5
seconds=10
connections=32
results=bench/results
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --rounds R --seconds S --connections C --results DIR)" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install wrk)" >&2; exit 1; }

# shellcheck source=prepare.sh
source bench/prepare.sh
OUT="$results"
mkdir -p "$OUT"
describe_measured sluice-core sluice-http
raw=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$raw"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

start() { # mode limit
  "$JAVA" -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "$JAR" dev.sluice.bench.IngressServer "$1" "$port" "$2" \
    > "$raw/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do grep -q '^ready' "$raw/server.log" && return 0; sleep 0.1; done
  echo "IngressServer $1 did not start:" >&2; cat "$raw/server.log" >&2; exit 1
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; }
url="http://127.0.0.1:$port/hello"

modes=(plain sluice bucket4j)
for round in $(seq 1 "$rounds"); do
  for k in 0 1 2; do
    mode=${modes[$(( (k + round) % 3 ))]}
    start "$mode" open
    wrk -t1 -c"$connections" -d3s "$url" > /dev/null # warm-up: JIT, connections
    wrk -t1 -c"$connections" -d"${seconds}s" --latency "$url" > "$raw/open-$mode-$round.txt"
    stop
    echo "round $round $mode: $(grep 'Requests/sec' "$raw/open-$mode-$round.txt")"
  done
done
exact=5000
for mode in sluice bucket4j; do
  start "$mode" "exact:$exact"
  wrk -t1 -c"$connections" -d5s "$url" > "$raw/exact-$mode.txt"
  stop
done

machine="$(nproc) vCPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), shared"
python3 bench/summarize-ingress.py "$raw" "$OUT" "$rounds" "$seconds" "$connections" "$exact" \
  "$commit" "$measured_commit" "$dirty" "$("$JAVA" -version 2>&1 | head -1)" "$(wrk --version 2>&1 | head -1)" "$machine"
