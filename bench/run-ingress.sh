#!/usr/bin/env bash
# The cost of the ingress filter: one endpoint in Jetty (IngressServer) under five paths of one process: no filter
# (plain), a filter that only passes requests on (noop: what any servlet filter costs), one that only sets the
# fields Sluice sets (fields), Sluice's filter, and a Bucket4j filter with the same limit; loaded by wrk over
# loopback, side by side in one sitting.
#   open regime:  a limit no load reaches (every request allowed). R rounds; in each, every path in turn (the order
#                 rotated each round): throughput with C connections, then latency with one connection (a closed
#                 loop: each request's own time, without queueing behind others). The machine is shared with other
#                 tenants, so the costs that count are the medians of each round's own differences: a round's paths
#                 are loaded back to back, under the same load from elsewhere.
#   exact regime: N requests allowed per hour; 5 s of load must get exactly N answers 200 and the rest 429.
# Writes bench/results/ingress.json and bench/results/ingress.md. Needs wrk (Debian package 'wrk').
# Usage: bench/run-ingress.sh [--rounds 12] [--seconds 4] [--connections 32] [--results bench/results]
# Takes about rounds x 5 x (2 x seconds) + 40 seconds (9 min by default), build excluded.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=ingress-load.sh
source bench/ingress-load.sh
ingress_options "$@"

# shellcheck source=prepare.sh
source bench/prepare.sh
OUT="$results"
mkdir -p "$OUT"
describe_measured sluice-core sluice-http
server_command() { # LIMIT
  exec "$JAVA" -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "$JAR" dev.sluice.bench.IngressServer "$port" "$1"
}
ingress_load "IngressServer"

python3 bench/summarize-ingress.py "$raw" "$OUT" "$rounds" "$seconds" "$connections" "$exact" \
  "$commit" "$measured_commit" "$dirty" "$("$JAVA" -version 2>&1 | head -1)" "$(wrk --version 2>&1 | head -1)" "$machine"
