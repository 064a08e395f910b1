#!/usr/bin/env bash
# The cost of the ingress filter: one endpoint in Jetty (IngressServer) under four paths of one process: no filter
# (plain), a filter that only passes requests on (noop: what any servlet filter costs), Sluice's filter, and a
# Bucket4j filter with the same limit; loaded by wrk over loopback, side by side in one sitting.
#   open regime:  a limit no load reaches (every request allowed). R rounds; in each, every path in turn (the order
#                 rotated each round): throughput with C connections, then latency with one connection (a closed
#                 loop: each request's own time, without queueing behind others). The machine is shared with other
#                 tenants, so the costs that count are the medians of each round's own differences: a round's paths
#                 are loaded back to back, under the same load from elsewhere.
#   exact regime: N requests allowed per hour; 5 s of load must get exactly N answers 200 and the rest 429.
# Writes bench/results/ingress.json and bench/results/ingress.md. Needs wrk (Debian package 'wrk').
# Usage: bench/run-ingress.sh [--rounds 12] [--seconds 4] [--connections 32] [--results bench/results]
# Takes about rounds x 4 x (2 x seconds) + 40 seconds (7 min by default), build excluded.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=12
seconds=4
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

start() { # limit
  "$JAVA" -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "$JAR" dev.sluice.bench.IngressServer "$port" "$1" \
    > "$raw/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do grep -q '^ready' "$raw/server.log" && return 0; sleep 0.1; done
  echo "IngressServer did not start:" >&2; cat "$raw/server.log" >&2; exit 1
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; }
url() { echo "http://127.0.0.1:$port/$1/hello"; }

modes=(plain noop sluice bucket4j)
start open
for mode in "${modes[@]}"; do
  wrk -t1 -c"$connections" -d5s "$(url "$mode")" > /dev/null # warm-up: JIT, connections
done
for round in $(seq 1 "$rounds"); do
  for k in 0 1 2 3; do
    mode=${modes[$(( (k + round) % 4 ))]}
    wrk -t1 -c"$connections" -d"${seconds}s" --latency "$(url "$mode")" > "$raw/open-$mode-$round.txt"
    wrk -t1 -c1 -d"${seconds}s" --latency "$(url "$mode")" > "$raw/one-$mode-$round.txt"
  done
  echo "round $round: $(for m in "${modes[@]}"; do printf '%s %s  ' "$m" "$(awk '/Requests\/sec/ {print $2}' "$raw/open-$m-$round.txt")"; done)"
done
stop
exact=5000
start "exact:$exact"
for mode in sluice bucket4j; do
  wrk -t1 -c"$connections" -d5s "$(url "$mode")" > "$raw/exact-$mode.txt"
done
stop

machine="$(nproc) vCPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), shared"
python3 bench/summarize-ingress.py "$raw" "$OUT" "$rounds" "$seconds" "$connections" "$exact" \
  "$commit" "$measured_commit" "$dirty" "$("$JAVA" -version 2>&1 | head -1)" "$(wrk --version 2>&1 | head -1)" "$machine"
