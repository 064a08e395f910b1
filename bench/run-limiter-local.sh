#!/usr/bin/env bash
# Benchmarks Sluice's in-memory rate limiter against Bucket4j, Resilience4j and Guava, and measures the heap
# each retains per idle key. Writes:
#   bench/results/limiter-local.json          JMH results (JSON), with -prof gc
#   bench/results/limiter-local.txt           JMH's human-readable log of the same run
#   bench/results/limiter-local-memory.json   retained heap bytes per idle key: 3 runs and their median
# Takes about 6 to 7 minutes on 2 cores. Usage: bench/run-limiter-local.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=prepare.sh
source bench/prepare.sh

# Throughput (ops/us = millions of decisions per second, summed over threads) and allocation per decision;
# ClockBench is the control: the cost of the clock read every limiter makes per call.
"$JAVA" -jar "$JAR" 'dev\.sluice\.bench\.(LocalLimiterBench|SluiceDecisionBench|ClockBench)\.' \
  -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc \
  -rf json -rff "$OUT/limiter-local.json" | tee "$OUT/limiter-local.txt"

# Retained heap bytes per idle key, key strings excluded: 3 fresh JVMs, fixed heap, serial GC.
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for run in 1 2 3; do
  "$JAVA" -Xms2g -Xmx2g -XX:+UseSerialGC -cp "$JAR" dev.sluice.bench.RetainedBytesPerKey "$run" | tee -a "$runs"
done
"$JAVA" -cp "$JAR" dev.sluice.bench.RetainedBytesPerKey --summarize "$runs" > "$OUT/limiter-local-memory.json"
cat "$OUT/limiter-local-memory.json"
