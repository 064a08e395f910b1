#!/usr/bin/env bash
# Whole-batch throughput of Sluice's in-memory queue, side by side with a plain ThreadPoolExecutor doing the same
# no-op work (the ceiling for a queue in one JVM): enqueue 200,000 jobs (single add; addBulk by 500), and process
# 200,000 waiting jobs at concurrency 1, 10 and 100. 3 warm-up and 21 measured rounds, contenders interleaved.
# Writes bench/results/queue-local.json (every sample, medians, ratios, targets) and prints the Markdown tables
# of bench/results/README.md. Takes about 70 seconds on 2 cores, build included.
# Usage: bench/run-queue-local.sh [QueueLocalBench options, e.g. --rounds 9 --warmup 2 --jobs 200000]
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=prepare.sh
source bench/prepare.sh

describe_measured sluice-core
# The queue engine's sources as measured (they may be uncommitted): one SHA-256 over them, in name order.
engine="$(cat sluice-core/src/main/java/dev/sluice/internal/queue/*.java 2>/dev/null | sha256sum | cut -c1-16)"

# Fixed heap, default collector (G1), heap touched up front so page faults do not land in a timed part.
"$JAVA" -Xms2g -Xmx2g -XX:+AlwaysPreTouch \
  "-Dsluice.bench.commit=$commit" "-Dsluice.bench.measuredCommit=$measured_commit" \
  "-Dsluice.bench.dirty=$dirty" "-Dsluice.bench.engineSources=$engine" \
  -cp "$JAR" dev.sluice.bench.QueueLocalBench --out "$OUT/queue-local.json" "$@"

if command -v python3 >/dev/null 2>&1; then
  echo
  python3 bench/summarize-queue-local.py "$OUT"
fi
